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

/* A TSC read taken on this CPU at `tsc`, on the trace's clock
 * (trace_clock_at; the TSC itself without a trace buffer).  Each read its
 * own correction: one correction for two reads far apart moved the
 * earlier one across another CPU's records while the correction slewed. */
static inline uint64_t trace_clock_read(uint64_t tsc)
{
	const struct trace_cpu *tc = ke_get_current_prcb()->TraceCpu;

	return tc ? trace_clock_at(tc, tsc) : tsc;
}

#endif /* KPROF_KERNEL_TRACE_TRACE_CLOCK_H */
