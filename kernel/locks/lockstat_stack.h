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
 *   ...if that test did not take the lock, spin until it is taken...
 *   lockstat_acquired(h, spins);       AcquireTime
 * A first test that did not wholly take the lock (a queued waiter's swap
 * behind another, an exclusive claim that found sharers) is a wait, and
 * spins counts at least the look that found the lock free.  The first
 * stamp follows the first test, so a lock taken at that test
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
	h->Spins = 0; /* lockstat_acquired sets it only after a wait */
	h->Interrupts = prcb->InterruptCount;
	return h;
}

/* A unit test's seams (tests/unit/kernel/locks/test_locks.c): what another
 * CPU does right after a first test's clock read, and right after a
 * queued waiter linked itself behind its predecessor (queuedlock.c),
 * before its first look.  Nothing in the kernel. */
#ifdef KPROF_LOCKSTAT_TEST_SEAM
void lockstat_test_after_first_test(const struct lock_hold *h);
void lockstat_test_after_link(const void *me, const void *pred);
#else
#define lockstat_test_after_first_test(h) ((void)0)
#define lockstat_test_after_link(me, pred) ((void)0)
#endif

/* The first test's read: the AcquireTime of a lock taken at that test. */
static inline void lockstat_tested(struct lock_hold *h)
{
	if (h) {
		h->AcquireTsc = arch_rdtsc();
		lockstat_test_after_first_test(h);
	}
}

/* The lock held after `spins` extra tests (0: at the first test, which
 * stores nothing more: a timed path's stores are what it costs before the
 * next locked exchange, docs/testing.md). */
static inline void lockstat_acquired(struct lock_hold *h, uint32_t spins)
{
	if (!h || !spins)
		return;
	h->TryTsc = h->AcquireTsc; /* the wait's start: the first test */
	h->AcquireTsc = arch_rdtsc();
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

/* xorshift64*: one draw, true with probability 1/n (within 2^-32): the
 * draw's high 32 bits scaled to [0, n) by a multiply, the same bias as a
 * modulo without its 64-bit divide (about 10 cycles of the timed path on
 * the bench's CPU). */
static inline bool lockstat_one_in(LOCKSTAT_CPU *ls, uint32_t n)
{
	if (n <= 1)
		return true;
	uint64_t x = ls->Rng;
	if (!x)
		x = 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)ls;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	ls->Rng = x;
	return (((x * 0x2545F4914F6CDD1Dull) >> 32) * n) >> 32 == 0;
}

/* The sampling (lockstat.h) of hold h, released at TSC `release`: counted
 * (one add for an uncontended, short hold), and whether it is recorded. */
static inline bool lockstat_sample(LOCKSTAT_CPU *ls, const struct lock_hold *h, uint64_t release)
{
	uint32_t spin_threshold = __atomic_load_n(&lockstat_params.SpinThreshold, __ATOMIC_RELAXED);
	uint32_t hold_threshold = __atomic_load_n(&lockstat_params.HoldThreshold, __ATOMIC_RELAXED);
	bool long_hold = hold_threshold && release - h->AcquireTsc >= hold_threshold;
	bool trace;

	if (h->Spins >= spin_threshold) {
		arch_local_add64(&ls->Count.Contended, 1);
		trace = lockstat_one_in(ls, __atomic_load_n(&lockstat_params.ContentionSampleRate, __ATOMIC_RELAXED));
	} else {
		arch_local_add64(&ls->Count.Uncontended, 1);
		if (long_hold)
			arch_local_add64(&ls->Count.UncontendedLong, 1);
		trace = lockstat_one_in(ls, __atomic_load_n(&lockstat_params.AcquireSampleRate, __ATOMIC_RELAXED));
	}
	if (long_hold) {
		arch_local_add64(&ls->Count.LongHolds, 1);
		trace = true;
	}
	return trace;
}

/* Just before the lock is released: the ReleaseTime, the counts and the
 * sampling decision, and the entry taken off the stack.  True when the
 * hold is to be recorded: then r holds the entry, the depth (every lock
 * held now, this one included) and the ReleaseTime's read, taken with the
 * trace buffer's position so that the record has it as its TimeStamp too
 * (tracebuf_stamp_take): the two reads an uncontended acquisition's record
 * needs, not three.  A hold not recorded is copied nowhere: its entry is
 * closed over in place (the stores a timed path makes before the next
 * locked exchange are what it costs, docs/testing.md). */
static inline bool lockstat_release_begin(struct lock_hold *h, struct lockstat_release *r)
{
	KPRCB *prcb = ke_get_current_prcb();
	LOCKSTAT_CPU *ls = &prcb->LockStat;
	struct trace_stamp stamp;

	tracebuf_stamp_take(prcb->TraceCpu, &stamp);
	bool record = lockstat_sample(ls, h, stamp.tsc);
	if (__builtin_expect(record, 0)) {
		r->Stamp = stamp;
		r->ReleaseTsc = stamp.tsc;
		r->Hold = *h;
		r->Depth = (uint8_t)ls->Depth;
	}
	lockstat_remove(ls, h);
	return record;
}

#endif /* KPROF_KERNEL_LOCKS_LOCKSTAT_STACK_H */
