/*
 * shadow arch/irql.h - IRQL is a per-thread variable (each thread is a CPU).
 */
#ifndef KPROF_SHADOW_ARCH_IRQL_H
#define KPROF_SHADOW_ARCH_IRQL_H

#include <stdint.h>

extern __thread uint8_t shadow_irql;

static inline uint8_t arch_get_irql(void) { return shadow_irql; }
static inline void arch_set_irql(uint8_t irql) { shadow_irql = irql; }

#endif
