/*
 * sched.c - scenario=sched: more threads than CPUs, mixed
 * priorities, producers and consumers, timed waits, a priority inversion
 * and yields, all recorded as context switches.
 *
 * 1. Switch cost: two threads pinned to the last CPU hand a synchronization event
 *    back and forth; the cost of one switch (set, wait, switch) is printed
 *    next to an empty interrupt round trip measured the same way as
 *    scenario=boot does.
 * 2. The mix, for about sched.ms= milliseconds:
 *    - producers (priority 9) and consumers (10) on a bounded ring guarded
 *      by two semaphores and a mutex, until the time is up (or 400 items
 *      a CPU, on a quick machine); every item produced is consumed; a coordinator (11) waits for all the
 *      producers' done events at once (WaitAll), consumers wait for an
 *      item or the stop event (WaitAny);
 *    - sleepers (real-time, 20) delay for fixed times;
 *    - timed waiters (12) wait with a time-out on an event a periodic
 *      timer sets, so some waits time out and some are satisfied;
 *    - spinners (1..6), more than CPUs, burn cycles and yield;
 *    - a priority inversion: a low thread (4) holds a mutex a high thread
 *      (14) waits for, while medium threads (8), one per CPU, keep the low
 *      one off the CPUs for a while.
 * The console lists every thread with its role, priority and the time-out
 * of its timed waits, for the checks on the trace (tests/tools/schedcheck.py).
 */
#include "kernel/workloads/scenario.h"
#include "kernel/workloads/phase.h"
#include "kernel/workloads/api/descriptor.h"
#include "kernel/workloads/workload_keys.h"

#include <arch/cpu.h>

#include "kernel/console/console.h"
#include "kernel/mm/heap.h"
#include "kernel/lib/libk.h"
#include "kernel/workloads/measure.h"
#include "kernel/lib/printf.h"
#include "kernel/sched/sched.h"
#include "kernel/lib/stats.h"
#include "kernel/ke/time/time.h"
#include "kernel/trace/trace.h"

#define RING 16
#define PINGPONG_ROUNDS 1000
#define PINGPONG_MIN_ROUNDS 16  /* enough for a median, however slow a round  */
#define COST_SHARE 10           /* each cost measurement: at most 1/10 of sched.ms */
#define IRQ_ROUNDS 2000
#define IRQ_MIN_BUDGET_US 20000 /* the interrupt round trip: at least 20 ms */
#define MAX_PRODUCERS 16
/* Every thread spawned, to be joined: 3 for the switch cost, then 16
 * producers, a coordinator, 2 inversion threads and, per CPU, a consumer,
 * a sleeper, a timed waiter, a spinner (2 more) and a medium: 5 a CPU. */
#define MAX_THREADS (5 * KPROF_MAX_CPUS + 32)

static struct {
	/* switch cost */
	KEVENT ping, pong;
	volatile uint32_t pongs;
	volatile bool pingpong_done;       /* the pinger's last ping: stop */
	uint32_t rounds;                   /* rounds the pinger did        */
	uint64_t pingpong_end;             /* TSC: no round starts after it (past the minimum) */
	uint64_t round_cycles[PINGPONG_ROUNDS]; /* set, wait, two switches */
	/* bounded ring */
	KSEMAPHORE empty, full;
	KMUTANT ring_lock;
	uint32_t ring[RING], head, tail;
	volatile uint64_t produced, consumed, produce_target;
	KEVENT stop;                       /* notification: everyone stops */
	KEVENT producer_done[MAX_PRODUCERS];
	uint32_t nproducers;
	/* timed waiters */
	KEVENT tick_event;
	KTIMER tick_timer;
	volatile uint32_t timed_out, satisfied;
	/* inversion */
	KMUTANT inversion_lock;
	KEVENT low_has_lock, high_waiting;
	volatile uint64_t high_wait_us;
	/* bookkeeping */
	KTHREAD *threads[MAX_THREADS];
	uint32_t nthreads;
	volatile uint32_t spins_done, yields;
	KEVENT go;                         /* notification: the mix starts */
	uint64_t deadline_tsc;
} s;

static void busy_us(uint64_t us)
{
	ke_stall_execution_processor(us);
}

/* Every thread of the mix starts here, so that listing the threads on the
 * console (slow while the trace streams) does not eat into the mix. */
static void wait_go(void)
{
	ke_wait_for_single_object(&s.go, WrSuspended, KernelMode, KE_WAIT_FOREVER);
}

