/*
 * resources.c - scenario=resources: readers and writers on
 * executive resources (kernel/ex/resource.h) on every CPU, recorded as
 * WMI_RESOURCE records (trace=resource).
 *
 * 1. The mix, for about resources.ms= milliseconds, more threads than CPUs
 *    at mixed priorities, on NDATA resources that each guard a pair of
 *    counters (a writer bumps both, with a pause between; a reader must
 *    see them equal and no writer inside):
 *    - writers (exclusive, often recursive: exclusive or shared again),
 *      readers (shared, recursive), starvers (shared past exclusive
 *      waiters), a polite reader (shared behind exclusive waiters),
 *      converters (write, convert to shared, read on);
 *    - timed writers and readers (the ..._timeout calls with time-outs of
 *      a few hundred microseconds, so some time out);
 *    - a long holder (priority 4) that holds another resource exclusive
 *      for several resource.timeout_ms slices, while waiters of higher
 *      priority wait for it, plainly or with a time-out of 2.5 slices:
 *      their slices end in excessive-wait records and boost the holder;
 *    - a lifecycle thread: initialise, use, reinitialise (while it owns
 *      the resource, which forgets it), use, reinitialise, delete.
 * 2. The boost, alone: a holder (priority 4) holds a resource and waits;
 *    an exclusive (10) and a shared (12) waiter wait for it until a slice
 *    of each has ended; the holder must then be at priority 14.
 * At the end every resource must be free and unwaited, the counters
 * intact, and the holds the threads counted must equal the release
 * records the resource code counted.  The console lists every thread
 * (role, priority, time-out) and the exact record counts the trace must
 * hold, for tests/tools/rescheck.py.
 */
#include "kernel/workloads/scenario.h"
#include "kernel/workloads/phase.h"
#include "kernel/workloads/api/descriptor.h"
#include "kernel/workloads/workload_keys.h"

#include <arch/cpu.h>

#include "kernel/console/console.h"
#include "kernel/ex/resource.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"
#include "kernel/sched/sched.h"
#include "kernel/ke/time/time.h"
#include "kernel/trace/objname.h"
#include "kernel/trace/trace.h"

#define NDATA 3
#define MAX_THREADS 96
#define HOLD_US 60         /* longest busy hold of a data resource   */
#define THINK_US 1500      /* longest pause between two acquisitions */
#define TIMED_WRITER_US 300
#define TIMED_READER_US 200
#define LONG_HOLD_SLICES 4 /* the long holder's hold, in slices      */

static struct {
	ERESOURCE data[NDATA];
	struct {
		uint64_t a, b;              /* equal outside a writer's hold */
		int32_t writer, readers;    /* atomic: who is inside         */
	} d[NDATA];
	ERESOURCE slow;                     /* the long holder's             */
	ERESOURCE boost;                    /* part 2                        */
	KEVENT go, boost_held, boost_release;
	uint64_t deadline_tsc, long_hold_us, slow_timeout_us;
	/* counted by the threads */
	uint64_t holds[2];                  /* ended holds: shared, exclusive */
	uint64_t timeouts[2];               /* STATUS_TIMEOUT: shared, exclusive */
	uint64_t inits, reinits;
	uint32_t violations;
	int8_t long_holder_max_priority;
	KTHREAD *threads[MAX_THREADS];
	uint32_t nthreads;
} s;

static void busy_us(uint64_t us)
{
	ke_stall_execution_processor(us);
}

static uint32_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (uint32_t)(*x >> 17);
}

static bool running(void)
{
	return arch_rdtsc() < s.deadline_tsc;
}

static void violation(const char *what, uint32_t i)
{
	if (__atomic_fetch_add(&s.violations, 1, __ATOMIC_RELAXED) < 5)
		kprintf("resources: VIOLATION on data resource %u: %s\n", i, what);
}

static void held(bool exclusive)
{
	__atomic_fetch_add(&s.holds[exclusive], 1, __ATOMIC_RELAXED);
}

