/*
 * queuedlock.c - in-stack queued spin locks (AcquireMode 1), MCS style:
 * the parts out of line (the fast paths are inline in spinlock.h).
 *
 * The KSPIN_LOCK holds the last waiter's KSPIN_LOCK_QUEUE (the tail), or 0
 * when free.  An acquirer swaps itself in as the tail and, if there was
 * one before it, marks its entry waiting, links itself behind that one
 * and spins on its own entry only; the releaser hands the lock to the
 * entry behind it by clearing that entry's wait bit.  First come, first
 * served; each waiter spins on its own cache line.
 *
 * LOCK_QUEUE_TIMED in an entry says its acquisition was timed (it is on
 * the CPU's stack of held locks), so the untraced release needs no other
 * test.
 *
 * Invariants: an entry's LOCK_QUEUE_WAIT bit is set from before it is
 * linked behind a predecessor (the only one who clears it) until that
 * predecessor hands over; Next is written once, by the successor.  A
 * releaser with no successor either swings the tail back to 0 or, if a
 * successor has swapped in but not linked yet, waits for the link.
 * Holders are at DISPATCH_LEVEL or above.
 *
 * Asserted (kernel/debug/kassert.h) on the paths out of line, so the
 * uncontended inline ones cost nothing more; test_locks_assert trips
 * each:
 *   - a waiter is at DISPATCH_LEVEL or above (one that could be switched
 *     out would hold up every waiter behind it), and so is a releaser that
 *     hands over;
 *   - its predecessor is another entry, with no successor yet (an entry
 *     queued twice without a release would wait for itself, or cut the
 *     queue);
 *   - a releaser holds the lock (its own wait bit clear), and the entry
 *     it hands over to waits (wait bit set: only its predecessor clears
 *     it, once) for the same lock.
 */
#include "kernel/locks/spinlock.h"

#include "kernel/debug/kassert.h"
#include "kernel/locks/lockstat_stack.h"

/* Behind pred: wait for the hand-over; returns the looks at the wait bit,
 * the last one (that found the lock handed over) included, so at least 1.
 * A waiter behind a predecessor never takes the lock at its first test
 * (the swap): its AcquireTime must be read after the hand-over
 * (lockstat_acquired reads it only for spins > 0).  Counting only the
 * looks that found it still waiting gave 0 when the hand-over came before
 * the first look (the virtual CPU not running, an interrupt), and the
 * hold was then stamped from the swap, over the predecessor's: locks-4
 * saw two holds of one queued lock overlap by 910 us on a loaded host. */
static uint32_t wait_behind(KSPIN_LOCK_QUEUE *me, KSPIN_LOCK_QUEUE *pred)
{
	uint32_t spins = 0;

	KASSERT_OP(ke_get_current_irql(), >=, DISPATCH_LEVEL);
	KASSERT_OP((uintptr_t)pred, !=, (uintptr_t)me);
	/* Waiting from before the predecessor can see us. */
	__atomic_store_n(&me->Lock, me->Lock | LOCK_QUEUE_WAIT, __ATOMIC_RELAXED);
	/* Linked.  Checked (the predecessor had no successor) with the old
	 * value of one exchange on its line: a read of its Next before the
	 * store fetched the line twice, shared then owned (90 of a hand-off's
	 * 600 cycles, docs/testing.md). */
	if (KPROF_ASSERTS) {
		KSPIN_LOCK_QUEUE *had = __atomic_exchange_n(&pred->Next, me, __ATOMIC_RELEASE);
		KASSERT_OP((uintptr_t)had, ==, (uintptr_t)0);
	} else {
		__atomic_store_n(&pred->Next, me, __ATOMIC_RELEASE);
	}
	lockstat_test_after_link(me, pred);
	for (;;) {
		spins++;
		if (!(__atomic_load_n(&me->Lock, __ATOMIC_ACQUIRE) & LOCK_QUEUE_WAIT))
			return spins;
		arch_cpu_relax();
	}
}

void ki_queued_wait(KSPIN_LOCK_QUEUE *me, KSPIN_LOCK_QUEUE *pred)
{
	wait_behind(me, pred);
}

void ki_queued_handoff(KSPIN_LOCK_QUEUE *me)
{
	KSPIN_LOCK_QUEUE *next;

	KASSERT_OP(ke_get_current_irql(), >=, DISPATCH_LEVEL);
	KASSERT_OP(me->Lock & LOCK_QUEUE_WAIT, ==, (uintptr_t)0);
	while (!(next = __atomic_load_n(&me->Next, __ATOMIC_ACQUIRE)))
		arch_cpu_relax(); /* a successor swapped in and is linking */
	/* Hand over: clear its wait bit (it does not touch its word while it waits). */
	uintptr_t word = __atomic_load_n(&next->Lock, __ATOMIC_RELAXED);
	KASSERT_OP(word & LOCK_QUEUE_WAIT, !=, (uintptr_t)0);
	KASSERT_OP(word & ~(uintptr_t)LOCK_QUEUE_BITS, ==, me->Lock & ~(uintptr_t)LOCK_QUEUE_BITS);
	__atomic_store_n(&next->Lock, word & ~(uintptr_t)LOCK_QUEUE_WAIT, __ATOMIC_RELEASE);
}

static void dequeue(KSPIN_LOCK_QUEUE *me)
{
	KSPIN_LOCK *lock = (KSPIN_LOCK *)(me->Lock & ~(uintptr_t)LOCK_QUEUE_BITS);
	uintptr_t expect = (uintptr_t)me;

	if (!__atomic_load_n(&me->Next, __ATOMIC_ACQUIRE) && __atomic_load_n(lock, __ATOMIC_RELAXED) == expect &&
	    __atomic_compare_exchange_n(lock, &expect, 0, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return;
	ki_queued_handoff(me);
}

void ki_acquire_queued_traced(KSPIN_LOCK *lock, KSPIN_LOCK_QUEUE *me)
{
	struct lock_hold *h = lockstat_try(lock, SpinLockModeQueued);

	me->Next = NULL;
	me->Lock = (uintptr_t)lock | (h ? LOCK_QUEUE_TIMED : 0);
	KSPIN_LOCK_QUEUE *pred = (KSPIN_LOCK_QUEUE *)__atomic_exchange_n(lock, (uintptr_t)me, __ATOMIC_ACQ_REL);
	lockstat_tested(h); /* the swap was the first test */
	lockstat_acquired(h, pred ? wait_behind(me, pred) : 0);
}

void ki_release_queued_traced(KSPIN_LOCK_QUEUE *me, const void *caller)
{
	struct lock_hold *h = lockstat_find((const void *)(me->Lock & ~(uintptr_t)LOCK_QUEUE_BITS));

	if (!h) {
		dequeue(me);
		return;
	}
	struct lockstat_release r;
	bool record = lockstat_release_begin(h, &r);
	dequeue(me);
	if (record)
		lockstat_released(&r, caller);
}
