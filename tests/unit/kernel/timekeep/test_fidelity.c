/*
 * test_fidelity.c - what a run's figures are worth: the half-octave
 * lateness buckets (include/kprof/lateness.h) and each CPU's
 * KprofFidelity record (kernel/timekeep/fidelity.c).
 *
 * Fakes: ke_run_on_all_processors runs the function for each of two
 * played CPUs in turn on this thread, pointing the per-CPU block at that
 * CPU's KPRCB; trace_record_begin/commit capture the record;
 * ke_clock_arrivals_reset is the kernel's own rule (zero this CPU's
 * counts), and the test sets the counts a CPU's clock interrupts would
 * have left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "include/kprof/lateness.h"
#include "include/kprof/wmi.h"
#include "kernel/ke/time/clock.h"
#include "kernel/ke/prcb.h"
#include "kernel/timekeep/fidelity.h"
#include "kernel/trace/trace.h"
#include "tests/unit/shadow/shadow.h"

#define NCPU 2

PERFINFO_GROUPMASK trace_groups;
KPRCB *KiProcessorBlock[KPROF_MAX_CPUS];
volatile uint32_t ke_number_processors = NCPU;
extern bool shadow_tsc_invariant;

static KPRCB prcbs[NCPU];
static KPROF_FIDELITY written[NCPU];
static uint32_t nwritten, writing_cpu;
static int resets;

void ke_run_on_all_processors(void (*fn)(uint32_t cpu, void *ctx), void *ctx)
{
	void *self = arch_percpu_self();
	for (uint32_t c = 0; c < NCPU; c++) {
		arch_percpu_set(&prcbs[c]);
		writing_cpu = c;
		fn(c, ctx);
	}
	arch_percpu_set(self);
}

void ke_clock_arrivals_reset(void)
{
	KPRCB *p = ke_get_current_prcb();
	p->ClockArrivals = 0;
	p->ClockArrivalMax = 0;
	memset(p->ClockArrivalBuckets, 0, sizeof(p->ClockArrivalBuckets));
	resets++;
}

static KPROF_FIDELITY slot;

void *trace_record_begin(struct trace_record *rec, uint16_t hook, uint8_t version, uint16_t payload_size)
{
	(void)rec;
	assert_int_equal(hook, KPROF_LOG_TYPE_FIDELITY);
	assert_int_equal(version, FIDELITY_VERSION);
	assert_int_equal(payload_size, sizeof(KPROF_FIDELITY));
	memset(&slot, 0xAB, sizeof(slot)); /* every byte must be written */
	return &slot;
}

void trace_record_commit(struct trace_record *rec)
{
	(void)rec;
	written[writing_cpu] = slot;
	nwritten++;
}

/* Every value lies in [floor, ceiling) of its bucket, the buckets are in
 * order and each is at most 1.5 times its floor wide. */
static void test_buckets(void **state)
{
	(void)state;
	assert_int_equal(kprof_lateness_bucket(0), 0);
	assert_int_equal(kprof_lateness_bucket(63), 0);
	assert_int_equal(kprof_lateness_bucket(64), 1);
	assert_int_equal(kprof_lateness_bucket(95), 1);
	assert_int_equal(kprof_lateness_bucket(96), 2);
	assert_int_equal(kprof_lateness_bucket(128), 3);
	assert_int_equal(kprof_lateness_bucket(UINT64_MAX), KPROF_LATENESS_BUCKETS - 1);
	for (uint32_t b = 1; b < KPROF_LATENESS_BUCKETS; b++) {
		uint64_t lo = kprof_lateness_floor(b), hi = kprof_lateness_ceiling(b);
		assert_true(lo == kprof_lateness_ceiling(b - 1));
		assert_int_equal(kprof_lateness_bucket(lo), b);
		assert_int_equal(kprof_lateness_bucket(lo - 1), b - 1);
		if (b + 1 < KPROF_LATENESS_BUCKETS) {
			assert_int_equal(kprof_lateness_bucket(hi - 1), b);
			assert_true(hi - lo <= lo / 2 + 1 || b == 1);
		}
	}
	for (uint64_t v = 1; v < (1u << 20); v = v * 5 / 4 + 1) {
		uint32_t b = kprof_lateness_bucket(v);
		assert_true(kprof_lateness_floor(b) <= v && v < kprof_lateness_ceiling(b));
	}
}

