/*
 * trace_clock.h - the trace's clock for a time a record carries in its
 * own fields (a lock's AcquireTime and ReleaseTime, a resource's
 * AcquireTime): the TSC read plus this CPU's correction, as the writer
 * stamps a record's header (tracebuf.c, before its per-CPU clamp).
 *
 * Once the TSC watchdog corrects a CPU's stamps (a skew found at boot, a
 * TSC found unstable: kernel/timekeep/watchdog.c), a field left on the raw
 * TSC would no longer join the headers: a lock's acquisition would seem to
 * lie outside the phase that took it.  Durations (hold, wait) are
 * differences of two reads and need no correction.
 *
 * Any context; reads this CPU's trace state only.  Without a trace buffer
 * (before tracing starts, host tests without one) the TSC is returned.
 */
#ifndef KPROF_KERNEL_TRACE_TRACE_CLOCK_H
#define KPROF_KERNEL_TRACE_TRACE_CLOCK_H

#include <stdint.h>

#include "kernel/ke/prcb.h"
#include "kernel/lib/compiler.h"
#include "kernel/trace/tracebuf.h"

/* The correction this CPU's stamps give a TSC read taken at `tsc` (0 on a
 * machine whose TSCs agree and keep time, and without a trace buffer). */
static inline int64_t trace_clock_adjust(uint64_t tsc)
{
	const struct trace_cpu *tc = ke_get_current_prcb()->TraceCpu;

	return tc ? trace_clock_adjust_at(tc, tsc) : 0;
}

/* A TSC read, on the trace's clock, with the correction
 * trace_clock_adjust gives that read (each read its own: one correction
 * for two reads far apart moved the earlier one across another CPU's
 * records while the correction slewed). */
static inline uint64_t trace_clock_of(uint64_t tsc, int64_t adjust)
{
	return tsc + (uint64_t)adjust;
}

#endif /* KPROF_KERNEL_TRACE_TRACE_CLOCK_H */
