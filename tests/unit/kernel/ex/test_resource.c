/*
 * test_resource.c - ERESOURCE (kernel/ex/resource*.c) and the owner boost
 * (kernel/sched/boost.c), on the host: pthreads stand in for kernel
 * threads, each on a CPU (KPRCB) of its own, with the in-stack queued spin
 * locks of kernel/locks/ and the events, semaphores and timed waits of
 * shadow/shadow_sync.c.  trace_log() is caught here, so every
 * WMI_RESOURCE record can be checked field by field.
 *
 * Covered: exclusion under contention (threads check an invariant and
 * data the resource protects, and the records' hold intervals), exclusive
 * waiters before new sharers, starve-exclusive, wait-for-exclusive,
 * recursion and MaxRecursionDepth, conversion, bug checks (not owned,
 * shared-to-exclusive deadlock, IRQL), time-outs and the state after them,
 * a hand-over at the very moment of a time-out, excessive-wait records
 * and owner boosts, the owner table growing, reinitialise and delete.
 * Also built with ThreadSanitizer (UNIT_TSAN_NAMES).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arch/cpu.h>

#include "kernel/debug/bugcheck.h"
#include "kernel/ex/resource.h"
#include "kernel/lib/libk.h"
#include "kernel/ke/prcb.h"
#include "kernel/sched/ki.h"
#include "kernel/ke/time/time.h"
#include "kernel/trace/trace.h"
#include "shadow.h"
#include "shadow_sync.h"

KPRCB *KiProcessorBlock[KPROF_MAX_CPUS];
volatile uint32_t ke_number_processors;
PERFINFO_GROUPMASK trace_groups;

#define MAIN_TID 8

static KTHREAD *me;
static int worker_failures;

/* In worker threads (cmocka's asserts belong to the main thread). */
#define CHECK(c)                                                                                         \
	do {                                                                                             \
		if (!(c)) {                                                                              \
			__atomic_fetch_add(&worker_failures, 1, __ATOMIC_RELAXED);                      \
			fprintf(stderr, "worker check failed: %s (%s:%d)\n", #c, __FILE__, __LINE__);  \
		}                                                                                        \
	} while (0)

#define WAIT_UNTIL(cond)                                                                  \
	do {                                                                              \
		uint64_t waited_ = 0;                                                     \
		while (!(cond)) {                                                         \
			shadow_sleep_us(100);                                             \
			if ((waited_ += 100) > 20000000)                                  \
				fail_msg("gave up waiting for %s", #cond);                \
		}                                                                         \
	} while (0)

/* ---------------------------------------------------------------- the trace */

struct rec {
	uint64_t ts;
	WMI_RESOURCE w;
};

static struct {
	pthread_mutex_t lock;
	struct rec *v;
	size_t n, cap;
} tr = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Resource records come through trace_log (inline in trace.h: the group
 * test, then these); lockstat.c writes WMI_SPINLOCK records through
 * trace_record_begin_stamped, and spin-lock tracing is off. */
static __thread WMI_RESOURCE being_written;

void *trace_record_begin(struct trace_record *rec, uint16_t hook, uint8_t version, uint16_t payload_size)
{
	(void)rec;
	if (hook != PERFINFO_LOG_TYPE_RESOURCE || version != RESOURCE_VERSION || payload_size != sizeof(WMI_RESOURCE))
		abort();
	return &being_written;
}

void *trace_record_begin_stamped(struct trace_record *rec, uint16_t hook, uint8_t version, uint16_t payload_size,
				 const struct trace_stamp *stamp)
{
	return NULL;
}

void trace_record_commit(struct trace_record *rec)
{
	(void)rec;
	pthread_mutex_lock(&tr.lock);
	if (tr.n == tr.cap) {
		tr.cap = tr.cap ? tr.cap * 2 : 1024;
		tr.v = realloc(tr.v, tr.cap * sizeof(*tr.v));
	}
	tr.v[tr.n].ts = arch_rdtsc();
	tr.v[tr.n].w = being_written;
	tr.n++;
	pthread_mutex_unlock(&tr.lock);
}

/* Records of `action` on r (any thread if tid is 0), in order; at most max. */
static size_t records(const ERESOURCE *r, uint32_t action, uint32_t tid, struct rec *out, size_t max)
{
	size_t n = 0;
	pthread_mutex_lock(&tr.lock);
	for (size_t i = 0; i < tr.n; i++) {
		const WMI_RESOURCE *w = &tr.v[i].w;
		if (w->Resource != (uint64_t)(uintptr_t)r || w->Action != action || (tid && w->ThreadId != tid))
			continue;
		if (n < max)
			out[n] = tr.v[i];
		n++;
	}
	pthread_mutex_unlock(&tr.lock);
	return n;
}

static size_t count(const ERESOURCE *r, uint32_t action, uint32_t tid)
{
	return records(r, action, tid, NULL, 0);
}

/* The one record of `action` by tid on r. */
static struct rec one(const ERESOURCE *r, uint32_t action, uint32_t tid)
{
	struct rec x = { 0 };
	size_t n = records(r, action, tid, &x, 1);
	if (n != 1)
		fail_msg("expected one record 0x%x by thread %u, found %zu", action, tid, n);
	return x;
}

static void check_release_record(const struct rec *x, uint32_t action, uint32_t tid, uint32_t depth)
{
	assert_int_equal(x->w.Action, action);
	assert_int_equal(x->w.ThreadId, tid);
	assert_int_equal(x->w.MaxRecursionDepth, depth);
	assert_true(x->w.AcquireTime > 0);
	assert_true(x->w.AcquireTime + x->w.HoldTime <= x->ts);
}

/* The resource's fields, copied under its lock. */
static ERESOURCE snapshot(ERESOURCE *r)
{
	KLOCK_QUEUE_HANDLE h;
	ERESOURCE copy;
	ke_acquire_in_stack_queued_spin_lock(&r->SpinLock, &h);
	memcpy(&copy, r, sizeof(copy));
	ke_release_in_stack_queued_spin_lock(&h);
	return copy;
}

static void assert_idle(ERESOURCE *r)
{
	ERESOURCE s = snapshot(r);
	assert_int_equal(s.ActiveCount, 0);
	assert_int_equal(s.ActiveEntries, 0);
	assert_int_equal(s.Flag, 0);
	assert_int_equal(s.NumberOfSharedWaiters, 0);
	assert_int_equal(s.NumberOfExclusiveWaiters, 0);
	assert_int_equal(s.SharedGrants, 0);
	assert_int_equal(s.ExclusiveGrants, 0);
	assert_int_equal(s.SharedWaiters.Header.SignalState, 0);
	assert_int_equal(s.ExclusiveWaiters.Header.SignalState, 0);
	assert_null(s.OwnerEntry.OwnerThread);
}

static int8_t priority_of(KTHREAD *t, int8_t *decrement)
{
	unsigned long flags = ki_lock_dispatcher();
	int8_t p = t->Priority;
	*decrement = t->PriorityDecrement;
	ki_unlock_dispatcher(flags);
	return p;
}

static uint32_t seq_next(uint32_t *seq)
{
	return __atomic_add_fetch(seq, 1, __ATOMIC_SEQ_CST);
}

static int setup(void **state)
{
	(void)state;
	static bool calibrated;
	if (!calibrated) {
		shadow_sync_calibrate_tsc();
		calibrated = true;
	}
	me = shadow_sync_adopt(MAIN_TID, 8, 0);
	memset(&trace_groups, 0, sizeof(trace_groups));
	perfinfo_group_set(&trace_groups, PERF_SYNC_OBJECTS);
	ex_resource_set_timeout(10000); /* no slice ends unless a test wants it */
	pthread_mutex_lock(&tr.lock);
	tr.n = 0;
	pthread_mutex_unlock(&tr.lock);
	worker_failures = 0;
	shadow_wait_timeout_hook = NULL;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(__atomic_load_n(&worker_failures, __ATOMIC_RELAXED), 0);
	assert_int_equal(ke_get_current_irql(), PASSIVE_LEVEL);
	return 0;
}

/* ---------------------------------------------------------------- life and records */

static void test_initialize_and_delete(void **state)
{
	(void)state;
	ERESOURCE r;
	struct ex_resource_counts before, after;

	ex_resource_get_counts(&before);
	assert_int_equal(ex_initialize_resource_lite(&r), STATUS_SUCCESS);
	ex_resource_get_counts(&after);
	assert_int_equal(after.Resources, before.Resources + 1);
	assert_int_equal(after.Events[ExResourceInitialize], before.Events[ExResourceInitialize] + 1);
	assert_int_equal(after.Traced[ExResourceInitialize], before.Traced[ExResourceInitialize] + 1);
	struct rec x = one(&r, WMI_RESOURCE_ACTION_INITIALIZE, MAIN_TID);
	assert_int_equal(x.w.AcquireTime, 0);
	assert_int_equal(x.w.HoldTime, 0);
	assert_int_equal(x.w.WaitTime, 0);
	assert_int_equal(x.w.MaxRecursionDepth, 0);
	assert_int_equal(x.w.ContentionDelta, 0);
	assert_int_equal(x.w.Resource, (uint64_t)(uintptr_t)&r);
	assert_idle(&r);
	assert_false(ex_is_resource_acquired_exclusive_lite(&r));
	assert_int_equal(ex_is_resource_acquired_shared_lite(&r), 0);

	/* Owned: deleting it is a bug check. */
	assert_true(ex_acquire_resource_exclusive_lite(&r, true));
	assert_true(SHADOW_EXPECT_BUGCHECK(ex_delete_resource_lite(&r)));
	assert_int_equal(shadow_last_bugcheck, KPROF_ASSERTION_FAILED);
	ex_release_resource_lite(&r);
	assert_int_equal(ex_delete_resource_lite(&r), STATUS_SUCCESS);
	ex_resource_get_counts(&after);
	assert_int_equal(after.Resources, before.Resources);

	/* The group off: nothing is written, the event is still counted. */
	memset(&trace_groups, 0, sizeof(trace_groups));
	ex_initialize_resource_lite(&r);
	ex_delete_resource_lite(&r);
	ex_resource_get_counts(&after);
	assert_int_equal(after.Events[ExResourceInitialize], before.Events[ExResourceInitialize] + 2);
	assert_int_equal(after.Traced[ExResourceInitialize], before.Traced[ExResourceInitialize] + 1);
	assert_int_equal(count(&r, WMI_RESOURCE_ACTION_INITIALIZE, 0), 1);
	assert_int_equal(ex_resource_action(ExResourceWaitExcessiveShared), WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_SHARED);
}

static void test_exclusive_recursion(void **state)
{
	(void)state;
	ERESOURCE r;
	ex_initialize_resource_lite(&r);

	uint64_t t0 = arch_rdtsc();
	assert_true(ex_acquire_resource_exclusive_lite(&r, true));
	assert_true(ex_is_resource_acquired_exclusive_lite(&r));
	assert_true(ex_acquire_resource_exclusive_lite(&r, false));  /* recursion */
	assert_true(ex_acquire_resource_shared_lite(&r, true));      /* counted as exclusive */
	assert_true(ex_acquire_shared_starve_exclusive(&r, false));
	assert_true(ex_try_to_acquire_resource_exclusive_lite(&r));
	assert_int_equal(ex_is_resource_acquired_shared_lite(&r), 5);
	for (int i = 0; i < 3; i++)
		ex_release_resource_lite(&r);
	assert_true(ex_acquire_resource_shared_lite(&r, false)); /* 3 again: the deepest stays 5 */
	ex_release_resource_lite(&r);
	ex_release_resource_lite(&r);
	assert_int_equal(count(&r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, 0), 0);
	assert_true(ex_is_resource_acquired_exclusive_lite(&r));
	ex_release_resource_lite(&r);
	uint64_t t1 = arch_rdtsc();

	struct rec x = one(&r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, MAIN_TID);
	check_release_record(&x, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, MAIN_TID, 5);
	assert_true(x.w.AcquireTime >= t0 && x.w.AcquireTime + x.w.HoldTime <= t1);
	assert_int_equal(x.w.WaitTime, 0);
	assert_int_equal(x.w.ContentionDelta, 0);
	assert_false(ex_is_resource_acquired_exclusive_lite(&r));
	assert_idle(&r);
	ex_delete_resource_lite(&r);
}

static void test_shared_recursion(void **state)
{
	(void)state;
	ERESOURCE r;
	ex_initialize_resource_lite(&r);
	assert_true(ex_acquire_resource_shared_lite(&r, true));
	assert_true(ex_acquire_shared_wait_for_exclusive(&r, false)); /* no exclusive waiters: recursion */
	assert_true(ex_acquire_shared_starve_exclusive(&r, true));
	assert_false(ex_is_resource_acquired_exclusive_lite(&r));
	assert_int_equal(ex_is_resource_acquired_shared_lite(&r), 3);
	assert_false(ex_try_to_acquire_resource_exclusive_lite(&r)); /* no upgrade, no deadlock either */
	assert_int_equal(ex_acquire_resource_exclusive_timeout(&r, 0), STATUS_TIMEOUT);
	for (int i = 0; i < 3; i++)
		ex_release_resource_lite(&r);
	struct rec x = one(&r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, MAIN_TID);
	check_release_record(&x, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, MAIN_TID, 3);
	assert_int_equal(x.w.WaitTime, 0);
	assert_idle(&r);
	ex_delete_resource_lite(&r);
}

static KTHREAD stranger = { .ThreadId = 4444 };

static void test_bug_checks(void **state)
{
	(void)state;
	ERESOURCE r;
	ex_initialize_resource_lite(&r);

	assert_true(SHADOW_EXPECT_BUGCHECK(ex_release_resource_lite(&r)));
	assert_int_equal(shadow_last_bugcheck, RESOURCE_NOT_OWNED);
	assert_true(SHADOW_EXPECT_BUGCHECK(ex_convert_exclusive_to_shared_lite(&r)));
	assert_int_equal(shadow_last_bugcheck, RESOURCE_NOT_OWNED);

	assert_true(ex_acquire_resource_shared_lite(&r, true));
	assert_true(SHADOW_EXPECT_BUGCHECK(ex_release_resource_for_thread_lite(&r, &stranger)));
	assert_int_equal(shadow_last_bugcheck, RESOURCE_NOT_OWNED);
	assert_true(SHADOW_EXPECT_BUGCHECK(ex_release_resource_for_thread_lite(&r, NULL)));
	assert_int_equal(shadow_last_bugcheck, RESOURCE_NOT_OWNED);
	assert_true(SHADOW_EXPECT_BUGCHECK(ex_convert_exclusive_to_shared_lite(&r)));
	assert_int_equal(shadow_last_bugcheck, RESOURCE_NOT_OWNED);
	/* A sharer that would wait for exclusive ownership waits for itself. */
	assert_true(SHADOW_EXPECT_BUGCHECK(ex_acquire_resource_exclusive_lite(&r, true)));
	assert_int_equal(shadow_last_bugcheck, KPROF_ASSERTION_FAILED);
	assert_true(SHADOW_EXPECT_BUGCHECK(ex_acquire_resource_exclusive_timeout(&r, 1000)));
	assert_false(ex_acquire_resource_exclusive_lite(&r, false));
	assert_int_equal(ex_is_resource_acquired_shared_lite(&r), 1);

	/* DISPATCH_LEVEL: no acquisition (it might wait); release is allowed. */
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	assert_true(SHADOW_EXPECT_BUGCHECK(ex_acquire_resource_shared_lite(&r, false)));
	assert_int_equal(shadow_last_bugcheck, IRQL_NOT_LESS_OR_EQUAL);
	assert_true(SHADOW_EXPECT_BUGCHECK(ex_acquire_resource_exclusive_timeout(&r, 0)));
	assert_true(SHADOW_EXPECT_BUGCHECK(ex_reinitialize_resource_lite(&r)));
	assert_int_equal(ke_get_current_irql(), DISPATCH_LEVEL);
	ex_release_resource_lite(&r);
	ke_lower_irql(old);

	KIRQL high = ke_raise_irql(CLOCK_LEVEL);
	assert_true(SHADOW_EXPECT_BUGCHECK(ex_release_resource_lite(&r)));
	assert_int_equal(shadow_last_bugcheck, IRQL_NOT_LESS_OR_EQUAL);
	ke_lower_irql(high);

	assert_int_equal(count(&r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, MAIN_TID), 1);
	assert_idle(&r);
	ex_delete_resource_lite(&r);
}

/* ---------------------------------------------------------------- fairness */

static struct {
	ERESOURCE r;
	uint32_t seq, exclusive_at, shared_at;
	uint32_t inside;
	int go;
	KTHREAD *sharer;
} f;

static void exclusive_waiter(void *arg)
{
	CHECK(ex_acquire_resource_exclusive_lite(&f.r, true));
	f.exclusive_at = seq_next(&f.seq);
	CHECK(ex_is_resource_acquired_exclusive_lite(&f.r));
	shadow_sleep_us(2000);
	ex_release_resource_lite(&f.r);
}

static void shared_waiter(void *arg)
{
	CHECK(ex_acquire_resource_shared_lite(&f.r, true));
	__atomic_store_n(&f.shared_at, seq_next(&f.seq), __ATOMIC_SEQ_CST);
	CHECK(!ex_is_resource_acquired_exclusive_lite(&f.r));
	ex_release_resource_lite(&f.r);
}

static void new_sharer_tries(void *arg)
{
	CHECK(!ex_acquire_resource_shared_lite(&f.r, false));
	CHECK(!ex_acquire_shared_wait_for_exclusive(&f.r, false));
	CHECK(ex_acquire_resource_shared_timeout(&f.r, 0) == STATUS_TIMEOUT);
	CHECK(ex_acquire_shared_starve_exclusive(&f.r, false)); /* passes the exclusive waiter */
	CHECK(ex_is_resource_acquired_shared_lite(&f.r) == 1);
	ex_release_resource_lite(&f.r);
}

static void test_exclusive_waiters_before_new_sharers(void **state)
{
	(void)state;
	memset(&f, 0, sizeof(f));
	ex_initialize_resource_lite(&f.r);
	assert_true(ex_acquire_resource_shared_lite(&f.r, true));

	struct shadow_thread *e = shadow_thread_start(exclusive_waiter, NULL, 9);
	WAIT_UNTIL(ex_get_exclusive_waiter_count(&f.r) == 1);
	struct shadow_thread *n = shadow_thread_start(new_sharer_tries, NULL, 9);
	shadow_thread_join(n);
	/* A sharer may recurse past the exclusive waiter, except through
	 * ex_acquire_shared_wait_for_exclusive. */
	assert_true(ex_acquire_resource_shared_lite(&f.r, false));
	assert_false(ex_acquire_shared_wait_for_exclusive(&f.r, false));
	struct shadow_thread *s = shadow_thread_start(shared_waiter, NULL, 9);
	WAIT_UNTIL(ex_get_shared_waiter_count(&f.r) == 1);
	assert_int_equal(ex_get_exclusive_waiter_count(&f.r), 1);
	ex_release_resource_lite(&f.r);
	ex_release_resource_lite(&f.r);
	shadow_thread_join(e);
	shadow_thread_join(s);

	assert_true(f.exclusive_at && f.shared_at && f.exclusive_at < f.shared_at);
	struct rec mine = one(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, MAIN_TID);
	check_release_record(&mine, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, MAIN_TID, 2);
	assert_int_equal(mine.w.ContentionDelta, 2); /* the exclusive and the shared waiter */
	struct rec ex[2], sh[4];
	assert_int_equal(records(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, 0, ex, 2), 1);
	assert_int_equal(ex[0].w.MaxRecursionDepth, 1);
	assert_true(ex[0].w.WaitTime > 0);
	assert_true(ex[0].w.AcquireTime >= mine.w.AcquireTime + mine.w.HoldTime);
	/* main's, the starving sharer's and the waiting sharer's */
	assert_int_equal(records(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, 0, sh, 4), 3);
	assert_true(sh[2].w.WaitTime > 0 && sh[2].w.AcquireTime >= ex[0].w.AcquireTime + ex[0].w.HoldTime);
	assert_idle(&f.r);
	ex_delete_resource_lite(&f.r);
}

static void sharer_until_go(void *arg)
{
	CHECK(ex_acquire_resource_shared_lite(&f.r, true));
	__atomic_fetch_add(&f.inside, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&f.go, __ATOMIC_ACQUIRE))
		shadow_sleep_us(100);
	ex_release_resource_lite(&f.r);
}

static void test_convert_exclusive_to_shared(void **state)
{
	(void)state;
	memset(&f, 0, sizeof(f));
	ex_initialize_resource_lite(&f.r);
	assert_true(ex_acquire_resource_exclusive_lite(&f.r, true));
	struct shadow_thread *s1 = shadow_thread_start(sharer_until_go, NULL, 9);
	struct shadow_thread *s2 = shadow_thread_start(sharer_until_go, NULL, 9);
	WAIT_UNTIL(ex_get_shared_waiter_count(&f.r) == 2);
	struct shadow_thread *e = shadow_thread_start(exclusive_waiter, NULL, 9);
	WAIT_UNTIL(ex_get_exclusive_waiter_count(&f.r) == 1);

	ex_convert_exclusive_to_shared_lite(&f.r);
	WAIT_UNTIL(__atomic_load_n(&f.inside, __ATOMIC_SEQ_CST) == 2); /* both let in with us */
	assert_false(ex_is_resource_acquired_exclusive_lite(&f.r));
	assert_int_equal(ex_is_resource_acquired_shared_lite(&f.r), 1);
	assert_int_equal(ex_get_exclusive_waiter_count(&f.r), 1);
	assert_int_equal(snapshot(&f.r).ActiveCount, 3);
	ex_release_resource_lite(&f.r);
	/* Converted: released as shared. */
	struct rec x = one(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, MAIN_TID);
	check_release_record(&x, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, MAIN_TID, 1);
	assert_int_equal(f.exclusive_at, 0); /* the sharers still hold it */
	__atomic_store_n(&f.go, 1, __ATOMIC_RELEASE);
	shadow_thread_join(s1);
	shadow_thread_join(s2);
	shadow_thread_join(e);
	assert_true(f.exclusive_at > 0);
	assert_int_equal(count(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, 0), 3);
	assert_int_equal(count(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, 0), 1);
	assert_idle(&f.r);
	ex_delete_resource_lite(&f.r);
}

/* A sharer that lets exclusive waiters go first waits until another
 * thread releases its share for it. */
static void polite_sharer(void *arg)
{
	CHECK(ex_acquire_resource_shared_lite(&f.r, true));
	f.sharer = ke_get_current_thread();
	__atomic_store_n(&f.inside, 1, __ATOMIC_RELEASE);
	while (ex_get_exclusive_waiter_count(&f.r) == 0)
		shadow_sleep_us(100);
	CHECK(ex_acquire_shared_wait_for_exclusive(&f.r, true));
	__atomic_store_n(&f.shared_at, seq_next(&f.seq), __ATOMIC_SEQ_CST);
	CHECK(ex_is_resource_acquired_shared_lite(&f.r) == 1); /* a new hold */
	ex_release_resource_lite(&f.r);
}

static void test_wait_for_exclusive_and_release_for_thread(void **state)
{
	(void)state;
	memset(&f, 0, sizeof(f));
	ex_initialize_resource_lite(&f.r);
	struct shadow_thread *s = shadow_thread_start(polite_sharer, NULL, 9);
	WAIT_UNTIL(__atomic_load_n(&f.inside, __ATOMIC_ACQUIRE) == 1);
	struct shadow_thread *e = shadow_thread_start(exclusive_waiter, NULL, 9);
	WAIT_UNTIL(ex_get_shared_waiter_count(&f.r) == 1);
	uint32_t stid = f.sharer->ThreadId;
	assert_int_equal(count(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, stid), 0);
	ex_release_resource_for_thread_lite(&f.r, f.sharer);
	shadow_thread_join(e);
	shadow_thread_join(s);
	assert_true(f.exclusive_at && f.exclusive_at < f.shared_at);
	struct rec sh[2];
	assert_int_equal(records(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, stid, sh, 2), 2);
	assert_int_equal(sh[0].w.WaitTime, 0);
	assert_true(sh[1].w.WaitTime > 0);
	assert_int_equal(count(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, 0), 1);
	assert_idle(&f.r);
	ex_delete_resource_lite(&f.r);
}

/* ---------------------------------------------------------------- time-outs */

static void timing_out(void *arg)
{
	CHECK(ex_acquire_resource_shared_timeout(&f.r, 30000) == STATUS_TIMEOUT);
	CHECK(ex_acquire_resource_shared_timeout(&f.r, 0) == STATUS_TIMEOUT);
	CHECK(!ex_acquire_resource_shared_lite(&f.r, false));
	CHECK(ex_acquire_resource_exclusive_timeout(&f.r, 20000) == STATUS_TIMEOUT);
	CHECK(!ex_try_to_acquire_resource_exclusive_lite(&f.r));
	CHECK(ex_is_resource_acquired_shared_lite(&f.r) == 0);
}

static void test_timeouts(void **state)
{
	(void)state;
	memset(&f, 0, sizeof(f));
	ex_initialize_resource_lite(&f.r);
	assert_true(ex_acquire_resource_exclusive_lite(&f.r, true));
	struct shadow_thread *w = shadow_thread_start(timing_out, NULL, 9);
	uint32_t wtid = shadow_thread_kthread(w)->ThreadId;
	shadow_thread_join(w);

	ERESOURCE s = snapshot(&f.r);
	assert_int_equal(s.NumberOfSharedWaiters, 0);
	assert_int_equal(s.NumberOfExclusiveWaiters, 0);
	assert_int_equal(s.ActiveCount, 1);
	assert_int_equal(s.ContentionCount, 2);
	struct rec x = one(&f.r, WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_SHARED, wtid);
	assert_true(x.w.WaitTime >= ke_us_to_tsc(30000));
	assert_int_equal(x.w.AcquireTime, 0);
	assert_int_equal(x.w.HoldTime, 0);
	assert_int_equal(x.w.MaxRecursionDepth, 0);
	assert_int_equal(x.w.ContentionDelta, 0);
	x = one(&f.r, WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_EXCLUSIVE, wtid);
	assert_true(x.w.WaitTime >= ke_us_to_tsc(20000));
	assert_int_equal(x.w.ContentionDelta, 0);

	ex_release_resource_lite(&f.r);
	struct rec r = one(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, MAIN_TID);
	assert_int_equal(r.w.ContentionDelta, 2);
	assert_idle(&f.r);
	/* Still usable both ways. */
	assert_int_equal(ex_acquire_resource_shared_timeout(&f.r, 1000), STATUS_SUCCESS);
	ex_release_resource_lite(&f.r);
	assert_int_equal(ex_acquire_resource_exclusive_timeout(&f.r, 1000), STATUS_SUCCESS);
	ex_release_resource_lite(&f.r);
	assert_idle(&f.r);
	ex_delete_resource_lite(&f.r);
}

static NTSTATUS exclusive_status;

static void exclusive_timing_out(void *arg)
{
	exclusive_status = ex_acquire_resource_exclusive_timeout(&f.r, 50000);
}

/* The last exclusive waiter giving up lets in the sharers queued behind it. */
static void test_exclusive_timeout_lets_sharers_in(void **state)
{
	(void)state;
	memset(&f, 0, sizeof(f));
	ex_initialize_resource_lite(&f.r);
	assert_true(ex_acquire_resource_shared_lite(&f.r, true));
	struct shadow_thread *e = shadow_thread_start(exclusive_timing_out, NULL, 9);
	WAIT_UNTIL(ex_get_exclusive_waiter_count(&f.r) == 1);
	struct shadow_thread *s = shadow_thread_start(shared_waiter, NULL, 9);
	WAIT_UNTIL(ex_get_shared_waiter_count(&f.r) == 1 || __atomic_load_n(&f.shared_at, __ATOMIC_SEQ_CST));
	shadow_thread_join(e);
	shadow_thread_join(s); /* got in although we still share it */
	assert_int_equal(exclusive_status, STATUS_TIMEOUT);
	assert_true(f.shared_at > 0);
	assert_int_equal(ex_is_resource_acquired_shared_lite(&f.r), 1);
	assert_int_equal(count(&f.r, WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_EXCLUSIVE, 0), 1);
	ex_release_resource_lite(&f.r);
	assert_idle(&f.r);
	ex_delete_resource_lite(&f.r);
}

/* The owner releases just as the waiter's time-out ends: the waiter's
 * wait has timed out, but the resource was handed to it, so it owns it. */
static void release_main_now(void *object)
{
	shadow_wait_timeout_hook = NULL;
	ex_release_resource_for_thread_lite(&f.r, me);
}

static void handed_over_at_timeout(void *arg)
{
	bool exclusive = arg != NULL;
	shadow_wait_timeout_hook = release_main_now;
	NTSTATUS st = exclusive ? ex_acquire_resource_exclusive_timeout(&f.r, 20000)
				: ex_acquire_resource_shared_timeout(&f.r, 20000);
	CHECK(shadow_wait_timeout_hook == NULL); /* the time-out did happen */
	CHECK(st == STATUS_SUCCESS);
	CHECK(ex_is_resource_acquired_exclusive_lite(&f.r) == exclusive);
	CHECK(ex_is_resource_acquired_shared_lite(&f.r) == 1);
	ex_release_resource_lite(&f.r);
}

static void test_handover_at_timeout(void **state)
{
	(void)state;
	for (int exclusive = 0; exclusive < 2; exclusive++) {
		pthread_mutex_lock(&tr.lock);
		tr.n = 0;
		pthread_mutex_unlock(&tr.lock);
		memset(&f, 0, sizeof(f));
		ex_initialize_resource_lite(&f.r);
		assert_true(ex_acquire_resource_exclusive_lite(&f.r, true));
		struct shadow_thread *w = shadow_thread_start(handed_over_at_timeout, exclusive ? &f : NULL, 9);
		uint32_t wtid = shadow_thread_kthread(w)->ThreadId;
		shadow_thread_join(w);
		assert_int_equal(count(&f.r, WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_EXCLUSIVE, 0), 0);
		assert_int_equal(count(&f.r, WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_SHARED, 0), 0);
		one(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, MAIN_TID);
		uint32_t action = exclusive ? WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE
					    : WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED;
		struct rec x = one(&f.r, action, wtid);
		assert_true(x.w.WaitTime >= ke_us_to_tsc(20000));
		assert_idle(&f.r);
		ex_delete_resource_lite(&f.r);
	}
}

/* ---------------------------------------------------------------- excessive waits, boosts */

static void plain_exclusive(void *arg)
{
	CHECK(ex_acquire_resource_exclusive_lite(&f.r, true));
	ex_release_resource_lite(&f.r);
}

static void test_excessive_waits_boost_owner(void **state)
{
	(void)state;
	int8_t dec;
	struct ex_resource_counts before, after;

	me = shadow_sync_adopt(MAIN_TID, 4, 0); /* a low owner */
	ex_resource_set_timeout(20);
	memset(&f, 0, sizeof(f));
	ex_initialize_resource_lite(&f.r);
	ex_resource_get_counts(&before);
	assert_true(ex_acquire_resource_exclusive_lite(&f.r, true));
	struct shadow_thread *w = shadow_thread_start(plain_exclusive, NULL, 10);
	uint32_t wtid = shadow_thread_kthread(w)->ThreadId;
	WAIT_UNTIL(ex_get_exclusive_waiter_count(&f.r) == 1);
	struct shadow_thread *s = shadow_thread_start(shared_waiter, NULL, 12);
	WAIT_UNTIL(ex_get_shared_waiter_count(&f.r) == 1);
	shadow_sleep_us(200000);
	assert_int_equal(priority_of(me, &dec), KE_RESOURCE_BOOST_PRIORITY);
	assert_int_equal(dec, KE_RESOURCE_BOOST_PRIORITY - 4);
	ex_release_resource_lite(&f.r);
	shadow_thread_join(w);
	shadow_thread_join(s);
	ex_resource_get_counts(&after);
	assert_true(after.OwnerBoosts > before.OwnerBoosts);

	struct rec x[64];
	size_t n = records(&f.r, WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_EXCLUSIVE, wtid, x, 64);
	assert_true(n >= 1 && n <= 64);
	for (size_t i = 0; i < n; i++) {
		/* one per slice: the i-th after at least i+1 slices */
		assert_true(x[i].w.WaitTime >= (i + 1) * ke_us_to_tsc(20000));
		assert_int_equal(x[i].w.AcquireTime, 0);
		assert_int_equal(x[i].w.ThreadId, wtid);
		assert_true(x[i].w.ContentionDelta <= 1); /* the sharer came after */
	}
	assert_true(count(&f.r, WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_SHARED, 0) >= 1);
	/* Every excessive wait was counted. */
	assert_int_equal(after.Events[ExResourceWaitExcessiveExclusive] - before.Events[ExResourceWaitExcessiveExclusive],
			 count(&f.r, WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_EXCLUSIVE, 0));
	/* The release that ended it: the shared waiters went first. */
	struct rec mine = one(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, MAIN_TID);
	assert_int_equal(mine.w.ContentionDelta, 2);
	assert_idle(&f.r);
	ex_delete_resource_lite(&f.r);
}

/* boost.c's rule, on threads in each state. */
static void test_boost_rule(void **state)
{
	(void)state;
	KTHREAD waiter = { .ThreadId = 900, .Priority = 10, .BasePriority = 10, .State = Running };
	KTHREAD owner = { .ThreadId = 904, .Priority = 5, .BasePriority = 4, .PriorityDecrement = 1, .State = Ready };
	uint32_t requeues = shadow_requeues;

	assert_true(ke_boost_owner_thread(&owner, &waiter));
	assert_int_equal(owner.Priority, 14);
	assert_int_equal(owner.PriorityDecrement, 10);
	assert_int_equal(shadow_requeues, requeues + 1); /* a Ready owner is queued again */
	assert_int_equal(shadow_requeue_increment, 9);
	assert_false(ke_boost_owner_thread(&owner, &waiter)); /* already 14 */

	owner = (KTHREAD){ .Priority = 6, .BasePriority = 6, .State = Waiting };
	waiter.Priority = 5; /* the owner is not below the waiter */
	assert_false(ke_boost_owner_thread(&owner, &waiter));
	waiter.Priority = 7;
	assert_true(ke_boost_owner_thread(&owner, &waiter)); /* to 14, above the waiter (as NT) */
	assert_int_equal(owner.Priority, 14);
	assert_int_equal(owner.PriorityDecrement, 8);
	assert_int_equal(shadow_requeues, requeues + 1);

	waiter.Priority = 20;
	owner = (KTHREAD){ .Priority = 16, .BasePriority = 16, .State = Running }; /* real-time */
	assert_false(ke_boost_owner_thread(&owner, &waiter));
	owner = (KTHREAD){ .Priority = 0, .BasePriority = 0, .State = Running }; /* priority 0 */
	assert_false(ke_boost_owner_thread(&owner, &waiter));
	owner = (KTHREAD){ .Priority = 3, .BasePriority = 3, .State = Terminated };
	assert_false(ke_boost_owner_thread(&owner, &waiter));
	assert_int_equal(ke_get_current_irql(), PASSIVE_LEVEL);
}

/* ---------------------------------------------------------------- owner table, reinitialise */

#define MANY 40

static void sharer_leaves_it(void *arg)
{
	CHECK(ex_acquire_resource_shared_lite(&f.r, true));
	__atomic_fetch_add(&f.inside, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&f.go, __ATOMIC_ACQUIRE))
		shadow_sleep_us(100);
	if (arg)
		ex_release_resource_lite(&f.r);
	else /* forgotten by the reinitialisation */
		CHECK(ex_is_resource_acquired_shared_lite(&f.r) == 0);
}

