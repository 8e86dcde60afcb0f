/*
 * lockstat_stack.h - the per-CPU stack of timed locks, inline for the
 * lock code's traced paths (rules and invariants: lockstat.h).
 *
 * An interrupt handler on this CPU may run between any two statements
 * here and take and release locks of its own: a push reserves its slot
 * (Depth + 1) before filling it, so the handler pushes above it; a pop
 * copies the entry out and closes the gap before Depth shrinks, so the
 * handler's entries, always above and gone before it returns, are never
 * overwritten.  CPU_ORDER keeps the compiler from moving the stores across
 * those points; the CPU sees its own stores in order.
 */
#ifndef KPROF_KERNEL_LOCKS_LOCKSTAT_STACK_H
#define KPROF_KERNEL_LOCKS_LOCKSTAT_STACK_H

#include <arch/cpu.h>
#include <arch/local.h>

#include "kernel/locks/lockstat.h"
#include "kernel/ke/prcb.h"

#define CPU_ORDER() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* A timed acquisition, in three steps:
 *   h = lockstat_try(lock, mode);      reserve this CPU's next entry
 *   ...the first test of the lock...
 *   lockstat_tested(h);                the first time stamp, right after it
 *   ...if that test failed, spin until the lock is taken...
 *   lockstat_acquired(h, spins);       AcquireTime
 * The first stamp follows the first test, so a lock taken at that test
 * has AcquireTime = that stamp and no wait, and a recorded hold never
 * begins before the lock was really taken (an interrupt, or the host not
 * running this virtual CPU, between a stamp and a test can only make the
 * recorded hold shorter than the real one, never longer: two recorded
 * holds of an exclusive lock cannot overlap).  lockstat_try returns NULL
 * when the stack is full: the acquisition goes on untimed, counted in
 * Untracked; the other steps accept NULL. */
static inline struct lock_hold *lockstat_try(const volatile void *lock, uint8_t mode)
{
	KPRCB *prcb = ke_get_current_prcb();
	LOCKSTAT_CPU *ls = &prcb->LockStat;
	uint32_t i = ls->Depth;

	if (__builtin_expect(i >= LOCKSTAT_DEPTH, 0)) {
		arch_local_add64(&ls->Count.Untracked, 1);
		return NULL;
	}
	ls->Depth = i + 1;
	CPU_ORDER();
	struct lock_hold *h = &ls->Stack[i];
	h->Lock = lock;
	h->Mode = mode;
	h->Interrupts = prcb->InterruptCount;
	return h;
}

static inline void lockstat_tested(struct lock_hold *h)
{
	if (h)
		h->TryTsc = arch_rdtsc();
}

/* The lock held after `spins` extra tests (0: at the first test). */
static inline void lockstat_acquired(struct lock_hold *h, uint32_t spins)
{
	if (!h)
		return;
	h->AcquireTsc = spins ? arch_rdtsc() : h->TryTsc;
	h->Spins = spins;
}

/* Take entry h off this CPU's stack, closing the gap. */
static inline void lockstat_remove(LOCKSTAT_CPU *ls, struct lock_hold *h)
{
	uint32_t depth = ls->Depth;

	for (uint32_t k = (uint32_t)(h - ls->Stack); k + 1 < depth; k++)
		ls->Stack[k] = ls->Stack[k + 1];
	CPU_ORDER();
	ls->Depth = depth - 1;
}

/* A failed try-acquire gives its entry back. */
static inline void lockstat_abandon(struct lock_hold *h)
{
	if (h)
		lockstat_remove(&ke_get_current_prcb()->LockStat, h);
}

/* This CPU's entry for lock, or NULL (not timed). */
static inline struct lock_hold *lockstat_find(const volatile void *lock)
{
	LOCKSTAT_CPU *ls = &ke_get_current_prcb()->LockStat;

	for (uint32_t i = ls->Depth; i-- > 0;)
		if (ls->Stack[i].Lock == lock)
			return &ls->Stack[i];
	return NULL;
}

/* Just before the lock is released: the ReleaseTime, the depth (every
 * lock held now, this one included) and the entry, taken off the stack.
 * The ReleaseTime's read is taken with the trace buffer's position, so
 * that a record of it has it as its TimeStamp too (tracebuf_stamp_take):
 * the two reads an uncontended acquisition's record needs, not three. */
static inline void lockstat_release_begin(struct lock_hold *h, struct lockstat_release *r)
{
	KPRCB *prcb = ke_get_current_prcb();
	LOCKSTAT_CPU *ls = &prcb->LockStat;

	tracebuf_stamp_take(prcb->TraceCpu, &r->Stamp);
	r->ReleaseTsc = r->Stamp.tsc;
	r->Hold = *h;
	r->Depth = (uint8_t)ls->Depth;
	lockstat_remove(ls, h);
}

#endif /* KPROF_KERNEL_LOCKS_LOCKSTAT_STACK_H */