static KTHREAD *spawn(PKSTART_ROUTINE fn, void *ctx, int8_t prio, const KAFFINITY_EX *aff, const char *role,
		      uint64_t timeout_us)
{
	KTHREAD *t = ps_create_system_thread(NULL, fn, ctx, prio, aff, role);
	if (s.nthreads < MAX_THREADS)
		s.threads[s.nthreads++] = t;
	char extra[64] = "";
	if (timeout_us)
		ksnprintf(extra, sizeof(extra), " timed-wait %llu us", (unsigned long long)timeout_us);
	if (aff)
		ksnprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " affinity cpu %u",
			  affinity_next(aff, 0));
	kprintf("sched: thread %u role %s priority %d%s\n", t->ThreadId, role, prio, extra);
	return t;
}

/* ---------------------------------------------------------------- 1 */

/* The pinger decides how many rounds: PINGPONG_ROUNDS, or fewer once the
 * budget is spent (under a hypervisor a round was seen at 5.8 ms), but
 * never under PINGPONG_MIN_ROUNDS.  Then one more set of ping tells the
 * ponger to stop. */
static void pinger(void *ctx)
{
	uint32_t i;
	for (i = 0; i < PINGPONG_ROUNDS && (i < PINGPONG_MIN_ROUNDS || arch_rdtsc() < s.pingpong_end); i++) {
		uint64_t t0 = arch_rdtsc();
		ke_set_event(&s.ping, IO_NO_INCREMENT, false);
		ke_wait_for_single_object(&s.pong, Executive, KernelMode, KE_WAIT_FOREVER);
		s.round_cycles[i] = arch_rdtsc() - t0;
	}
	s.rounds = i;
	s.pingpong_done = true;
	ke_set_event(&s.ping, IO_NO_INCREMENT, false);
}

static void ponger(void *ctx)
{
	for (;;) {
		ke_wait_for_single_object(&s.ping, Executive, KernelMode, KE_WAIT_FOREVER);
		if (s.pingpong_done)
			return;
		s.pongs++;
		ke_set_event(&s.pong, IO_NO_INCREMENT, false);
	}
}

static struct irq_cost irq_cost;

static void measure_irq(void *ctx)
{
	uint64_t budget_us = (uint64_t)(uintptr_t)ctx;
	irq_cost = measure_interrupt_round_trip_within(IRQ_ROUNDS, budget_us);
}

/* On the last CPU: CPU 0 also sends the trace, which would be counted.
 * Each of the two measurements takes at most 1/COST_SHARE of the asked
 * length past its minimum, so that sched.ms= bounds the phase on a slow
 * machine too: 1000 rounds of a 5.8 ms switch (KVM with software paging)
 * took 5.8 s of a 1 s phase. */
static void measure_switch_cost(uint32_t ms)
{
	uint64_t budget_us = (uint64_t)ms * 1000 / COST_SHARE;
	KAFFINITY_EX cpu0;
	uint32_t cpu = ke_number_processors - 1;
	affinity_clear_all(&cpu0);
	affinity_add(&cpu0, cpu);
	ke_initialize_event(&s.ping, SynchronizationEvent, false);
	ke_initialize_event(&s.pong, SynchronizationEvent, false);

	/* The records of ~2000 switches fit the default buffers; sending them
	 * now would be measured too. */
	trace_hold_stream(true);
	uint64_t t0 = arch_rdtsc();
	s.pingpong_end = t0 + ke_us_to_tsc(budget_us);
	KTHREAD *a = spawn(ponger, NULL, 20, &cpu0, "pong", 0);
	KTHREAD *b = spawn(pinger, NULL, 20, &cpu0, "ping", 0);
	void *both[2] = { a, b };
	ke_wait_for_multiple_objects(2, both, WaitAll, Executive, KernelMode, KE_WAIT_FOREVER, NULL);
	uint64_t t1 = arch_rdtsc();
	KTHREAD *m = spawn(measure_irq, (void *)(uintptr_t)MAX(budget_us, IRQ_MIN_BUDGET_US), 20, &cpu0, "irq-cost",
			   0);
	ke_wait_for_single_object(m, Executive, KernelMode, KE_WAIT_FOREVER);
	trace_hold_stream(false);
	/* Rounds within a tenth of sched.ms each: the slow-phase line names them. */
	workload_phase_rounds("thread switch round trips", s.rounds, t1 - t0);
	workload_phase_rounds("empty interrupt round trips", irq_cost.rounds, arch_rdtsc() - t1);

	/* A round is two switches; the best round bounds the cost from below. */
	uint64_t median = median_u64(s.round_cycles, s.rounds) / 2;
	uint64_t best = select_u64(s.round_cycles, s.rounds, 0) / 2;
	kprintf("sched: thread switch (event set + wait + switch, 2 threads on CPU %u, %u rounds): %llu cycles "
		"median, %llu best; empty interrupt round trip on the same CPU: %llu cycles median, %llu best (%u "
		"rounds)\n",
		cpu, s.rounds, (unsigned long long)median, (unsigned long long)best,
		(unsigned long long)irq_cost.median, (unsigned long long)irq_cost.best, irq_cost.rounds);
}

