/*
 * lockstat.h - spin-lock instrumentation and sampling (WMI_SPINLOCK and
 * EVENT_TRACE_SPINLOCK_INFORMATION, docs/etw-records.md).
 *
 * With spin-lock tracing on (trace=spinlock, group PERF_SPINLOCK) every
 * acquisition takes three time stamps: when it first tries the lock, when
 * it has it (AcquireTime) and when it releases it (ReleaseTime); an
 * acquisition that gets the lock at its first test has waited for nothing,
 * and the first stamp is its AcquireTime too (WaitTimeInCycles 0); the
 * release's stamp is also its record's TimeStamp (trace_record_begin_
 * stamped), so an uncontended record costs two reads.  It counts
 * the extra tests of the lock while spinning (SpinCount) and notes the
 * CPU's InterruptCount at the first try.  The CPU keeps the locks it holds
 * on a stack of LOCKSTAT_DEPTH entries (AcquireDepth); an acquisition
 * deeper than that is not instrumented, only counted (Untracked).
 *
 * At release, just before the lock is released, the sampling decides
 * whether a WMI_SPINLOCK record is written (a few instructions on this
 * CPU's own data, so a hold not recorded copies nothing); the record is
 * written after the release (EVENT_TRACE_SPINLOCK_INFORMATION,
 * kernel/ex/sysinfo.h):
 *   - SpinCount >= SpinThreshold (contended): one in ContentionSampleRate;
 *   - otherwise (uncontended): one in AcquireSampleRate;
 *   - held for at least HoldThreshold cycles (when it is not 0): always.
 * "One in N" is a per-CPU pseudo-random draw with probability 1/N, so a
 * periodic workload cannot alias with it.
 *
 * With tracing off an acquisition takes no time stamp: the lock code
 * tests the group mask once on the way in, and the way out only looks at
 * the CPU's stack depth.
 *
 * Concurrency: the stack and counters are per CPU and touched only by
 * that CPU, at DISPATCH_LEVEL or above (holders of spin locks cannot be
 * preempted).  An interrupt handler may take and release locks in the
 * middle of a push or pop; a push reserves its slot before filling it, a
 * pop copies and closes the gap before it shrinks the stack, and the
 * handler's own entries are always above and gone by the time it returns.
 * Counters use CPU-local atomic adds.
 */
#ifndef KPROF_KERNEL_LOCKS_LOCKSTAT_H
#define KPROF_KERNEL_LOCKS_LOCKSTAT_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/cpu.h>

#include "include/kprof/wmi.h"
#include "kernel/ke/lockstat_cpu.h" /* LOCKSTAT_CPU, in every PRCB */
#include "kernel/locks/spinlock_params.h"
#include "kernel/trace/trace.h"

/* The sampling parameters (EVENT_TRACE_SPINLOCK_INFORMATION), their
 * minimums and spinlock_params_valid() are in spinlock_params.h. */

/* What is in force.  Written only through spinlock_params_set(). */
extern struct spinlock_params lockstat_params;

/* Check and apply (all or nothing): STATUS_INVALID_PARAMETER if any value
 * is below its minimum, the old values then stay. */
int32_t spinlock_params_set(const struct spinlock_params *p);

/* Is spin-lock tracing on?  (The only test on the untraced path.) */
static inline bool lockstat_on(void)
{
	return trace_enabled(PERF_SPINLOCK);
}

/* The stack calls (lockstat_try, lockstat_acquired, lockstat_abandon,
 * lockstat_find, lockstat_release_begin) are in lockstat_stack.h. */

/* At release (see lockstat_stack.h): the ReleaseTime, the sampling
 * decision and the entry taken off the stack, copied here when the hold is
 * to be recorded; after the lock is released (IRQL not yet restored),
 * lockstat_released() writes the record.  `caller` is the address the
 * release was made from. */
struct lockstat_release {
	struct lock_hold Hold;
	uint64_t ReleaseTsc;          /* = Stamp.tsc                              */
	struct trace_stamp Stamp;     /* the read, for the record's header too    */
	uint8_t Depth;                /* AcquireDepth                             */
};

void lockstat_released(const struct lockstat_release *r, const void *caller);

/* Totals over every online CPU. */
void lockstat_totals(struct lockstat_counts *sum);

#endif /* KPROF_KERNEL_LOCKS_LOCKSTAT_H */