static void test_owner_table_grows(void **state)
{
	(void)state;
	struct shadow_thread *t[MANY];
	memset(&f, 0, sizeof(f));
	ex_initialize_resource_lite(&f.r);
	for (int i = 0; i < MANY; i++)
		t[i] = shadow_thread_start(sharer_leaves_it, &f, 9);
	WAIT_UNTIL(__atomic_load_n(&f.inside, __ATOMIC_SEQ_CST) == MANY);
	ERESOURCE s = snapshot(&f.r);
	assert_int_equal(s.ActiveCount, MANY);
	assert_int_equal(s.ActiveEntries, MANY);
	assert_true(s.OwnerTable && s.OwnerTable[0].TableSize >= MANY);
	__atomic_store_n(&f.go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < MANY; i++)
		shadow_thread_join(t[i]);
	assert_int_equal(count(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, 0), MANY);
	assert_idle(&f.r);
	ex_delete_resource_lite(&f.r);
}

static void test_reinitialize(void **state)
{
	(void)state;
	struct shadow_thread *t[6];
	memset(&f, 0, sizeof(f));
	ex_initialize_resource_lite(&f.r);
	for (int i = 0; i < 6; i++)
		t[i] = shadow_thread_start(sharer_leaves_it, NULL, 9);
	WAIT_UNTIL(__atomic_load_n(&f.inside, __ATOMIC_SEQ_CST) == 6);
	/* OwnerEntry + 3 entries of a first table of 4, then a table of 8 */
	assert_int_equal(snapshot(&f.r).OwnerTable[0].TableSize, 8);
	assert_int_equal(ex_reinitialize_resource_lite(&f.r), STATUS_SUCCESS);
	struct rec x = one(&f.r, WMI_RESOURCE_ACTION_REINITIALIZE, MAIN_TID);
	assert_int_equal(x.w.MaxRecursionDepth, 8);
	assert_int_equal(x.w.ContentionDelta, 6);
	assert_int_equal(x.w.AcquireTime | x.w.HoldTime | x.w.WaitTime, 0);
	assert_idle(&f.r);
	__atomic_store_n(&f.go, 1, __ATOMIC_RELEASE);
	KTHREAD *forgotten = shadow_thread_kthread(t[0]);
	assert_true(SHADOW_EXPECT_BUGCHECK(ex_release_resource_for_thread_lite(&f.r, forgotten)));
	assert_int_equal(shadow_last_bugcheck, RESOURCE_NOT_OWNED);
	for (int i = 0; i < 6; i++)
		shadow_thread_join(t[i]);
	assert_int_equal(count(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, 0), 0);

	/* As new; the table is kept. */
	assert_true(ex_acquire_resource_exclusive_lite(&f.r, false));
	ex_release_resource_lite(&f.r);
	assert_int_equal(count(&f.r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, MAIN_TID), 1);
	assert_int_equal(ex_reinitialize_resource_lite(&f.r), STATUS_SUCCESS);
	struct rec y[2];
	assert_int_equal(records(&f.r, WMI_RESOURCE_ACTION_REINITIALIZE, MAIN_TID, y, 2), 2);
	assert_int_equal(y[1].w.MaxRecursionDepth, 8);
	assert_int_equal(y[1].w.ContentionDelta, 0);

	/* Not while a thread waits. */
	assert_true(ex_acquire_resource_exclusive_lite(&f.r, true));
	struct shadow_thread *w = shadow_thread_start(plain_exclusive, NULL, 9);
	WAIT_UNTIL(ex_get_exclusive_waiter_count(&f.r) == 1);
	assert_true(SHADOW_EXPECT_BUGCHECK(ex_reinitialize_resource_lite(&f.r)));
	assert_int_equal(shadow_last_bugcheck, KPROF_ASSERTION_FAILED);
	ex_release_resource_lite(&f.r);
	shadow_thread_join(w);
	assert_idle(&f.r);
	ex_delete_resource_lite(&f.r);
}

