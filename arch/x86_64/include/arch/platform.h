/*
 * arch/platform.h - the machine we run on, and how a run ends on it.
 */
#ifndef KPROF_ARCH_PLATFORM_H
#define KPROF_ARCH_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

struct bootinfo;

/* ACPI, interrupt controller, clocks: everything before other CPUs start. */
void arch_platform_init(const struct bootinfo *bi);

/* True under QEMU (its fw_cfg device answers with "QEMU"). */
bool arch_platform_is_qemu(void);

/* Under QEMU: write the status to isa-debug-exit, which ends QEMU.  On real
 * hardware (or without the device): stop every CPU here for good. */
__attribute__((noreturn)) void arch_platform_exit(unsigned status);

struct arch_cpu_desc {
	char vendor[13];     /* CPUID 0 vendor string, e.g. "GenuineIntel" */
	char brand[49];      /* CPUID 0x80000002..4 brand string, trimmed  */
	char hypervisor[13]; /* CPUID 0x40000000 signature, "" if none     */
	uint32_t family;     /* display family (with extended family)      */
	uint32_t model;      /* display model (with extended model)        */
	uint32_t stepping;
};

void arch_cpu_describe(struct arch_cpu_desc *d);

#endif /* KPROF_ARCH_PLATFORM_H */
