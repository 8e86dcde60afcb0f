/*
 * boost.c - raising a resource owner's priority for its waiters (NT's
 * ExpBoostOwnerThread), called when an ERESOURCE wait slice ends without
 * ownership (kernel/ex/resource_wait.c).
 *
 * Rule (NT's): an owner of variable priority (base 1..15) whose current
 * priority is below both KE_RESOURCE_BOOST_PRIORITY (14) and the waiter's
 * is raised to 14.  Not to the waiter's priority: like NT, a waiter below
 * 14 still gets its owner to 14, so the owner outruns the ordinary
 * variable-priority work that kept it off the CPUs, and a real-time
 * waiter does not make the owner real-time.  The raise is a boost:
 * PriorityDecrement = 14 - BasePriority, so it decays one level per
 * quantum end back to the base (priority.c) like a wake-up boost.  A
 * Ready owner leaves its queue and is made ready again at 14 (a
 * ReadyThread record with AdjustReason boost; it may preempt a CPU); a
 * Running or Waiting one just has its priority changed (a waiting one
 * keeps it when woken, as the wake boost never lowers a priority).
 *
 * Lock: the dispatcher lock (the caller may hold spin locks that come
 * before it, e.g. the resource's).
 */
#include "kernel/sched/ki.h"

bool ke_boost_owner_thread(KTHREAD *owner, KTHREAD *waiter)
{
	unsigned long flags;
	bool boosted = false;
	KIRQL old = ki_enter(&flags);

	int8_t p = owner->Priority;
	bool variable = owner->BasePriority > LOW_PRIORITY && owner->BasePriority < LOW_REALTIME_PRIORITY;
	bool live = owner->State == Ready || owner->State == Running || owner->State == Waiting;
	if (variable && live && p < KE_RESOURCE_BOOST_PRIORITY && (!waiter || p < waiter->Priority)) {
		bool queued = owner->State == Ready;
		if (queued)
			ki_ready_queue_remove(owner);
		owner->Priority = KE_RESOURCE_BOOST_PRIORITY;
		owner->PriorityDecrement = (int8_t)(KE_RESOURCE_BOOST_PRIORITY - owner->BasePriority);
		if (queued)
			ki_ready_thread(owner, AdjustBoost, (int8_t)(KE_RESOURCE_BOOST_PRIORITY - p));
		boosted = true;
	}
	ki_leave(old, flags);
	return boosted;
}
