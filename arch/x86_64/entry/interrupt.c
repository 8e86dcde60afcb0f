/*
 * interrupt.c - hardware interrupts: vectors, IRQL, EOI, IPIs, NMI.
 *
 * A vector's priority class is its IRQL (arch/irql.h), so each purpose in
 * arch/interrupt.h gets a vector in its level's range (lapic.h).  Every
 * hardware interrupt goes: ki_interrupt_enter() (raise to the vector's
 * IRQL, count it, interrupts on), the connected handler, interrupts off,
 * EOI, ki_interrupt_exit() (back to the interrupted IRQL, running DPCs if
 * it was below DISPATCH_LEVEL).  The spurious vector gets no EOI.
 *
 * NMI: when a bug check is in progress it means "stop": the CPU halts for
 * good without printing (the panicking CPU owns the console); any other
 * NMI is reported as a fatal exception.
 */
#include <arch/cpu.h>
#include <arch/interrupt.h>

#include "arch/x86_64/apic/lapic.h"
#include "arch/x86_64/entry/trap.h"
#include "kernel/arch_services.h"

static const uint8_t purpose_vector[ARCH_INT_COUNT] = {
	[ARCH_INT_DPC] = VECTOR_DPC,
	[ARCH_INT_CLOCK] = VECTOR_CLOCK,
	[ARCH_INT_IPI] = VECTOR_IPI,
	[ARCH_INT_PROFILE] = VECTOR_PROFILE,
	[ARCH_INT_PMC] = VECTOR_PMC,
};

static arch_isr_t vector_isr[256];

uint8_t arch_interrupt_vector(enum arch_interrupt which)
{
	return purpose_vector[which];
}

uint8_t arch_interrupt_irql(enum arch_interrupt which)
{
	return purpose_vector[which] >> 4;
}

/* Interrupts whose work is done by the exit path (DPC) need no handler. */
static void nothing_to_do(KTRAP_FRAME *tf)
{
}

static void hardware_interrupt(KTRAP_FRAME *tf)
{
	unsigned v = (unsigned)tf->vector;
	KIRQL old = ki_interrupt_enter((KIRQL)(v >> 4));

	if (vector_isr[v])
		vector_isr[v](tf);
	else
		kprintf("interrupt: vector 0x%x on CPU %u has no handler\n", v, ke_get_current_processor_number());
	arch_irq_disable();
	/* Under a hypervisor the end of interrupt may trap to the host,
	 * which can keep the CPU for milliseconds: a stall, after the
	 * handler's own lateness was measured (clock.c). */
	uint64_t eoi = arch_rdtsc();
	lapic_eoi();
	ke_clock_note_stall(eoi, arch_rdtsc());
	ki_interrupt_exit(old);
}

static void spurious_interrupt(KTRAP_FRAME *tf)
{
	/* Not in service: no EOI, nothing to do. */
}

static void apic_error(KTRAP_FRAME *tf)
{
	lapic_write(LAPIC_ESR, 0);
	kprintf("apic: error interrupt on CPU %u, ESR 0x%x\n", ke_get_current_processor_number(),
		lapic_read(LAPIC_ESR));
}

static void nmi(KTRAP_FRAME *tf)
{
	if (panic_in_progress())
		arch_halt_forever();
	trap_fatal(tf);
}

void arch_interrupt_connect(enum arch_interrupt which, arch_isr_t isr)
{
	vector_isr[purpose_vector[which]] = isr;
}

void arch_send_ipi(uint32_t cpu, enum arch_interrupt which)
{
	lapic_send_ipi(KiProcessorBlock[cpu]->ArchId, ICR_FIXED | purpose_vector[which]);
}

void arch_send_ipi_all_but_self(enum arch_interrupt which)
{
	lapic_send_ipi(0, ICR_FIXED | ICR_ALL_BUT_SELF | purpose_vector[which]);
}

void arch_send_self_ipi(enum arch_interrupt which)
{
	lapic_send_ipi(0, ICR_FIXED | ICR_SELF | purpose_vector[which]);
}

void arch_send_nmi_all_but_self(void)
{
	lapic_send_ipi(0, ICR_NMI | ICR_ALL_BUT_SELF);
}

void interrupt_init(void)
{
	for (unsigned v = 32; v < 256; v++)
		trap_set_handler(v, hardware_interrupt);
	trap_set_handler(VECTOR_SPURIOUS, spurious_interrupt);
	trap_set_handler(2, nmi);
	vector_isr[VECTOR_ERROR] = apic_error;
	vector_isr[VECTOR_DPC] = nothing_to_do;
}
