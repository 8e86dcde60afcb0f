/*
 * shadow arch/barrier.h - the SMP and DMA ordering primitives on the host.  On an
 * x86-64 host these are the kernel's own (the host is TSO too, and the
 * tests and benchmarks run the very code that boots, as shadow local.h
 * does); elsewhere C11 fences stand in.
 */
#ifndef KPROF_SHADOW_ARCH_BARRIER_H
#define KPROF_SHADOW_ARCH_BARRIER_H

#if defined(__x86_64__)
#include "../../../../arch/x86_64/include/arch/barrier.h"
#else
static inline void arch_smp_wmb(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }
static inline void arch_smp_rmb(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
static inline void arch_smp_mb(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void arch_dma_wmb(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }
static inline void arch_dma_rmb(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
#endif

#endif /* KPROF_SHADOW_ARCH_BARRIER_H */
