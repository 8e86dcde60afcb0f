/*
 * arch/barrier.h - memory ordering between CPUs, as generic code needs it
 * (after Linux's smp_rmb/smp_wmb/smp_mb).
 *
 *   arch_smp_wmb()  stores before it are seen by other CPUs before stores
 *                   after it (a producer publishing data, then a flag);
 *   arch_smp_rmb()  loads before it complete before loads after it (a
 *                   consumer reading a flag, then the data it guards);
 *   arch_smp_mb()   both, and stores before loads.
 *
 * x86-64 is TSO: stores are not reordered with stores, nor loads with
 * loads, so rmb and wmb only stop the compiler.  Only store->load
 * reordering is real, and arch_smp_mb() pays for it with a locked add on
 * the stack (cheaper than mfence, and ordering all ordinary accesses).
 * Generic code says what it needs; another architecture supplies fences.
 */
#ifndef KPROF_ARCH_BARRIER_H
#define KPROF_ARCH_BARRIER_H

static inline void arch_smp_wmb(void)
{
	__asm__ volatile("" ::: "memory");
}

static inline void arch_smp_rmb(void)
{
	__asm__ volatile("" ::: "memory");
}

static inline void arch_smp_mb(void)
{
	__asm__ volatile("lock addl $0, -4(%%rsp)" ::: "memory", "cc");
}

#endif /* KPROF_ARCH_BARRIER_H */
