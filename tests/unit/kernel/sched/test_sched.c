/*
 * test_sched.c - the dispatcher's decisions, on the host: ready-queue
 * selection (readyq.c), where a ready thread goes and who it preempts
 * (dispatch.c), quanta, boosts and their decay (priority.c), and waits on
 * events, semaphores, mutants and timers, any and all, with time-outs
 * (wait.c and the object files).
 *
 * The four CPUs are sched_fixture.h's (CPU 0 runs `runner`).  Waiting threads are never the running one: the tests build waits with
 * ki_wait_setup() under the dispatcher lock, as ke_wait_for_*() does
 * before it blocks, and end them through the public signalling calls.
 * Every ki_ call is made with the dispatcher lock held, as the kernel
 * makes it: the ki_ functions assert that (KPROF_LOCK_CHECKS), so the
 * helpers below take the lock around them.
 *
 * Modules: kernel/sched/objects (the dispatcher objects waited on here)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "support/sched_fixture.h"

static NTSTATUS wait_setup(KTHREAD *t, uint32_t count, void *const objects[], WAIT_TYPE type, uint64_t timeout_us)
{
	unsigned long flags = ki_lock_dispatcher();
	NTSTATUS st = ki_wait_setup(t, count, objects, type, Executive, KernelMode, timeout_us, t->WaitBlock);
	ki_unlock_dispatcher(flags);
	return st;
}

/* ---------------------------------------------------------------- ready queues */

static void quantum_end(KTHREAD *t)
{
	unsigned long flags = ki_lock_dispatcher();
	ki_quantum_end(t);
	ki_unlock_dispatcher(flags);
}

static void boost(KTHREAD *t, int increment)
{
	unsigned long flags = ki_lock_dispatcher();
	ki_boost_priority(t, increment);
	ki_unlock_dispatcher(flags);
}

static void test_ready_queue_selection(void **state)
{
	(void)state;
	KTHREAD a, b, c, d, e;
	mk_thread(&a, 100, 8, 1);
	mk_thread(&b, 104, 10, 2);
	mk_thread(&c, 108, 10, 0);
	mk_thread(&d, 112, 12, 2);
	mk_thread(&e, 116, 10, 0);
	only_on(&d, 3);
	insert(&prcbs[1], &a, false);
	insert(&prcbs[2], &b, false);
	insert(&prcbs[0], &c, false);
	insert(&prcbs[2], &d, false); /* queued where it may not run */
	insert(&prcbs[0], &e, false);
	assert_int_equal(prcbs[0].ReadySummary, 1u << 10);
	assert_int_equal(prcbs[2].ReadySummary, (1u << 10) | (1u << 12));

	/* Highest priority allowed here; at equal priority the own queue, FIFO. */
	assert_ptr_equal(find(0, 0, false), &c);
	assert_int_equal(find(1, 0, false)->Priority, 10); /* another queue's 10 beats its own 8 */
	assert_ptr_equal(find(3, 0, false), &d); /* only CPU 3 may run d */
	assert_null(find(0, 11, false));          /* nothing at 11 or above for CPU 0 */
	assert_ptr_equal(find(3, 12, false), &d);

	/* Taking removes, and clears the summary bit with the last thread. */
	assert_ptr_equal(find(0, 0, true), &c);
	assert_ptr_equal(find(0, 0, true), &e);
	assert_int_equal(prcbs[0].ReadySummary, 0);
	assert_ptr_equal(find(0, 0, true), &b);
	assert_int_equal(prcbs[2].ReadySummary, 1u << 12);
	assert_ptr_equal(find(0, 0, true), &a);
	assert_null(find(0, 0, true));
	assert_ptr_equal(find(3, 0, true), &d);
	for (uint32_t i = 0; i < NCPU; i++)
		assert_int_equal(prcbs[i].ReadySummary, 0);
}

static void test_front_insertion_keeps_place(void **state)
{
	(void)state;
	KTHREAD a, b, c;
	mk_thread(&a, 100, 9, 0);
	mk_thread(&b, 104, 9, 0);
	mk_thread(&c, 108, 9, 0);
	insert(&prcbs[0], &a, false);
	insert(&prcbs[0], &b, false);
	insert(&prcbs[0], &c, true); /* a preempted thread */
	assert_ptr_equal(find(0, 0, true), &c);
	assert_ptr_equal(find(0, 0, true), &a);
	assert_ptr_equal(find(0, 0, true), &b);
}

