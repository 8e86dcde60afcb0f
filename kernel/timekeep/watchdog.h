/*
 * watchdog.h - the TSC watchdog while tracing (watchdog.c) and the TSC's
 * skew between CPUs at boot (skew.c).
 */
#ifndef KPROF_KERNEL_TIMEKEEP_WATCHDOG_H
#define KPROF_KERNEL_TIMEKEEP_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

struct kprcb;

/* At trace start, after the buffers exist: measure what a reference read
 * costs, say so, apply the boot skew's corrections and start checking. */
void tsc_watchdog_start_all(void);
/* Each CPU's clock tick: a check when one is due (every 500 ms, or at
 * once after a step back on this CPU). */
void tsc_watchdog_tick(struct kprcb *prcb);
/* At trace end: the verdict and the steps back, on the console. */
void tsc_watchdog_report(void);
/* The run header's time fields (skew, reference, watchdog). */
struct kprof_run_header;
void tsc_watchdog_header(struct kprof_run_header *h);
/* Whether a check found the TSC unstable. */
bool tsc_watchdog_unstable(void);

/* Boot, once every CPU is online (the boot thread, PASSIVE_LEVEL): each
 * CPU's TSC offset from CPU 0's by ping-pong, and a console line. */
void tsc_skew_measure(void);
/* CPU cpu's measured offset from CPU 0 (cycles) when it lies beyond the
 * measurement's uncertainty, else 0: what its stamps are corrected by. */
int64_t tsc_skew_correction(uint32_t cpu);
/* The largest |offset| measured (ns), its uncertainty, its CPU, how many
 * CPUs were measured and whether one moved while measured. */
struct tsc_skew_summary {
	int64_t skew_ns;
	uint64_t error_ns;
	uint32_t cpu, measured;
	bool moved;
};
struct tsc_skew_summary tsc_skew_summary(void);

#endif
