/*
 * wait.c - dispatcher objects and waiting on them (KeWaitForMultipleObjects).
 *
 * An object is signaled when its SignalState is positive (a mutant also
 * when the waiter already owns it).  Satisfying a wait consumes what the
 * object type consumes: a synchronization event or timer resets, a
 * semaphore's count drops by one, a mutant becomes owned.  Notification
 * events and timers, threads and processes stay signaled.
 *
 * A wait links one KWAIT_BLOCK per object into the objects' wait lists.
 * WaitAny ends when any one object can be satisfied (status WAIT_0 + its
 * index); WaitAll only when all can be satisfied at the same moment, and
 * then all are.  A time-out is an entry in the waiting CPU's timer queue;
 * whoever ends the wait first (a signal, or the time-out) unlinks every
 * block, cancels the time-out and readies the thread, all under the
 * dispatcher lock, so a wait ends exactly once.  A time-out callback that
 * lost that race finds the thread no longer waiting (or waiting again with
 * a later deadline) and does nothing.
 *
 * Lock: the dispatcher lock for every function here (each ki_ function
 * asserts it; wait_timeout takes it).
 */
#include "kernel/sched/ki.h"

#include <arch/cpu.h>

#include "kernel/ke/time/clock.h"
#include "kernel/debug/panic.h"
#include "kernel/ke/time/time.h"

bool ki_object_signaled(const DISPATCHER_HEADER *h, const KTHREAD *t)
{
	ki_assert_dispatcher_locked();
	if (h->Type == MutantObject) {
		const KMUTANT *m = (const KMUTANT *)h;
		return h->SignalState > 0 || m->OwnerThread == t;
	}
	return h->SignalState > 0;
}

void ki_satisfy(DISPATCHER_HEADER *h, KTHREAD *t)
{
	ki_assert_dispatcher_locked();
	switch (h->Type) {
	case EventSynchronizationObject:
	case TimerSynchronizationObject:
		h->SignalState = 0;
		break;
	case SemaphoreObject:
		h->SignalState--;
		break;
	case MutantObject: {
		KMUTANT *m = (KMUTANT *)h;
		if (h->SignalState == 1) { /* free: t becomes the owner */
			m->OwnerThread = t;
			m->Abandoned = false; /* the wait that got it reported it */
			list_insert_tail(&t->MutantListHead, &m->MutantListEntry);
		}
		h->SignalState--; /* recursion: 0, -1, ... */
		break;
	}
	default: /* notification objects stay signaled */
		break;
	}
}

static void unlink_blocks(KTHREAD *t)
{
	for (uint32_t i = 0; i < t->WaitCount; i++) {
		KWAIT_BLOCK *wb = &t->WaitBlockList[i];
		if (wb->Linked) {
			list_remove(&wb->WaitListEntry);
			wb->Linked = 0;
		}
	}
}

void ki_unwait_thread(KTHREAD *t, NTSTATUS status, int increment)
{
	ki_assert_dispatcher_locked();
	KASSERT(t->WaitPending);
	unlink_blocks(t);
	t->WaitPending = 0;
	t->WaitStatus = status;
	if (t->WaitDeadline)
		ke_cancel_timer(&t->WaitTimer);
	ki_boost_priority(t, increment);
	ki_ready_thread(t, increment > 0 ? AdjustBoost : AdjustUnwait, (int8_t)increment);
}

/* Can every object of t's WaitAll be satisfied now? */
static bool all_signaled(const KTHREAD *t)
{
	for (uint32_t i = 0; i < t->WaitCount; i++)
		if (!ki_object_signaled(t->WaitBlockList[i].Object, t))
			return false;
	return true;
}

static void satisfy_all(KTHREAD *t)
{
	for (uint32_t i = 0; i < t->WaitCount; i++)
		ki_satisfy(t->WaitBlockList[i].Object, t);
}

static NTSTATUS any_status(const DISPATCHER_HEADER *h, uint16_t key)
{
	if (h->Type == MutantObject && ((const KMUTANT *)h)->Abandoned)
		return STATUS_ABANDONED_WAIT_0 + key;
	return STATUS_WAIT_0 + key;
}