/* ---------------------------------------------------------------- contention */

#define NRES 2
#define NWORKERS 6
#define ROUNDS 1000

static struct {
	ERESOURCE r[NRES];
	struct {
		uint64_t a, b;          /* a == b outside exclusive holds */
		int writer;             /* atomic: exclusive holder inside */
		int readers;            /* atomic: sharers inside          */
	} d[NRES];
	uint64_t holds_exclusive, holds_shared, timeouts; /* atomic */
} st;

static uint32_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (uint32_t)(*x >> 11);
}

static void spin_us(uint64_t us)
{
	uint64_t end = arch_rdtsc() + ke_us_to_tsc(us);
	while (arch_rdtsc() < end)
		arch_cpu_relax();
}

static void write_inside(int i, uint64_t *x)
{
	CHECK(__atomic_add_fetch(&st.d[i].writer, 1, __ATOMIC_SEQ_CST) == 1);
	CHECK(__atomic_load_n(&st.d[i].readers, __ATOMIC_SEQ_CST) == 0);
	st.d[i].a++;
	spin_us(rnd(x) % 100);
	st.d[i].b++;
	CHECK(__atomic_sub_fetch(&st.d[i].writer, 1, __ATOMIC_SEQ_CST) == 0);
}

static void read_inside(int i, uint64_t *x)
{
	__atomic_add_fetch(&st.d[i].readers, 1, __ATOMIC_SEQ_CST);
	CHECK(__atomic_load_n(&st.d[i].writer, __ATOMIC_SEQ_CST) == 0);
	uint64_t a = st.d[i].a;
	spin_us(rnd(x) % 100);
	CHECK(st.d[i].b == a && st.d[i].a == a);
	__atomic_sub_fetch(&st.d[i].readers, 1, __ATOMIC_SEQ_CST);
}

