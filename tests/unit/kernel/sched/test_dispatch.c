/*
 * test_dispatch.c - a thread made ready that outranks a running one
 * preempts at once, the paths of the sched-4 case (docs/scheduler.md,
 * "The sched-4 case"), with kernel/sched/dispatch.c and readyq.c linked as
 * the kernel builds them:
 *
 *   - a CPU already asked to make room for one thread is not given the
 *     next one of no higher priority while another CPU runs a lower
 *     priority (it counts at the priority of the thread it was given, as
 *     NT's NextThread), so the second thread is not left in a queue for a
 *     clock tick to find;
 *   - among CPUs running equally low priorities, the thread goes to the
 *     CPU making it ready (no IPI: it preempts when that CPU's IRQL drops)
 *     rather than to another that the host may not be running;
 *   - a request to reschedule answered on an interrupt's way out is
 *     reported with when it was made (a late one is a stall, clock.c), up
 *     to the DPCs that ran first; one answered on the way down from
 *     DISPATCH_LEVEL is not.
 *
 * The four CPUs are sched_fixture.h's; this host thread plays the CPU
 * whose KPRCB arch_percpu_set() names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support/sched_fixture.h"

static KTHREAD busy[NCPU];

/* CPU `cpu` runs thread `tid` at `prio`. */
static KTHREAD *cpu_busy(uint32_t cpu, uint32_t tid, int8_t prio)
{
	mk_thread(&busy[cpu], tid, prio, cpu);
	cpu_runs(cpu, &busy[cpu]);
	return &busy[cpu];
}

/* CPUs 1, 2 and 3 run threads 200, 204 and 208 at these priorities (CPU
 * 0 runs `runner` at 8). */
static void others_run(int8_t p1, int8_t p2, int8_t p3)
{
	cpu_busy(1, 200, p1);
	cpu_busy(2, 204, p2);
	cpu_busy(3, 208, p3);
}

/* Made ready by CPU `cpu` (its ReadyThread record is that CPU's). */
static void ready_on(uint32_t cpu, KTHREAD *t)
{
	arch_percpu_set(&prcbs[cpu]);
	ready(t);
	arch_percpu_set(&prcbs[0]);
}

/* CPU `cpu` answers its request (the IPI's way out). */
static void answer(uint32_t cpu)
{
	arch_percpu_set(&prcbs[cpu]);
	ki_dispatch_after_interrupt(0);
	arch_percpu_set(&prcbs[0]);
}

/* sched-4-missed-preemption-2.log: CPU 1 makes thread 108 (12) ready and
 * CPU 3, running a spinner at 5, is asked to make room; before CPU 3 has
 * switched, its own clock interrupt ends thread 104's timed wait (12).
 * CPU 3 still runs 5, but it will run 108: 104 must go to CPU 0, which
 * runs 10, not wait in CPU 3's queue until some CPU's tick finds it. */
static void test_second_thread_not_given_to_a_cpu_already_asked(void **state)
{
	(void)state;
	KTHREAD t108, t104, t88;
	cpu_busy(0, 60, 10);
	cpu_busy(1, 36, 10);
	cpu_busy(2, 84, 20);
	cpu_busy(3, 128, 5);
	mk_thread(&t88, 88, 20, 1); /* given to CPU 1 earlier: it runs 20 next */
	insert(&prcbs[1], &t88, false);
	prcbs[1].PreemptThread = &t88;
	prcbs[1].DispatchPending = 1;

	mk_thread(&t108, 108, 12, 1);
	ready_on(1, &t108);
	assert_true(queued_on(&t108, 3)); /* CPU 3 runs the lowest, 5 */
	assert_true(prcbs[3].DispatchPending);
	assert_int_equal(ipis(3), 1);

	mk_thread(&t104, 104, 12, 2);
	ready_on(3, &t104);
	assert_true(queued_on(&t104, 0)); /* CPU 0 runs 10: it makes room */
	assert_true(prcbs[0].DispatchPending);
	assert_int_equal(ipis(0), 1);

	/* They answer: each takes its thread, none waits behind a lower one. */
	answer(1);
	answer(3);
	answer(0);
	assert_ptr_equal(prcbs[1].CurrentThread, &t88);
	assert_ptr_equal(prcbs[3].CurrentThread, &t108);
	assert_ptr_equal(prcbs[0].CurrentThread, &t104);

	/* A better thread may still go to a CPU asked for a lesser one, when
	 * it is the lowest even so. */
	KTHREAD a, b;
	cpu_busy(2, 84, 13);
	mk_thread(&a, 112, 14, 2);
	mk_thread(&b, 116, 16, 2);
	ready_on(1, &a);
	assert_true(queued_on(&a, 0)); /* CPUs 0 and 3 run 12: the lower-numbered */
	ready_on(1, &b);
	assert_true(queued_on(&b, 3)); /* CPU 0 will run 14, CPU 2 runs 13, CPU 3 12 */
	assert_int_equal(ipis(0), 2);
	assert_int_equal(ipis(3), 2);
}

/* A thread given to a CPU and taken by another before the CPU answered
 * no longer counts there: the CPU runs what it ran. */
