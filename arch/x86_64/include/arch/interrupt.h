/*
 * arch/interrupt.h - the interrupts generic code uses, by purpose.
 *
 * Arch code owns vector numbers; generic code names a purpose, connects a
 * handler to it and sends it to other CPUs.  Each purpose has a fixed
 * IRQL (arch_interrupt_irql()): the vector is chosen in that IRQL's range.
 */
#ifndef KPROF_ARCH_INTERRUPT_H
#define KPROF_ARCH_INTERRUPT_H

#include <stdint.h>

#include <arch/trapframe.h>

enum arch_interrupt {
	ARCH_INT_DPC,     /* DISPATCH_LEVEL: a DPC was queued for this CPU    */
	ARCH_INT_CLOCK,   /* CLOCK_LEVEL: the per-CPU interrupt timer         */
	ARCH_INT_IPI,     /* IPI_LEVEL: cross-CPU requests                    */
	ARCH_INT_PROFILE, /* PROFILE_LEVEL: the profile interrupt (ProfileTime) */
	ARCH_INT_PMC,     /* PROFILE_LEVEL: performance-counter overflow      */
	ARCH_INT_COUNT
};

typedef void (*arch_isr_t)(KTRAP_FRAME *tf);

/* Route an interrupt purpose to a handler (at boot, before it can fire). */
void arch_interrupt_connect(enum arch_interrupt which, arch_isr_t isr);
/* The IRQL its handler runs at. */
uint8_t arch_interrupt_irql(enum arch_interrupt which);
/* The vector number, for reports. */
uint8_t arch_interrupt_vector(enum arch_interrupt which);

/* Interrupt another CPU (by logical number), or every other CPU. */
void arch_send_ipi(uint32_t cpu, enum arch_interrupt which);
void arch_send_ipi_all_but_self(enum arch_interrupt which);
/* Interrupt this CPU: delivered once its IRQL is below the purpose's. */
void arch_send_self_ipi(enum arch_interrupt which);
/* Non-maskable interrupt to every other CPU (stopping them on a panic). */
void arch_send_nmi_all_but_self(void);

#endif /* KPROF_ARCH_INTERRUPT_H */
