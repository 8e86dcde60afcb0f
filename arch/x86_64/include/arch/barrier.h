/*
 * arch/barrier.h - memory ordering, as generic code needs it: between CPUs
 * (after Linux's smp_rmb/smp_wmb/smp_mb) and between a CPU and a device
 * that reads and writes memory itself (after Linux's dma_wmb/dma_rmb).
 *
 *   arch_smp_wmb()  stores before it are seen by other CPUs before stores
 *                   after it (a producer publishing data, then a flag);
 *   arch_smp_rmb()  loads before it complete before loads after it (a
 *                   consumer reading a flag, then the data it guards);
 *   arch_smp_mb()   both, and stores before loads.
 *
 *   arch_dma_wmb()  stores to memory a device reads (coherent DMA memory:
 *                   rings, contexts, buffers) reach the device before
 *                   stores after it, to such memory or to the device's
 *                   registers: a descriptor's fields before the bit that
 *                   gives it to the device, the descriptors before the
 *                   doorbell;
 *   arch_dma_rmb()  loads from memory a device writes complete before
 *                   loads after it: the bit that says the device is done
 *                   with a descriptor before the descriptor's other fields.
 *
 * The two families promise different things: the smp_ ones order only
 * what other CPUs see and say nothing about a device (a weakly ordered
 * CPU may need a stronger fence for DMA, or for a store to an uncached
 * register after stores to memory); a driver that hands memory to a
 * device uses the dma_ ones.
 *
 * x86-64 is TSO: stores are not reordered with stores, nor loads with
 * loads, so rmb and wmb only stop the compiler.  Only store->load
 * reordering is real, and arch_smp_mb() pays for it with a locked add on
 * the stack (cheaper than mfence, and ordering all ordinary accesses).
 * DMA is cache coherent here and the same store order holds for the
 * device, an uncached register store included (it is not reordered with
 * the stores to write-back memory before it), so the dma_ barriers too
 * only stop the compiler; kprof uses no write-combining memory or
 * non-temporal stores, which would need sfence.
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

static inline void arch_dma_wmb(void)
{
	__asm__ volatile("" ::: "memory");
}

static inline void arch_dma_rmb(void)
{
	__asm__ volatile("" ::: "memory");
}

#endif /* KPROF_ARCH_BARRIER_H */
