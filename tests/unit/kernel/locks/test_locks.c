/*
 * test_locks.c - the NT spin locks (kernel/locks/), their instrumentation
 * and sampling, and the NtQuery/NtSetSystemInformation calls that set it.
 *
 * pthreads stand in for CPUs, each with its own KPRCB and trace buffer;
 * the kernel's own lock code, trace writer and trace buffers are compiled
 * for the host.  Also built with ThreadSanitizer (UNIT_TSAN_NAMES), which
 * checks that each lock orders its holders' memory accesses.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arch/cpu.h>

#include "kernel/ex/sysinfo.h"
#include "kernel/lib/libk.h"
#include "kernel/locks/lockstat.h"
#include "kernel/locks/spinlock.h"
#include "kernel/ke/prcb.h"
#include "kernel/sched/sched.h"
#include "kernel/trace/trace.h"
#include "shadow.h"

#define NCPU 4
#define SUBBUF_SHIFT 16
/* 2 MiB a CPU: room for a record of every one of test_sampling's 20,000
 * acquisitions a CPU (72 bytes each), however many a loaded host makes
 * contended (with 16 sub-buffers, 1 MiB, a CPU whose acquisitions were
 * nearly all contended filled its ring, and the records dropped made the
 * contended count disagree with the records). */
#define NSUB 32

KPRCB *KiProcessorBlock[KPROF_MAX_CPUS];
volatile uint32_t ke_number_processors;

static KPRCB prcbs[NCPU];
static KTHREAD threads[NCPU];
static struct trace_cpu tcs[NCPU];
static struct trace_subbuf subs[NCPU][NSUB];
static uint8_t rings[NCPU][NSUB << SUBBUF_SHIFT];

void trace_subbuffer_filled(void)
{
}

/* The thread a CPU runs: one per test CPU. */
KTHREAD *ke_get_current_thread(void)
{
	return &threads[ke_get_current_prcb()->Number];
}

static void become_cpu(uint32_t n)
{
	arch_percpu_set(&prcbs[n]);
	arch_set_irql(PASSIVE_LEVEL);
}

static void tracing(bool on)
{
	memset(&trace_groups, 0, sizeof(trace_groups));
	if (on)
		perfinfo_group_set(&trace_groups, PERF_SPINLOCK);
}

static void set_params(uint32_t spin, uint32_t acquire, uint32_t contention, uint32_t hold)
{
	struct spinlock_params p = { spin, acquire, contention, hold };
	assert_int_equal(spinlock_params_set(&p), STATUS_SUCCESS);
}

static int setup(void **state)
{
	(void)state;
	memset(prcbs, 0, sizeof(prcbs));
	for (uint32_t i = 0; i < NCPU; i++) {
		prcbs[i].Self = &prcbs[i];
		prcbs[i].Number = i;
		threads[i].ThreadId = 100 + 4 * i;
		tracebuf_init(&tcs[i], i, rings[i], subs[i], SUBBUF_SHIFT, NSUB);
		prcbs[i].TraceCpu = &tcs[i];
		prcbs[i].CurrentThread = &threads[i];
		KiProcessorBlock[i] = &prcbs[i];
	}
	ke_number_processors = NCPU;
	tracing(false);
	set_params(1, 1000, 1, 1000000);
	become_cpu(0);
	return 0;
}

/* The SpinLock records CPU n wrote, in order (at most max). */
static size_t records_of(uint32_t n, WMI_SPINLOCK *out, size_t max)
{
	struct trace_cpu *tc = &tcs[n];
	size_t got = 0;
	for (uint64_t sb = 0; sb <= (tc->offset >> SUBBUF_SHIFT) && sb < NSUB; sb++) {
		const uint8_t *base = rings[n] + (sb << SUBBUF_SHIFT);
		uint32_t end = sb == (tc->offset >> SUBBUF_SHIFT) ? (uint32_t)(tc->offset & ((1u << SUBBUF_SHIFT) - 1))
								  : tc->sub[sb].used;
		for (uint32_t off = 0; off + sizeof(PERFINFO_TRACE_HEADER) <= end;) {
			const PERFINFO_TRACE_HEADER *h = (const void *)(base + off);
			if (h->Size < sizeof(*h))
				break;
			if (h->HookId == PERFINFO_LOG_TYPE_SPINLOCK && got < max)
				memcpy(&out[got], h + 1, sizeof(WMI_SPINLOCK));
			got += h->HookId == PERFINFO_LOG_TYPE_SPINLOCK;
			off += ALIGN_UP((uint32_t)h->Size, PERFINFO_RECORD_ALIGN);
		}
	}
	return got;
}