void ki_signal_waiters(DISPATCHER_HEADER *h, int increment)
{
	LIST_ENTRY *e = h->WaitListHead.Flink;

	ki_assert_dispatcher_locked();
	while (e != &h->WaitListHead && h->SignalState > 0) {
		KWAIT_BLOCK *wb = CONTAINING_RECORD(e, KWAIT_BLOCK, WaitListEntry);
		KTHREAD *t = wb->Thread;
		e = e->Flink; /* the block may be unlinked below */
		if (wb->WaitType == WaitAny) {
			NTSTATUS st = any_status(h, wb->WaitKey);
			ki_satisfy(h, t);
			ki_unwait_thread(t, st, increment);
		} else if (all_signaled(t)) {
			satisfy_all(t);
			ki_unwait_thread(t, STATUS_WAIT_0, increment);
		}
	}
}

/* Time-out of a wait, at CLOCK_LEVEL on the CPU where the wait began. */
static void wait_timeout(KTIMER_ENTRY *entry, KTRAP_FRAME *tf, void *context)
{
	KTHREAD *t = context;
	unsigned long flags = ki_lock_dispatcher();

	/* Stale if the wait already ended, or a new one has a later deadline. */
	if (t->WaitPending && t->WaitDeadline && arch_rdtsc() >= t->WaitDeadline)
		ki_unwait_thread(t, STATUS_TIMEOUT, 0);
	ki_unlock_dispatcher(flags);
}

NTSTATUS ki_wait_setup(KTHREAD *t, uint32_t count, void *const objects[], WAIT_TYPE type, uint8_t reason,
		       KPROCESSOR_MODE mode, uint64_t timeout_us, KWAIT_BLOCK *blocks)
{
	ki_assert_dispatcher_locked();
	/* Satisfiable now? */
	if (type == WaitAny) {
		for (uint32_t i = 0; i < count; i++) {
			DISPATCHER_HEADER *h = objects[i];
			if (ki_object_signaled(h, t)) {
				NTSTATUS st = any_status(h, (uint16_t)i);
				ki_satisfy(h, t);
				return st;
			}
		}
	} else {
		bool all = true;
		for (uint32_t i = 0; i < count && all; i++)
			all = ki_object_signaled(objects[i], t);
		if (all) {
			for (uint32_t i = 0; i < count; i++)
				ki_satisfy(objects[i], t);
			return STATUS_WAIT_0;
		}
	}
	if (timeout_us == 0)
		return STATUS_TIMEOUT;

	t->WaitBlockList = blocks;
	t->WaitCount = count;
	t->WaitType = (uint8_t)type;
	for (uint32_t i = 0; i < count; i++) {
		KWAIT_BLOCK *wb = &blocks[i];
		wb->Thread = t;
		wb->Object = objects[i];
		wb->WaitKey = (uint16_t)i;
		wb->WaitType = (uint8_t)type;
		wb->Linked = 1;
		list_insert_tail(&wb->Object->WaitListHead, &wb->WaitListEntry);
	}
	t->WaitReason = reason;
	t->WaitMode = (uint8_t)mode;
	t->WaitStatus = STATUS_PENDING;
	t->WaitPending = 1;
	t->WaitGeneration++;
	t->State = Waiting;
	t->WaitDeadline = 0;
	if (timeout_us != KE_WAIT_FOREVER) {
		t->WaitDeadline = arch_rdtsc() + ke_us_to_tsc(timeout_us);
		ke_timer_entry_init(&t->WaitTimer, wait_timeout, t);
		ke_set_timer_current(&t->WaitTimer, t->WaitDeadline, 0);
	}
	return STATUS_PENDING;
}

void ki_abandon_mutants(KTHREAD *t)
{
	ki_assert_dispatcher_locked();
	while (!list_empty(&t->MutantListHead)) {
		KMUTANT *m = CONTAINING_RECORD(t->MutantListHead.Flink, KMUTANT, MutantListEntry);
		list_remove(&m->MutantListEntry);
		m->OwnerThread = NULL;
		m->Abandoned = true;
		m->Header.SignalState = 1;
		ki_signal_waiters(&m->Header, 0);
	}
}