/* ---------------------------------------------------------------- choosing a CPU */

static void test_ready_goes_to_idle_ideal_then_last(void **state)
{
	(void)state;
	KTHREAD t, u, v;
	mk_thread(&t, 100, 8, 2);
	ready(&t);
	assert_true(queued_on(&t, 2));
	assert_false(affinity_test(&KiIdleSummary, 2)); /* claimed */
	assert_true(prcbs[2].DispatchPending);
	assert_int_equal(ipis(2), 1);

	/* Ideal CPU 2 is claimed now: the CPU it last ran on, if idle. */
	mk_thread(&u, 104, 8, 2);
	u.NextProcessor = 3;
	ready(&u);
	assert_true(queued_on(&u, 3));
	assert_int_equal(ipis(3), 1);

	/* Neither: any idle CPU it may use. */
	mk_thread(&v, 108, 8, 2);
	v.NextProcessor = 3;
	ready(&v);
	assert_true(queued_on(&v, 1));
	assert_int_equal(readies[0].tid, 100);
	assert_int_equal(readies[0].reason, AdjustUnwait);
	assert_int_equal(nready, 3);
}

static void test_idle_claim_released_when_work_is_gone(void **state)
{
	(void)state;
	KTHREAD t, u;
	mk_thread(&t, 100, 8, 2);
	ready(&t);
	assert_false(affinity_test(&KiIdleSummary, 2)); /* claimed */
	/* Another CPU takes the thread before CPU 2 gets to it. */
	assert_ptr_equal(find(0, 0, true), &t);
	/* CPU 2 answers the IPI: nothing to run, so it is idle and choosable again. */
	arch_percpu_set(&prcbs[2]);
	ki_dispatch_interrupt();
	arch_percpu_set(&prcbs[0]);
	assert_ptr_equal(prcbs[2].CurrentThread, &idle[2]);
	assert_true(affinity_test(&KiIdleSummary, 2));
	mk_thread(&u, 104, 8, 2);
	ready(&u);
	assert_true(queued_on(&u, 2));
	assert_int_equal(ipis(2), 2);
}

static void test_ready_preempts_lowest_priority_cpu(void **state)
{
	(void)state;
	KTHREAD r1, r2, r3, t, low, pinned;
	mk_thread(&r1, 200, 5, 1);
	mk_thread(&r2, 204, 9, 2);
	mk_thread(&r3, 208, 3, 3);
	cpu_runs(1, &r1);
	cpu_runs(2, &r2);
	cpu_runs(3, &r3); /* CPU 0 runs `runner` at 8 */

	mk_thread(&t, 100, 7, 2);
	ready(&t);
	assert_true(queued_on(&t, 3)); /* CPU 3 runs the lowest, 3 */
	assert_true(prcbs[3].DispatchPending);
	assert_int_equal(ipis(3), 1);

	/* Lower than everything running: waits on its ideal CPU, no IPI. */
	mk_thread(&low, 104, 2, 2);
	ready(&low);
	assert_true(queued_on(&low, 2));
	assert_false(prcbs[2].DispatchPending);
	assert_int_equal(ipis(2), 0);

	/* Affinity limits the victims: CPUs 0 and 2 only, CPU 0 runs 8 < 9. */
	mk_thread(&pinned, 108, 9, 2);
	affinity_clear_all(&pinned.Affinity);
	affinity_add(&pinned.Affinity, 0);
	affinity_add(&pinned.Affinity, 2);
	ready(&pinned);
	assert_true(queued_on(&pinned, 0));
	assert_true(prcbs[0].DispatchPending);
	assert_int_equal(ipis(0), 0); /* this CPU: no IPI, its own exit path */
}

/* ---------------------------------------------------------------- switching */

