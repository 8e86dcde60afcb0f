/*
 * lockorder.h - the ranked raw locks and the check that they nest in order.
 *
 * Three kinds of raw lock nest in one chain (docs/locking.md):
 *
 *     dispatcher lock  ->  a timer queue's lock  ->  a DPC queue's lock
 *
 * A CPU holding one may take a lock further right, never one further
 * left, and never a second lock of the same kind (two timer queues, two
 * DPC queues: nothing needs that, and two CPUs doing it in opposite
 * orders would deadlock).  Each kind is a bit, its rank, in increasing
 * order; KPRCB.RawLocksHeld has the ranks this CPU holds.  Taking a lock
 * of rank r is allowed iff RawLocksHeld < r, that is, every held rank is
 * below r.  Otherwise: bug check KPROF_LOCK_ORDER (lock, rank, held)
 * before spinning, where the deadlock would have hung the CPU.
 *
 * The mask is changed only with interrupts off, by its own CPU, between
 * taking and releasing a ranked lock, so an interrupt handler that takes
 * a ranked lock leaves it as it found it.  A thread switch under the
 * dispatcher lock keeps the dispatcher's bit set: the lock stays held on
 * this CPU until the thread switched to releases it.
 *
 * Checked only with KPROF_LOCK_CHECKS (rawlock.h).  The other raw locks
 * (console, heap, kva, pmm, profile) are not ranked; their order is the
 * table's, kept by code review.
 */
#ifndef KPROF_KERNEL_LOCKORDER_H
#define KPROF_KERNEL_LOCKORDER_H

#include <arch/cpu.h>

#include "kernel/ke/prcb.h"
#include "kernel/ke/rawlock.h"

enum raw_lock_rank {
	RAW_RANK_DISPATCHER = 1u << 0,  /* KiDispatcherLock            */
	RAW_RANK_TIMER_QUEUE = 1u << 1, /* KTIMER_QUEUE.Lock, any CPU's */
	RAW_RANK_DPC_QUEUE = 1u << 2,   /* KDPC_DATA.DpcLock, any CPU's */
};

/* A ranked lock was taken out of order: bug check KPROF_LOCK_ORDER. */
__attribute__((noreturn, cold)) void raw_lock_order_bug_check(const raw_lock_t *l, unsigned rank, unsigned held);

/* Interrupts off, then: not already ours (SPIN_LOCK_ALREADY_OWNED), in
 * order (KPROF_LOCK_ORDER), spin, note the rank.  One per-CPU load: the
 * owner tag is the KPRCB. */
static inline unsigned long raw_lock_ranked_irqsave(raw_lock_t *l, enum raw_lock_rank rank)
{
	unsigned long flags = arch_irq_save();
	KPRCB *self = (KPRCB *)raw_lock_self();

	if (KPROF_LOCK_CHECKS && self) {
		raw_lock_check_acquire(l, self);
		if (__builtin_expect(self->RawLocksHeld >= (unsigned)rank, 0))
			raw_lock_order_bug_check(l, rank, self->RawLocksHeld);
	}
	raw_lock_spin_as(l, self);
	if (KPROF_LOCK_CHECKS && self)
		self->RawLocksHeld |= (uint8_t)rank;
	return flags;
}

static inline void raw_unlock_ranked_irqrestore(raw_lock_t *l, enum raw_lock_rank rank, unsigned long flags)
{
	KPRCB *self = (KPRCB *)raw_lock_self();

	if (KPROF_LOCK_CHECKS && self)
		self->RawLocksHeld &= (uint8_t)~rank;
	raw_unlock_as(l, self);
	arch_irq_restore(flags);
}

/* Ranks held by this CPU (0 without lock checks). */
static inline unsigned raw_lock_ranks_held(void)
{
	const KPRCB *self = raw_lock_self();
	return KPROF_LOCK_CHECKS && self ? self->RawLocksHeld : 0;
}

#endif /* KPROF_KERNEL_LOCKORDER_H */
