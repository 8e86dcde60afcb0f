/*
 * test_locks_assert.c - the spin locks' asserted invariants (the top
 * comments of kernel/locks/queuedlock.c and spinlock.c): each test breaks
 * one the way a buggy caller would and expects the bug check
 * KPROF_ASSERTION_FAILED naming the relation and its values
 * (kernel/debug/kassert.h).  The queues are built by hand, so no second
 * CPU is needed to reach the paths out of line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <arch/cpu.h>

#include "kernel/debug/kassert.h"
#include "kernel/ke/prcb.h"
#include "kernel/locks/spinlock.h"
#include "kernel/sched/sched.h"
#include "shadow.h"

#if !KPROF_ASSERTS
#error "test_locks_assert needs KPROF_ASSERTS"
#endif

KPRCB *KiProcessorBlock[KPROF_MAX_CPUS];
volatile uint32_t ke_number_processors;

static KPRCB prcb;
static KTHREAD thread;

void trace_subbuffer_filled(void)
{
}

KTHREAD *ke_get_current_thread(void)
{
	return &thread;
}

#define assert_tripped(what, file) assert_true(shadow_assertion_failed(what, file))
#define QUEUED "kernel/locks/queuedlock.c:"
#define ORDINARY "kernel/locks/spinlock.c:"

static KSPIN_LOCK lock, other;
static KSPIN_LOCK_QUEUE a, b, x;
static KLOCK_QUEUE_HANDLE h;

static int setup(void **state)
{
	(void)state;
	memset(&prcb, 0, sizeof(prcb));
	prcb.Self = &prcb;
	prcb.CurrentThread = &thread;
	KiProcessorBlock[0] = &prcb;
	ke_number_processors = 1;
	arch_percpu_set(&prcb);
	memset(&trace_groups, 0, sizeof(trace_groups)); /* untraced: the plain paths */
	lock = other = 0;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&x, 0, sizeof(x));
	memset(&h, 0, sizeof(h));
	arch_set_irql(DISPATCH_LEVEL);
	return 0;
}

/* Entry a holds `lock`, the tail. */
static void a_holds(void)
{
	a.Lock = (uintptr_t)&lock;
	lock = (uintptr_t)&a;
}

/* The handle h holds `lock` with b linked behind it, b's word succ (its
 * lock and bits), b the tail: a release must hand over to b. */
static void h_holds_b_behind(uintptr_t succ)
{
	h.LockQueue.Lock = (uintptr_t)&lock;
	h.LockQueue.Next = &b;
	b.Lock = succ;
	lock = (uintptr_t)&b;
}

/* A waiter at PASSIVE_LEVEL could be switched out and hold up the queue. */
static void test_queued_wait_below_dispatch(void **state)
{
	(void)state;
	a_holds();
	arch_set_irql(PASSIVE_LEVEL);
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_acquire_in_stack_queued_spin_lock_at_dpc_level(&lock, &h)));
	assert_tripped("ke_get_current_irql() >= DISPATCH_LEVEL (0 vs 2)", QUEUED);
}

/* The same handle acquired twice without a release: it would wait for itself. */
static void test_queued_handle_twice(void **state)
{
	(void)state;
	ke_acquire_in_stack_queued_spin_lock_at_dpc_level(&lock, &h); /* free: taken */
	assert_int_equal(lock, (uintptr_t)&h.LockQueue);
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_acquire_in_stack_queued_spin_lock_at_dpc_level(&lock, &h)));
	assert_tripped("(uintptr_t)pred != (uintptr_t)me", QUEUED);
}

/* The tail already has a successor: an entry reused while still queued. */
static void test_queued_pred_has_successor(void **state)
{
	(void)state;
	a_holds();
	a.Next = &x;
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_acquire_in_stack_queued_spin_lock_at_dpc_level(&lock, &h)));
	assert_tripped("(uintptr_t)had == (uintptr_t)0", QUEUED);
}

