/*
 * handoff_hw.c - the boot-time hand-off's contact with the hardware:
 * uncached MMIO reads and writes and time.  Host unit tests
 * (tests/unit/kernel/usb/handoff/test_usb_handoff.c) link a model in place of this file.
 */
#include "kernel/usb/handoff/handoff.h"

#include <arch/cpu.h>

#include "kernel/ke/time/time.h"

uint32_t handoff_read32(const volatile void *reg)
{
	return *(const volatile uint32_t *)reg;
}

void handoff_write32(volatile void *reg, uint32_t v)
{
	*(volatile uint32_t *)reg = v;
}

uint64_t handoff_time_us(void)
{
	return ke_tsc_to_us(arch_rdtsc());
}

void handoff_delay_us(uint64_t us)
{
	ke_stall_execution_processor(us);
}
