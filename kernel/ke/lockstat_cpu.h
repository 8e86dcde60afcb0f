/*
 * lockstat_cpu.h - the spin-lock instrumentation's per-CPU state
 * (LOCKSTAT_CPU), a field of every PRCB (prcb.h).
 *
 * Only the type lives here, on the ground floor, so that the PRCB needs
 * nothing from kernel/locks/; what the fields mean, who writes them and
 * when is in kernel/locks/lockstat.h (written only by their own CPU, at
 * DISPATCH_LEVEL or above).
 */
#ifndef KPROF_KERNEL_KE_LOCKSTAT_CPU_H
#define KPROF_KERNEL_KE_LOCKSTAT_CPU_H

#include <stdint.h>

#define LOCKSTAT_DEPTH 8

/* One lock held by this CPU. */
struct lock_hold {
	const volatile void *Lock;
	uint64_t TryTsc;        /* first test of the lock; set only when */
	                        /* Spins != 0 (else it is AcquireTsc)    */
	uint64_t AcquireTsc;    /* AcquireTime                           */
	uint32_t Spins;         /* SpinCount                             */
	uint32_t Interrupts;    /* the CPU's InterruptCount at the try   */
	uint8_t Mode;           /* enum spinlock_acquire_mode            */
};

/* The counts, for the report and for checking the trace against
 * something that did not travel through it (lockstat_totals). */
struct lockstat_counts {
	uint64_t Instrumented;        /* acquisitions timed (tracing on)          */
	uint64_t Contended;           /* ... whose spins reached SpinThreshold    */
	uint64_t Uncontended;         /* ... the others                           */
	uint64_t LongHolds;           /* held >= HoldThreshold (when not 0)       */
	uint64_t UncontendedShort;    /* uncontended and not a long hold          */
	uint64_t Traced;              /* WMI_SPINLOCK records handed to the trace */
	uint64_t Untracked;           /* deeper than LOCKSTAT_DEPTH: not timed    */
};

/* What a CPU counts: one add for a timed acquisition that is neither
 * contended nor long (the common case), the totals' others derived:
 * Instrumented = Contended + Uncontended, UncontendedShort = Uncontended
 * - UncontendedLong. */
struct lockstat_cpu_counts {
	uint64_t Contended;
	uint64_t Uncontended;
	uint64_t LongHolds;
	uint64_t UncontendedLong;     /* uncontended and a long hold              */
	uint64_t Traced;
	uint64_t Untracked;
};

typedef struct lockstat_cpu {
	uint32_t Depth;               /* entries of Stack in use                  */
	uint32_t Reserved;
	uint64_t Rng;                 /* xorshift state for the sampling draws    */
	struct lockstat_cpu_counts Count;
	struct lock_hold Stack[LOCKSTAT_DEPTH];
} LOCKSTAT_CPU;

#endif /* KPROF_KERNEL_KE_LOCKSTAT_CPU_H */
