/*
 * test_idle.c - idle CPUs take ready work at once (kernel/sched/
 * idle.c and dispatch.c, linked as the kernel builds them): a thread made
 * ready, yielding or raised while a CPU it may run on idles is given to
 * that CPU, which is claimed (out of KiIdleSummary) and kicked; a kick
 * left unanswered 200 us hands the work to another idle CPU; a CPU
 * that goes idle, or comes online, takes a thread waiting in a busy
 * CPU's queue; affinity is respected throughout.  The four CPUs are
 * sched_fixture.h's; CPU 0 runs `runner` (priority 8).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support/sched_fixture.h"

static KTHREAD busy[NCPU];

/* CPU `cpu` runs a thread of priority `prio` (ids 200, 204, ...). */
static void cpu_busy(uint32_t cpu, int8_t prio)
{
	mk_thread(&busy[cpu], 200 + 4 * cpu, prio, cpu);
	cpu_runs(cpu, &busy[cpu]);
}

static bool idle_summary(uint32_t cpu)
{
	return affinity_test(&KiIdleSummary, cpu);
}

/* CPU `cpu` answers its kick (the IPI's exit path reschedules). */
static void answer_kick(uint32_t cpu)
{
	arch_percpu_set(&prcbs[cpu]);
	ki_dispatch_interrupt();
	arch_percpu_set(&prcbs[0]);
}

static void test_ready_thread_takes_the_idle_cpu(void **state)
{
	(void)state;
	KTHREAD t, pinned;
	cpu_busy(2, 12);
	cpu_busy(3, 12); /* CPU 1 idles */

	/* Pinned to busy CPU 3 at a lower priority: it waits there; idle
	 * CPU 1 is neither given it nor kicked. */
	mk_thread(&pinned, 100, 4, 3);
	only_on(&pinned, 3);
	ready(&pinned);
	assert_true(queued_on(&pinned, 3));
	assert_true(idle_summary(1));
	assert_int_equal(ipis(1) + ipis(3), 0);

	/* Ideal CPU 2 is busy: idle CPU 1 gets it, is claimed and kicked. */
	mk_thread(&t, 104, 4, 2);
	ready(&t);
	assert_true(queued_on(&t, 1));
	assert_false(idle_summary(1));
	assert_true(prcbs[1].DispatchPending);
	assert_int_equal(ipis(1), 1);
	uint64_t sent = prcbs[1].IdleKickTsc;
	assert_true(sent != 0); /* when the kick went, for the late-kick record */
	answer_kick(1);
	assert_int_equal(nkick, 1); /* answered: reported with when it was sent */
	assert_true(kicks[0].sent == sent && kicks[0].answered >= sent);
	assert_int_equal(prcbs[1].IdleKickTsc, 0);
	assert_ptr_equal(prcbs[1].CurrentThread, &t);
	assert_int_equal(swaps[0].cpu, 1);
	assert_int_equal(swaps[0].old_tid, 0);
	assert_int_equal(swaps[0].new_tid, 104);
	assert_false(idle_summary(1));
}

static void test_two_ready_threads_take_two_idle_cpus(void **state)
{
	(void)state;
	KTHREAD t, u;
	cpu_busy(3, 12); /* CPUs 1 and 2 idle */
	mk_thread(&t, 100, 4, 1);
	mk_thread(&u, 104, 4, 1);
	ready(&t);
	ready(&u); /* CPU 1 is claimed: the other idle CPU */
	assert_true(queued_on(&t, 1));
	assert_true(queued_on(&u, 2));
	assert_int_equal(ipis(1), 1);
	assert_int_equal(ipis(2), 1);
	assert_false(idle_summary(1) || idle_summary(2));
}

/* CPU 0's timer queue at `when` (its clock interrupt, as clock.c). */
static void timers_at(uint64_t when)
{
	KIRQL old = ke_raise_irql(CLOCK_LEVEL);
	ki_timer_queue_expire(&prcbs[0].TimerQueue, when, NULL);
	ke_lower_irql(old);
}

static void test_unanswered_kick_passes_work_to_another_idle_cpu(void **state)
{
	(void)state;
	KTHREAD t, u;
	cpu_busy(3, 12); /* CPUs 1 and 2 idle */
	mk_thread(&t, 100, 4, 1);
	ready(&t);
	assert_true(queued_on(&t, 1));
	assert_true(prcbs[1].IdleKickTimer.Queued);

	/* Before the patience runs out nothing moves. */
	timers_at(prcbs[1].IdleKickTsc + 1);
	assert_int_equal(ipis(2), 0);
	assert_true(idle_summary(2));
	/* CPU 1 (the host not running it) has not answered 200 us on: idle
	 * CPU 2 is claimed and kicked, and takes t from CPU 1's queue. */
	timers_at(prcbs[1].IdleKickTimer.Deadline);
	assert_false(idle_summary(2));
	assert_int_equal(ipis(2), 1);
	answer_kick(2);
	assert_ptr_equal(prcbs[2].CurrentThread, &t);
	/* CPU 1 answers at last: nothing left, idle again, the late kick
	 * reported with when it was sent. */
	answer_kick(1);
	assert_ptr_equal(prcbs[1].CurrentThread, &idle[1]);
	assert_true(idle_summary(1));
	assert_int_equal(nkick, 2);

	/* A kick answered in time cancels its timer: nothing is handed over. */
	cpu_runs(2, NULL);
	mk_thread(&u, 104, 4, 1);
	ready(&u);
	assert_true(queued_on(&u, 1));
	uint64_t due = prcbs[1].IdleKickTimer.Deadline;
	answer_kick(1);
	assert_false(prcbs[1].IdleKickTimer.Queued);
	timers_at(due);
	assert_int_equal(ipis(2), 1);
	assert_ptr_equal(prcbs[1].CurrentThread, &u);
}