/* ---------------------------------------------------------------- 2 */

/* Items until the clock runs out (or produce_target, a bound for a quick
 * machine): a fixed count took 25,600 items of hand-offs between virtual
 * CPUs on 64 vCPUs, 180 to 229 s of a 1 s phase on a 2-core host. */
static void producer(void *ctx)
{
	uint32_t me = (uint32_t)(uintptr_t)ctx;
	wait_go();
	while (arch_rdtsc() < s.deadline_tsc) {
		if (__atomic_fetch_add(&s.produced, 1, __ATOMIC_RELAXED) >= s.produce_target) {
			__atomic_fetch_sub(&s.produced, 1, __ATOMIC_RELAXED); /* the attempt past the target */
			break;
		}
		ke_wait_for_single_object(&s.empty, WrUserRequest, KernelMode, KE_WAIT_FOREVER);
		ke_wait_for_single_object(&s.ring_lock, WrMutex, KernelMode, KE_WAIT_FOREVER);
		s.ring[s.head++ % RING] = me;
		ke_release_mutant(&s.ring_lock, IO_NO_INCREMENT, false);
		ke_release_semaphore(&s.full, SEMAPHORE_INCREMENT, 1, NULL);
		busy_us(50);
	}
	ke_set_event(&s.producer_done[me], IO_NO_INCREMENT, false);
}

static void consumer(void *ctx)
{
	void *objs[2] = { &s.full, &s.stop };
	wait_go();
	for (;;) {
		NTSTATUS st = ke_wait_for_multiple_objects(2, objs, WaitAny, WrUserRequest, KernelMode, KE_WAIT_FOREVER,
							   NULL);
		if (st == STATUS_WAIT_0 + 1)
			return;
		ke_wait_for_single_object(&s.ring_lock, WrMutex, KernelMode, KE_WAIT_FOREVER);
		s.tail++;
		ke_release_mutant(&s.ring_lock, IO_NO_INCREMENT, false);
		ke_release_semaphore(&s.empty, SEMAPHORE_INCREMENT, 1, NULL);
		__atomic_fetch_add(&s.consumed, 1, __ATOMIC_RELAXED);
		busy_us(80);
	}
}

static void coordinator(void *ctx)
{
	void *objs[MAX_PRODUCERS];
	KWAIT_BLOCK *blocks = kmalloc(sizeof(KWAIT_BLOCK) * s.nproducers);
	wait_go();
	for (uint32_t i = 0; i < s.nproducers; i++)
		objs[i] = &s.producer_done[i];
	ke_wait_for_multiple_objects(s.nproducers, objs, WaitAll, WrUserRequest, KernelMode, KE_WAIT_FOREVER, blocks);
	kfree(blocks);
	while (s.consumed < s.produced)
		ke_delay_execution_thread(1000);
}

static void sleeper(void *ctx)
{
	uint64_t us = (uint64_t)(uintptr_t)ctx;
	wait_go();
	while (arch_rdtsc() < s.deadline_tsc) {
		ke_delay_execution_thread(us);
		busy_us(100);
	}
}

static void timed_waiter(void *ctx)
{
	uint64_t us = (uint64_t)(uintptr_t)ctx;
	wait_go();
	while (arch_rdtsc() < s.deadline_tsc) {
		NTSTATUS st = ke_wait_for_single_object(&s.tick_event, Executive, KernelMode, us);
		if (st == STATUS_TIMEOUT)
			__atomic_fetch_add(&s.timed_out, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&s.satisfied, 1, __ATOMIC_RELAXED);
		busy_us(200);
	}
}