static void test_preemption_and_quantum_end(void **state)
{
	(void)state;
	KTHREAD r1, r2, r3, x, y;
	mk_thread(&r1, 200, 12, 1);
	mk_thread(&r2, 204, 12, 2);
	mk_thread(&r3, 208, 12, 3);
	cpu_runs(1, &r1);
	cpu_runs(2, &r2);
	cpu_runs(3, &r3);

	/* X (9) beats the runner (8) on CPU 0: lowering IRQL switches. */
	mk_thread(&x, 100, 9, 0);
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	ready(&x);
	ke_lower_irql(old);
	assert_ptr_equal(prcbs[0].CurrentThread, &x);
	assert_int_equal(x.State, Running);
	assert_int_equal(nswap, 1);
	assert_int_equal(swaps[0].old_tid, 8);
	assert_int_equal(swaps[0].new_tid, 100);
	assert_int_equal(swaps[0].old_state, Ready);
	assert_int_equal(swaps[0].old_wait_reason, WrPreempted);
	assert_true(queued_on(&runner, 0));
	assert_int_equal(shadow_switches, 1);

	/* Y (9) is ready too: X keeps the CPU until its quantum ends. */
	mk_thread(&y, 104, 9, 0);
	ready(&y);
	assert_true(queued_on(&y, 0));
	assert_false(prcbs[0].DispatchPending); /* equal priority: no preemption */
	x.LastRunTsc = arch_rdtsc();
	ki_sched_clock_tick(NULL);
	assert_false(prcbs[0].QuantumEnd); /* quantum not used up yet */
	x.LastRunTsc = arch_rdtsc() - 2 * ki_quantum_cycles;
	ki_sched_clock_tick(NULL);
	assert_true(prcbs[0].QuantumEnd);
	ki_dispatch_interrupt();
	assert_ptr_equal(prcbs[0].CurrentThread, &y);
	assert_int_equal(swaps[1].old_wait_reason, WrQuantumEnd);
	assert_true(queued_on(&x, 0)); /* behind its equals: round robin */
	assert_ptr_equal(find(0, 0, false), &x);
}

static void test_yield(void **state)
{
	(void)state;
	KTHREAD peer, low, busy[NCPU];
	for (uint32_t c = 1; c < NCPU; c++) { /* no idle CPU: test_idle.c has that case */
		mk_thread(&busy[c], 200 + 4 * c, 12, c);
		cpu_runs(c, &busy[c]);
	}
	mk_thread(&peer, 100, 8, 0);
	mk_thread(&low, 104, 7, 0);
	insert(&prcbs[0], &low, false);

	/* Nothing of equal priority: yield returns at once. */
	ke_yield_execution();
	assert_ptr_equal(prcbs[0].CurrentThread, &runner);
	assert_int_equal(nswap, 0);

	insert(&prcbs[0], &peer, false);
	ke_yield_execution();
	assert_ptr_equal(prcbs[0].CurrentThread, &peer);
	assert_int_equal(swaps[0].old_wait_reason, WrYieldExecution);
	assert_true(queued_on(&runner, 0));
}

/* ---------------------------------------------------------------- quanta and priorities */

static void test_quantum_accounting(void **state)
{
	(void)state;
	KTHREAD t;
	mk_thread(&t, 100, 8, 0);
	t.CycleTime = 5000;
	ki_reset_quantum(&t);
	assert_int_equal(t.QuantumTarget, 5000 + ki_quantum_cycles);
	assert_int_equal(ki_remaining_quantum(&t), ki_quantum_cycles / 1024);

	t.LastRunTsc = 1000;
	assert_false(ki_charge_cycles(&t, 1000 + ki_quantum_cycles / 2));
	assert_int_equal(t.CycleTime, 5000 + ki_quantum_cycles / 2);
	assert_int_equal(t.LastRunTsc, 1000 + ki_quantum_cycles / 2);
	assert_int_equal(ki_remaining_quantum(&t), (int32_t)(ki_quantum_cycles / 2 / 1024));

	/* Past the target: the quantum ends, and a new one starts from here. */
	assert_true(ki_charge_cycles(&t, 1000 + ki_quantum_cycles + 4096));
	assert_int_equal(t.CycleTime, 5000 + ki_quantum_cycles + 4096);
	quantum_end(&t);
	assert_int_equal(t.QuantumTarget, t.CycleTime + ki_quantum_cycles);

	/* A time stamp behind LastRunTsc (another CPU's TSC) charges nothing. */
	uint64_t ct = t.CycleTime;
	assert_false(ki_charge_cycles(&t, 10));
	assert_int_equal(t.CycleTime, ct);

	/* Over-run shows as a negative remaining quantum (the CSwitch field). */
	t.CycleTime = t.QuantumTarget + 10240;
	assert_int_equal(ki_remaining_quantum(&t), -10);

	/* A switch charges the old thread's cycles. */
	cpu_runs(0, &runner);
	runner.CycleTime = 0;
	runner.LastRunTsc = arch_rdtsc() - 1000000;
	runner.State = Waiting;
	unsigned long flags = ki_lock_dispatcher();
	ki_swap_thread(&prcbs[0], &runner, &t);
	ki_unlock_dispatcher(flags);
	assert_true(runner.CycleTime >= 1000000);
}

