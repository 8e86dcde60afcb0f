/*
 * cpu_local.h - x86 per-CPU state, hung off KPRCB.ArchData.
 */
#ifndef KPROF_ARCH_CPU_LOCAL_H
#define KPROF_ARCH_CPU_LOCAL_H

#include <stdint.h>

#include "arch/x86_64/gdt.h"
#include "kernel/arch_services.h"

struct x86_cpu {
	struct cpu_descriptors desc;   /* this CPU's GDT and TSS           */
	struct kstack ist[3];          /* NMI, #DF, #MC stacks (APs)       */
	struct kstack stack;           /* first kernel stack (APs)         */
	uint32_t apic_id;              /* local APIC id                    */
	uint32_t acpi_uid;             /* ACPI processor UID (MADT)        */
	uint64_t sipi_tsc;             /* when the start-up IPI was sent   */
};

/* The boot CPU's (static: it exists before the heap). */
extern struct x86_cpu x86_bsp_cpu;

#endif