/* A spinner yields once it has held a CPU for SPIN_YIELD_US of wall time
 * since its last yield (four of its 300 us bursts on a quick machine):
 * counted in bursts, a spinner preempted after every burst (KVM with
 * software paging: a switch of 7 ms) never yielded at all. */
#define SPIN_YIELD_US 1200

static void spinner(void *ctx)
{
	wait_go();
	uint64_t last = arch_rdtsc(), period = ke_us_to_tsc(SPIN_YIELD_US);
	while (arch_rdtsc() < s.deadline_tsc) {
		busy_us(300);
		if (arch_rdtsc() - last >= period) {
			ke_yield_execution();
			__atomic_fetch_add(&s.yields, 1, __ATOMIC_RELAXED);
			last = arch_rdtsc();
		}
	}
	__atomic_fetch_add(&s.spins_done, 1, __ATOMIC_RELAXED);
}

/* The inversion: low takes the mutex and works; high waits for it;
 * mediums keep every CPU busy at a priority between the two. */
static void inversion_low(void *ctx)
{
	wait_go();
	ke_wait_for_single_object(&s.inversion_lock, WrMutex, KernelMode, KE_WAIT_FOREVER);
	ke_set_event(&s.low_has_lock, IO_NO_INCREMENT, false);
	busy_us(30000);
	ke_release_mutant(&s.inversion_lock, IO_NO_INCREMENT, false);
}

static void inversion_high(void *ctx)
{
	wait_go();
	ke_wait_for_single_object(&s.low_has_lock, Executive, KernelMode, KE_WAIT_FOREVER);
	uint64_t t0 = arch_rdtsc();
	ke_set_event(&s.high_waiting, IO_NO_INCREMENT, false);
	ke_wait_for_single_object(&s.inversion_lock, WrMutex, KernelMode, KE_WAIT_FOREVER);
	s.high_wait_us = ke_tsc_to_us(arch_rdtsc() - t0);
	ke_release_mutant(&s.inversion_lock, IO_NO_INCREMENT, false);
}

static void inversion_medium(void *ctx)
{
	wait_go();
	ke_wait_for_single_object(&s.high_waiting, Executive, KernelMode, KE_WAIT_FOREVER);
	busy_us(20000);
}

static void tick_dpc(KDPC *dpc, void *context, void *a1, void *a2)
{
	ke_set_event(&s.tick_event, IO_NO_INCREMENT, false);
}

/* Set-up: the dispatcher objects the threads share, the tick DPC. */
static void sched_setup(KDPC *tick)
{
	uint32_t ncpu = ke_number_processors;

	ke_initialize_semaphore(&s.empty, RING, RING);
	ke_initialize_semaphore(&s.full, 0, RING);
	ke_initialize_mutant(&s.ring_lock, false);
	ke_initialize_event(&s.stop, NotificationEvent, false);
	ke_initialize_event(&s.tick_event, SynchronizationEvent, false);
	ke_initialize_mutant(&s.inversion_lock, false);
	ke_initialize_event(&s.low_has_lock, NotificationEvent, false);
	ke_initialize_event(&s.high_waiting, NotificationEvent, false);
	ke_initialize_timer(&s.tick_timer, NotificationTimer);
	ke_initialize_dpc(tick, tick_dpc, NULL);
	ke_initialize_event(&s.go, NotificationEvent, false);
	s.produce_target = 400ULL * ncpu;
	s.nproducers = MIN(2 * ncpu, MAX_PRODUCERS);
}

/* Every thread of the run, waiting for s.go; returns the coordinator. */
static KTHREAD *sched_spawn_all(void)
{
	uint32_t ncpu = ke_number_processors;

	for (uint32_t i = 0; i < s.nproducers; i++) {
		ke_initialize_event(&s.producer_done[i], NotificationEvent, false);
		spawn(producer, (void *)(uintptr_t)i, 9, NULL, "producer", 0);
	}
	for (uint32_t i = 0; i < ncpu; i++)
		spawn(consumer, NULL, 10, NULL, "consumer", 0);
	KTHREAD *coord = spawn(coordinator, NULL, 11, NULL, "coordinator", 0);
	for (uint32_t i = 0; i < ncpu; i++) {
		uint64_t us = 1000 * (i % 4 + 1);
		spawn(sleeper, (void *)(uintptr_t)us, 20, NULL, "sleeper", us);
	}
	for (uint32_t i = 0; i < ncpu; i++)
		spawn(timed_waiter, (void *)(uintptr_t)3000, 12, NULL, "timed-waiter", 3000);
	for (uint32_t i = 0; i < ncpu + 2; i++)
		spawn(spinner, NULL, (int8_t)(1 + i % 6), NULL, "spinner", 0);
	spawn(inversion_low, NULL, 4, NULL, "inversion-low", 0);
	spawn(inversion_high, NULL, 14, NULL, "inversion-high", 0);
	for (uint32_t i = 0; i < ncpu; i++)
		spawn(inversion_medium, NULL, 8, NULL, "inversion-medium", 0);
	return coord;
}

