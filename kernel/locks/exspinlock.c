/*
 * exspinlock.c - executive spin locks (EX_SPIN_LOCK): shared (AcquireMode
 * 2), exclusive (3), and shared converted to exclusive (4).
 *
 * Bits 0..30 count shared owners; bit 31 belongs to the exclusive owner,
 * or to the one exclusive acquirer that has claimed it and waits for the
 * sharers to drain.  A sharer enters only while bit 31 is clear, so a
 * waiting exclusive acquirer is not starved by a stream of sharers.
 * Conversion succeeds only from exactly one sharer (the caller) with bit
 * 31 clear.  Holders are at DISPATCH_LEVEL or above.
 */
#include "kernel/locks/spinlock.h"

#include "kernel/locks/lockstat_stack.h"

#define EX_EXCLUSIVE ((int32_t)0x80000000)

/* Take the lock shared; h (may be NULL) gets its first stamp right after
 * the first test (lockstat_stack.h).  Returns the extra tests. */
static inline uint32_t take_shared(EX_SPIN_LOCK *lock, struct lock_hold *h)
{
	uint32_t spins = 0;

	for (;;) {
		int32_t v = __atomic_load_n(lock, __ATOMIC_RELAXED);
		bool got = !(v & EX_EXCLUSIVE) &&
			   __atomic_compare_exchange_n(lock, &v, v + 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
		if (spins == 0)
			lockstat_tested(h);
		if (got)
			return spins;
		arch_cpu_relax();
		spins++;
	}
}

/* Claim bit 31, then wait for the sharers the claim found to drain.  A
 * claim that found sharers did not take the lock: every look at them is
 * counted, the one that finds them gone included, so spins > 0 and
 * lockstat_acquired reads AcquireTime after the last sharer left.
 * Counting only the looks that still found sharers gave 0 when the last
 * one left between the claim's clock read and the first look, and the
 * hold was stamped from the claim, over that sharer's (CI's locks-4: an
 * exclusive hold of ex0 over a shared one; the queued lock had the same
 * hole, queuedlock.c: wait_behind). */
static inline uint32_t take_exclusive(EX_SPIN_LOCK *lock, struct lock_hold *h)
{
	uint32_t spins = 0;
	int32_t sharers;

	for (;;) {
		sharers = __atomic_load_n(lock, __ATOMIC_RELAXED);
		bool got = !(sharers & EX_EXCLUSIVE) &&
			   __atomic_compare_exchange_n(lock, &sharers, sharers | EX_EXCLUSIVE, false, __ATOMIC_ACQUIRE,
						       __ATOMIC_RELAXED);
		if (spins == 0)
			lockstat_tested(h);
		if (got)
			break;
		arch_cpu_relax();
		spins++;
	}
	if (!sharers)
		return spins; /* none at the claim, and none can enter now */
	for (;;) {
		spins++;
		if (__atomic_load_n(lock, __ATOMIC_ACQUIRE) == EX_EXCLUSIVE)
			return spins;
		arch_cpu_relax();
	}
}

void ex_acquire_spin_lock_shared_at_dpc_level(EX_SPIN_LOCK *lock)
{
	if (__builtin_expect(lockstat_on(), 0)) {
		struct lock_hold *h = lockstat_try(lock, SpinLockModeExecutiveShared);
		lockstat_acquired(h, take_shared(lock, h));
		return;
	}
	take_shared(lock, NULL);
}

void ex_acquire_spin_lock_exclusive_at_dpc_level(EX_SPIN_LOCK *lock)
{
	if (__builtin_expect(lockstat_on(), 0)) {
		struct lock_hold *h = lockstat_try(lock, SpinLockModeExecutiveExclusive);
		lockstat_acquired(h, take_exclusive(lock, h));
		return;
	}
	take_exclusive(lock, NULL);
}

KIRQL ex_acquire_spin_lock_shared(EX_SPIN_LOCK *lock)
{
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	ex_acquire_spin_lock_shared_at_dpc_level(lock);
	return old;
}

KIRQL ex_acquire_spin_lock_exclusive(EX_SPIN_LOCK *lock)
{
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	ex_acquire_spin_lock_exclusive_at_dpc_level(lock);
	return old;
}

bool ex_try_convert_shared_spin_lock_exclusive(EX_SPIN_LOCK *lock)
{
	int32_t one = 1;

	if (!__atomic_compare_exchange_n(lock, &one, EX_EXCLUSIVE, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	struct lock_hold *h;
	if (ki_lockstat_depth() && (h = lockstat_find(lock)))
		h->Mode = SpinLockModeExecutiveConverted;
	return true;
}

static void release(EX_SPIN_LOCK *lock, bool exclusive, const void *caller)
{
	struct lock_hold *h;
	struct lockstat_release r;
	bool record = false;

	if (__builtin_expect(ki_lockstat_depth(), 0) && (h = lockstat_find(lock)))
		record = lockstat_release_begin(h, &r);
	if (exclusive)
		__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
	else
		__atomic_fetch_sub(lock, 1, __ATOMIC_RELEASE);
	if (record)
		lockstat_released(&r, caller);
}

void ex_release_spin_lock_shared_from_dpc_level(EX_SPIN_LOCK *lock)
{
	release(lock, false, __builtin_return_address(0));
}

void ex_release_spin_lock_exclusive_from_dpc_level(EX_SPIN_LOCK *lock)
{
	release(lock, true, __builtin_return_address(0));
}

void ex_release_spin_lock_shared(EX_SPIN_LOCK *lock, KIRQL old_irql)
{
	release(lock, false, __builtin_return_address(0));
	ke_lower_irql(old_irql);
}

void ex_release_spin_lock_exclusive(EX_SPIN_LOCK *lock, KIRQL old_irql)
{
	release(lock, true, __builtin_return_address(0));
	ke_lower_irql(old_irql);
}
