/*
 * arch/percpu.h - the per-CPU base: GS points at the CPU's KPRCB, whose
 * first field is a pointer to itself, so one gs-relative load finds it.
 */
#ifndef KPROF_ARCH_PERCPU_H
#define KPROF_ARCH_PERCPU_H

#include <stdint.h>

static inline void *arch_percpu_self(void)
{
	void *p;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(p));
	return p;
}

/* A pointer-sized field of the per-CPU block, read in one instruction, so
 * that a thread moved to another CPU cannot mix two CPUs' values. */
static inline void *arch_percpu_read_ptr(unsigned long offset)
{
	void *p;
	__asm__ volatile("movq %%gs:(%1), %0" : "=r"(p) : "r"(offset));
	return p;
}

/* A 32-bit field of the per-CPU block, in one instruction. */
static inline uint32_t arch_percpu_read_u32(unsigned long offset)
{
	uint32_t v;
	__asm__ volatile("movl %%gs:(%1), %0" : "=r"(v) : "r"(offset));
	return v;
}

/* Point this CPU's per-CPU base at block (whose first word is block). */
void arch_percpu_set(void *block);

#endif /* KPROF_ARCH_PERCPU_H */
