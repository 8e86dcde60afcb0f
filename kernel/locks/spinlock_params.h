/*
 * spinlock_params.h - the spin-lock sampling parameters
 * (EVENT_TRACE_SPINLOCK_INFORMATION, docs/etw-records.md) and the one rule
 * that says which values are accepted.
 *
 * Shared by NtSetSystemInformation (lockstat.c: spinlock_params_set) and
 * the command-line check (kernel/init/cmdline_rules.c), so the spinlock.*
 * keys are refused before anything runs by exactly the rule the call
 * would apply.  Pure: no kernel services, host tools include it too.
 */
#ifndef KPROF_KERNEL_LOCKS_SPINLOCK_PARAMS_H
#define KPROF_KERNEL_LOCKS_SPINLOCK_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

/* The minimums, which are also the defaults. */
#define SPINLOCK_MIN_SPIN_THRESHOLD         1u
#define SPINLOCK_MIN_ACQUIRE_SAMPLE_RATE    1000u
#define SPINLOCK_MIN_CONTENTION_SAMPLE_RATE 1u
#define SPINLOCK_MIN_HOLD_THRESHOLD         1000000u /* or 0: off */

struct spinlock_params {
	uint32_t SpinThreshold;        /* spins from which an acquisition is contended */
	uint32_t AcquireSampleRate;    /* one uncontended acquisition in N is traced  */
	uint32_t ContentionSampleRate; /* one contended acquisition in N is traced    */
	uint32_t HoldThreshold;        /* holds of at least N cycles always; 0: off    */
};

/* Each value at or above its minimum (HoldThreshold: or 0).  A set with
 * any value below is refused with STATUS_INVALID_PARAMETER. */
static inline bool spinlock_params_valid(const struct spinlock_params *p)
{
	return p->SpinThreshold >= SPINLOCK_MIN_SPIN_THRESHOLD &&
	       p->AcquireSampleRate >= SPINLOCK_MIN_ACQUIRE_SAMPLE_RATE &&
	       p->ContentionSampleRate >= SPINLOCK_MIN_CONTENTION_SAMPLE_RATE &&
	       (p->HoldThreshold == 0 || p->HoldThreshold >= SPINLOCK_MIN_HOLD_THRESHOLD);
}

#endif /* KPROF_KERNEL_LOCKS_SPINLOCK_PARAMS_H */
