/*
 * resource_release.c - releasing an ERESOURCE, converting exclusive
 * ownership to shared, and handing it over to waiters (resource.h has the
 * rules and invariants).
 *
 * Hand-over, under the SpinLock, in one step with its signal:
 *   exclusive owner leaves:  every shared waiter, if any (ActiveCount =
 *                            their number, SharedWaiters released by it);
 *                            else one exclusive waiter;
 *   last sharer leaves:      one exclusive waiter (the exclusive flag set,
 *                            ActiveCount 1, OwnerEntry left for it to
 *                            claim, ExclusiveWaiters set);
 *   exclusive -> shared:     every shared waiter joins the owner.
 * Signalling under the SpinLock (the dispatcher lock nests inside it) is
 * what lets a waiter whose time-out races a grant decide under the
 * SpinLock alone whether it was let in (resource_wait.c).
 */
#include "kernel/ex/resource_internal.h"

#include <arch/cpu.h>

#include "kernel/debug/panic.h"
#include "kernel/sched/sched.h"

void exp_grant_shared(ERESOURCE *r)
{
	uint32_t n = r->NumberOfSharedWaiters;

	if (!n)
		return;
	KASSERT(!(r->Flag & ResourceOwnedExclusive));
	r->ActiveCount += n;
	r->SharedGrants += n;
	r->NumberOfSharedWaiters = 0;
	ke_release_semaphore(&r->SharedWaiters, SEMAPHORE_INCREMENT, (int32_t)n, NULL);
}

void exp_grant_exclusive(ERESOURCE *r)
{
	KASSERT(r->ActiveCount == 0 && r->NumberOfExclusiveWaiters > 0 && r->ExclusiveGrants == 0);
	r->Flag |= ResourceOwnedExclusive;
	r->ActiveCount = 1;
	r->NumberOfExclusiveWaiters--;
	r->ExclusiveGrants = 1;
	ke_set_event(&r->ExclusiveWaiters, EVENT_INCREMENT, false);
}

static __attribute__((noreturn)) void not_owned(KLOCK_QUEUE_HANDLE *h, ERESOURCE *r, const KTHREAD *t,
						const char *fn)
{
	bool exclusive = r->Flag & ResourceOwnedExclusive;
	const KTHREAD *owner = r->OwnerEntry.OwnerThread;
	const OWNER_ENTRY *table = r->OwnerTable;
	exp_unlock(h); /* released first: a unit test that catches the bug check carries on */
	ke_bug_check_ex(RESOURCE_NOT_OWNED, (uintptr_t)r, (uintptr_t)t, (uintptr_t)table, 0,
			"%s(%p): thread %u does not own it (%s%s%u)", fn, (void *)r, exp_thread_id(t),
			exclusive ? "owned exclusive by thread " : "not owned exclusive",
			exclusive ? "" : ", first owner entry thread ", exp_thread_id(owner));
}

static void release(ERESOURCE *r, KTHREAD *t, const char *fn)
{
	KLOCK_QUEUE_HANDLE h;
	WMI_RESOURCE w;
	enum ex_resource_event ended = ExResourceEventCount;

	exp_check_irql(fn, r, DISPATCH_LEVEL);
	exp_lock(r, &h);
	if (r->Flag & ResourceOwnedExclusive) {
		OWNER_ENTRY *e = &r->OwnerEntry;
		if (!t || e->OwnerThread != t)
			not_owned(&h, r, t, fn);
		if (--e->OwnerCount == 0) {
			exp_end_hold(r, e, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, arch_rdtsc(), &w);
			ended = ExResourceReleaseExclusive;
			r->Flag &= ~ResourceOwnedExclusive;
			r->ActiveCount = 0;
			if (r->NumberOfSharedWaiters)
				exp_grant_shared(r);
			else if (r->NumberOfExclusiveWaiters)
				exp_grant_exclusive(r);
		}
	} else {
		OWNER_ENTRY *e = exp_find_owner(r, t);
		if (!e)
			not_owned(&h, r, t, fn);
		if (--e->OwnerCount == 0) {
			exp_end_hold(r, e, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, arch_rdtsc(), &w);
			ended = ExResourceReleaseShared;
			if (--r->ActiveCount == 0) {
				if (r->NumberOfExclusiveWaiters)
					exp_grant_exclusive(r);
				else /* none: sharers only wait behind exclusive waiters */
					exp_grant_shared(r);
			}
		}
	}
	exp_unlock(&h);
	if (ended != ExResourceEventCount)
		exp_trace(ended, &w);
}

void ex_release_resource_lite(ERESOURCE *r)
{
	release(r, ke_get_current_thread(), "ex_release_resource_lite");
}

void ex_release_resource_for_thread_lite(ERESOURCE *r, KTHREAD *thread)
{
	release(r, thread, "ex_release_resource_for_thread_lite");
}

void ex_convert_exclusive_to_shared_lite(ERESOURCE *r)
{
	KLOCK_QUEUE_HANDLE h;
	KTHREAD *me = ke_get_current_thread();

	exp_check_irql("ex_convert_exclusive_to_shared_lite", r, DISPATCH_LEVEL);
	exp_lock(r, &h);
	if (!(r->Flag & ResourceOwnedExclusive) || !me || r->OwnerEntry.OwnerThread != me)
		not_owned(&h, r, me, "ex_convert_exclusive_to_shared_lite");
	/* The hold goes on, shared now (its release record will say so);
	 * OwnerEntry stays its entry. */
	r->Flag &= ~ResourceOwnedExclusive;
	exp_grant_shared(r);
	exp_unlock(&h);
}
