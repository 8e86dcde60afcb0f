/*
 * platform_init.c - from "the kernel runs" to "the machine is known":
 * ACPI tables, the firmware's serial console, the local APIC on the boot
 * CPU, interrupt vectors, and the clocks.  Other CPUs start later, from
 * generic code (kernel/init/smp.c), once the clock exists.
 */
#include <arch/platform.h>

#include "arch/x86_64/apic/lapic.h"
#include "boot/bootinfo.h"
#include "arch/x86_64/platform_x86.h"
#include "arch/x86_64/serial/serial_setup.h"
#include "arch/x86_64/entry/trap.h"
#include "kernel/arch_services.h"

void arch_platform_init(const struct bootinfo *bi)
{
	acpi_setup(bi->rsdp_phys);
	serial_setup_spcr();
	lapic_init_bsp(x86.have_madt ? &x86.madt : 0);
	interrupt_init();
	smp_setup_bsp();
	kprintf("apic: %s, boot CPU APIC id %u\n", lapic_describe(), lapic_id());
	time_setup();
}
