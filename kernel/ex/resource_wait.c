/*
 * resource_wait.c - waiting for an ERESOURCE (NT's ExpWaitForResource):
 * in slices, with excessive-wait records and owner boosts, and the
 * caller's time-out of the ..._timeout calls.
 *
 * A registered waiter waits on SharedWaiters or ExclusiveWaiters (wait
 * reason WrResource) for at most one slice of the excessive-wait interval
 * (resource.timeout_ms=, or what a workload set: ex_resource_set_timeout).  Taking
 * a count or the event means it was let in.  A slice that ends without
 * one: take the SpinLock and poll the object once more, since a release
 * may have let us in just as the slice ended.  If the poll fails we are
 * still not let in, and (resource.h, the invariants) NumberOf...Waiters
 * still counts us, so:
 *   - the caller's deadline has not come: an excessive wait; record it,
 *     boost the owners, wait again;
 *   - it has: record it too, take ourselves out of NumberOf...Waiters (an
 *     exclusive waiter that was the last one lets in the shared waiters
 *     queued behind it), return false (STATUS_TIMEOUT).
 * Holding the SpinLock while polling is what makes this exact: a release
 * makes its grant and its signal in one step under the same lock.
 *
 * The deadline counts from registration, so the record's WaitTime is at
 * least the caller's time-out; the last slice is rounded up to whole
 * microseconds so that it ends at or after the deadline.
 */
#include "kernel/ex/resource_internal.h"

#include <arch/cpu.h>

#include "kernel/debug/panic.h"
#include "kernel/sched/sched.h"
#include "kernel/ke/time/time.h"

/* NT's ExpTimeout; the key's default until the kernel applies the key. */
static uint32_t excessive_wait_ms = 4000;

void ex_resource_set_timeout(uint32_t ms)
{
	__atomic_store_n(&excessive_wait_ms, ms, __ATOMIC_RELAXED);
}

uint32_t ex_resource_timeout(void)
{
	return __atomic_load_n(&excessive_wait_ms, __ATOMIC_RELAXED);
}

void exp_register_waiter(ERESOURCE *r, struct exp_wait *w, uint64_t timeout_us)
{
	if (w->exclusive)
		r->NumberOfExclusiveWaiters++;
	else
		r->NumberOfSharedWaiters++;
	r->ContentionCount++;
	w->start = arch_rdtsc();
	w->contention = r->ContentionCount;
	w->deadline = EXP_NO_DEADLINE;
	if (timeout_us != KE_WAIT_FOREVER) {
		uint64_t cycles = ke_us_to_tsc(timeout_us);
		w->deadline = cycles < EXP_NO_DEADLINE - w->start ? w->start + cycles : EXP_NO_DEADLINE - 1;
	}
}

/* A slice ended: raise the owners (not ourselves: a sharer may wait in
 * ex_acquire_shared_wait_for_exclusive). */
static void boost_owners(ERESOURCE *r, KTHREAD *me)
{
	if (r->OwnerEntry.OwnerThread && r->OwnerEntry.OwnerThread != me &&
	    ke_boost_owner_thread(r->OwnerEntry.OwnerThread, me))
		exp_count_boost();
	if (r->Flag & ResourceOwnedExclusive)
		return;
	for (uint32_t i = 1; r->OwnerTable && i < r->OwnerTable[0].TableSize; i++) {
		KTHREAD *t = r->OwnerTable[i].OwnerThread;
		if (t && t != me && ke_boost_owner_thread(t, me))
			exp_count_boost();
	}
}

/* Not let in by the deadline: no longer a waiter. */
static void cancel_wait(ERESOURCE *r, bool exclusive)
{
	if (!exclusive) {
		KASSERT(r->NumberOfSharedWaiters > 0);
		r->NumberOfSharedWaiters--;
		return;
	}
	KASSERT(r->NumberOfExclusiveWaiters > 0);
	r->NumberOfExclusiveWaiters--;
	/* Shared waiters only wait behind an exclusive owner or exclusive
	 * waiters: with neither left they come in now. */
	if (!r->NumberOfExclusiveWaiters && !(r->Flag & ResourceOwnedExclusive))
		exp_grant_shared(r);
}

static uint64_t slice_us(const struct exp_wait *w)
{
	uint32_t ms = ex_resource_timeout();
	uint64_t us = (uint64_t)(ms ? ms : 1) * 1000;
	if (w->deadline != EXP_NO_DEADLINE) {
		uint64_t now = arch_rdtsc();
		uint64_t left = w->deadline > now ? ke_tsc_to_us(w->deadline - now) + 1 : 1;
		if (left < us)
			us = left;
	}
	return us;
}

bool exp_wait_for_resource(ERESOURCE *r, struct exp_wait *w)
{
	KTHREAD *me = ke_get_current_thread();
	void *object = w->exclusive ? (void *)&r->ExclusiveWaiters : (void *)&r->SharedWaiters;
	enum ex_resource_event event = w->exclusive ? ExResourceWaitExcessiveExclusive : ExResourceWaitExcessiveShared;

	for (;;) {
		if (ke_wait_for_single_object(object, WrResource, KernelMode, slice_us(w)) == STATUS_WAIT_0)
			return true;

		KLOCK_QUEUE_HANDLE h;
		exp_lock(r, &h);
		if (ke_wait_for_single_object(object, WrResource, KernelMode, 0) == STATUS_WAIT_0) {
			exp_unlock(&h); /* let in as the slice ended */
			return true;
		}
		uint64_t now = arch_rdtsc();
		bool give_up = w->deadline != EXP_NO_DEADLINE && now >= w->deadline;
		WMI_RESOURCE rec = {
			.WaitTime = now - w->start,
			.ThreadId = exp_thread_id(me),
			.Resource = (uint64_t)(uintptr_t)r,
			.Action = ex_resource_action(event),
			.ContentionDelta = r->ContentionCount - w->contention,
		};
		if (give_up)
			cancel_wait(r, w->exclusive);
		else
			boost_owners(r, me);
		exp_unlock(&h);
		exp_trace(event, &rec);
		if (give_up)
			return false;
	}
}
