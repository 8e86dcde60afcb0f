/*
 * xhci_hw.c - the xHCI driver's only contact with the hardware: register
 * reads and writes (uncached MMIO through BAR0's mapping) and time.
 *
 * Host unit tests link a model of the controller in place of this file
 * (tests/unit/support/xhci_model.c), which sees every register access and runs a
 * virtual clock, so the driver's sequences and timeouts are tested as
 * they run here.  Callable from anywhere; no state.
 */
#include "kernel/usb/xhci/xhci.h"

#include <arch/cpu.h>

#include "kernel/ke/time/time.h"

uint32_t xhci_read32(const volatile void *reg)
{
	return *(const volatile uint32_t *)reg;
}

void xhci_write32(volatile void *reg, uint32_t v)
{
	*(volatile uint32_t *)reg = v;
}

uint64_t xhci_time_us(void)
{
	return ke_tsc_to_us(arch_rdtsc());
}

void xhci_delay_us(uint64_t us)
{
	ke_stall_execution_processor(us);
}
