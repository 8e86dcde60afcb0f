/*
 * platform_x86.h - what the boot CPU learned about the machine (ACPI,
 * MADT, clocks), shared by the arch files that set the machine up.
 */
#ifndef KPROF_ARCH_PLATFORM_X86_H
#define KPROF_ARCH_PLATFORM_X86_H

#include <stdbool.h>

#include "arch/x86_64/madt.h"
#include "kernel/arch_services.h"

struct x86_platform {
	struct acpi_tables acpi;          /* every valid ACPI table        */
	bool have_acpi;
	struct madt_info madt;            /* processors, NMI wiring        */
	bool have_madt;
	struct acpi_fadt_info fadt;
	bool have_fadt;
	struct acpi_hpet_info hpet;
	bool have_hpet;
	const struct refclock *hpet_clock;/* NULL if absent or dead        */
	const struct refclock *pm_clock;  /* NULL if absent or dead        */
	const struct refclock *ref;       /* what CPUs measure against     */
};

extern struct x86_platform x86;

/* Steps of arch_platform_init(), each in its own file. */
void acpi_setup(uint64_t rsdp_phys);
void serial_setup_spcr(void);
void time_setup(void);
void smp_setup_bsp(void);

#endif
