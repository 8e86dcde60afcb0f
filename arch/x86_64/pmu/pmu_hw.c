/*
 * pmu_hw.c - the PMU drivers' only contact with the hardware: MSRs, CPUID,
 * the LVT performance-counter entry and the CPU number (see pmu_hw.h).
 * The host unit tests replace this file with tests/unit/support/pmu_model.c.
 */
#include "arch/x86_64/pmu/pmu_hw.h"

#include "arch/x86_64/apic/lapic.h"
#include "arch/x86_64/x86.h"
#include "kernel/arch_services.h"

_Static_assert(PMU_LVT_MASKED == LVT_MASKED, "one LVT mask bit");

uint64_t pmu_hw_rdmsr(uint32_t msr)
{
	return rdmsr(msr);
}

void pmu_hw_wrmsr(uint32_t msr, uint64_t value)
{
	wrmsr(msr, value);
}

void pmu_hw_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	cpuid_count(leaf, subleaf, r);
}

uint32_t pmu_hw_lvtpc_read(void)
{
	return lapic_read(LAPIC_LVT_PMC);
}

void pmu_hw_lvtpc_write(uint32_t value)
{
	lapic_write(LAPIC_LVT_PMC, value);
}

uint32_t pmu_hw_cpu_number(void)
{
	return ke_get_current_processor_number();
}
