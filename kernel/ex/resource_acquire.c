/*
 * resource_acquire.c - acquiring an ERESOURCE shared or exclusive, at once
 * or after waiting, and claiming ownership after a wait (resource.h has
 * the rules and invariants).
 *
 * Every acquisition runs under the SpinLock: decide from the state whether
 * it can be had now (a new hold or a recursion), else register as a
 * waiter, drop the lock and wait (resource_wait.c).  A waiter that was let
 * in takes the lock again and claims: the exclusive one fills OwnerEntry,
 * a sharer finds or takes an entry of its own.
 */
#include "kernel/ex/resource_internal.h"

#include <arch/cpu.h>

#include "kernel/debug/panic.h"
#include "kernel/sched/sched.h"

enum exp_shared_kind {
	ExpSharedLite,             /* behind exclusive waiters, unless recursive */
	ExpSharedStarveExclusive,  /* passes exclusive waiters                   */
	ExpSharedWaitForExclusive, /* behind exclusive waiters, even recursive   */
};

static void claim_exclusive(ERESOURCE *r, KTHREAD *me, const struct exp_wait *w)
{
	KLOCK_QUEUE_HANDLE h;

	exp_lock(r, &h);
	KASSERT(r->ExclusiveGrants == 1 && (r->Flag & ResourceOwnedExclusive) && !r->OwnerEntry.OwnerThread);
	r->ExclusiveGrants = 0;
	uint64_t now = arch_rdtsc();
	exp_start_hold(r, &r->OwnerEntry, me, now, now - w->start);
	exp_unlock(&h);
}

static void claim_shared(ERESOURCE *r, KTHREAD *me, const struct exp_wait *w)
{
	KLOCK_QUEUE_HANDLE h;

	exp_lock(r, &h);
	KASSERT(r->SharedGrants > 0 && !(r->Flag & ResourceOwnedExclusive));
	r->SharedGrants--;
	for (;;) {
		/* Still sharing it (ex_acquire_shared_wait_for_exclusive by a
		 * sharer): a recursion, and the grant counted it twice. */
		OWNER_ENTRY *e = exp_find_owner(r, me);
		if (e) {
			exp_recurse(e);
			r->ActiveCount--;
			break;
		}
		e = exp_free_entry(r);
		if (e) {
			uint64_t now = arch_rdtsc();
			exp_start_hold(r, e, me, now, now - w->start);
			break;
		}
		/* The grant stays ours while the lock is dropped: ActiveCount
		 * counts us, so nothing can make the resource exclusive. */
		exp_grow_owner_table(r, &h);
	}
	exp_unlock(&h);
}

static NTSTATUS acquire_shared(ERESOURCE *r, enum exp_shared_kind kind, uint64_t timeout_us, const char *fn)
{
	KTHREAD *me = ke_get_current_thread();
	KLOCK_QUEUE_HANDLE h;
	struct exp_wait w;

	exp_check_irql(fn, r, APC_LEVEL);
	exp_lock(r, &h);
	for (;;) {
		OWNER_ENTRY *e;
		if (r->Flag & ResourceOwnedExclusive) {
			if (me && r->OwnerEntry.OwnerThread == me) { /* counted as exclusive recursion */
				exp_recurse(&r->OwnerEntry);
				exp_unlock(&h);
				return STATUS_SUCCESS;
			}
			break; /* wait for the exclusive owner */
		}
		e = exp_find_owner(r, me);
		if (e) {
			if (kind != ExpSharedWaitForExclusive || !r->NumberOfExclusiveWaiters) {
				exp_recurse(e);
				exp_unlock(&h);
				return STATUS_SUCCESS;
			}
			break; /* let the exclusive waiters go first */
		}
		if (r->NumberOfExclusiveWaiters && kind != ExpSharedStarveExclusive)
			break; /* exclusive waiters go before new sharers */
		e = exp_free_entry(r);
		if (!e) {
			exp_grow_owner_table(r, &h);
			continue; /* the state may have changed: decide again */
		}
		exp_start_hold(r, e, me, arch_rdtsc(), 0);
		r->ActiveCount++;
		exp_unlock(&h);
		return STATUS_SUCCESS;
	}
	if (timeout_us == 0) {
		exp_unlock(&h);
		return STATUS_TIMEOUT;
	}
	w.exclusive = false;
	exp_register_waiter(r, &w, timeout_us);
	exp_unlock(&h);
	if (!exp_wait_for_resource(r, &w))
		return STATUS_TIMEOUT;
	claim_shared(r, me, &w);
	return STATUS_SUCCESS;
}