static void test_boost_and_decay(void **state)
{
	(void)state;
	KTHREAD t, rt;
	mk_thread(&t, 100, 8, 0);
	boost(&t, 2);
	assert_int_equal(t.Priority, 10);
	assert_int_equal(t.PriorityDecrement, 2);
	boost(&t, 1); /* a smaller boost does not lower it */
	assert_int_equal(t.Priority, 10);

	/* Each quantum end takes one level of boost away, down to the base. */
	t.LastRunTsc = 0;
	t.CycleTime = 0;
	ki_reset_quantum(&t);
	assert_true(ki_charge_cycles(&t, ki_quantum_cycles));
	quantum_end(&t);
	assert_int_equal(t.Priority, 9);
	assert_int_equal(t.PriorityDecrement, 1);
	assert_true(ki_charge_cycles(&t, 2 * ki_quantum_cycles));
	quantum_end(&t);
	assert_int_equal(t.Priority, 8);
	assert_int_equal(t.PriorityDecrement, 0);
	assert_true(ki_charge_cycles(&t, 3 * ki_quantum_cycles));
	quantum_end(&t);
	assert_int_equal(t.Priority, 8);

	/* Variable priorities stop at 15; real-time ones are never boosted. */
	mk_thread(&t, 104, 14, 0);
	boost(&t, 6);
	assert_int_equal(t.Priority, 15);
	assert_int_equal(t.PriorityDecrement, 1);
	mk_thread(&rt, 108, 20, 0);
	boost(&rt, 6);
	assert_int_equal(rt.Priority, 20);
	assert_int_equal(rt.PriorityDecrement, 0);
}

static void test_wake_boosts_and_reports(void **state)
{
	(void)state;
	KEVENT ev;
	KTHREAD t, u;
	ke_initialize_event(&ev, NotificationEvent, false);
	mk_thread(&t, 100, 6, 1);
	mk_thread(&u, 104, 6, 2);
	void *o[1] = { &ev };
	assert_int_equal(wait_setup(&t, 1, o, WaitAny, KE_WAIT_FOREVER), STATUS_PENDING);
	ke_set_event(&ev, EVENT_INCREMENT, false);
	assert_int_equal(t.Priority, 7);
	assert_int_equal(readies[0].reason, AdjustBoost);
	assert_int_equal(readies[0].increment, EVENT_INCREMENT);

	ke_reset_event(&ev);
	assert_int_equal(wait_setup(&u, 1, o, WaitAny, KE_WAIT_FOREVER), STATUS_PENDING);
	ke_set_event(&ev, IO_NO_INCREMENT, false);
	assert_int_equal(u.Priority, 6);
	assert_int_equal(readies[1].reason, AdjustUnwait);
}

/* ---------------------------------------------------------------- waits */

static void test_wait_any(void **state)
{
	(void)state;
	KSEMAPHORE sem;
	KEVENT ev;
	KTHREAD t;
	ke_initialize_semaphore(&sem, 0, 4);
	ke_initialize_event(&ev, SynchronizationEvent, false);
	mk_thread(&t, 100, 8, 1);
	void *o[2] = { &sem, &ev };

	assert_int_equal(wait_setup(&t, 2, o, WaitAny, KE_WAIT_FOREVER), STATUS_PENDING);
	assert_int_equal(t.State, Waiting);
	assert_false(list_empty(&ev.Header.WaitListHead));
	assert_int_equal(ke_release_semaphore(&sem, SEMAPHORE_INCREMENT, 1, NULL), STATUS_SUCCESS);
	assert_int_equal(t.WaitStatus, STATUS_WAIT_0 + 0);
	assert_int_equal(t.State, Ready);
	assert_int_equal(sem.Header.SignalState, 0);            /* consumed */
	assert_true(list_empty(&ev.Header.WaitListHead));        /* every block unlinked */
	assert_true(list_empty(&sem.Header.WaitListHead));

	/* Already signaled: satisfied at once with the index, and consumed. */
	ke_set_event(&ev, 0, false);
	mk_thread(&t, 104, 8, 1);
	assert_int_equal(wait_setup(&t, 2, o, WaitAny, KE_WAIT_FOREVER), STATUS_WAIT_0 + 1);
	assert_int_equal(ev.Header.SignalState, 0);
	assert_int_equal(t.State, Initialized); /* never waited */
}

