/*
 * locks.c - scenario=locks: every kind of spin lock under
 * contention on every CPU, nested to depth 8 (and one beyond), in DPCs and
 * in an interrupt handler, with holds that cross HoldThreshold.
 *
 * 1. The sampling parameters through NtQuerySystemInformation /
 *    NtSetSystemInformation: values below a minimum, a bad class and a bad
 *    length are refused with their statuses and change nothing.
 * 2. One worker thread per CPU (pinned, priority 10) for locks.ms: each
 *    step picks, by a per-thread pseudo-random draw, an ordinary spin lock
 *    (one of four hot ones), a queued spin lock (one of two), the
 *    executive spin lock shared, exclusive, or shared then converted to
 *    exclusive, the chain of eight nested locks (sometimes nine: the ninth
 *    is beyond the tracked depth), the interrupt lock (taken at IPI_LEVEL,
 *    as the IPI handler takes it), or a long hold past HoldThreshold; it
 *    holds for about locks.hold_ns and thinks for about locks.think_ns,
 *    and now and then sends an IPI to another CPU.  Each CPU's periodic
 *    timer DPC takes the DPC lock.  Two takes are held past HoldThreshold
 *    on purpose, so that they are traced whatever the sampling: the first
 *    chain a worker runs (depth 8 in the trace) and the first take in the
 *    IPI handler (ExecuteIsr); uncontended takes are traced one in
 *    AcquireSampleRate, and a slow host may let the workers run too few
 *    steps for either to be drawn.
 * 3. Every lock guards counters that are updated non-atomically inside it;
 *    at the end they must equal what the workers counted atomically
 *    outside: a lost update would show a broken lock.
 *
 * The console lists each lock's address and kind, and at the end the
 * instrumentation's own counts (kernel/locks/lockstat.h), for the checks
 * on the trace (tests/tools/lockcheck.py).
 */
#include "kernel/workloads/scenario.h"
#include "kernel/workloads/phase.h"
#include "kernel/workloads/api/descriptor.h"
#include "kernel/workloads/workload_keys.h"

#include <arch/cpu.h>
#include <arch/interrupt.h>

#include "kernel/console/console.h"
#include "kernel/ke/dpc.h"
#include "kernel/ex/sysinfo.h"
#include "kernel/lib/libk.h"
#include "kernel/locks/lockstat.h"
#include "kernel/locks/spinlock.h"
#include "kernel/lib/printf.h"
#include "kernel/sched/sched.h"
#include "kernel/ke/time/time.h"
#include "kernel/trace/objname.h"
#include "kernel/trace/trace.h"

#define HOT 4
#define QUEUED 2
#define CHAIN 9 /* LOCKSTAT_DEPTH + 1 */

enum op { OP_ORDINARY, OP_QUEUED, OP_EX_SHARED, OP_EX_EXCLUSIVE, OP_EX_CONVERT, OP_CHAIN, OP_ISR, OP_LONG, OP_COUNT };
static const char *const op_names[OP_COUNT] = { "ordinary", "queued", "executive-shared", "executive-exclusive",
						"executive-convert", "nested-8", "interrupt", "long-hold" };

/* A lock and the data it guards, each on its own cache lines. */
struct guarded {
	KSPIN_LOCK lock;
	uint64_t count; /* updated only under lock */
} __attribute__((aligned(64)));

static struct {
	struct guarded hot[HOT], queued[QUEUED], chain[CHAIN], isr, dpc;
	EX_SPIN_LOCK ex __attribute__((aligned(64)));
	uint64_t ex_a, ex_b;         /* written together under ex exclusive */
	volatile uint64_t ex_torn;   /* a reader saw ex_a != ex_b            */
	/* counted atomically, outside the locks */
	uint64_t done[OP_COUNT], hot_done, queued_done, chain_done, isr_done, dpc_done, converted, deep;
	uint64_t hold_cycles, think_cycles, long_cycles, deadline;
	uint32_t chain_witness, isr_witness; /* the long takes above, taken */
	KEVENT go;
	KTIMER timers[KPROF_MAX_CPUS];
	KDPC dpcs[KPROF_MAX_CPUS];
} s;

