/*
 * time.h - the kernel's clocks: the TSC as the time base, reference clocks
 * to measure it against, and conversions.
 *
 * Every time stamp in kprof is a TSC value (the trace header's TimeStamp,
 * the spin-lock record's AcquireTime, timer deadlines).  The TSC rate comes
 * from CPUID where the CPU states it, otherwise it is measured against a
 * reference clock (HPET, else the ACPI PM timer) at boot.
 */
#ifndef KPROF_KERNEL_TIME_H
#define KPROF_KERNEL_TIME_H

#include <stdbool.h>
#include <stdint.h>

/* A free-running counter of known rate that wraps at mask + 1. */
struct refclock {
	const char *name;        /* "HPET", "ACPI PM timer"       */
	uint64_t hz;             /* counts per second             */
	uint64_t mask;           /* counter width                 */
	uint64_t (*read)(void);  /* current count                 */
};

struct clock_sample {
	uint64_t tsc;            /* midpoint of the bracketing TSC reads */
	uint64_t ref;            /* the reference count between them     */
	uint64_t gap;            /* TSC counts between the bracketing reads */
};

/* Read ref bracketed by two TSC reads, retrying until the bracket is at
 * most max_gap cycles wide (best of `tries` otherwise). */
struct clock_sample clock_sample(const struct refclock *ref, uint64_t (*tsc)(void), uint64_t max_gap, int tries);

/* Rate of the TSC (counts/s) measured against ref over about window_us,
 * or longer: while the brackets' widths (what a read of ref that waited,
 * e.g. on a host lock, leaves uncertain) exceed CLOCK_MEASURE_MAX_PPM of
 * the window, the window is doubled, up to 16 times window_us; 0 if ref
 * never advanced. */
#define CLOCK_MEASURE_MAX_PPM 500
uint64_t clock_measure_tsc(const struct refclock *ref, uint64_t (*tsc)(void), uint64_t window_us);

/* Signed difference of two rates in parts per million of `expected`. */
int64_t clock_error_ppm(uint64_t measured, uint64_t expected);

/* The reference clock the arch time code measured the TSC against (the
 * HPET, else the ACPI PM timer), NULL if none; and its wire number
 * (KPROF_REFCLOCK_*). */
const struct refclock *arch_time_reference(void);
uint32_t arch_time_reference_kind(void);

/* The TSC rate in force (set once at boot by the arch time code). */
extern uint64_t ke_tsc_hz;

static inline uint64_t ke_tsc_to_us(uint64_t cycles);
uint64_t ke_us_to_tsc(uint64_t us);
uint64_t ke_ns_to_tsc(uint64_t ns);
/* Busy-wait (KeStallExecutionProcessor). */
void ke_stall_execution_processor(uint64_t us);

#include "kernel/lib/muldiv.h"

static inline uint64_t ke_tsc_to_us(uint64_t cycles)
{
	return mul_div_u64(cycles, 1000000, ke_tsc_hz);
}

#endif /* KPROF_KERNEL_TIME_H */