static void test_wait_all(void **state)
{
	(void)state;
	KEVENT e1, e2;
	KTHREAD all, any;
	ke_initialize_event(&e1, SynchronizationEvent, false);
	ke_initialize_event(&e2, SynchronizationEvent, false);
	mk_thread(&all, 100, 8, 1);
	mk_thread(&any, 104, 8, 2);
	void *both[2] = { &e1, &e2 };
	void *first[1] = { &e1 };

	assert_int_equal(wait_setup(&all, 2, both, WaitAll, KE_WAIT_FOREVER), STATUS_PENDING);
	assert_int_equal(wait_setup(&any, 1, first, WaitAny, KE_WAIT_FOREVER), STATUS_PENDING);

	/* e1 alone: the WaitAll cannot be satisfied, the WaitAny takes it. */
	ke_set_event(&e1, 0, false);
	assert_int_equal(all.State, Waiting);
	assert_int_equal(any.State, Ready);
	assert_int_equal(e1.Header.SignalState, 0);

	/* e2 alone: still not both at once. */
	ke_set_event(&e2, 0, false);
	assert_int_equal(all.State, Waiting);
	assert_int_equal(e2.Header.SignalState, 1); /* not consumed by a partial WaitAll */

	/* e1 again: now both, and both are consumed together. */
	ke_set_event(&e1, 0, false);
	assert_int_equal(all.State, Ready);
	assert_int_equal(all.WaitStatus, STATUS_WAIT_0);
	assert_int_equal(e1.Header.SignalState, 0);
	assert_int_equal(e2.Header.SignalState, 0);
	assert_true(list_empty(&e1.Header.WaitListHead));
	assert_true(list_empty(&e2.Header.WaitListHead));
}

static void test_notification_wakes_everyone(void **state)
{
	(void)state;
	KEVENT ev;
	KTHREAD t[3];
	ke_initialize_event(&ev, NotificationEvent, false);
	void *o[1] = { &ev };
	for (int i = 0; i < 3; i++) {
		mk_thread(&t[i], 100 + 4 * i, 8, 1);
		assert_int_equal(wait_setup(&t[i], 1, o, WaitAny, KE_WAIT_FOREVER), STATUS_PENDING);
	}
	ke_set_event(&ev, 0, false);
	for (int i = 0; i < 3; i++)
		assert_int_equal(t[i].State, Ready);
	assert_int_equal(ev.Header.SignalState, 1); /* stays signaled */
}

static void test_semaphore_and_mutant(void **state)
{
	(void)state;
	KSEMAPHORE sem;
	int32_t prev = -1;
	ke_initialize_semaphore(&sem, 3, 4);
	assert_int_equal(ke_release_semaphore(&sem, 0, 2, &prev), STATUS_SEMAPHORE_LIMIT_EXCEEDED);
	assert_int_equal(prev, 3);
	assert_int_equal(sem.Header.SignalState, 3); /* unchanged */
	assert_int_equal(ke_release_semaphore(&sem, 0, 0, NULL), STATUS_INVALID_PARAMETER);
	assert_int_equal(ke_release_semaphore(&sem, 0, 1, &prev), STATUS_SUCCESS);
	assert_int_equal(sem.Header.SignalState, 4);

	/* The runner owns the mutant, recursively; a waiter gets it at the last release. */
	KMUTANT m;
	KTHREAD w;
	ke_initialize_mutant(&m, true);
	assert_ptr_equal(m.OwnerThread, &runner);
	assert_int_equal(ke_wait_for_single_object(&m, Executive, KernelMode, 0), STATUS_WAIT_0); /* recursion */
	mk_thread(&w, 100, 8, 1);
	void *o[1] = { &m };
	assert_int_equal(wait_setup(&w, 1, o, WaitAny, KE_WAIT_FOREVER), STATUS_PENDING);
	assert_int_equal(ke_release_mutant(&m, 0, false), STATUS_SUCCESS);
	assert_int_equal(w.State, Waiting); /* still held once */
	assert_int_equal(ke_release_mutant(&m, 0, false), STATUS_SUCCESS);
	assert_int_equal(w.State, Ready);
	assert_ptr_equal(m.OwnerThread, &w);
	assert_int_equal(w.WaitStatus, STATUS_WAIT_0);
	/* Not the owner any more. */
	assert_int_equal(ke_release_mutant(&m, 0, false), STATUS_MUTANT_NOT_OWNED);
}