static NTSTATUS acquire_exclusive(ERESOURCE *r, uint64_t timeout_us, const char *fn)
{
	KTHREAD *me = ke_get_current_thread();
	KLOCK_QUEUE_HANDLE h;
	struct exp_wait w;

	exp_check_irql(fn, r, APC_LEVEL);
	exp_lock(r, &h);
	if (r->ActiveCount == 0) { /* free: no owner, hence no waiter */
		r->Flag |= ResourceOwnedExclusive;
		r->ActiveCount = 1;
		exp_start_hold(r, &r->OwnerEntry, me, arch_rdtsc(), 0);
		exp_unlock(&h);
		return STATUS_SUCCESS;
	}
	if (r->Flag & ResourceOwnedExclusive) {
		if (me && r->OwnerEntry.OwnerThread == me) {
			exp_recurse(&r->OwnerEntry);
			exp_unlock(&h);
			return STATUS_SUCCESS;
		}
	} else if (timeout_us != 0 && exp_find_owner(r, me)) { /* it would wait for itself */
		uint32_t count = (uint32_t)exp_find_owner(r, me)->OwnerCount;
		exp_unlock(&h); /* released first: a unit test that catches the bug check carries on */
		ke_bug_check_ex(KPROF_ASSERTION_FAILED, (uintptr_t)r, (uintptr_t)me, count, 0,
				"%s(%p): thread %u owns the resource shared (%u times) and would wait for exclusive "
				"ownership, i.e. for itself: a deadlock (release it first)",
				fn, (void *)r, exp_thread_id(me), count);
	}
	if (timeout_us == 0) {
		exp_unlock(&h);
		return STATUS_TIMEOUT;
	}
	w.exclusive = true;
	exp_register_waiter(r, &w, timeout_us);
	exp_unlock(&h);
	if (!exp_wait_for_resource(r, &w))
		return STATUS_TIMEOUT;
	claim_exclusive(r, me, &w);
	return STATUS_SUCCESS;
}

bool ex_acquire_resource_shared_lite(ERESOURCE *r, bool wait)
{
	return acquire_shared(r, ExpSharedLite, wait ? KE_WAIT_FOREVER : 0, "ex_acquire_resource_shared_lite") ==
	       STATUS_SUCCESS;
}

bool ex_acquire_shared_starve_exclusive(ERESOURCE *r, bool wait)
{
	return acquire_shared(r, ExpSharedStarveExclusive, wait ? KE_WAIT_FOREVER : 0,
			      "ex_acquire_shared_starve_exclusive") == STATUS_SUCCESS;
}

bool ex_acquire_shared_wait_for_exclusive(ERESOURCE *r, bool wait)
{
	return acquire_shared(r, ExpSharedWaitForExclusive, wait ? KE_WAIT_FOREVER : 0,
			      "ex_acquire_shared_wait_for_exclusive") == STATUS_SUCCESS;
}

bool ex_acquire_resource_exclusive_lite(ERESOURCE *r, bool wait)
{
	return acquire_exclusive(r, wait ? KE_WAIT_FOREVER : 0, "ex_acquire_resource_exclusive_lite") ==
	       STATUS_SUCCESS;
}

bool ex_try_to_acquire_resource_exclusive_lite(ERESOURCE *r)
{
	return acquire_exclusive(r, 0, "ex_try_to_acquire_resource_exclusive_lite") == STATUS_SUCCESS;
}

NTSTATUS ex_acquire_resource_shared_timeout(ERESOURCE *r, uint64_t timeout_us)
{
	return acquire_shared(r, ExpSharedLite, timeout_us, "ex_acquire_resource_shared_timeout");
}

NTSTATUS ex_acquire_resource_exclusive_timeout(ERESOURCE *r, uint64_t timeout_us)
{
	return acquire_exclusive(r, timeout_us, "ex_acquire_resource_exclusive_timeout");
}