static void spin_cycles(uint64_t n)
{
	uint64_t end = arch_rdtsc() + n;
	while (arch_rdtsc() < end)
		arch_cpu_relax();
}

/* ---------------------------------------------------------------- mutual exclusion */

enum kind { ORDINARY, QUEUED, EXCLUSIVE };
static struct {
	KSPIN_LOCK lock;
	EX_SPIN_LOCK ex;
	uint64_t counter; /* plain: only the lock protects it */
	enum kind kind;
	int rounds;
	volatile int start;
} mx;

static void *mx_cpu(void *arg)
{
	uint32_t n = (uint32_t)(uintptr_t)arg;
	become_cpu(n);
	while (!__atomic_load_n(&mx.start, __ATOMIC_ACQUIRE))
		;
	for (int i = 0; i < mx.rounds; i++) {
		KIRQL old;
		KLOCK_QUEUE_HANDLE h;
		switch (mx.kind) {
		case ORDINARY:
			ke_acquire_spin_lock(&mx.lock, &old);
			mx.counter++;
			ke_release_spin_lock(&mx.lock, old);
			break;
		case QUEUED:
			ke_acquire_in_stack_queued_spin_lock(&mx.lock, &h);
			mx.counter++;
			ke_release_in_stack_queued_spin_lock(&h);
			break;
		case EXCLUSIVE:
			old = ex_acquire_spin_lock_exclusive(&mx.ex);
			mx.counter++;
			ex_release_spin_lock_exclusive(&mx.ex, old);
			break;
		}
		assert_int_equal(ke_get_current_irql(), PASSIVE_LEVEL);
	}
	return NULL;
}