static void write_inside(uint32_t i, uint64_t *x)
{
	if (__atomic_add_fetch(&s.d[i].writer, 1, __ATOMIC_SEQ_CST) != 1 ||
	    __atomic_load_n(&s.d[i].readers, __ATOMIC_SEQ_CST) != 0)
		violation("a writer is not alone", i);
	s.d[i].a++;
	busy_us(rnd(x) % HOLD_US);
	s.d[i].b++;
	__atomic_sub_fetch(&s.d[i].writer, 1, __ATOMIC_SEQ_CST);
}

static void read_inside(uint32_t i, uint64_t *x)
{
	__atomic_add_fetch(&s.d[i].readers, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s.d[i].writer, __ATOMIC_SEQ_CST) != 0)
		violation("a reader meets a writer", i);
	uint64_t a = s.d[i].a;
	busy_us(rnd(x) % HOLD_US);
	if (s.d[i].a != a || s.d[i].b != a)
		violation("the data changed under a reader", i);
	__atomic_sub_fetch(&s.d[i].readers, 1, __ATOMIC_SEQ_CST);
}

static void think(uint64_t *x)
{
	ke_delay_execution_thread(100 + rnd(x) % THINK_US);
}

static void wait_go(void)
{
	ke_wait_for_single_object(&s.go, WrSuspended, KernelMode, KE_WAIT_FOREVER);
}

static KTHREAD *spawn(PKSTART_ROUTINE fn, uintptr_t ctx, int8_t prio, const char *role, uint64_t timeout_us)
{
	KTHREAD *t = ps_create_system_thread(NULL, fn, (void *)ctx, prio, NULL, role);
	if (s.nthreads < MAX_THREADS)
		s.threads[s.nthreads++] = t;
	char extra[48] = "";
	if (timeout_us)
		ksnprintf(extra, sizeof(extra), " timeout %llu us", (unsigned long long)timeout_us);
	kprintf("resources: thread %u role %s priority %d%s\n", t->ThreadId, role, prio, extra);
	return t;
}

/* ---------------------------------------------------------------- 1: the mix */

static void writer(void *ctx)
{
	uint64_t x = 0x9E3779B97F4A7C15ull + (uintptr_t)ctx;
	wait_go();
	while (running()) {
		uint32_t i = rnd(&x) % NDATA, depth = 1 + rnd(&x) % 3;
		ex_acquire_resource_exclusive_lite(&s.data[i], true);
		for (uint32_t k = 1; k < depth; k++) /* recursion, both kinds */
			(k % 2 ? ex_acquire_resource_shared_lite : ex_acquire_resource_exclusive_lite)(&s.data[i], true);
		if (!ex_is_resource_acquired_exclusive_lite(&s.data[i]) ||
		    ex_is_resource_acquired_shared_lite(&s.data[i]) != depth)
			violation("a writer's recursion count is wrong", i);
		write_inside(i, &x);
		for (uint32_t k = 0; k < depth; k++)
			ex_release_resource_lite(&s.data[i]);
		held(true);
		think(&x);
	}
}

enum reader_kind { ReaderLite, ReaderStarve, ReaderPolite };

static void reader(void *ctx)
{
	enum reader_kind kind = (uintptr_t)ctx & 3;
	uint64_t x = 0xD1B54A32D192ED03ull + (uintptr_t)ctx;
	wait_go();
	while (running()) {
		uint32_t i = rnd(&x) % NDATA, depth = kind == ReaderLite ? 1 + rnd(&x) % 3 : 1;
		if (kind == ReaderStarve)
			ex_acquire_shared_starve_exclusive(&s.data[i], true);
		else if (kind == ReaderPolite)
			ex_acquire_shared_wait_for_exclusive(&s.data[i], true);
		else
			ex_acquire_resource_shared_lite(&s.data[i], true);
		for (uint32_t k = 1; k < depth; k++) /* a sharer passes exclusive waiters */
			ex_acquire_resource_shared_lite(&s.data[i], true);
		read_inside(i, &x);
		for (uint32_t k = 0; k < depth; k++)
			ex_release_resource_lite(&s.data[i]);
		held(false);
		think(&x);
	}
}