static void held(bool exclusive)
{
	__atomic_fetch_add(exclusive ? &st.holds_exclusive : &st.holds_shared, 1, __ATOMIC_RELAXED);
}

static void worker(void *arg)
{
	uint64_t x = 0x9E3779B97F4A7C15ull * ((uintptr_t)arg + 1);
	for (int round = 0; round < ROUNDS; round++) {
		int i = (int)(rnd(&x) % NRES);
		ERESOURCE *r = &st.r[i];
		uint32_t op = rnd(&x) % 9, depth = 1 + rnd(&x) % 3;
		switch (op) {
		case 0: case 1: /* exclusive, with recursion of both kinds */
			CHECK(ex_acquire_resource_exclusive_lite(r, true));
			for (uint32_t k = 1; k < depth; k++)
				CHECK(k % 2 ? ex_acquire_resource_shared_lite(r, true) : ex_acquire_resource_exclusive_lite(r, true));
			write_inside(i, &x);
			for (uint32_t k = 0; k < depth; k++)
				ex_release_resource_lite(r);
			held(true);
			break;
		case 2: case 3: /* shared, recursive */
			CHECK(ex_acquire_resource_shared_lite(r, true));
			for (uint32_t k = 1; k < depth; k++)
				CHECK(ex_acquire_resource_shared_lite(r, true));
			read_inside(i, &x);
			for (uint32_t k = 0; k < depth; k++)
				ex_release_resource_lite(r);
			held(false);
			break;
		case 4: /* starving the exclusive waiters */
			CHECK(ex_acquire_shared_starve_exclusive(r, true));
			read_inside(i, &x);
			ex_release_resource_lite(r);
			held(false);
			break;
		case 5:
			CHECK(ex_acquire_shared_wait_for_exclusive(r, true));
			read_inside(i, &x);
			ex_release_resource_lite(r);
			held(false);
			break;
		case 6: /* write, then read on with the others */
			CHECK(ex_acquire_resource_exclusive_lite(r, true));
			write_inside(i, &x);
			ex_convert_exclusive_to_shared_lite(r);
			read_inside(i, &x);
			ex_release_resource_lite(r);
			held(false);
			break;
		case 7: case 8: { /* short time-outs, both kinds */
			bool exclusive = op == 7;
			uint64_t us = 5 + rnd(&x) % 200;
			NTSTATUS s = exclusive ? ex_acquire_resource_exclusive_timeout(r, us)
					       : ex_acquire_resource_shared_timeout(r, us);
			if (s == STATUS_TIMEOUT) {
				__atomic_fetch_add(&st.timeouts, 1, __ATOMIC_RELAXED);
				CHECK(ex_is_resource_acquired_shared_lite(r) == 0);
				break;
			}
			CHECK(s == STATUS_SUCCESS);
			CHECK(ex_is_resource_acquired_exclusive_lite(r) == exclusive);
			if (exclusive)
				write_inside(i, &x);
			else
				read_inside(i, &x);
			ex_release_resource_lite(r);
			held(exclusive);
			break;
		}
		}
		/* Think: the host has fewer cores than there are workers, and a
		 * queued spin lock handed to a waiter the host is not running
		 * holds up everyone queued behind it. */
		shadow_sleep_us(20 + rnd(&x) % 200);
	}
}