/* A release by an entry still waiting (its wait bit set): it never held the lock. */
static void test_queued_release_while_waiting(void **state)
{
	(void)state;
	h.LockQueue.Lock = (uintptr_t)&lock | LOCK_QUEUE_WAIT;
	h.LockQueue.Next = &b;
	lock = (uintptr_t)&b;
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_release_in_stack_queued_spin_lock_from_dpc_level(&h)));
	assert_tripped("me->Lock & LOCK_QUEUE_WAIT == (uintptr_t)0 (1 vs 0)", QUEUED);
}

/* The successor is not waiting: it was handed the lock already (a release twice). */
static void test_queued_handoff_twice(void **state)
{
	(void)state;
	h_holds_b_behind((uintptr_t)&lock); /* its wait bit clear */
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_release_in_stack_queued_spin_lock_from_dpc_level(&h)));
	assert_tripped("word & LOCK_QUEUE_WAIT != (uintptr_t)0 (0 vs 0)", QUEUED);
}

/* The successor waits for another lock: the queue links are crossed. */
static void test_queued_successor_of_another_lock(void **state)
{
	(void)state;
	h_holds_b_behind((uintptr_t)&other | LOCK_QUEUE_WAIT);
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_release_in_stack_queued_spin_lock_from_dpc_level(&h)));
	assert_tripped("word & ~(uintptr_t)LOCK_QUEUE_BITS == me->Lock & ~(uintptr_t)LOCK_QUEUE_BITS", QUEUED);
}

/* A hand-over below DISPATCH_LEVEL: the holder lowered its IRQL while holding. */
static void test_queued_handoff_below_dispatch(void **state)
{
	(void)state;
	h_holds_b_behind((uintptr_t)&lock | LOCK_QUEUE_WAIT);
	arch_set_irql(PASSIVE_LEVEL);
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_release_in_stack_queued_spin_lock_from_dpc_level(&h)));
	assert_tripped("ke_get_current_irql() >= DISPATCH_LEVEL (0 vs 2)", QUEUED);
}

/* The proper hand-over is quiet and clears the successor's wait bit. */
static void test_queued_handoff_quiet(void **state)
{
	(void)state;
	h_holds_b_behind((uintptr_t)&lock | LOCK_QUEUE_WAIT);
	assert_false(SHADOW_EXPECT_BUGCHECK(ke_release_in_stack_queued_spin_lock_from_dpc_level(&h)));
	assert_int_equal(b.Lock, (uintptr_t)&lock);
}

/* An ordinary lock waited for below DISPATCH_LEVEL. */
static void test_ordinary_wait_below_dispatch(void **state)
{
	(void)state;
	lock = 1;
	arch_set_irql(APC_LEVEL);
	assert_true(SHADOW_EXPECT_BUGCHECK(ki_acquire_spin_lock_wait(&lock)));
	assert_tripped("ke_get_current_irql() >= DISPATCH_LEVEL (1 vs 2)", ORDINARY);
}

/* A traced release of a lock nobody holds. */
static void test_ordinary_release_free(void **state)
{
	(void)state;
	assert_true(SHADOW_EXPECT_BUGCHECK(ki_release_spin_lock_traced(&lock, NULL)));
	assert_tripped("__atomic_load_n(lock, __ATOMIC_RELAXED) != (KSPIN_LOCK)0 (0 vs 0)", ORDINARY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_queued_wait_below_dispatch, setup),
		cmocka_unit_test_setup(test_queued_handle_twice, setup),
		cmocka_unit_test_setup(test_queued_pred_has_successor, setup),
		cmocka_unit_test_setup(test_queued_release_while_waiting, setup),
		cmocka_unit_test_setup(test_queued_handoff_twice, setup),
		cmocka_unit_test_setup(test_queued_successor_of_another_lock, setup),
		cmocka_unit_test_setup(test_queued_handoff_below_dispatch, setup),
		cmocka_unit_test_setup(test_queued_handoff_quiet, setup),
		cmocka_unit_test_setup(test_ordinary_wait_below_dispatch, setup),
		cmocka_unit_test_setup(test_ordinary_release_free, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