static void converter(void *ctx)
{
	uint64_t x = 0xBF58476D1CE4E5B9ull + (uintptr_t)ctx;
	wait_go();
	while (running()) {
		uint32_t i = rnd(&x) % NDATA;
		ex_acquire_resource_exclusive_lite(&s.data[i], true);
		write_inside(i, &x);
		ex_convert_exclusive_to_shared_lite(&s.data[i]);
		read_inside(i, &x);
		ex_release_resource_lite(&s.data[i]);
		held(false); /* released as shared */
		think(&x);
	}
}

/* ctx: time-out in us << 1 | exclusive */
static void timed(void *ctx)
{
	bool exclusive = (uintptr_t)ctx & 1;
	uint64_t us = (uintptr_t)ctx >> 1, x = 0x94D049BB133111EBull + (uintptr_t)ctx;
	wait_go();
	while (running()) {
		uint32_t i = rnd(&x) % NDATA;
		NTSTATUS st = exclusive ? ex_acquire_resource_exclusive_timeout(&s.data[i], us)
					: ex_acquire_resource_shared_timeout(&s.data[i], us);
		if (st == STATUS_TIMEOUT) {
			__atomic_fetch_add(&s.timeouts[exclusive], 1, __ATOMIC_RELAXED);
			if (ex_is_resource_acquired_shared_lite(&s.data[i]))
				violation("owned after a time-out", i);
		} else {
			if (exclusive)
				write_inside(i, &x);
			else
				read_inside(i, &x);
			ex_release_resource_lite(&s.data[i]);
			held(exclusive);
		}
		think(&x);
	}
}

static void long_holder(void *ctx)
{
	wait_go();
	while (running()) {
		ex_acquire_resource_exclusive_lite(&s.slow, true);
		uint64_t end = arch_rdtsc() + ke_us_to_tsc(s.long_hold_us);
		while (arch_rdtsc() < end) { /* busy: a boost shows while it runs */
			int8_t p = ke_get_current_thread()->Priority;
			if (p > s.long_holder_max_priority)
				s.long_holder_max_priority = p;
			busy_us(100);
		}
		ex_release_resource_lite(&s.slow);
		held(true);
		ke_delay_execution_thread(5000);
	}
}

/* ctx: 0 exclusive, 1 shared, 2 exclusive with a time-out, 3 shared with one */
static void slow_waiter(void *ctx)
{
	uintptr_t how = (uintptr_t)ctx;
	bool exclusive = !(how & 1);
	wait_go();
	while (running()) {
		if (how >= 2) {
			NTSTATUS st = exclusive ? ex_acquire_resource_exclusive_timeout(&s.slow, s.slow_timeout_us)
						: ex_acquire_resource_shared_timeout(&s.slow, s.slow_timeout_us);
			if (st == STATUS_TIMEOUT) {
				__atomic_fetch_add(&s.timeouts[exclusive], 1, __ATOMIC_RELAXED);
				ke_delay_execution_thread(2000);
				continue;
			}
		} else if (exclusive) {
			ex_acquire_resource_exclusive_lite(&s.slow, true);
		} else {
			ex_acquire_resource_shared_lite(&s.slow, true);
		}
		busy_us(200);
		ex_release_resource_lite(&s.slow);
		held(exclusive);
		ke_delay_execution_thread(2000);
	}
}