/* Start: each CPU measures its stamp and its counts start from zero; stop:
 * each CPU's record carries its own counts, the round trip in CPU 0's
 * only, CPUID's invariance. */
static void test_records(void **state)
{
	(void)state;
	for (uint32_t c = 0; c < NCPU; c++) {
		prcbs[c].Number = c;
		KiProcessorBlock[c] = &prcbs[c];
		prcbs[c].ClockArrivals = 999; /* before the trace: not counted */
	}
	perfinfo_group_set(&trace_groups, PERF_KPROF_CLOCK);
	shadow_tsc_invariant = true;
	trace_fidelity_start(4107400);
	assert_int_equal(resets, NCPU);
	assert_non_null(strstr(shadow_console, "fidelity: a TSC read takes "));
	assert_non_null(strstr(shadow_console, "an empty interrupt round trip 4107400 cycles; TSC invariant"));
	for (uint32_t c = 0; c < NCPU; c++)
		assert_int_equal(prcbs[c].ClockArrivals, 0);
	/* what clock.c would have counted: cpu 0 three interrupts, cpu 1 one */
	prcbs[0].ClockArrivals = 3;
	prcbs[0].ClockArrivalBuckets[kprof_lateness_bucket(10)] = 2;
	prcbs[0].ClockArrivalBuckets[kprof_lateness_bucket(5000)] = 1;
	prcbs[0].ClockArrivalMax = 5000;
	prcbs[1].ClockArrivals = 1;
	prcbs[1].ClockArrivalBuckets[kprof_lateness_bucket(300000)] = 1;
	prcbs[1].ClockArrivalMax = 300000;
	trace_fidelity_stop();
	assert_int_equal(nwritten, NCPU);
	for (uint32_t c = 0; c < NCPU; c++) {
		const KPROF_FIDELITY *k = &written[c];
		uint64_t sum = 0;
		for (uint32_t b = 0; b < KPROF_LATENESS_BUCKETS; b++)
			sum += k->LateBuckets[b];
		assert_int_equal(sum, k->ClockInterrupts);
		assert_int_equal(k->ClockInterrupts, prcbs[c].ClockArrivals);
		assert_int_equal(k->LateMaxCycles, prcbs[c].ClockArrivalMax);
		assert_int_equal(k->Buckets, KPROF_LATENESS_BUCKETS);
		assert_int_equal(k->Flags, KPROF_FIDELITY_TSC_INVARIANT);
		assert_true(k->StampBestCycles <= k->StampCycles);
		assert_int_equal(k->RoundTripCycles, c == 0 ? 4107400 : 0);
	}
	assert_int_equal(written[0].LateBuckets[kprof_lateness_bucket(10)], 2);
	assert_int_equal(written[1].LateBuckets[kprof_lateness_bucket(300000)], 1);
}

/* A trace without the clock or thread groups (trace=tracetest alone)
 * gets no record: its records are counted one by one. */
static void test_groups_off(void **state)
{
	(void)state;
	memset(&trace_groups, 0, sizeof(trace_groups));
	nwritten = 0;
	trace_fidelity_stop();
	assert_int_equal(nwritten, 0);
	perfinfo_group_set(&trace_groups, PERF_KPROF_THREAD);
	shadow_tsc_invariant = false;
	trace_fidelity_start(0);
	trace_fidelity_stop();
	assert_int_equal(nwritten, NCPU);
	assert_int_equal(written[0].Flags, 0);
	assert_int_equal(written[0].RoundTripCycles, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_groups_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
