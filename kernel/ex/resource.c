/*
 * resource.c - an ERESOURCE's life (initialise, reinitialise, delete), the
 * list of all resources, and the queries.  resource.h has the rules, the
 * invariants, the lock order and what each record holds.
 *
 * The list (ExpSystemResourcesList, NT's ExpSystemResourcesList) is
 * guarded by ExpResourceListLock, an in-stack queued spin lock taken with
 * no other lock held.
 */
#include "kernel/ex/resource_internal.h"

#include "kernel/mm/heap.h"
#include "kernel/lib/libk.h"
#include "kernel/debug/panic.h"
#include "kernel/sched/sched.h"
#include "kernel/trace/objname.h"

static LIST_ENTRY ExpSystemResourcesList = { &ExpSystemResourcesList, &ExpSystemResourcesList };
static KSPIN_LOCK ExpResourceListLock;

void ex_resource_name_objects(void)
{
	trace_name_object(&ExpResourceListLock, KprofObjectQueuedSpinLock, "ExpResourceListLock");
}

void exp_check_irql(const char *fn, const ERESOURCE *r, KIRQL limit)
{
	KIRQL irql = ke_get_current_irql();
	if (irql > limit)
		ke_bug_check_ex(IRQL_NOT_LESS_OR_EQUAL, irql, (uintptr_t)r, limit, 0,
				"%s(%p) at IRQL %u: this ERESOURCE call needs IRQL %u or below", fn, (const void *)r,
				irql, limit);
}

/* Bug check with the SpinLock already released (a unit test that catches
 * it carries on). */
static __attribute__((noreturn)) void misuse(KLOCK_QUEUE_HANDLE *h, const ERESOURCE *r, const char *fn,
					     const char *what)
{
	uint32_t active = r->ActiveCount, sw = r->NumberOfSharedWaiters, xw = r->NumberOfExclusiveWaiters;
	exp_unlock(h);
	ke_bug_check_ex(KPROF_ASSERTION_FAILED, (uintptr_t)r, active, sw, xw,
			"%s(%p): %s (%u owners, %u shared and %u exclusive waiters)", fn, (const void *)r, what, active,
			sw, xw);
}

static void list_update(ERESOURCE *r, bool insert)
{
	KLOCK_QUEUE_HANDLE h;
	ke_acquire_in_stack_queued_spin_lock(&ExpResourceListLock, &h);
	if (insert)
		list_insert_tail(&ExpSystemResourcesList, &r->SystemResourcesList);
	else
		list_remove(&r->SystemResourcesList);
	ke_release_in_stack_queued_spin_lock(&h);
	exp_count_resources(insert ? 1 : -1);
}

static void init_waiters(ERESOURCE *r)
{
	ke_initialize_semaphore(&r->SharedWaiters, 0, INT32_MAX);
	ke_initialize_event(&r->ExclusiveWaiters, SynchronizationEvent, false);
}

static void write_life_record(ERESOURCE *r, enum ex_resource_event e, uint32_t depth, uint32_t owners)
{
	WMI_RESOURCE w = {
		.MaxRecursionDepth = depth,
		.ThreadId = exp_thread_id(ke_get_current_thread()),
		.Resource = (uint64_t)(uintptr_t)r,
		.Action = ex_resource_action(e),
		.ContentionDelta = owners,
	};
	exp_trace(e, &w);
}

NTSTATUS ex_initialize_resource_lite(ERESOURCE *r)
{
	exp_check_irql("ex_initialize_resource_lite", r, DISPATCH_LEVEL);
	memset(r, 0, sizeof(*r));
	init_waiters(r);
	ke_initialize_spin_lock(&r->SpinLock);
	list_update(r, true);
	write_life_record(r, ExResourceInitialize, 0, 0);
	return STATUS_SUCCESS;
}

NTSTATUS ex_reinitialize_resource_lite(ERESOURCE *r)
{
	KLOCK_QUEUE_HANDLE h;

	exp_check_irql("ex_reinitialize_resource_lite", r, APC_LEVEL);
	exp_lock(r, &h);
	if (r->NumberOfSharedWaiters || r->NumberOfExclusiveWaiters || r->SharedGrants || r->ExclusiveGrants)
		misuse(&h, r, "ex_reinitialize_resource_lite", "reinitialised while threads wait for it");
	uint32_t capacity = exp_capacity(r), owners = r->ActiveCount;
	/* The owners are forgotten: their holds end without release records
	 * and they may not release it any more. */
	memset(&r->OwnerEntry, 0, sizeof(r->OwnerEntry));
	for (uint32_t i = 1; r->OwnerTable && i < r->OwnerTable[0].TableSize; i++)
		memset(&r->OwnerTable[i], 0, sizeof(r->OwnerTable[i]));
	r->ActiveCount = 0;
	r->Flag = 0;
	r->ActiveEntries = 0;
	r->ContentionCount = 0;
	init_waiters(r); /* nobody waits on them */
	exp_unlock(&h);
	write_life_record(r, ExResourceReinitialize, capacity, owners);
	return STATUS_SUCCESS;
}

NTSTATUS ex_delete_resource_lite(ERESOURCE *r)
{
	KLOCK_QUEUE_HANDLE h;

	exp_check_irql("ex_delete_resource_lite", r, APC_LEVEL);
	exp_lock(r, &h);
	if (r->ActiveCount) /* no owner implies no waiter */
		misuse(&h, r, "ex_delete_resource_lite", "deleted while owned");
	OWNER_ENTRY *table = r->OwnerTable;
	r->OwnerTable = NULL;
	exp_unlock(&h);
	list_update(r, false);
	kfree(table);
	trace_forget_object(r); /* its address may hold something else next */
	trace_forget_object(&r->SpinLock);
	return STATUS_SUCCESS;
}

bool ex_is_resource_acquired_exclusive_lite(ERESOURCE *r)
{
	KLOCK_QUEUE_HANDLE h;
	KTHREAD *me = ke_get_current_thread();

	exp_check_irql("ex_is_resource_acquired_exclusive_lite", r, DISPATCH_LEVEL);
	exp_lock(r, &h);
	bool owned = (r->Flag & ResourceOwnedExclusive) && me && r->OwnerEntry.OwnerThread == me;
	exp_unlock(&h);
	return owned;
}

uint32_t ex_is_resource_acquired_shared_lite(ERESOURCE *r)
{
	KLOCK_QUEUE_HANDLE h;

	exp_check_irql("ex_is_resource_acquired_shared_lite", r, DISPATCH_LEVEL);
	exp_lock(r, &h);
	const OWNER_ENTRY *e = exp_find_owner(r, ke_get_current_thread());
	uint32_t count = e ? (uint32_t)e->OwnerCount : 0;
	exp_unlock(&h);
	return count;
}

/* NT reads these without the lock; kprof takes it, so the value is one
 * that existed (and a race detector has nothing to say). */
uint32_t ex_get_exclusive_waiter_count(ERESOURCE *r)
{
	KLOCK_QUEUE_HANDLE h;
	exp_lock(r, &h);
	uint32_t n = r->NumberOfExclusiveWaiters;
	exp_unlock(&h);
	return n;
}

uint32_t ex_get_shared_waiter_count(ERESOURCE *r)
{
	KLOCK_QUEUE_HANDLE h;
	exp_lock(r, &h);
	uint32_t n = r->NumberOfSharedWaiters;
	exp_unlock(&h);
	return n;
}
