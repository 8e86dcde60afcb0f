/*
 * spinlock.c - ordinary spin locks (KSPIN_LOCK, AcquireMode 0): the parts
 * out of line (the fast paths are inline in spinlock.h).
 *
 * Test-and-set with a read-only wait: one atomic exchange when the lock
 * is free; while it is held, the waiter only reads it (no cache-line
 * ping-pong) and each re-test is one spin.  Holders run at DISPATCH_LEVEL
 * or above, so they are never switched out while holding it.
 *
 * Lock order: none inside; callers nest locks as they like, up to the
 * instrumentation's depth of eight (deeper ones are taken untimed).
 *
 * Asserted on the paths out of line (test_locks_assert trips each): a
 * waiter is at DISPATCH_LEVEL or above; a traced release finds the lock
 * held.
 */
#include "kernel/locks/spinlock.h"

#include "kernel/debug/kassert.h"
#include "kernel/locks/lockstat_stack.h"

/* Spin until taken, the first test already failed; returns the extra
 * tests of the lock. */
static uint32_t wait_and_take(KSPIN_LOCK *lock)
{
	uint32_t spins = 0;

	KASSERT_OP(ke_get_current_irql(), >=, DISPATCH_LEVEL);
	do {
		do {
			arch_cpu_relax();
			spins++;
		} while (__atomic_load_n(lock, __ATOMIC_RELAXED));
	} while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE));
	return spins;
}

void ki_acquire_spin_lock_wait(KSPIN_LOCK *lock)
{
	wait_and_take(lock);
}

void ki_acquire_spin_lock_traced(KSPIN_LOCK *lock)
{
	struct lock_hold *h = lockstat_try(lock, SpinLockModeOrdinary);
	bool taken = __atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE) == 0;
	lockstat_tested(h);
	lockstat_acquired(h, taken ? 0 : wait_and_take(lock));
}

bool ke_try_to_acquire_spin_lock_at_dpc_level(KSPIN_LOCK *lock)
{
	if (__builtin_expect(lockstat_on(), 0)) {
		struct lock_hold *h = lockstat_try(lock, SpinLockModeOrdinary);
		bool got = __atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE) == 0;
		lockstat_tested(h);
		if (got)
			lockstat_acquired(h, 0);
		else
			lockstat_abandon(h);
		return got;
	}
	return __atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE) == 0;
}

void ki_release_spin_lock_traced(KSPIN_LOCK *lock, const void *caller)
{
	struct lock_hold *h = lockstat_find(lock);

	KASSERT_OP(__atomic_load_n(lock, __ATOMIC_RELAXED), !=, (KSPIN_LOCK)0); /* releasing a lock not held */
	if (!h) { /* taken before tracing started, or untracked */
		__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
		return;
	}
	struct lockstat_release r;
	bool record = lockstat_release_begin(h, &r);
	__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
	if (record)
		lockstat_released(&r, caller);
}