static void test_claim_ends_when_the_thread_is_taken(void **state)
{
	(void)state;
	KTHREAD t, u;
	others_run(6, 9, 9);
	mk_thread(&t, 100, 12, 1);
	ready(&t);
	assert_true(queued_on(&t, 1));
	/* CPU 2's thread blocks: it takes t from CPU 1's queue. */
	arch_percpu_set(&prcbs[2]);
	unsigned long flags = ki_lock_dispatcher();
	busy[2].State = Waiting;
	ki_block_current();
	ki_unlock_dispatcher(flags);
	arch_percpu_set(&prcbs[0]);
	assert_ptr_equal(prcbs[2].CurrentThread, &t);
	assert_null(prcbs[1].PreemptThread);
	/* CPU 1 still runs 6, the lowest: the next thread goes there. */
	mk_thread(&u, 104, 7, 3);
	ready(&u);
	assert_true(queued_on(&u, 1));
}

/* sched-4-missed-preemption.log: CPU 2, running producer 40 at 10,
 * releases the mutex consumer 60 (11) waits for; CPU 1 runs a producer at
 * 10 too, but the host was not running CPU 1.  The thread goes to CPU 2
 * itself, which switches as soon as it lowers its IRQL, with no IPI. */
static void test_tie_goes_to_the_cpu_making_it_ready(void **state)
{
	(void)state;
	KTHREAD t60;
	cpu_busy(0, 68, 11);
	cpu_busy(1, 48, 10);
	KTHREAD *t40 = cpu_busy(2, 40, 10);
	cpu_busy(3, 64, 11);
	mk_thread(&t60, 60, 11, 0);
	t60.NextProcessor = 1; /* it last ran on CPU 1: ideal and last lose to this CPU */

	arch_percpu_set(&prcbs[2]);
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	ready(&t60);
	assert_true(queued_on(&t60, 2));
	assert_int_equal(ipis(1) + ipis(2), 0);
	assert_false(prcbs[1].DispatchPending);
	ke_lower_irql(old); /* the release's way out: the switch */
	arch_percpu_set(&prcbs[0]);
	assert_ptr_equal(prcbs[2].CurrentThread, &t60);
	assert_int_equal(swaps[0].cpu, 2);
	assert_int_equal(swaps[0].old_tid, 40);
	assert_int_equal(swaps[0].old_wait_reason, WrPreempted);
	assert_true(queued_on(t40, 2)); /* no CPU runs below 10: first in its own queue */
}

/* Among other CPUs equally low, the thread's ideal processor, then the
 * one it last ran on, then the lowest-numbered. */
static void test_tie_prefers_ideal_then_last(void **state)
{
	(void)state;
	KTHREAD t, u;
	others_run(5, 5, 5);
	mk_thread(&t, 100, 7, 2);
	t.NextProcessor = 3;
	ready(&t);
	assert_true(queued_on(&t, 2));
	mk_thread(&u, 104, 7, 0); /* ideal CPU 0 runs 8: its last, CPU 3 */
	u.NextProcessor = 3;
	ready(&u);
	assert_true(queued_on(&u, 3));
}

/* A request answered on an interrupt's way out is reported with when it
 * was made (clock.c records it when over 200 us late), up to the DPCs
 * that ran first; answered on the way down from DISPATCH_LEVEL, it is
 * not reported: the CPU may have held it back itself. */
static void test_answer_reports_when_asked(void **state)
{
	(void)state;
	KTHREAD t, u;
	others_run(5, 9, 9);
	mk_thread(&t, 100, 7, 1);
	ready(&t);
	uint64_t asked = prcbs[1].DispatchRequestTsc;
	assert_true(asked != 0);
	answer(1);
	assert_int_equal(nkick, 1);
	assert_true(kicks[0].sent == asked && kicks[0].answered >= asked);
	assert_int_equal(prcbs[1].DispatchRequestTsc, 0);
	assert_ptr_equal(prcbs[1].CurrentThread, &t);

	/* DPCs ran first from `own`: the stall ends there. */
	mk_thread(&u, 104, 8, 1);
	cpu_busy(3, 208, 6);
	ready(&u);
	asked = prcbs[3].DispatchRequestTsc;
	uint64_t own = asked + 5;
	arch_percpu_set(&prcbs[3]);
	ki_dispatch_after_interrupt(own);
	arch_percpu_set(&prcbs[0]);
	assert_int_equal(nkick, 2);
	assert_true(kicks[1].sent == asked && kicks[1].answered == own);

	/* The CPU's own tick asks (a better thread waits); answered on the
	 * way down from DISPATCH_LEVEL: not reported. */
	KTHREAD v;
	cpu_busy(2, 204, 9);
	mk_thread(&v, 108, 10, 2);
	insert(&prcbs[2], &v, false);
	prcbs[2].DispatchPending = 0;
	arch_percpu_set(&prcbs[2]);
	ki_sched_clock_tick(NULL);
	assert_true(prcbs[2].DispatchPending);
	assert_true(prcbs[2].DispatchRequestTsc != 0);
	ki_dispatch_interrupt();
	arch_percpu_set(&prcbs[0]);
	assert_int_equal(nkick, 2);
	assert_int_equal(prcbs[2].DispatchRequestTsc, 0);
	assert_ptr_equal(prcbs[2].CurrentThread, &v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_second_thread_not_given_to_a_cpu_already_asked, setup),
		cmocka_unit_test_setup(test_claim_ends_when_the_thread_is_taken, setup),
		cmocka_unit_test_setup(test_tie_goes_to_the_cpu_making_it_ready, setup),
		cmocka_unit_test_setup(test_tie_prefers_ideal_then_last, setup),
		cmocka_unit_test_setup(test_answer_reports_when_asked, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