static void run_mx(enum kind kind, bool traced)
{
	pthread_t t[NCPU];
	memset(&mx, 0, sizeof(mx));
	mx.kind = kind;
	mx.rounds = 20000;
	tracing(traced);
	for (uint32_t i = 0; i < NCPU; i++)
		pthread_create(&t[i], NULL, mx_cpu, (void *)(uintptr_t)i);
	__atomic_store_n(&mx.start, 1, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < NCPU; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(mx.counter, (uint64_t)NCPU * mx.rounds);
	assert_int_equal(mx.lock, 0);
	assert_int_equal(mx.ex, 0);
	for (uint32_t i = 0; i < NCPU; i++)
		assert_int_equal(prcbs[i].LockStat.Depth, 0);
}

static void test_mutual_exclusion(void **state)
{
	(void)state;
	for (int traced = 0; traced < 2; traced++) {
		run_mx(ORDINARY, traced);
		run_mx(QUEUED, traced);
		run_mx(EXCLUSIVE, traced);
	}
	struct lockstat_counts c;
	lockstat_totals(&c);
	assert_int_equal(c.Instrumented, 3ull * NCPU * 20000); /* only the traced rounds */
	assert_true(c.UncontendedShort <= c.Uncontended);       /* derived: never wraps */
}

/* ---------------------------------------------------------------- queued: FIFO hand-off */

static struct {
	KSPIN_LOCK lock;
	int order[NCPU];
	int next;
} fifo;

static void *fifo_cpu(void *arg)
{
	uint32_t n = (uint32_t)(uintptr_t)arg;
	KLOCK_QUEUE_HANDLE h;
	become_cpu(n);
	ke_acquire_in_stack_queued_spin_lock(&fifo.lock, &h);
	fifo.order[fifo.next++] = (int)n;
	ke_release_in_stack_queued_spin_lock(&h);
	return NULL;
}

static void test_queued_fifo_handoff(void **state)
{
	(void)state;
	pthread_t t[NCPU];
	KLOCK_QUEUE_HANDLE mine;
	memset(&fifo, 0, sizeof(fifo));
	ke_acquire_in_stack_queued_spin_lock(&fifo.lock, &mine);
	assert_ptr_equal((void *)fifo.lock, &mine.LockQueue);
	/* CPUs 1..3 queue up one after the other: each is the tail before the next starts. */
	for (uint32_t i = 1; i < NCPU; i++) {
		uintptr_t before = fifo.lock;
		pthread_create(&t[i], NULL, fifo_cpu, (void *)(uintptr_t)i);
		while (__atomic_load_n(&fifo.lock, __ATOMIC_ACQUIRE) == before)
			sched_yield();
	}
	fifo.order[fifo.next++] = 0;
	ke_release_in_stack_queued_spin_lock(&mine);
	for (uint32_t i = 1; i < NCPU; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NCPU; i++)
		assert_int_equal(fifo.order[i], i); /* served in arrival order */
	assert_int_equal(fifo.lock, 0);
}

/* ---------------------------------------------------------------- executive: shared/exclusive */

static struct {
	EX_SPIN_LOCK ex;
	volatile int exclusive_in;
	volatile int sharer_in;
} exs;

static void *ex_exclusive_cpu(void *arg)
{
	become_cpu(1);
	KIRQL old = ex_acquire_spin_lock_exclusive(&exs.ex);
	exs.exclusive_in = 1;
	ex_release_spin_lock_exclusive(&exs.ex, old);
	return NULL;
}

static void *ex_late_sharer_cpu(void *arg)
{
	become_cpu(2);
	KIRQL old = ex_acquire_spin_lock_shared(&exs.ex);
	exs.sharer_in = 1;
	ex_release_spin_lock_shared(&exs.ex, old);
	return NULL;
}

static void test_executive_rules(void **state)
{
	(void)state;
	memset(&exs, 0, sizeof(exs));
	/* Two sharers at once. */
	KIRQL a = ex_acquire_spin_lock_shared(&exs.ex);
	KIRQL b = ex_acquire_spin_lock_shared(&exs.ex); /* as if a second CPU */
	assert_int_equal(exs.ex, 2);
	/* Two sharers: no conversion. */
	assert_false(ex_try_convert_shared_spin_lock_exclusive(&exs.ex));
	/* An exclusive acquirer claims bit 31 and waits for the sharers. */
	pthread_t x, late;
	pthread_create(&x, NULL, ex_exclusive_cpu, NULL);
	while (!(__atomic_load_n(&exs.ex, __ATOMIC_ACQUIRE) & (int32_t)0x80000000))
		sched_yield();
	/* New sharers now wait behind it. */
	pthread_create(&late, NULL, ex_late_sharer_cpu, NULL);
	for (int i = 0; i < 1000; i++)
		sched_yield();
	assert_false(exs.exclusive_in);
	assert_false(exs.sharer_in);
	/* A sharer cannot convert while an exclusive acquirer waits. */
	ex_release_spin_lock_shared(&exs.ex, b);
	assert_false(ex_try_convert_shared_spin_lock_exclusive(&exs.ex));
	ex_release_spin_lock_shared(&exs.ex, a);
	pthread_join(x, NULL);
	pthread_join(late, NULL);
	assert_true(exs.exclusive_in);
	assert_true(exs.sharer_in);
	assert_int_equal(exs.ex, 0);

	/* The only sharer converts, and releases as exclusive. */
	a = ex_acquire_spin_lock_shared(&exs.ex);
	assert_true(ex_try_convert_shared_spin_lock_exclusive(&exs.ex));
	assert_int_equal(exs.ex, (int32_t)0x80000000);
	ex_release_spin_lock_exclusive(&exs.ex, a);
	assert_int_equal(exs.ex, 0);
	assert_int_equal(ke_get_current_irql(), PASSIVE_LEVEL);
}

static void test_try_acquire_and_irql(void **state)
{
	(void)state;
	KSPIN_LOCK l;
	ke_initialize_spin_lock(&l);
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	assert_true(ke_try_to_acquire_spin_lock_at_dpc_level(&l));
	assert_false(ke_try_to_acquire_spin_lock_at_dpc_level(&l));
	ke_release_spin_lock_from_dpc_level(&l);
	ke_lower_irql(old);
	/* The raising form raises to DISPATCH_LEVEL and restores. */
	ke_acquire_spin_lock(&l, &old);
	assert_int_equal(ke_get_current_irql(), DISPATCH_LEVEL);
	assert_int_equal(old, PASSIVE_LEVEL);
	ke_release_spin_lock(&l, old);
	assert_int_equal(ke_get_current_irql(), PASSIVE_LEVEL);
	/* Acquiring from above DISPATCH_LEVEL with the raising form is a bug check. */
	old = ke_raise_irql(CLOCK_LEVEL);
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_acquire_spin_lock(&l, &old)));
	arch_set_irql(PASSIVE_LEVEL);
}

