/*
 * tsc_check.h - one CPU's TSC held against the reference clock (the TSC
 * watchdog's arithmetic, tsc_check.c; driven by watchdog.c on each CPU's
 * clock tick, and by the unit tests with a TSC model).
 *
 * Linux's clocksource watchdog is the model:
 * every WATCHDOG_INTERVAL (0.5 s) the TSC's advance is compared with the
 * reference's (the HPET or the ACPI PM timer) over the same interval; a
 * reference read that took longer than WATCHDOG_MAX_SKEW (125 us, as
 * Linux's default) is retried and the check skipped if it still does,
 * and the two may differ by the margin: Linux's two uncertainty margins
 * (each at least 2 x WATCHDOG_MAX_SKEW: 500 us together), plus here what
 * the calibration leaves uncertain (CLOCK_MEASURE_MAX_PPM of the
 * interval) and the two bracketing reads' own widths.  More than that is
 * an unstable TSC.
 */
#ifndef KPROF_KERNEL_TIMEKEEP_TSC_CHECK_H
#define KPROF_KERNEL_TIMEKEEP_TSC_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/ke/time/time.h"

#define TSC_WATCHDOG_INTERVAL_US 500000 /* Linux's WATCHDOG_INTERVAL        */
#define TSC_WATCHDOG_MAX_SKEW_US 125    /* Linux's WATCHDOG_MAX_SKEW         */
#define TSC_WATCHDOG_MARGIN_US   500    /* 2 x 2 x WATCHDOG_MAX_SKEW         */

/* One CPU's watchdog: its last sample, and the reference's time since
 * the first one, in TSC cycles at the boot rate (what this CPU's stamps
 * should read). */
struct tsc_watchdog {
	uint64_t tsc;          /* last sample: the bracket's midpoint          */
	uint64_t ref;          /* last sample: the reference count             */
	uint64_t gap;          /* last sample: its bracket, in TSC cycles      */
	uint64_t base;         /* where the reference time starts (cycles)     */
	uint64_t ref_counts;   /* reference counts since then                  */
	bool started;
};

struct tsc_check {
	bool skipped;          /* no verdict: a read too slow, or an interval  */
	                       /* the reference may have wrapped in            */
	bool unstable;         /* |tsc_ns - interval_ns| > margin_ns           */
	uint64_t interval_ns;  /* the reference's time since the last check    */
	int64_t tsc_ns;        /* the TSC's, at the boot rate                  */
	uint32_t margin_ns;
	int64_t adjust;        /* reference time - TSC now: what the CPU's     */
	                       /* stamps need added to follow the reference    */
};

/* Start (or restart) at sample s, whose TSC reads `base` in reference
 * time (the CPU's TSC plus any boot correction). */
void tsc_watchdog_start(struct tsc_watchdog *w, struct clock_sample s, uint64_t base);

/* The verdict on the interval from the last sample to s, against ref, at
 * the TSC rate tsc_hz; s becomes the last sample. */
struct tsc_check tsc_watchdog_check(struct tsc_watchdog *w, const struct refclock *ref, struct clock_sample s,
				    uint64_t tsc_hz);

#endif
