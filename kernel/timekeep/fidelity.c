/*
 * fidelity.c - what the run's own figures are worth on this machine, one
 * KprofFidelity record per CPU at the end of the trace.
 *
 * A profiler's numbers are only as exact as the machine lets them be: a
 * time stamp costs a TSC read, a timed event comes when the clock
 * interrupt comes, and an interrupt costs a round trip (a VM exit under a
 * hypervisor).  The record carries what the kernel alone can measure:
 *   - the cost of a TSC read on this CPU (31 back-to-back reads at trace
 *     start: median and quickest);
 *   - the boot's empty interrupt round trip (the caller's measurement on
 *     the boot CPU, kernel/init/main.c), in CPU 0's record;
 *   - whether the TSC is invariant (CPUID);
 *   - the lateness of every clock interrupt this CPU took over the trace
 *     (counted by kernel/ke/time/clock.c in half-octave buckets, from zero at
 *     trace start), and the latest.
 * The host tool joins these with what the trace itself holds (skew, steps
 * back, the watchdog's verdict, stalls) into the report's fidelity
 * section (tools/kprof/fidelity/).
 *
 * Both broadcasts come from the boot thread (ke_run_on_all_processors);
 * each CPU writes only its own slot of `stamp` and its own KPRCB counts,
 * read back on the same CPU.
 */
#include "kernel/timekeep/fidelity.h"

#include <arch/cpu.h>

#include "include/kprof/wmi.h"
#include "kernel/console/console.h"
#include "kernel/sched/broadcast.h"
#include "kernel/ke/time/clock.h"
#include "kernel/ke/cpus.h"
#include "kernel/ke/prcb.h"
#include "kernel/trace/trace.h"

#define STAMP_READS 32 /* 31 differences */

static struct {
	uint32_t median, best;
} stamp[KPROF_MAX_CPUS];
static uint64_t round_trip;
static bool tsc_invariant;

/* Median and quickest of STAMP_READS - 1 back-to-back TSC reads, interrupts
 * off (an interrupt between two reads is not a read's cost). */
static void measure_stamp(uint32_t cpu)
{
	uint64_t t[STAMP_READS];
	uint32_t d[STAMP_READS - 1];
	unsigned long flags = arch_irq_save();

	for (uint32_t i = 0; i < STAMP_READS; i++)
		t[i] = arch_rdtsc();
	arch_irq_restore(flags);
	for (uint32_t i = 0; i + 1 < STAMP_READS; i++) {
		uint64_t x = t[i + 1] > t[i] ? t[i + 1] - t[i] : 0;
		d[i] = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
	}
	for (uint32_t i = 1; i < STAMP_READS - 1; i++) /* insertion sort: 31 values */
		for (uint32_t j = i; j > 0 && d[j - 1] > d[j]; j--) {
			uint32_t x = d[j];
			d[j] = d[j - 1];
			d[j - 1] = x;
		}
	stamp[cpu].median = d[(STAMP_READS - 1) / 2];
	stamp[cpu].best = d[0];
}

static void start_cpu(uint32_t cpu, void *ctx)
{
	(void)ctx;
	if (cpu >= KPROF_MAX_CPUS)
		return;
	measure_stamp(cpu);
	ke_clock_arrivals_reset();
}

static void write_record(uint32_t cpu, void *ctx)
{
	struct trace_record rec;
	KPROF_FIDELITY *k;

	(void)ctx;
	if (cpu >= KPROF_MAX_CPUS)
		return;
	k = trace_record_begin(&rec, KPROF_LOG_TYPE_FIDELITY, FIDELITY_VERSION, sizeof(*k));
	if (!k)
		return; /* no trace on this CPU, or dropped (counted) */
	KPRCB *prcb = ke_get_current_prcb();
	unsigned long flags = arch_irq_save(); /* the counts of one moment */
	*k = (KPROF_FIDELITY){
		.RoundTripCycles = cpu == 0 ? round_trip : 0,
		.ClockInterrupts = prcb->ClockArrivals,
		.LateMaxCycles = prcb->ClockArrivalMax,
		.StampCycles = stamp[cpu].median,
		.StampBestCycles = stamp[cpu].best,
		.Flags = tsc_invariant ? KPROF_FIDELITY_TSC_INVARIANT : 0,
		.Buckets = KPROF_LATENESS_BUCKETS,
	};
	for (uint32_t b = 0; b < KPROF_LATENESS_BUCKETS; b++)
		k->LateBuckets[b] = prcb->ClockArrivalBuckets[b];
	arch_irq_restore(flags);
	trace_record_commit(&rec);
}

void trace_fidelity_start(uint64_t round_trip_cycles)
{
	round_trip = round_trip_cycles;
	tsc_invariant = arch_tsc_invariant();
	ke_run_on_all_processors(start_cpu, NULL);
	kprintf("fidelity: a TSC read takes %u cycles (median of %u, quickest %u) on cpu 0; an empty interrupt round "
		"trip %llu cycles; TSC %sinvariant (CPUID)\n",
		stamp[0].median, STAMP_READS - 1, stamp[0].best, (unsigned long long)round_trip,
		tsc_invariant ? "" : "not ");
}

void trace_fidelity_stop(void)
{
	if (trace_enabled(PERF_KPROF_THREAD) || trace_enabled(PERF_KPROF_CLOCK))
		ke_run_on_all_processors(write_record, NULL);
}