/* ---------------------------------------------------------------- records */

static void test_untraced_takes_no_time_stamps(void **state)
{
	(void)state;
	KSPIN_LOCK l = 0;
	KIRQL old;
	ke_acquire_spin_lock(&l, &old);
	assert_int_equal(prcbs[0].LockStat.Depth, 0); /* nothing pushed, nothing timed */
	ke_release_spin_lock(&l, old);
	struct lockstat_counts c;
	lockstat_totals(&c);
	assert_int_equal(c.Instrumented, 0);
	WMI_SPINLOCK r;
	assert_int_equal(records_of(0, &r, 1), 0);
}

static void test_record_fields_and_depth(void **state)
{
	(void)state;
	KSPIN_LOCK locks[9] = { 0 };
	WMI_SPINLOCK r[16];
	tracing(true);
	/* Every acquisition here is traced: AcquireSampleRate cannot go below
	 * 1000, so each lock is held past HoldThreshold instead. */
	set_params(1, 1000, 1, 1000000);
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	for (int i = 0; i < 8; i++)
		ke_acquire_spin_lock_at_dpc_level(&locks[i]);
	ke_acquire_spin_lock_at_dpc_level(&locks[8]); /* ninth: not tracked */
	assert_int_equal(prcbs[0].LockStat.Depth, 8);
	prcbs[0].InterruptCount += 3;
	spin_cycles(1100000);
	uint64_t before_release = arch_rdtsc();
	for (int i = 9; i-- > 0;)
		ke_release_spin_lock_from_dpc_level(&locks[i]);
	ke_lower_irql(old);
	tracing(false);

	size_t n = records_of(0, r, 16);
	assert_int_equal(n, 8); /* every held lock crossed the threshold; the ninth was untracked */
	for (size_t i = 0; i < n; i++) {
		/* Released innermost first: depth 8 down to 1. */
		assert_int_equal(r[i].AcquireDepth, 8 - i);
		assert_int_equal(r[i].SpinLockAddress, (uint64_t)(uintptr_t)&locks[7 - i]);
		assert_true(r[i].AcquireTime <= r[i].ReleaseTime);
		assert_true(r[i].ReleaseTime - r[i].AcquireTime >= 1000000);
		assert_true(r[i].ReleaseTime >= before_release);
		assert_int_equal(r[i].SpinCount, 0);
		assert_int_equal(r[i].InterruptCount, 3);
		assert_int_equal(r[i].Irql, DISPATCH_LEVEL);
		assert_int_equal(r[i].Flags & SPINLOCK_ACQUIRE_MODE_MASK, SpinLockModeOrdinary);
		assert_int_equal(r[i].ThreadId, 100);
		/* The caller is this function. */
		assert_true(r[i].CallerAddress > (uint64_t)(uintptr_t)test_record_fields_and_depth);
		assert_true(r[i].CallerAddress < (uint64_t)(uintptr_t)test_record_fields_and_depth + 4096);
	}
	struct lockstat_counts c;
	lockstat_totals(&c);
	assert_int_equal(c.Untracked, 1);
	assert_int_equal(c.LongHolds, 8);
	assert_int_equal(c.Traced, 8);
	assert_int_equal(c.Instrumented, 8);     /* the ninth was not timed */
	assert_int_equal(c.Uncontended, 8);
	assert_int_equal(c.UncontendedShort, 0); /* every one a long hold */
	assert_int_equal(prcbs[0].LockStat.Depth, 0);
}

/* The record's own times are on the trace's clock, as its header is: with
 * a correction set (the TSC watchdog's, a skew found at boot), AcquireTime
 * and ReleaseTime carry it, so a lock's acquisition lies between the
 * stamps of the records around it (a phase's begin and end). */