static void spin_past(uint64_t tsc)
{
	while (arch_rdtsc() < tsc)
		arch_cpu_relax();
}

static void test_wait_timeout(void **state)
{
	(void)state;
	KEVENT ev;
	KTHREAD t;
	ke_initialize_event(&ev, SynchronizationEvent, false);
	mk_thread(&t, 100, 8, 1);
	void *o[1] = { &ev };

	/* Polling: a time-out of zero does not wait. */
	assert_int_equal(wait_setup(&t, 1, o, WaitAny, 0), STATUS_TIMEOUT);
	assert_true(list_empty(&ev.Header.WaitListHead));

	uint64_t before = arch_rdtsc();
	assert_int_equal(wait_setup(&t, 1, o, WaitAny, 50), STATUS_PENDING);
	assert_true(t.WaitTimer.Queued);
	assert_true(t.WaitDeadline >= before + ke_us_to_tsc(50));
	assert_int_equal(ki_timer_queue_next(&prcbs[0].TimerQueue), t.WaitDeadline);

	/* Not due yet: nothing happens. */
	ki_timer_queue_expire(&prcbs[0].TimerQueue, t.WaitDeadline - 1, NULL);
	assert_int_equal(t.State, Waiting);

	spin_past(t.WaitDeadline);
	ki_timer_queue_expire(&prcbs[0].TimerQueue, arch_rdtsc(), NULL);
	assert_int_equal(t.State, Ready);
	assert_int_equal(t.WaitStatus, STATUS_TIMEOUT);
	assert_true(list_empty(&ev.Header.WaitListHead));
	assert_int_equal(readies[0].reason, AdjustUnwait);

	/* A signal after the time-out is kept for the next waiter. */
	ke_set_event(&ev, 0, false);
	assert_int_equal(ev.Header.SignalState, 1);
}

static void test_signal_cancels_timeout(void **state)
{
	(void)state;
	KEVENT ev;
	KTHREAD t;
	ke_initialize_event(&ev, SynchronizationEvent, false);
	mk_thread(&t, 100, 8, 1);
	void *o[1] = { &ev };

	assert_int_equal(wait_setup(&t, 1, o, WaitAny, 1000000), STATUS_PENDING);
	assert_true(t.WaitTimer.Queued);
	ke_set_event(&ev, 0, false);
	assert_int_equal(t.WaitStatus, STATUS_WAIT_0);
	assert_false(t.WaitTimer.Queued); /* the time-out is gone */
	/* What is left is idle CPU 1's kick timer (t went there). */
	assert_true(prcbs[1].IdleKickTimer.Queued);
	assert_int_equal(ki_timer_queue_next(&prcbs[0].TimerQueue), prcbs[1].IdleKickTimer.Deadline);
}

static void test_wait_all_timeout_takes_nothing(void **state)
{
	(void)state;
	KEVENT e1, e2;
	KTHREAD t;
	ke_initialize_event(&e1, SynchronizationEvent, true);
	ke_initialize_event(&e2, SynchronizationEvent, false);
	mk_thread(&t, 100, 8, 1);
	void *both[2] = { &e1, &e2 };

	assert_int_equal(wait_setup(&t, 2, both, WaitAll, 20), STATUS_PENDING);
	spin_past(t.WaitDeadline);
	ki_timer_queue_expire(&prcbs[0].TimerQueue, arch_rdtsc(), NULL);
	assert_int_equal(t.WaitStatus, STATUS_TIMEOUT);
	assert_int_equal(e1.Header.SignalState, 1); /* a WaitAll that timed out consumed nothing */
}

