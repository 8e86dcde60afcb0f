/*
 * shadow arch/percpu.h - each host thread plays one CPU.
 */
#ifndef KPROF_SHADOW_ARCH_PERCPU_H
#define KPROF_SHADOW_ARCH_PERCPU_H

#include <stdint.h>

extern __thread void *shadow_percpu;

static inline void *arch_percpu_self(void) { return shadow_percpu; }
static inline void arch_percpu_set(void *block) { shadow_percpu = block; }
static inline void *arch_percpu_read_ptr(unsigned long offset)
{
	return *(void **)((char *)shadow_percpu + offset);
}

static inline uint32_t arch_percpu_read_u32(unsigned long offset)
{
	return *(uint32_t *)((char *)shadow_percpu + offset);
}

#endif