static void test_times_join_the_header(void **state)
{
	(void)state;
	KSPIN_LOCK lock = 0;
	WMI_SPINLOCK r[1];
	const int64_t adjust = -50000000; /* the stamps follow a clock 50M cycles behind the TSC */
	tracing(true);
	set_params(1, 1000, 1, 1000000);
	tracebuf_set_adjust(&tcs[0], adjust);
	uint64_t before = arch_rdtsc() + (uint64_t)adjust;
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	ke_acquire_spin_lock_at_dpc_level(&lock);
	spin_cycles(1100000); /* past HoldThreshold: traced */
	ke_release_spin_lock_from_dpc_level(&lock);
	ke_lower_irql(old);
	uint64_t after = arch_rdtsc() + (uint64_t)adjust;
	tracing(false);

	assert_int_equal(records_of(0, r, 1), 1);
	assert_true(before <= r[0].AcquireTime);
	assert_true(r[0].AcquireTime + 1000000 <= r[0].ReleaseTime);
	assert_true(r[0].ReleaseTime <= after);
	const PERFINFO_TRACE_HEADER *h = (const void *)rings[0];
	assert_int_equal(h->HookId, PERFINFO_LOG_TYPE_SPINLOCK);
	assert_true(r[0].ReleaseTime <= h->TimeStamp); /* stamped after the release, on the same clock */
	assert_true(h->TimeStamp <= after);
}

/* CPU 0's one record: a hold in `mode` that waited (SpinCount > 0, a
 * wait) and began no earlier than `released`, another CPU's release of
 * the lock; and one contended acquisition counted. */
static void assert_waited_after(uint8_t mode, uint64_t released)
{
	WMI_SPINLOCK r[1];
	assert_int_equal(records_of(0, r, 1), 1);
	assert_int_equal(r[0].Flags & SPINLOCK_ACQUIRE_MODE_MASK, mode);
	assert_true(r[0].SpinCount >= 1);
	assert_true(r[0].AcquireTime >= released); /* no correction set: the trace's clock is the TSC */
	assert_true(r[0].WaitTimeInCycles > 0);
	struct lockstat_counts c;
	lockstat_totals(&c);
	assert_int_equal(c.Contended, 1);
}

/* The seam in lockstat_tested (KPROF_LOCKSTAT_TEST_SEAM): the one sharer
 * of seam.lock, on another CPU, leaves right after an exclusive claim's
 * clock read, before the claimer's first look at the sharers: its
 * ReleaseTime read, then its release. */
static struct {
	EX_SPIN_LOCK *lock;
	uint64_t released;
	int fired;
} seam;

void lockstat_test_after_first_test(const struct lock_hold *h)
{
	if (!seam.lock || h->Lock != seam.lock || !(*seam.lock & (int32_t)0x80000000))
		return;
	seam.released = arch_rdtsc();
	__atomic_fetch_sub(seam.lock, 1, __ATOMIC_RELEASE);
	seam.lock = NULL;
	seam.fired++;
}

/* An exclusive acquirer whose claim found a sharer waited for it, however
 * soon it left: SpinCount > 0, and AcquireTime after the sharer's
 * ReleaseTime.  Before, a sharer gone by the first look left 0 spins and
 * the hold stamped from the claim, over the sharer's (CI's locks-4: an
 * exclusive hold of ex0 overlapping a shared one). */
static void test_exclusive_claim_waits_for_the_sharer(void **state)
{
	(void)state;
	EX_SPIN_LOCK ex = 1; /* one sharer, on another CPU */
	tracing(true);
	set_params(1, 1000, 1, 1000000);
	seam = (__typeof__(seam)){ .lock = &ex };
	KIRQL old = ex_acquire_spin_lock_exclusive(&ex);
	assert_int_equal(seam.fired, 1);
	assert_int_equal(ex, (int32_t)0x80000000);
	spin_cycles(1100000); /* past HoldThreshold: traced whatever its spins */
	ex_release_spin_lock_exclusive(&ex, old);
	tracing(false);

	assert_waited_after(SpinLockModeExecutiveExclusive, seam.released);

	/* A claim that found no sharer took the lock at its first test. */
	tracing(true);
	ex = 0;
	old = ex_acquire_spin_lock_exclusive(&ex);
	spin_cycles(1100000);
	ex_release_spin_lock_exclusive(&ex, old);
	tracing(false);
	WMI_SPINLOCK two[2];
	assert_int_equal(records_of(0, two, 2), 2);
	assert_int_equal(two[1].SpinCount, 0);
	assert_int_equal(two[1].WaitTimeInCycles, 0);
}

/* The seam after a queued waiter's link (queuedlock.c's wait_behind): its
 * predecessor, on another CPU, releases at once: its ReleaseTime read,
 * then the hand-over, before the waiter's first look at its wait bit. */