static void test_yield_gives_the_yielder_to_an_idle_cpu(void **state)
{
	(void)state;
	KTHREAD peer;
	cpu_busy(1, 12);
	cpu_busy(3, 12); /* CPU 2 idles */
	mk_thread(&peer, 100, 8, 0);
	insert(&prcbs[0], &peer, false);

	ke_yield_execution();
	assert_ptr_equal(prcbs[0].CurrentThread, &peer);
	assert_int_equal(swaps[0].old_wait_reason, WrYieldExecution);
	/* Not behind peer on CPU 0 while CPU 2 idles: CPU 2 runs it now. */
	assert_true(queued_on(&runner, 2));
	assert_false(idle_summary(2));
	assert_int_equal(ipis(2), 1);
}

static void test_going_idle_takes_work_from_a_busy_cpu(void **state)
{
	(void)state;
	KTHREAD t, pinned;
	cpu_busy(1, 12);
	cpu_busy(2, 12);
	cpu_busy(3, 12);
	mk_thread(&t, 100, 5, 2);
	mk_thread(&pinned, 104, 6, 3);
	only_on(&pinned, 3);
	insert(&prcbs[2], &t, false);
	insert(&prcbs[3], &pinned, false);

	/* The runner waits: CPU 0 takes t from busy CPU 2's queue, not the
	 * higher pinned thread it may not run. */
	unsigned long flags = ki_lock_dispatcher();
	runner.State = Waiting;
	ki_block_current();
	ki_unlock_dispatcher(flags);
	assert_ptr_equal(prcbs[0].CurrentThread, &t);
	assert_false(idle_summary(0));
	assert_true(queued_on(&pinned, 3));

	/* t waits too: nothing CPU 0 may run is left, so it idles and is
	 * in the summary, ready to be given the next thread. */
	flags = ki_lock_dispatcher();
	t.State = Waiting;
	ki_block_current();
	ki_unlock_dispatcher(flags);
	assert_ptr_equal(prcbs[0].CurrentThread, &idle[0]);
	assert_true(idle_summary(0));
	assert_true(queued_on(&pinned, 3));
}

static void test_cpu_coming_online_takes_queued_work(void **state)
{
	(void)state;
	KTHREAD t, pinned;
	cpu_busy(2, 12);
	cpu_busy(3, 12);
	/* Threads queued before CPU 1 came online (its bit is set at start-up). */
	mk_thread(&pinned, 100, 9, 3);
	only_on(&pinned, 3);
	insert(&prcbs[3], &pinned, false);
	mk_thread(&t, 104, 4, 2);
	insert(&prcbs[2], &t, false);

	arch_percpu_set(&prcbs[1]);
	assert_true(ki_idle_look_for_work());
	assert_ptr_equal(prcbs[1].CurrentThread, &t); /* switched before its first halt */
	assert_int_equal(swaps[0].new_tid, 104);

	/* Only the pinned thread is left: nothing for CPU 1, it may halt. */
	cpu_runs(1, NULL);
	assert_false(ki_idle_look_for_work());
	assert_ptr_equal(prcbs[1].CurrentThread, &idle[1]);
	assert_true(idle_summary(1));
	assert_true(queued_on(&pinned, 3));
	arch_percpu_set(&prcbs[0]);
}

static void test_raising_a_ready_thread_places_it_again(void **state)
{
	(void)state;
	KTHREAD t;
	runner.Priority = runner.BasePriority = 12;
	cpu_busy(1, 12);
	cpu_busy(2, 10);
	cpu_busy(3, 12);
	mk_thread(&t, 100, 4, 2);
	insert(&prcbs[2], &t, false);

	/* At 11 it outranks CPU 2's thread: CPU 2 is kicked at once. */
	ke_set_priority_thread(&t, 11);
	assert_int_equal(t.Priority, 11);
	assert_true(queued_on(&t, 2));
	assert_true(prcbs[2].DispatchPending);
	assert_int_equal(ipis(2), 1);
	answer_kick(2);
	assert_ptr_equal(prcbs[2].CurrentThread, &t);
	assert_true(queued_on(&busy[2], 2)); /* preempted, first in line */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ready_thread_takes_the_idle_cpu, setup),
		cmocka_unit_test_setup(test_two_ready_threads_take_two_idle_cpus, setup),
		cmocka_unit_test_setup(test_unanswered_kick_passes_work_to_another_idle_cpu, setup),
		cmocka_unit_test_setup(test_yield_gives_the_yielder_to_an_idle_cpu, setup),
		cmocka_unit_test_setup(test_going_idle_takes_work_from_a_busy_cpu, setup),
		cmocka_unit_test_setup(test_cpu_coming_online_takes_queued_work, setup),
		cmocka_unit_test_setup(test_raising_a_ready_thread_places_it_again, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