static void lifecycle(void *ctx)
{
	ERESOURCE r;
	wait_go();
	while (running()) {
		ex_initialize_resource_lite(&r);
		trace_name_object(&r, KprofObjectResource, "lifecycle");
		trace_name_object(&r.SpinLock, KprofObjectQueuedSpinLock, "lifecycle.SpinLock");
		__atomic_fetch_add(&s.inits, 1, __ATOMIC_RELAXED);
		ex_acquire_resource_exclusive_lite(&r, true);
		ex_release_resource_lite(&r);
		held(true);
		ex_acquire_resource_shared_lite(&r, true);
		ex_acquire_resource_shared_lite(&r, true);
		ex_reinitialize_resource_lite(&r); /* forgets its owner: no release record */
		__atomic_fetch_add(&s.reinits, 1, __ATOMIC_RELAXED);
		if (ex_is_resource_acquired_shared_lite(&r))
			violation("an owner survived reinitialisation", NDATA);
		ex_acquire_resource_exclusive_lite(&r, true);
		ex_release_resource_lite(&r);
		held(true);
		ex_reinitialize_resource_lite(&r);
		__atomic_fetch_add(&s.reinits, 1, __ATOMIC_RELAXED);
		ex_delete_resource_lite(&r);
		ke_delay_execution_thread(20000);
	}
}

/* ---------------------------------------------------------------- 2: the boost */

static void boost_holder(void *ctx)
{
	ex_acquire_resource_exclusive_lite(&s.boost, true);
	ke_set_event(&s.boost_held, IO_NO_INCREMENT, false);
	ke_wait_for_single_object(&s.boost_release, Executive, KernelMode, KE_WAIT_FOREVER);
	ex_release_resource_lite(&s.boost);
	held(true);
}

static void boost_waiter(void *ctx)
{
	bool exclusive = ctx != NULL;
	if (exclusive)
		ex_acquire_resource_exclusive_lite(&s.boost, true);
	else
		ex_acquire_resource_shared_lite(&s.boost, true);
	ex_release_resource_lite(&s.boost);
	held(exclusive);
}

/* Initialise, and name it and its SpinLock in the trace and on the
 * console (the boot tests hold the two against each other). */
static void init(ERESOURCE *r, const char *name, uint32_t i)
{
	ex_initialize_resource_lite(r);
	s.inits++;
	trace_name_object(r, KprofObjectResource, "%s%u", name, i);
	trace_name_object(&r->SpinLock, KprofObjectQueuedSpinLock, "%s%u.SpinLock", name, i);
	kprintf("resources: resource 0x%llx name %s%u\n", (unsigned long long)(uintptr_t)r, name, i);
}

static void join_all(uint32_t from)
{
	for (uint32_t i = from; i < s.nthreads; i++)
		ke_wait_for_single_object(s.threads[i], Executive, KernelMode, KE_WAIT_FOREVER);
}

/* Part 2; returns the holder's priority once both waiters' slices ended. */
static int8_t boost_phase(void)
{
	struct ex_resource_counts c0, c;
	uint32_t first = s.nthreads;

	init(&s.boost, "boost", 0);
	ke_initialize_event(&s.boost_held, NotificationEvent, false);
	ke_initialize_event(&s.boost_release, NotificationEvent, false);
	KTHREAD *h = spawn(boost_holder, 0, 4, "boost-holder", 0);
	ke_wait_for_single_object(&s.boost_held, Executive, KernelMode, KE_WAIT_FOREVER);
	ex_resource_get_counts(&c0);
	spawn(boost_waiter, 1, 10, "boost-writer", 0);
	spawn(boost_waiter, 0, 12, "boost-reader", 0);
	do { /* the holder waits, so its boost cannot decay */
		ke_delay_execution_thread(1000);
		ex_resource_get_counts(&c);
	} while (c.Events[ExResourceWaitExcessiveExclusive] == c0.Events[ExResourceWaitExcessiveExclusive] ||
		 c.Events[ExResourceWaitExcessiveShared] == c0.Events[ExResourceWaitExcessiveShared]);
	int8_t priority = h->Priority;
	ke_set_event(&s.boost_release, IO_NO_INCREMENT, false);
	join_all(first);
	ex_delete_resource_lite(&s.boost);
	return priority;
}

/* ---------------------------------------------------------------- the run */

static bool idle(ERESOURCE *r)
{
	bool free = !ex_get_shared_waiter_count(r) && !ex_get_exclusive_waiter_count(r) &&
		    ex_try_to_acquire_resource_exclusive_lite(r);
	if (free) {
		ex_release_resource_lite(r);
		held(true);
	}
	return free;
}