static struct {
	KSPIN_LOCK_QUEUE *pred;
	uint64_t released;
	int fired;
} link_seam;

void lockstat_test_after_link(const void *me, const void *pred)
{
	if (!link_seam.pred || pred != link_seam.pred)
		return;
	assert_ptr_equal(link_seam.pred->Next, me);
	link_seam.released = arch_rdtsc();
	ki_queued_handoff(link_seam.pred);
	link_seam.pred = NULL;
	link_seam.fired++;
}

/* A queued waiter behind a predecessor that handed over before the
 * waiter's first look waited all the same: SpinCount > 0, and AcquireTime
 * after the predecessor's ReleaseTime.  Before 2026-11-29 the look that
 * found the lock handed over was not counted: 0 spins, and the hold
 * stamped from the swap, over the predecessor's (locks-4 beside a hog:
 * two holds of one queued lock overlapping by 910 us). */
static void test_queued_waiter_handed_over_before_its_first_look(void **state)
{
	(void)state;
	KSPIN_LOCK lock = 0;
	KSPIN_LOCK_QUEUE other = { .Next = NULL, .Lock = (uintptr_t)&lock }; /* held on another CPU */
	KLOCK_QUEUE_HANDLE mine;
	lock = (uintptr_t)&other;
	tracing(true);
	set_params(1, 1000, 1, 1000000);
	link_seam = (__typeof__(link_seam)){ .pred = &other };
	ke_acquire_in_stack_queued_spin_lock(&lock, &mine);
	assert_int_equal(link_seam.fired, 1);
	assert_ptr_equal((void *)lock, &mine.LockQueue);
	spin_cycles(1100000); /* past HoldThreshold: traced whatever its spins */
	ke_release_in_stack_queued_spin_lock(&mine);
	tracing(false);
	assert_int_equal(lock, 0);

	assert_waited_after(SpinLockModeQueued, link_seam.released);
}

static void test_modes_dpc_and_out_of_order(void **state)
{
	(void)state;
	KSPIN_LOCK a = 0, q = 0;
	EX_SPIN_LOCK e = 0, f = 0;
	KLOCK_QUEUE_HANDLE h;
	WMI_SPINLOCK r[8];
	tracing(true);
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	prcbs[0].DpcRoutineActive = 1; /* as in a DPC */
	ke_acquire_spin_lock_at_dpc_level(&a);
	ke_acquire_in_stack_queued_spin_lock_at_dpc_level(&q, &h);
	ex_acquire_spin_lock_shared_at_dpc_level(&e);
	ex_acquire_spin_lock_shared_at_dpc_level(&f);
	assert_true(ex_try_convert_shared_spin_lock_exclusive(&f));
	spin_cycles(1100000); /* all long holds: all traced */
	ke_release_spin_lock_from_dpc_level(&a); /* out of order: the bottom one first */
	assert_int_equal(prcbs[0].LockStat.Depth, 3);
	ex_release_spin_lock_exclusive_from_dpc_level(&f);
	ke_release_in_stack_queued_spin_lock_from_dpc_level(&h);
	ex_release_spin_lock_shared_from_dpc_level(&e);
	prcbs[0].DpcRoutineActive = 0;
	ke_lower_irql(old);
	tracing(false);

	assert_int_equal(records_of(0, r, 8), 4);
	assert_int_equal(r[0].SpinLockAddress, (uint64_t)(uintptr_t)&a);
	assert_int_equal(r[0].AcquireDepth, 4);
	assert_int_equal(r[0].Flags & SPINLOCK_ACQUIRE_MODE_MASK, SpinLockModeOrdinary);
	assert_int_equal(r[1].SpinLockAddress, (uint64_t)(uintptr_t)&f);
	assert_int_equal(r[1].AcquireDepth, 3);
	assert_int_equal(r[1].Flags & SPINLOCK_ACQUIRE_MODE_MASK, SpinLockModeExecutiveConverted);
	assert_int_equal(r[2].Flags & SPINLOCK_ACQUIRE_MODE_MASK, SpinLockModeQueued);
	assert_int_equal(r[2].AcquireDepth, 2);
	assert_int_equal(r[3].Flags & SPINLOCK_ACQUIRE_MODE_MASK, SpinLockModeExecutiveShared);
	assert_int_equal(r[3].AcquireDepth, 1);
	for (int i = 0; i < 4; i++) {
		assert_true(r[i].Flags & SPINLOCK_FLAG_EXECUTE_DPC);
		assert_false(r[i].Flags & SPINLOCK_FLAG_EXECUTE_ISR);
	}
}

