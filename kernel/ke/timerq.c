/*
 * timerq.c - sorted per-CPU timer queue (see timerq.h).
 *
 * Insertion walks the list (queues hold a handful of entries: the clock
 * tick, timed waits, the profile timer).  Expiry pops due entries one at a
 * time and calls them with the queue unlocked; a periodic entry is
 * re-inserted before its callback runs, so the callback may remove it.
 */
#include "kernel/ke/timerq.h"

#include <stddef.h>

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
		unsigned long flags = raw_lock_irqsave(&q->Lock);
		/* It may have moved or fired before we got the lock. */
		if (e->Queue == q) {
			bool removed = unlink_locked(q, e);
			raw_unlock_irqrestore(&q->Lock, flags);
			return removed;
		}
		raw_unlock_irqrestore(&q->Lock, flags);
	}
}

bool ki_timer_queue_insert(KTIMER_QUEUE *q, KTIMER_ENTRY *e, uint64_t deadline, uint64_t period)
{
	ki_timer_queue_remove(e);
	unsigned long flags = raw_lock_irqsave(&q->Lock);
	link_locked(q, e, deadline, period);
	bool first = q->Head == e;
	raw_unlock_irqrestore(&q->Lock, flags);
	return first;
}

static uint64_t next_locked(const KTIMER_QUEUE *q)
{
	return q->Head ? q->Head->Deadline : UINT64_MAX;
}

uint64_t ki_timer_queue_next(KTIMER_QUEUE *q)
{
	unsigned long flags = raw_lock_irqsave(&q->Lock);
	uint64_t next = next_locked(q);
	raw_unlock_irqrestore(&q->Lock, flags);
	return next;
}

uint64_t ki_timer_queue_expire(KTIMER_QUEUE *q, uint64_t now, KTRAP_FRAME *tf)
{
	unsigned long flags = raw_lock_irqsave(&q->Lock);
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
		raw_unlock_irqrestore(&q->Lock, flags);
		cb(e, tf, ctx); /* may re-insert or remove entries, or wake threads */
		flags = raw_lock_irqsave(&q->Lock);
	}
	uint64_t next = next_locked(q);
	raw_unlock_irqrestore(&q->Lock, flags);
	return next;
}