/* Set-up: the times, the resources, the go event. */
static void resources_setup(uint32_t ms)
{
	uint64_t slice_us = (uint64_t)ex_resource_timeout() * 1000;

	s.long_hold_us = MIN(LONG_HOLD_SLICES * slice_us, (uint64_t)ms * 500);
	s.slow_timeout_us = slice_us * 5 / 2;
	kprintf("resources: excessive-wait interval %llu us; long holds %llu us; %u data resources\n",
		(unsigned long long)slice_us, (unsigned long long)s.long_hold_us, NDATA);
	for (uint32_t i = 0; i < NDATA; i++)
		init(&s.data[i], "data", i);
	init(&s.slow, "slow", 0);
	ke_initialize_event(&s.go, NotificationEvent, false);
}

/* Every thread of the run, waiting for s.go. */
static void resources_spawn_all(void)
{
	uint32_t nwriters = MIN(ke_number_processors, 16u); /* more threads than CPUs, within MAX_THREADS */

	for (uint32_t i = 0; i < nwriters; i++)
		spawn(writer, i, (int8_t)(6 + i % 4), "writer", 0);
	for (uint32_t i = 0; i < 2 * nwriters; i++)
		spawn(reader, (uintptr_t)i << 2 | ReaderLite, (int8_t)(4 + i % 9), "reader", 0);
	for (uint32_t i = 0; i < 2; i++)
		spawn(reader, (uintptr_t)i << 2 | ReaderStarve, 7, "starver", 0);
	spawn(reader, ReaderPolite, 8, "polite-reader", 0);
	for (uint32_t i = 0; i < 2; i++)
		spawn(converter, i, 9, "converter", 0);
	for (uint32_t i = 0; i < 2; i++) {
		spawn(timed, TIMED_WRITER_US << 1 | 1, 10, "timed-writer", TIMED_WRITER_US);
		spawn(timed, TIMED_READER_US << 1, 11, "timed-reader", TIMED_READER_US);
	}
	spawn(long_holder, 0, 4, "long-holder", 0);
	spawn(slow_waiter, 0, 10, "slow-writer", 0);
	spawn(slow_waiter, 1, 12, "slow-reader", 0);
	spawn(slow_waiter, 2, 11, "slow-timed-writer", s.slow_timeout_us);
	spawn(slow_waiter, 3, 11, "slow-timed-reader", s.slow_timeout_us);
	spawn(lifecycle, 0, 8, "lifecycle", 0);
}

/* At the end: every resource free and its counters equal, then deleted;
 * false when one is still owned or waited on. */
static bool resources_free_all(void)
{
	bool free = true;

	for (uint32_t i = 0; i < NDATA; i++) {
		free &= idle(&s.data[i]);
		if (s.d[i].a != s.d[i].b)
			violation("the counters differ at the end", i);
	}
	free &= idle(&s.slow);
	for (uint32_t i = 0; i < NDATA; i++)
		ex_delete_resource_lite(&s.data[i]);
	ex_delete_resource_lite(&s.slow);
	return free;
}

/* The events of the run (ev) and those traced (traced), from the counts
 * before (c0) and after; true when the trace dropped some. */
static bool resources_events(const struct ex_resource_counts *c0, const struct ex_resource_counts *c, uint64_t *ev,
			     uint64_t *traced)
{
	bool dropped = false;

	for (int i = 0; i < ExResourceEventCount; i++) {
		ev[i] = c->Events[i] - c0->Events[i];
		traced[i] = c->Traced[i] - c0->Traced[i];
		dropped |= trace_enabled(PERF_SYNC_OBJECTS) && traced[i] != ev[i];
	}
	return dropped;
}