static inline void add(uint64_t *p, uint64_t v)
{
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

static void spin_cycles(uint64_t cycles)
{
	uint64_t end = arch_rdtsc() + cycles;
	while (arch_rdtsc() < end)
		arch_cpu_relax();
}

/* The critical section: a read-modify-write that a second holder would break. */
static void bump(uint64_t *count, uint64_t hold)
{
	uint64_t v = *(volatile uint64_t *)count;
	spin_cycles(hold);
	*(volatile uint64_t *)count = v + 1;
}

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* ---------------------------------------------------------------- interrupt and DPC users */

static void isr_take(uint64_t hold)
{
	/* At IPI_LEVEL, like every user of this lock. */
	ke_acquire_spin_lock_at_dpc_level(&s.isr.lock);
	bump(&s.isr.count, hold);
	ke_release_spin_lock_from_dpc_level(&s.isr.lock);
	add(&s.isr_done, 1);
}

static void ipi_handler(KTRAP_FRAME *tf)
{
	(void)tf;
	isr_take(__atomic_exchange_n(&s.isr_witness, 1, __ATOMIC_RELAXED) ? 0 : s.long_cycles);
}

static void dpc_routine(KDPC *dpc, void *ctx, void *a1, void *a2)
{
	KSPIN_LOCK *l = &s.dpc.lock;
	ke_acquire_spin_lock_at_dpc_level(l);
	bump(&s.dpc.count, s.hold_cycles / 4);
	ke_release_spin_lock_from_dpc_level(l);
	add(&s.dpc_done, 1);
}

/* ---------------------------------------------------------------- the workers */

/* The first n locks of the chain, always in the same order (no deadlock),
 * held for `hold` cycles inside the innermost. */
static void chain_take(uint32_t n, uint64_t hold)
{
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	for (uint32_t i = 0; i < n; i++)
		ke_acquire_spin_lock_at_dpc_level(&s.chain[i].lock);
	for (uint32_t i = 0; i < n; i++)
		s.chain[i].count++;
	spin_cycles(hold);
	for (uint32_t i = n; i-- > 0;)
		ke_release_spin_lock_from_dpc_level(&s.chain[i].lock);
	ke_lower_irql(old);
	add(&s.chain_done, 1);
	if (n == CHAIN)
		add(&s.deep, 1);
	add(&s.done[OP_CHAIN], 1);
}

/* One acquisition of a hot ordinary spin lock, held `cycles`. */
static void ordinary_op(uint64_t *rng, uint64_t cycles)
{
	KIRQL old;
	struct guarded *g = &s.hot[rng_next(rng) % HOT];

	ke_acquire_spin_lock(&g->lock, &old);
	bump(&g->count, cycles);
	ke_release_spin_lock(&g->lock, old);
	add(&s.hot_done, 1);
}

static void queued_op(uint64_t *rng)
{
	KLOCK_QUEUE_HANDLE qh;
	struct guarded *g = &s.queued[rng_next(rng) % QUEUED];

	ke_acquire_in_stack_queued_spin_lock(&g->lock, &qh);
	bump(&g->count, s.hold_cycles);
	ke_release_in_stack_queued_spin_lock(&qh);
	add(&s.queued_done, 1);
}

/* The executive spin lock: shared readers check that no writer is
 * half-way (ex_a == ex_b), exclusive writers move both, and a shared
 * holder tries to convert to exclusive. */
static void ex_op(enum op op)
{
	KIRQL old;

	switch (op) {
	case OP_EX_SHARED:
		old = ex_acquire_spin_lock_shared(&s.ex);
		if (*(volatile uint64_t *)&s.ex_a != *(volatile uint64_t *)&s.ex_b)
			s.ex_torn = 1;
		spin_cycles(s.hold_cycles);
		ex_release_spin_lock_shared(&s.ex, old);
		break;
	case OP_EX_EXCLUSIVE:
		old = ex_acquire_spin_lock_exclusive(&s.ex);
		s.ex_a++;
		spin_cycles(s.hold_cycles);
		s.ex_b++;
		ex_release_spin_lock_exclusive(&s.ex, old);
		break;
	default: /* OP_EX_CONVERT */
		old = ex_acquire_spin_lock_shared(&s.ex);
		if (ex_try_convert_shared_spin_lock_exclusive(&s.ex)) {
			s.ex_a++;
			spin_cycles(s.hold_cycles);
			s.ex_b++;
			add(&s.converted, 1);
			ex_release_spin_lock_exclusive(&s.ex, old);
		} else {
			ex_release_spin_lock_shared(&s.ex, old);
		}
		break;
	}
}

static void locks_do_op(enum op op, uint64_t *rng)
{
	KIRQL old;

	switch (op) {
	case OP_ORDINARY:
		ordinary_op(rng, s.hold_cycles);
		break;
	case OP_LONG:
		ordinary_op(rng, s.long_cycles);
		break;
	case OP_QUEUED:
		queued_op(rng);
		break;
	case OP_EX_SHARED:
	case OP_EX_EXCLUSIVE:
	case OP_EX_CONVERT:
		ex_op(op);
		break;
	case OP_CHAIN: /* every ~8th goes one deeper than tracked */
		chain_take(rng_next(rng) % 8 == 0 ? CHAIN : CHAIN - 1, s.hold_cycles);
		return; /* counted in done[] there */
	case OP_ISR:
		old = ke_raise_irql(IPI_LEVEL);
		isr_take(0);
		ke_lower_irql(old);
		break;
	case OP_COUNT:
		break;
	}
	add(&s.done[op], 1);
}

static enum op pick(uint64_t *rng)
{
	uint32_t r = (uint32_t)(rng_next(rng) % 1000);
	if (r < 380) return OP_ORDINARY;
	if (r < 580) return OP_QUEUED;
	if (r < 730) return OP_EX_SHARED;
	if (r < 820) return OP_EX_EXCLUSIVE;
	if (r < 870) return OP_EX_CONVERT;
	if (r < 940) return OP_CHAIN;
	if (r < 990) return OP_ISR;
	return OP_LONG;
}

static void locks_worker(void *ctx)
{
	uint32_t cpu = (uint32_t)(uintptr_t)ctx;
	uint64_t rng = 0x9E3779B97F4A7C15ull * (cpu + 1);

	ke_wait_for_single_object(&s.go, WrSuspended, KernelMode, KE_WAIT_FOREVER);
	ke_initialize_dpc(&s.dpcs[cpu], dpc_routine, NULL);
	ke_initialize_timer(&s.timers[cpu], NotificationTimer);
	ke_set_timer(&s.timers[cpu], 1000, 1000, &s.dpcs[cpu]); /* on this CPU's queue */
	if (!__atomic_exchange_n(&s.chain_witness, 1, __ATOMIC_RELAXED))
		chain_take(CHAIN - 1, s.long_cycles);
	for (uint64_t n = 0; arch_rdtsc() < s.deadline; n++) {
		locks_do_op(pick(&rng), &rng);
		if (n % 64 == 0 && ke_number_processors > 1)
			arch_send_ipi((cpu + 1 + (uint32_t)(rng_next(&rng) % (ke_number_processors - 1))) %
					      ke_number_processors,
				      ARCH_INT_IPI);
		spin_cycles(s.think_cycles);
	}
	ke_cancel_timer_object(&s.timers[cpu]);
}

/* ---------------------------------------------------------------- 1: parameters */

static void show_params(const char *when)
{
	EVENT_TRACE_SPINLOCK_INFORMATION q = { .EventTraceInformationClass = EventTraceSpinlockInformation };
	uint32_t len = 0;
	NTSTATUS st = nt_query_system_information(SystemPerformanceTraceInformation, &q, sizeof(q), &len);
	kprintf("locks: %s: NtQuerySystemInformation %s, %u bytes: spin threshold %u, acquire sample rate %u, "
		"contention sample rate %u, hold threshold %u\n",
		when, nt_status_name(st), len, q.SpinLockSpinThreshold, q.SpinLockAcquireSampleRate,
		q.SpinLockContentionSampleRate, q.SpinLockHoldThreshold);
}

static bool try_set(const char *what, EVENT_TRACE_SPINLOCK_INFORMATION v, uint32_t cls, uint32_t len,
		    NTSTATUS expect)
{
	EVENT_TRACE_SPINLOCK_INFORMATION before = { .EventTraceInformationClass = EventTraceSpinlockInformation };
	EVENT_TRACE_SPINLOCK_INFORMATION after = before;
	nt_query_system_information(SystemPerformanceTraceInformation, &before, sizeof(before), NULL);
	NTSTATUS st = nt_set_system_information(cls, &v, len);
	nt_query_system_information(SystemPerformanceTraceInformation, &after, sizeof(after), NULL);
	bool unchanged = !memcmp(&before, &after, sizeof(before));
	bool ok = st == expect && (st == STATUS_SUCCESS || unchanged);
	kprintf("locks: NtSetSystemInformation(%s): %s (0x%08X), values %s%s\n", what, nt_status_name(st),
		(unsigned)st, unchanged ? "unchanged" : "changed", ok ? "" : " -- WRONG");
	return ok;
}

static bool check_parameter_calls(void)
{
	EVENT_TRACE_SPINLOCK_INFORMATION cur = { .EventTraceInformationClass = EventTraceSpinlockInformation };
	nt_query_system_information(SystemPerformanceTraceInformation, &cur, sizeof(cur), NULL);
	show_params("in force");

	bool ok = true;
	EVENT_TRACE_SPINLOCK_INFORMATION v = cur;
	v.SpinLockAcquireSampleRate = SPINLOCK_MIN_ACQUIRE_SAMPLE_RATE - 1;
	ok &= try_set("AcquireSampleRate=999", v, SystemPerformanceTraceInformation, sizeof(v), STATUS_INVALID_PARAMETER);
	v = cur;
	v.SpinLockSpinThreshold = 0;
	ok &= try_set("SpinThreshold=0", v, SystemPerformanceTraceInformation, sizeof(v), STATUS_INVALID_PARAMETER);
	v = cur;
	v.SpinLockContentionSampleRate = 0;
	ok &= try_set("ContentionSampleRate=0", v, SystemPerformanceTraceInformation, sizeof(v),
		      STATUS_INVALID_PARAMETER);
	v = cur;
	v.SpinLockHoldThreshold = SPINLOCK_MIN_HOLD_THRESHOLD - 1;
	ok &= try_set("HoldThreshold=999999", v, SystemPerformanceTraceInformation, sizeof(v),
		      STATUS_INVALID_PARAMETER);
	v = cur;
	v.EventTraceInformationClass = 4;
	ok &= try_set("EventTraceInformationClass=4", v, SystemPerformanceTraceInformation, sizeof(v),
		      STATUS_INVALID_INFO_CLASS);
	ok &= try_set("length 12", cur, SystemPerformanceTraceInformation, 12, STATUS_INFO_LENGTH_MISMATCH);
	ok &= try_set("SystemInformationClass=0x20", cur, 0x20, sizeof(cur), STATUS_INVALID_INFO_CLASS);
	/* The same values again, the short (version 1) way: accepted. */
	ok &= try_set("the values in force, 0x10 bytes", cur, SystemPerformanceTraceInformation,
		      EVENT_TRACE_SPINLOCK_INFORMATION_V1_SIZE, STATUS_SUCCESS);
	show_params("after the calls");
	return ok;
}

/* ---------------------------------------------------------------- the scenario */

/* Name the lock in the trace (a KprofObjectName record) and on the
 * console, which the boot tests hold against each other. */
static void list_lock(const volatile void *addr, enum kprof_object_kind kind, const char *name, uint32_t i)
{
	static const char *const words[KprofObjectKinds] = {
		[KprofObjectSpinLock] = "ordinary",
		[KprofObjectQueuedSpinLock] = "queued",
		[KprofObjectExecutiveSpinLock] = "executive",
		[KprofObjectResource] = "resource",
	};
	trace_name_object(addr, kind, "%s%u", name, i);
	kprintf("locks: lock 0x%llx kind %s name %s%u\n", (unsigned long long)(uintptr_t)addr, words[kind], name, i);
}

/* Set-up: the times, every lock listed by name. */
static void locks_setup(uint32_t ms, uint32_t hold_ns, uint32_t think_ns)
{
	s.hold_cycles = ke_ns_to_tsc(hold_ns);
	s.think_cycles = ke_ns_to_tsc(think_ns);
	uint32_t hold_threshold = lockstat_params.HoldThreshold;
	s.long_cycles = hold_threshold ? hold_threshold + hold_threshold / 4 : ke_us_to_tsc(500);
	for (uint32_t i = 0; i < HOT; i++)
		list_lock(&s.hot[i].lock, KprofObjectSpinLock, "hot", i);
	for (uint32_t i = 0; i < QUEUED; i++)
		list_lock(&s.queued[i].lock, KprofObjectQueuedSpinLock, "queued", i);
	for (uint32_t i = 0; i < CHAIN; i++)
		list_lock(&s.chain[i].lock, KprofObjectSpinLock, "chain", i);
	list_lock(&s.isr.lock, KprofObjectSpinLock, "interrupt", 0);
	list_lock(&s.dpc.lock, KprofObjectSpinLock, "dpc", 0);
	list_lock(&s.ex, KprofObjectExecutiveSpinLock, "ex", 0);
	kprintf("locks: %u workers for %u ms, hold %u ns, think %u ns, long holds %llu cycles\n", ke_number_processors,
		ms, hold_ns, think_ns, (unsigned long long)s.long_cycles);
}

/* The run: a worker on every CPU until the deadline, the IPI handler
 * connected; then the interrupts and DPCs in flight let finish. */
static void locks_workers(uint32_t ms)
{
	uint32_t ncpu = ke_number_processors;
	KTHREAD *threads[KPROF_MAX_CPUS];

	arch_interrupt_connect(ARCH_INT_IPI, ipi_handler);
	ke_initialize_event(&s.go, NotificationEvent, false);
	for (uint32_t i = 0; i < ncpu; i++) {
		KAFFINITY_EX one;
		affinity_clear_all(&one);
		affinity_add(&one, i);
		threads[i] = ps_create_system_thread(NULL, locks_worker, (void *)(uintptr_t)i, 10, &one, "locks");
	}
	s.deadline = arch_rdtsc() + ke_us_to_tsc((uint64_t)ms * 1000);
	ke_set_event(&s.go, IO_NO_INCREMENT, false);
	for (uint32_t i = 0; i < ncpu; i++)
		ke_wait_for_single_object(threads[i], Executive, KernelMode, KE_WAIT_FOREVER);
	ke_delay_execution_thread(5000); /* let interrupts and DPCs in flight finish */
}

/* The check: what the locks guarded adds up (mutual exclusion held). */
static bool locks_check_counts(void)
{
	uint64_t hot = 0, queued = 0;
	for (uint32_t i = 0; i < HOT; i++)
		hot += s.hot[i].count;
	for (uint32_t i = 0; i < QUEUED; i++)
		queued += s.queued[i].count;
	bool chain_ok = true;
	for (uint32_t i = 0; i < CHAIN - 1; i++)
		chain_ok &= s.chain[i].count == s.chain_done;
	chain_ok &= s.chain[CHAIN - 1].count == s.deep;
	bool excl = hot == s.hot_done && queued == s.queued_done && chain_ok && s.isr.count == s.isr_done &&
		    s.dpc.count == s.dpc_done && s.ex_a == s.ex_b && !s.ex_torn;
	kprintf("locks: guarded counts: ordinary %llu/%llu, queued %llu/%llu, chain %s, interrupt %llu/%llu, dpc "
		"%llu/%llu, executive %s: %s\n",
		(unsigned long long)hot, (unsigned long long)s.hot_done, (unsigned long long)queued,
		(unsigned long long)s.queued_done, chain_ok ? "ok" : "BROKEN", (unsigned long long)s.isr.count,
		(unsigned long long)s.isr_done, (unsigned long long)s.dpc.count, (unsigned long long)s.dpc_done,
		s.ex_a == s.ex_b && !s.ex_torn ? "ok" : "BROKEN", excl ? "mutual exclusion held" : "MUTUAL EXCLUSION BROKEN");
	return excl;
}

/* What was done, and the instrumentation's counts. */
static void locks_report(void)
{
	struct lockstat_counts c;

	for (int op = 0; op < OP_COUNT; op++)
		kprintf("locks: %-20s %llu\n", op_names[op], (unsigned long long)s.done[op]);
	kprintf("locks: conversions that succeeded %llu; acquisitions nine deep %llu\n",
		(unsigned long long)s.converted, (unsigned long long)s.deep);
	lockstat_totals(&c);
	show_params("at the end");
	kprintf("lockstat: instrumented %llu contended %llu uncontended %llu uncontended-short %llu long-holds %llu "
		"traced %llu untracked %llu\n",
		(unsigned long long)c.Instrumented, (unsigned long long)c.Contended, (unsigned long long)c.Uncontended,
		(unsigned long long)c.UncontendedShort, (unsigned long long)c.LongHolds, (unsigned long long)c.Traced,
		(unsigned long long)c.Untracked);
}

/* Set-up, run, checks. */
static enum kprof_exit_status scenario_locks(uint32_t ms, uint32_t hold_ns, uint32_t think_ns)
{
	memset(&s, 0, sizeof(s));
	bool ok = check_parameter_calls();

	locks_setup(ms, hold_ns, think_ns);
	locks_workers(ms);
	bool excl = locks_check_counts();
	locks_report();
	ok &= excl;
	kprintf("scenario locks: %s\n", ok ? "done" : "FAILED");
	return ok ? KPROF_EXIT_SUCCESS : KPROF_EXIT_FAILURE;
}

/* The descriptor: scenario=locks (or one workload of scenario=mix, for
 * the duration the mix gives it), with its own keys (workload_keys.c). */
static enum kprof_exit_status run(const struct workload_run *r)
{
	uint32_t ms = r->ms ? r->ms : workload_config->locks_ms;

	workload_phase_asked(ms);
	return scenario_locks(ms, workload_config->locks_hold_ns, workload_config->locks_think_ns);
}

WORKLOAD_DEFINE(locks, .name = "locks", .description = "spin locks of every kind under contention", .run = run);
