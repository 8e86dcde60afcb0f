/*
 * timerq.c - sorted per-CPU timer queue (see timerq.h).
 *
 * Insertion walks the list (queues hold a handful of entries: the clock
 * tick, timed waits, the profile timer).  Expiry pops due entries one at a
 * time and calls them; a periodic entry is re-inserted before its callback
 * runs, so the callback may remove it.
 */
#include "kernel/timerq.h"

#include <stddef.h>

void ke_timer_entry_init(KTIMER_ENTRY *e, ktimer_callback_t callback, void *context)
{
	*e = (KTIMER_ENTRY){ .Callback = callback, .Context = context };
}

void ki_timer_queue_insert(KTIMER_QUEUE *q, KTIMER_ENTRY *e, uint64_t deadline, uint64_t period)
{
	if (e->Queued)
		ki_timer_queue_remove(q, e);
	e->Deadline = deadline;
	e->Period = period;
	KTIMER_ENTRY **pp = &q->Head;
	/* After every entry due no later: equal deadlines run in insertion order. */
	while (*pp && (*pp)->Deadline <= deadline)
		pp = &(*pp)->Next;
	e->Next = *pp;
	*pp = e;
	e->Queued = true;
}

bool ki_timer_queue_remove(KTIMER_QUEUE *q, KTIMER_ENTRY *e)
{
	for (KTIMER_ENTRY **pp = &q->Head; *pp; pp = &(*pp)->Next) {
		if (*pp == e) {
			*pp = e->Next;
			e->Next = NULL;
			e->Queued = false;
			return true;
		}
	}
	return false;
}

uint64_t ki_timer_queue_next(const KTIMER_QUEUE *q)
{
	return q->Head ? q->Head->Deadline : UINT64_MAX;
}

uint64_t ki_timer_queue_expire(KTIMER_QUEUE *q, uint64_t now, KTRAP_FRAME *tf)
{
	while (q->Head && q->Head->Deadline <= now) {
		KTIMER_ENTRY *e = q->Head;
		q->Head = e->Next;
		e->Next = NULL;
		e->Queued = false;
		if (e->Period) {
			uint64_t next = e->Deadline + e->Period;
			if (next <= now) {
				/* Behind by whole periods: skip them, counted. */
				uint64_t behind = (now - next) / e->Period + 1;
				e->Missed += (uint32_t)behind;
				next += behind * e->Period;
			}
			ki_timer_queue_insert(q, e, next, e->Period);
		}
		e->Runs++;
		q->Expirations++;
		e->Callback(e, tf, e->Context);
	}
	return ki_timer_queue_next(q);
}