static void resources_report(const struct ex_resource_counts *c0, const struct ex_resource_counts *c,
			     const uint64_t *ev, const uint64_t *traced, int8_t boost_priority)
{
	kprintf("resources: %u threads on %u CPUs: %llu exclusive and %llu shared holds; time-outs: %llu exclusive, "
		"%llu shared; %llu excessive waits; %llu owner boosts; the long holder (priority 4) ran at up to "
		"priority %d\n",
		s.nthreads, ke_number_processors, (unsigned long long)s.holds[1], (unsigned long long)s.holds[0],
		(unsigned long long)s.timeouts[1], (unsigned long long)s.timeouts[0],
		(unsigned long long)(ev[ExResourceWaitExcessiveExclusive] + ev[ExResourceWaitExcessiveShared]),
		(unsigned long long)(c->OwnerBoosts - c0->OwnerBoosts), s.long_holder_max_priority);
	kprintf("resources: boost: a holder of priority 4 was at priority %d after its waiters' slices ended\n",
		boost_priority);
	kprintf("resources: the trace must hold %llu initialize, %llu reinitialize, %llu release exclusive, "
		"%llu release shared, %llu wait timeout exclusive, %llu wait timeout shared records\n",
		(unsigned long long)traced[ExResourceInitialize], (unsigned long long)traced[ExResourceReinitialize],
		(unsigned long long)traced[ExResourceReleaseExclusive], (unsigned long long)traced[ExResourceReleaseShared],
		(unsigned long long)traced[ExResourceWaitExcessiveExclusive],
		(unsigned long long)traced[ExResourceWaitExcessiveShared]);
}

/* The checks, in order: NULL when all hold, else what failed. */
static const char *resources_check(bool free, const uint64_t *ev, int8_t boost_priority, bool dropped)
{
	if (s.violations)
		return "the resources did not exclude (VIOLATION lines above)";
	if (!free)
		return "a resource is still owned or waited on at the end";
	if (ev[ExResourceReleaseExclusive] != s.holds[1] || ev[ExResourceReleaseShared] != s.holds[0])
		return "the release records do not match the holds the threads counted";
	if (ev[ExResourceInitialize] != s.inits || ev[ExResourceReinitialize] != s.reinits)
		return "the (re)initialise records do not match the calls";
	if (ev[ExResourceWaitExcessiveExclusive] < s.timeouts[1] || ev[ExResourceWaitExcessiveShared] < s.timeouts[0])
		return "a time-out wrote no excessive-wait record";
	if (boost_priority != KE_RESOURCE_BOOST_PRIORITY)
		return "the waiters did not boost the holder to priority 14";
	if (dropped)
		return "the trace dropped resource records";
	return NULL;
}

/* Set-up, run (then the boost phase), checks. */
static enum kprof_exit_status scenario_resources(uint32_t ms)
{
	struct ex_resource_counts c0, c;
	uint64_t ev[ExResourceEventCount], traced[ExResourceEventCount];

	memset(&s, 0, sizeof(s));
	ke_set_priority_thread(ke_get_current_thread(), 24); /* main keeps control */
	ex_resource_get_counts(&c0);
	resources_setup(ms);
	resources_spawn_all();
	s.deadline_tsc = arch_rdtsc() + ke_us_to_tsc((uint64_t)ms * 1000);
	ke_set_event(&s.go, IO_NO_INCREMENT, false);
	join_all(0);
	int8_t boost_priority = boost_phase();
	bool free = resources_free_all();
	ex_resource_get_counts(&c);
	bool dropped = resources_events(&c0, &c, ev, traced);
	resources_report(&c0, &c, ev, traced, boost_priority);
	const char *why = resources_check(free, ev, boost_priority, dropped);
	if (why)
		kprintf("scenario resources: FAILED: %s\n", why);
	else
		kprintf("scenario resources: done\n");
	return why ? KPROF_EXIT_FAILURE : KPROF_EXIT_SUCCESS;
}

/* The descriptor: scenario=resources (or one workload of scenario=mix, for
 * the duration the mix gives it), with its own keys (workload_keys.c). */
static enum kprof_exit_status run(const struct workload_run *r)
{
	uint32_t ms = r->ms ? r->ms : workload_config->resources_ms;

	workload_phase_asked(ms);
	return scenario_resources(ms);
}

WORKLOAD_DEFINE(resources, .name = "resources", .description = "ERESOURCE readers and writers", .run = run);