static void test_timer_objects(void **state)
{
	(void)state;
	KTIMER sync, notif;
	KTHREAD a, b, c;
	ke_initialize_timer(&sync, SynchronizationTimer);
	ke_initialize_timer(&notif, NotificationTimer);
	mk_thread(&a, 100, 8, 1);
	mk_thread(&b, 104, 8, 1);
	mk_thread(&c, 108, 8, 1);
	void *os[1] = { &sync }, *on[1] = { &notif };

	assert_false(ke_set_timer(&sync, 10, 0, NULL));
	assert_false(ke_set_timer(&notif, 10, 0, NULL));
	assert_int_equal(wait_setup(&a, 1, os, WaitAny, KE_WAIT_FOREVER), STATUS_PENDING);
	assert_int_equal(wait_setup(&b, 1, on, WaitAny, KE_WAIT_FOREVER), STATUS_PENDING);
	spin_past(sync.DueTime > notif.DueTime ? sync.DueTime : notif.DueTime);
	ki_timer_queue_expire(&prcbs[0].TimerQueue, arch_rdtsc(), NULL);
	assert_int_equal(a.State, Ready);
	assert_int_equal(b.State, Ready);
	assert_int_equal(sync.Header.SignalState, 0);  /* a synchronization timer resets */
	assert_int_equal(notif.Header.SignalState, 1); /* a notification one stays */
	assert_int_equal(wait_setup(&c, 1, on, WaitAny, KE_WAIT_FOREVER), STATUS_WAIT_0);

	/* Cancelled before it is due: never signals. */
	ke_set_timer(&sync, 10, 0, NULL);
	assert_true(ke_cancel_timer_object(&sync));
	spin_past(sync.DueTime);
	ki_timer_queue_expire(&prcbs[0].TimerQueue, arch_rdtsc(), NULL);
	assert_int_equal(sync.Header.SignalState, 0);
}

static void test_bad_waits_refused(void **state)
{
	(void)state;
	KEVENT ev;
	ke_initialize_event(&ev, NotificationEvent, false);
	void *o[1] = { &ev };
	assert_int_equal(ke_wait_for_multiple_objects(0, o, WaitAny, Executive, KernelMode, 0, NULL),
			 STATUS_INVALID_PARAMETER);
	assert_int_equal(ke_wait_for_multiple_objects(THREAD_WAIT_OBJECTS + 1, o, WaitAny, Executive, KernelMode, 0,
						      NULL),
			 STATUS_INVALID_PARAMETER);
	assert_int_equal(ke_wait_for_multiple_objects(1, o, (WAIT_TYPE)7, Executive, KernelMode, 0, NULL),
			 STATUS_INVALID_PARAMETER);
	/* A wait that may block at DISPATCH_LEVEL is a bug check. */
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_wait_for_single_object(&ev, Executive, KernelMode, 10)));
	arch_set_irql(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ready_queue_selection, setup),
		cmocka_unit_test_setup(test_front_insertion_keeps_place, setup),
		cmocka_unit_test_setup(test_ready_goes_to_idle_ideal_then_last, setup),
		cmocka_unit_test_setup(test_idle_claim_released_when_work_is_gone, setup),
		cmocka_unit_test_setup(test_ready_preempts_lowest_priority_cpu, setup),
		cmocka_unit_test_setup(test_preemption_and_quantum_end, setup),
		cmocka_unit_test_setup(test_yield, setup),
		cmocka_unit_test_setup(test_quantum_accounting, setup),
		cmocka_unit_test_setup(test_boost_and_decay, setup),
		cmocka_unit_test_setup(test_wake_boosts_and_reports, setup),
		cmocka_unit_test_setup(test_wait_any, setup),
		cmocka_unit_test_setup(test_wait_all, setup),
		cmocka_unit_test_setup(test_notification_wakes_everyone, setup),
		cmocka_unit_test_setup(test_semaphore_and_mutant, setup),
		cmocka_unit_test_setup(test_wait_timeout, setup),
		cmocka_unit_test_setup(test_signal_cancels_timeout, setup),
		cmocka_unit_test_setup(test_wait_all_timeout_takes_nothing, setup),
		cmocka_unit_test_setup(test_timer_objects, setup),
		cmocka_unit_test_setup(test_bad_waits_refused, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
