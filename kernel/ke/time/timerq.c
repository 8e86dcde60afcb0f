/*
 * timerq.c - sorted per-CPU timer queue (see timerq.h).
 *
 * Insertion walks the list (queues hold a handful of entries: the clock
 * tick, timed waits, the profile timer).  Expiry pops due entries one at a
 * time and calls them with the queue unlocked; a periodic entry is
 * re-inserted before its callback runs, so the callback may remove it.
 *
 * Lock: the queue's Lock, a ranked raw lock (lockorder.h): taken with
 * interrupts off, possibly under the dispatcher lock (a wait's time-out is
 * set or cancelled there), never under a DPC queue's lock or another
 * timer queue's; released around every callback, which may take the
 * dispatcher lock.
 */
#include "kernel/ke/time/timerq.h"

#include <stddef.h>

#include "kernel/ke/lockorder.h"

static inline unsigned long tq_lock(KTIMER_QUEUE *q)
{
	return raw_lock_ranked_irqsave(&q->Lock, RAW_RANK_TIMER_QUEUE);
}

static inline void tq_unlock(KTIMER_QUEUE *q, unsigned long flags)
{
	raw_unlock_ranked_irqrestore(&q->Lock, RAW_RANK_TIMER_QUEUE, flags);
}

void ke_timer_entry_init(KTIMER_ENTRY *e, ktimer_callback_t callback, void *context)
{
	*e = (KTIMER_ENTRY){ .Callback = callback, .Context = context };
}

/* Unlink e from q; q->Lock held. */
static bool unlink_locked(KTIMER_QUEUE *q, KTIMER_ENTRY *e)
{
	for (KTIMER_ENTRY **pp = &q->Head; *pp; pp = &(*pp)->Next) {
		if (*pp == e) {
			*pp = e->Next;
			e->Next = NULL;
			e->Queued = false;
			e->Queue = NULL;
			return true;
		}
	}
	return false;
}

/* Link e into q by deadline; q->Lock held, e on no queue. */
static void link_locked(KTIMER_QUEUE *q, KTIMER_ENTRY *e, uint64_t deadline, uint64_t period)
{
	e->Deadline = deadline;
	e->Period = period;
	KTIMER_ENTRY **pp = &q->Head;
	/* After every entry due no later: equal deadlines run in insertion order. */
	while (*pp && (*pp)->Deadline <= deadline)
		pp = &(*pp)->Next;
	e->Next = *pp;
	*pp = e;
	e->Queued = true;
	e->Queue = q;
}

bool ki_timer_queue_remove(KTIMER_ENTRY *e)
{
	for (;;) {
		KTIMER_QUEUE *q = __atomic_load_n(&e->Queue, __ATOMIC_ACQUIRE);
		if (!q)
			return false;
		unsigned long flags = tq_lock(q);
		/* It may have moved or fired before we got the lock. */
		if (e->Queue == q) {
			bool removed = unlink_locked(q, e);
			tq_unlock(q, flags);
			return removed;
		}
		tq_unlock(q, flags);
	}
}

bool ki_timer_queue_insert(KTIMER_QUEUE *q, KTIMER_ENTRY *e, uint64_t deadline, uint64_t period)
{
	ki_timer_queue_remove(e);
	unsigned long flags = tq_lock(q);
	link_locked(q, e, deadline, period);
	bool first = q->Head == e;
	tq_unlock(q, flags);
	return first;
}

static uint64_t next_locked(const KTIMER_QUEUE *q)
{
	return q->Head ? q->Head->Deadline : UINT64_MAX;
}

uint64_t ki_timer_queue_next(KTIMER_QUEUE *q)
{
	unsigned long flags = tq_lock(q);
	uint64_t next = next_locked(q);
	tq_unlock(q, flags);
	return next;
}

uint64_t ki_timer_queue_expire(KTIMER_QUEUE *q, uint64_t now, KTRAP_FRAME *tf)
{
	unsigned long flags = tq_lock(q);
	while (q->Head && q->Head->Deadline <= now) {
		KTIMER_ENTRY *e = q->Head;
		unlink_locked(q, e);
		if (e->Period) {
			uint64_t next = e->Deadline + e->Period;
			if (next <= now) {
				/* Behind by whole periods: skip them, counted. */
				uint64_t behind = (now - next) / e->Period + 1;
				e->Missed += (uint32_t)behind;
				next += behind * e->Period;
			}
			link_locked(q, e, next, e->Period);
		}
		e->Runs++;
		q->Expirations++;
		ktimer_callback_t cb = e->Callback;
		void *ctx = e->Context;
		tq_unlock(q, flags);
		cb(e, tf, ctx); /* may re-insert or remove entries, or wake threads */
		flags = tq_lock(q);
	}
	uint64_t next = next_locked(q);
	tq_unlock(q, flags);
	return next;
}