/* ---------------------------------------------------------------- sampling */

static struct {
	KSPIN_LOCK lock;
	volatile int start;
	int rounds;
} ct;

static void *contend_cpu(void *arg)
{
	uint32_t n = (uint32_t)(uintptr_t)arg;
	become_cpu(n);
	while (!__atomic_load_n(&ct.start, __ATOMIC_ACQUIRE))
		;
	for (int i = 0; i < ct.rounds; i++) {
		KIRQL old;
		ke_acquire_spin_lock(&ct.lock, &old);
		spin_cycles(200);
		ke_release_spin_lock(&ct.lock, old);
	}
	return NULL;
}

static void test_sampling(void **state)
{
	(void)state;
	pthread_t t[NCPU];
	memset(&ct, 0, sizeof(ct));
	ct.rounds = 20000;
	tracing(true);
	set_params(1, 1000, 1, 0); /* no long-hold tracing */
	for (uint32_t i = 0; i < NCPU; i++)
		pthread_create(&t[i], NULL, contend_cpu, (void *)(uintptr_t)i);
	__atomic_store_n(&ct.start, 1, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < NCPU; i++)
		pthread_join(t[i], NULL);
	tracing(false);

	static WMI_SPINLOCK r[NCPU][NCPU * 20000];
	uint64_t contended_records = 0, uncontended_records = 0, n_records = 0;
	for (uint32_t i = 0; i < NCPU; i++) {
		size_t n = records_of(i, r[i], NCPU * 20000);
		n_records += n;
		for (size_t k = 0; k < n; k++) {
			if (r[i][k].SpinCount >= 1) {
				contended_records++;
				assert_true(r[i][k].WaitTimeInCycles > 0);
			} else {
				uncontended_records++;
			}
		}
	}
	struct lockstat_counts c;
	lockstat_totals(&c);
	assert_int_equal(c.Instrumented, NCPU * 20000);
	/* The rings held every record (the counts below assume it). */
	for (uint32_t i = 0; i < NCPU; i++)
		for (int k = 0; k < KPROF_LOSS_CAUSES; k++)
			assert_int_equal(tcs[i].lost[k], 0);
	/* Every contended acquisition is traced (ContentionSampleRate 1). */
	assert_int_equal(contended_records, c.Contended);
	assert_int_equal(n_records, c.Traced);
	/* One in 1000 of the others, within 6 standard deviations. */
	double mean = c.Uncontended / 1000.0, sd = __builtin_sqrt(mean * 0.999);
	assert_true(uncontended_records >= mean - 6 * sd - 1 && uncontended_records <= mean + 6 * sd + 1);

	/* A higher spin threshold: the short spins count as uncontended. */
	setup(NULL);
	memset(&ct, 0, sizeof(ct));
	ct.rounds = 5000;
	tracing(true);
	set_params(1000000, 1000, 1, 0);
	for (uint32_t i = 0; i < NCPU; i++)
		pthread_create(&t[i], NULL, contend_cpu, (void *)(uintptr_t)i);
	__atomic_store_n(&ct.start, 1, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < NCPU; i++)
		pthread_join(t[i], NULL);
	tracing(false);
	lockstat_totals(&c);
	assert_true(c.Contended <= c.Instrumented / 100);
}

/* ---------------------------------------------------------------- the parameters */