/* The run: go, then wait for the producers' side to finish and for the
 * clock, stop everyone and wait for every thread. */
static void sched_run(uint32_t ms, KTHREAD *coord, KDPC *tick)
{
	s.deadline_tsc = arch_rdtsc() + ke_us_to_tsc((uint64_t)ms * 1000);
	ke_set_event(&s.go, IO_NO_INCREMENT, false);
	ke_set_timer(&s.tick_timer, 7000, 7000, tick);
	ke_wait_for_single_object(coord, Executive, KernelMode, KE_WAIT_FOREVER);
	while (arch_rdtsc() < s.deadline_tsc)
		ke_delay_execution_thread(5000);
	ke_set_event(&s.stop, IO_NO_INCREMENT, false);
	ke_cancel_timer_object(&s.tick_timer);
	for (uint32_t i = 0; i < s.nthreads; i++)
		ke_wait_for_single_object(s.threads[i], Executive, KernelMode, KE_WAIT_FOREVER);
}

/* What happened, and the check: every item produced was consumed, no more
 * than asked, and every ping answered. */
static bool sched_check(void)
{
	uint32_t ncpu = ke_number_processors;
	uint64_t switches = 0;

	for (uint32_t i = 0; i < ncpu; i++)
		switches += KiProcessorBlock[i]->ContextSwitches;
	kprintf("sched: %u threads on %u CPUs: %llu items produced, %llu consumed; timed waits %u timed out, %u "
		"satisfied; %u yields; %llu context switches\n",
		s.nthreads, ncpu, (unsigned long long)s.produced, (unsigned long long)s.consumed, s.timed_out,
		s.satisfied, s.yields, (unsigned long long)switches);
	for (uint32_t i = 0; i < ncpu; i++) {
		const KPRCB *p = KiProcessorBlock[i];
		if (p->ClockLateCount)
			kprintf("sched: cpu %u: %llu clock interrupts came late, %llu us in all, worst %llu us (the CPU "
				"could take no interrupt: virtual CPU not running, or interrupts masked)\n",
				i, (unsigned long long)p->ClockLateCount,
				(unsigned long long)ke_tsc_to_us(p->ClockLateCycles),
				(unsigned long long)ke_tsc_to_us(p->ClockLateMax));
	}
	kprintf("sched: priority inversion: the high thread waited %llu us for the mutex the low thread held for "
		"30000 us while %u medium threads ran 20000 us each\n",
		(unsigned long long)s.high_wait_us, ncpu);
	return s.produced == s.consumed && s.produced <= s.produce_target && s.pongs == s.rounds;
}

/* Set-up, run, checks. */
static enum kprof_exit_status scenario_sched(uint32_t ms)
{
	static KDPC tick;

	memset(&s, 0, sizeof(s));
	ke_set_priority_thread(ke_get_current_thread(), 24); /* main keeps control */
	measure_switch_cost(ms);
	sched_setup(&tick);
	KTHREAD *coord = sched_spawn_all();
	sched_run(ms, coord, &tick);
	bool ok = sched_check();
	kprintf("scenario sched: %s\n", ok ? "done" : "FAILED: counts do not match");
	return ok ? KPROF_EXIT_SUCCESS : KPROF_EXIT_FAILURE;
}

/* The descriptor: scenario=sched (or one workload of scenario=mix, for
 * the duration the mix gives it), with its own keys (workload_keys.c). */
static enum kprof_exit_status run(const struct workload_run *r)
{
	uint32_t ms = r->ms ? r->ms : workload_config->sched_ms;

	workload_phase_asked(ms);
	return scenario_sched(ms);
}

WORKLOAD_DEFINE(sched, .name = "sched", .description = "threads, waits and priorities", .run = run);
