/*
 * timerq.h - the per-CPU timer queue: callbacks at TSC deadlines, run from
 * the CPU's clock interrupt at CLOCK_LEVEL.
 *
 * Each CPU has one queue in its KPRCB.  Entries are added on the CPU that
 * owns the queue; any CPU may remove an entry (a thread woken on another
 * CPU cancels its wait time-out), so the queue has a lock, taken with
 * interrupts disabled and never held while a callback runs.  Entries are
 * kept sorted by deadline.  A periodic entry is put back one period later
 * (periods that are already past are skipped and counted in Missed).
 *
 * Lock order: dispatcher -> timer queue -> DPC queue (lockorder.h,
 * checked): the dispatcher lock may be held when taking a queue's lock; a
 * CPU holds at most one queue's lock; callbacks run without the queue's
 * lock and may take the dispatcher lock.
 */
#ifndef KPROF_KERNEL_TIMERQ_H
#define KPROF_KERNEL_TIMERQ_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/trapframe.h>

#include "kernel/ke/rawlock.h"

struct ktimer_entry;
typedef void (*ktimer_callback_t)(struct ktimer_entry *entry, KTRAP_FRAME *tf, void *context);

typedef struct ktimer_entry {
	uint64_t Deadline;          /* TSC value at which it is due       */
	uint64_t Period;            /* TSC cycles between runs, 0 = once  */
	ktimer_callback_t Callback; /* runs at CLOCK_LEVEL                */
	void *Context;              /* its third argument                 */
	struct ktimer_entry *Next;  /* next later entry                   */
	struct ktimer_queue *Queue; /* the queue it is on, NULL if none   */
	bool Queued;                /* on a queue now                     */
	uint32_t Missed;            /* periods skipped: already past      */
	uint64_t Runs;              /* times the callback ran             */
} KTIMER_ENTRY;

typedef struct ktimer_queue {
	KTIMER_ENTRY *Head;         /* earliest deadline first            */
	uint64_t Expirations;       /* callbacks run from this queue      */
	raw_lock_t Lock;            /* guards Head and the entries' links; ranked (lockorder.h) */
} KTIMER_QUEUE;

void ke_timer_entry_init(KTIMER_ENTRY *e, ktimer_callback_t callback, void *context);

/* Insert (moving it if it is queued anywhere); true when e is now the
 * earliest entry, so the caller re-arms its interrupt timer.  Remove from
 * whatever queue it is on; false if it was not queued.  Any IRQL up to
 * CLOCK_LEVEL. */
bool ki_timer_queue_insert(KTIMER_QUEUE *q, KTIMER_ENTRY *e, uint64_t deadline, uint64_t period);
bool ki_timer_queue_remove(KTIMER_ENTRY *e);
/* Run every entry due at `now`; returns the next deadline or UINT64_MAX. */
uint64_t ki_timer_queue_expire(KTIMER_QUEUE *q, uint64_t now, KTRAP_FRAME *tf);
/* The earliest deadline, UINT64_MAX if none; read under the queue's lock
 * (another CPU may be removing the head and reusing it meanwhile). */
uint64_t ki_timer_queue_next(KTIMER_QUEUE *q);

#endif /* KPROF_KERNEL_TIMERQ_H */