/* In the records of r: no exclusive hold overlaps any other hold. */
static void check_exclusion_in_records(const ERESOURCE *r)
{
	size_t ne = count(r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, 0);
	size_t ns = count(r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, 0);
	struct rec *e = calloc(ne + 1, sizeof(*e)), *s = calloc(ns + 1, sizeof(*s));
	records(r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, 0, e, ne);
	records(r, WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, 0, s, ns);
	size_t overlaps = 0;
	for (size_t i = 0; i < ne; i++) {
		uint64_t a0 = e[i].w.AcquireTime, a1 = a0 + e[i].w.HoldTime;
		for (size_t j = 0; j < ne; j++) {
			uint64_t b0 = e[j].w.AcquireTime, b1 = b0 + e[j].w.HoldTime;
			overlaps += i != j && a0 < b1 && b0 < a1;
		}
		for (size_t j = 0; j < ns; j++) {
			uint64_t b0 = s[j].w.AcquireTime, b1 = b0 + s[j].w.HoldTime;
			overlaps += a0 < b1 && b0 < a1;
		}
	}
	free(e);
	free(s);
	assert_int_equal(overlaps, 0);
}

static void test_contention(void **state)
{
	(void)state;
	struct shadow_thread *t[NWORKERS];
	struct ex_resource_counts before, after;

	ex_resource_set_timeout(3); /* slices end often: records and boosts under load */
	memset(&st, 0, sizeof(st));
	for (int i = 0; i < NRES; i++)
		ex_initialize_resource_lite(&st.r[i]);
	ex_resource_get_counts(&before);
	for (int i = 0; i < NWORKERS; i++)
		t[i] = shadow_thread_start(worker, (void *)(uintptr_t)i, (int8_t)(4 + i % 8));
	for (int i = 0; i < NWORKERS; i++)
		shadow_thread_join(t[i]);
	ex_resource_get_counts(&after);

	size_t rel_ex = 0, rel_sh = 0, exc_ex = 0, exc_sh = 0;
	for (int i = 0; i < NRES; i++) {
		assert_idle(&st.r[i]);
		assert_int_equal(st.d[i].a, st.d[i].b);
		rel_ex += count(&st.r[i], WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, 0);
		rel_sh += count(&st.r[i], WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, 0);
		exc_ex += count(&st.r[i], WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_EXCLUSIVE, 0);
		exc_sh += count(&st.r[i], WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_SHARED, 0);
		check_exclusion_in_records(&st.r[i]);
	}
	/* One release record per hold, of the kind it ended as. */
	assert_int_equal(rel_ex, st.holds_exclusive);
	assert_int_equal(rel_sh, st.holds_shared);
	assert_int_equal(after.Events[ExResourceReleaseExclusive] - before.Events[ExResourceReleaseExclusive], rel_ex);
	assert_int_equal(after.Events[ExResourceReleaseShared] - before.Events[ExResourceReleaseShared], rel_sh);
	assert_int_equal(after.Events[ExResourceWaitExcessiveExclusive] - before.Events[ExResourceWaitExcessiveExclusive],
			 exc_ex);
	assert_int_equal(after.Events[ExResourceWaitExcessiveShared] - before.Events[ExResourceWaitExcessiveShared],
			 exc_sh);
	/* Every time-out wrote a record (and slices ended besides). */
	assert_true(exc_ex + exc_sh >= st.timeouts);
	print_message("contention: %llu exclusive and %llu shared holds, %llu time-outs, %zu excessive waits, "
		      "%llu owner boosts\n",
		      (unsigned long long)st.holds_exclusive, (unsigned long long)st.holds_shared,
		      (unsigned long long)st.timeouts, exc_ex + exc_sh,
		      (unsigned long long)(after.OwnerBoosts - before.OwnerBoosts));
	for (int i = 0; i < NRES; i++)
		ex_delete_resource_lite(&st.r[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_initialize_and_delete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exclusive_recursion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_recursion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bug_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exclusive_waiters_before_new_sharers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_exclusive_to_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_for_exclusive_and_release_for_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeouts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exclusive_timeout_lets_sharers_in, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handover_at_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_excessive_waits_boost_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boost_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owner_table_grows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reinitialize, setup, teardown),
		cmocka_unit_test_setup_teardown(test_contention, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
