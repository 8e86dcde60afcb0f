/*
 * arch/irql.h - where the IRQL lives: CR8, the task-priority register.
 *
 * On x86-64 the local APIC blocks every interrupt whose vector's priority
 * class (vector >> 4) is <= CR8, which is exactly "IRQL": an interrupt at
 * level N uses a vector in [N*16, N*16+15].  Reading and writing CR8 is
 * cheap and not serialising.
 */
#ifndef KPROF_ARCH_IRQL_H
#define KPROF_ARCH_IRQL_H

#include <stdint.h>

static inline uint8_t arch_get_irql(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr8, %0" : "=r"(v));
	return (uint8_t)v;
}

static inline void arch_set_irql(uint8_t irql)
{
	__asm__ volatile("mov %0, %%cr8" ::"r"((uint64_t)irql) : "memory");
}

#endif /* KPROF_ARCH_IRQL_H */
