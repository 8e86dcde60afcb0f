/*
 * shadow arch/interrupt.h - IPIs are counted (shadow_ipis[cpu][which],
 * shadow_self_ipis), not delivered; a test plays the interrupt on the
 * target's thread itself (ki_interrupt_enter(DISPATCH_LEVEL), then
 * ki_interrupt_exit()).
 */
#ifndef KPROF_SHADOW_ARCH_INTERRUPT_H
#define KPROF_SHADOW_ARCH_INTERRUPT_H

#include <stdint.h>

#include <arch/trapframe.h>

enum arch_interrupt { ARCH_INT_DPC, ARCH_INT_CLOCK, ARCH_INT_IPI, ARCH_INT_PROFILE, ARCH_INT_PMC, ARCH_INT_COUNT };
typedef void (*arch_isr_t)(KTRAP_FRAME *tf);

#define SHADOW_MAX_CPUS 256
/* IPIs sent to each CPU, per purpose. */
extern volatile uint32_t shadow_ipis[SHADOW_MAX_CPUS][ARCH_INT_COUNT];
extern volatile uint32_t shadow_nmis;

static inline void arch_interrupt_connect(enum arch_interrupt which, arch_isr_t isr) { (void)which; (void)isr; }
static inline uint8_t arch_interrupt_irql(enum arch_interrupt which)
{
	static const uint8_t irql[ARCH_INT_COUNT] = { 2, 13, 14, 15, 15 };
	return irql[which];
}
static inline uint8_t arch_interrupt_vector(enum arch_interrupt which) { return (uint8_t)(arch_interrupt_irql(which) << 4); }
static inline void arch_send_ipi(uint32_t cpu, enum arch_interrupt which)
{
	__atomic_fetch_add(&shadow_ipis[cpu][which], 1, __ATOMIC_RELAXED);
}
static inline void arch_send_ipi_all_but_self(enum arch_interrupt which) { (void)which; }
/* shadow.c: counted per host thread (the current CPU) in shadow_self_ipis. */
extern __thread uint32_t shadow_self_ipis[ARCH_INT_COUNT];
void arch_send_self_ipi(enum arch_interrupt which);
static inline void arch_send_nmi_all_but_self(void) { __atomic_fetch_add(&shadow_nmis, 1, __ATOMIC_RELAXED); }

#endif