static void test_parameters(void **state)
{
	(void)state;
	EVENT_TRACE_SPINLOCK_INFORMATION q = { .EventTraceInformationClass = EventTraceSpinlockInformation };
	uint32_t len = 0;
	assert_int_equal(nt_query_system_information(SystemPerformanceTraceInformation, &q, sizeof(q), &len),
			 STATUS_SUCCESS);
	assert_int_equal(len, 0x14);
	assert_int_equal(q.SpinLockSpinThreshold, 1);
	assert_int_equal(q.SpinLockAcquireSampleRate, 1000);
	assert_int_equal(q.SpinLockContentionSampleRate, 1);
	assert_int_equal(q.SpinLockHoldThreshold, 1000000);

	EVENT_TRACE_SPINLOCK_INFORMATION v = q;
	v.SpinLockSpinThreshold = 50;
	v.SpinLockAcquireSampleRate = 999; /* one bad value: nothing changes */
	assert_int_equal(nt_set_system_information(SystemPerformanceTraceInformation, &v, sizeof(v)),
			 STATUS_INVALID_PARAMETER);
	assert_int_equal(lockstat_params.SpinThreshold, 1);
	v = q;
	v.SpinLockHoldThreshold = 999999;
	assert_int_equal(nt_set_system_information(SystemPerformanceTraceInformation, &v, sizeof(v)),
			 STATUS_INVALID_PARAMETER);
	v.SpinLockHoldThreshold = 0; /* off is allowed */
	v.SpinLockContentionSampleRate = 0;
	assert_int_equal(nt_set_system_information(SystemPerformanceTraceInformation, &v, sizeof(v)),
			 STATUS_INVALID_PARAMETER);
	v.SpinLockContentionSampleRate = 7;
	v.SpinLockSpinThreshold = 40;
	v.SpinLockAcquireSampleRate = 5000;
	assert_int_equal(nt_set_system_information(SystemPerformanceTraceInformation, &v, sizeof(v)), STATUS_SUCCESS);
	assert_int_equal(lockstat_params.HoldThreshold, 0);
	assert_int_equal(lockstat_params.ContentionSampleRate, 7);

	/* Version 1 (0x10 bytes) leaves the hold threshold alone. */
	set_params(1, 1000, 1, 2000000);
	v.SpinLockHoldThreshold = 0;
	assert_int_equal(nt_set_system_information(SystemPerformanceTraceInformation, &v, 0x10), STATUS_SUCCESS);
	assert_int_equal(lockstat_params.HoldThreshold, 2000000);
	assert_int_equal(lockstat_params.SpinThreshold, 40);
	EVENT_TRACE_SPINLOCK_INFORMATION q1;
	memset(&q1, 0xAB, sizeof(q1));
	q1.EventTraceInformationClass = EventTraceSpinlockInformation;
	assert_int_equal(nt_query_system_information(SystemPerformanceTraceInformation, &q1, 0x10, &len), STATUS_SUCCESS);
	assert_int_equal(len, 0x10);
	assert_int_equal(q1.SpinLockHoldThreshold, 0xABABABAB); /* not written */

	/* Wrong class, event-trace class, length, buffer. */
	assert_int_equal(nt_set_system_information(0x20, &v, sizeof(v)), STATUS_INVALID_INFO_CLASS);
	v.EventTraceInformationClass = 4;
	assert_int_equal(nt_set_system_information(SystemPerformanceTraceInformation, &v, sizeof(v)),
			 STATUS_INVALID_INFO_CLASS);
	v.EventTraceInformationClass = EventTraceSpinlockInformation;
	assert_int_equal(nt_set_system_information(SystemPerformanceTraceInformation, &v, 0x18),
			 STATUS_INFO_LENGTH_MISMATCH);
	assert_int_equal(nt_set_system_information(SystemPerformanceTraceInformation, &v, 2),
			 STATUS_INFO_LENGTH_MISMATCH);
	assert_int_equal(nt_set_system_information(SystemPerformanceTraceInformation, NULL, sizeof(v)),
			 STATUS_INVALID_PARAMETER);
	assert_int_equal(nt_query_system_information(SystemPerformanceTraceInformation, &q, 0x11, &len),
			 STATUS_INFO_LENGTH_MISMATCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_mutual_exclusion, setup),
		cmocka_unit_test_setup(test_queued_fifo_handoff, setup),
		cmocka_unit_test_setup(test_executive_rules, setup),
		cmocka_unit_test_setup(test_try_acquire_and_irql, setup),
		cmocka_unit_test_setup(test_untraced_takes_no_time_stamps, setup),
		cmocka_unit_test_setup(test_record_fields_and_depth, setup),
		cmocka_unit_test_setup(test_times_join_the_header, setup),
		cmocka_unit_test_setup(test_exclusive_claim_waits_for_the_sharer, setup),
		cmocka_unit_test_setup(test_queued_waiter_handed_over_before_its_first_look, setup),
		cmocka_unit_test_setup(test_modes_dpc_and_out_of_order, setup),
		cmocka_unit_test_setup(test_sampling, setup),
		cmocka_unit_test_setup(test_parameters, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
