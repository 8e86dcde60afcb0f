/*
 * smi.c - MSR_SMI_COUNT (0x34): Intel CPUs from Nehalem (family 6, model
 * 0x1A) on count the SMIs each logical CPU took, read-only.  The MSR does
 * not exist before (nor on the first Atoms, Bonnell and Saltwell), nor on
 * AMD, where reading it raises #GP; the kernel has no #GP fix-up for
 * RDMSR, so the decision is taken from CPUID alone and is conservative:
 * under any hypervisor the counter is not read (QEMU's TCG reads 0 for
 * MSRs it does not know, which would say "no SMIs" falsely, and other
 * hypervisors may raise #GP).  A CPU not counted is reported as such,
 * never as 0 SMIs.
 */
#include <arch/dev/smi.h>

#include <arch/cpu.h>
#include <arch/platform.h>

#include "arch/x86_64/x86.h"
#include "kernel/lib/libk.h"

#define MSR_SMI_COUNT 0x34

static const char *reason;
static bool decided;

static bool first_atom(uint32_t model)
{
	/* Bonnell and Saltwell: no MSR_SMI_COUNT. */
	return model == 0x1C || model == 0x26 || model == 0x27 || model == 0x35 || model == 0x36;
}

const char *arch_smi_uncounted_reason(void)
{
	struct arch_cpu_desc d;

	if (decided)
		return reason;
	arch_cpu_describe(&d);
	if (arch_cpu_virtualized() || arch_platform_is_qemu())
		reason = "a virtual CPU, under a hypervisor";
	else if (strcmp(d.vendor, "GenuineIntel") != 0)
		reason = "only Intel CPUs count SMIs (MSR_SMI_COUNT)";
	else if (d.family != 6 || d.model < 0x1A || first_atom(d.model))
		reason = "this Intel CPU has no SMI counter (MSR_SMI_COUNT: Nehalem and later)";
	else
		reason = NULL;
	decided = true;
	return reason;
}

uint64_t arch_smi_count(void)
{
	return (uint32_t)rdmsr(MSR_SMI_COUNT); /* bits 31:0 count; the rest reserved */
}
