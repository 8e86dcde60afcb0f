/*
 * shadow arch/local.h - CPU-local atomics on the host.  On an x86-64 host
 * these are the very instructions the kernel uses (so the benchmark
 * measures them); elsewhere, compiler atomics stand in.
 */
#ifndef KPROF_SHADOW_ARCH_LOCAL_H
#define KPROF_SHADOW_ARCH_LOCAL_H

#if defined(__x86_64__)
#include "../../../../arch/x86_64/include/arch/local.h"
#else
#include <stdbool.h>
#include <stdint.h>
static inline bool arch_local_cmpxchg64(uint64_t *p, uint64_t old, uint64_t new_value)
{
	return __atomic_compare_exchange_n(p, &old, new_value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
static inline void arch_local_add32(uint32_t *p, uint32_t v) { __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
static inline void arch_local_add64(uint64_t *p, uint64_t v) { __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
#endif

#endif
