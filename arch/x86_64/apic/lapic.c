/*
 * lapic.c - local APIC access, initialisation and IPIs.
 *
 * Mode: x2APIC when CPUID.1:ECX[21] says the CPU has it (registers are
 * MSRs 0x800 + offset/16, the ICR one 64-bit MSR, no delivery-status
 * polling); otherwise xAPIC through an uncached mapping of the APIC page.
 * The choice is made once on the boot CPU and applied to every CPU.
 *
 * Every CPU: software-enable with the spurious vector, TPR 0 (IRQL is
 * CR8), error vector, LINT0 masked (no 8259), LINT1 as NMI where the MADT
 * says so, timer and performance-counter entries masked until used.
 */
#include "arch/x86_64/apic/lapic.h"

#include <arch/mmu.h>

#include "arch/x86_64/x86.h"
#include "kernel/arch_services.h"
#include "kernel/lib/printf.h"

#define MSR_APIC_BASE     0x1Bu
#define APIC_BASE_ENABLE  (1ULL << 11)
#define APIC_BASE_X2APIC  (1ULL << 10)
#define MSR_X2APIC_BASE   0x800u
#define MSR_X2APIC_ICR    0x830u
#define ICR_BUSY          (1u << 12)

static struct {
	bool x2apic;              /* MSR access mode                */
	volatile uint32_t *mmio;  /* xAPIC registers                */
	uint64_t phys;            /* xAPIC physical base            */
	char desc[96];
} lapic;

uint32_t lapic_read(uint32_t reg)
{
	if (lapic.x2apic)
		return (uint32_t)rdmsr(MSR_X2APIC_BASE + (reg >> 4));
	return lapic.mmio[reg / 4];
}

void lapic_write(uint32_t reg, uint32_t v)
{
	if (lapic.x2apic)
		wrmsr(MSR_X2APIC_BASE + (reg >> 4), v);
	else
		lapic.mmio[reg / 4] = v;
}

bool lapic_is_x2apic(void)
{
	return lapic.x2apic;
}

uint32_t lapic_id(void)
{
	uint32_t id = lapic_read(LAPIC_ID);
	return lapic.x2apic ? id : id >> 24;
}

void lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}

void lapic_send_ipi(uint32_t apic_id, uint32_t icr_low)
{
	if (lapic.x2apic) {
		/* x2APIC: one write; ordering against earlier stores needs a fence
		 * because WRMSR to the x2APIC range is not serialising. */
		__asm__ volatile("mfence" ::: "memory");
		wrmsr(MSR_X2APIC_ICR, ((uint64_t)apic_id << 32) | icr_low);
		return;
	}
	unsigned long flags;
	__asm__ volatile("pushfq; popq %0; cli" : "=r"(flags)::"memory");
	while (lapic.mmio[LAPIC_ICR_LO / 4] & ICR_BUSY)
		__asm__ volatile("pause");
	lapic.mmio[LAPIC_ICR_HI / 4] = apic_id << 24;
	lapic.mmio[LAPIC_ICR_LO / 4] = icr_low;
	while (lapic.mmio[LAPIC_ICR_LO / 4] & ICR_BUSY)
		__asm__ volatile("pause");
	if (flags & RFLAGS_IF)
		__asm__ volatile("sti" ::: "memory");
}

void lapic_init_bsp(const struct madt_info *madt)
{
	uint32_t r[4];
	uint64_t base = rdmsr(MSR_APIC_BASE);

	cpuid_count(1, 0, r);
	lapic.x2apic = (r[2] & (1u << 21)) != 0;
	lapic.phys = base & ~0xFFFULL;
	if (madt && madt->lapic_phys && madt->lapic_phys != lapic.phys)
		lapic.phys = madt->lapic_phys; /* MADT override wins */
	if (lapic.x2apic) {
		/* Switch now: x2APIC registers #GP until the mode is on. */
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE | APIC_BASE_X2APIC);
	} else {
		lapic.mmio = kva_map_phys(lapic.phys, PAGE_SIZE, MAP_WRITE | MAP_UNCACHED);
		ksnprintf(lapic.desc, sizeof(lapic.desc), "xAPIC at 0x%llx", (unsigned long long)lapic.phys);
	}
	if (lapic.x2apic)
		ksnprintf(lapic.desc, sizeof(lapic.desc), "x2APIC (MSR access)");
}

void lapic_init_cpu(const struct madt_info *madt, uint32_t acpi_uid)
{
	uint64_t base = rdmsr(MSR_APIC_BASE) | APIC_BASE_ENABLE;

	if (lapic.x2apic)
		base |= APIC_BASE_X2APIC;
	wrmsr(MSR_APIC_BASE, base);

	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_SVR, (1u << 8) | VECTOR_SPURIOUS);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VECTOR_CLOCK);
	lapic_write(LAPIC_LVT_PMC, LVT_MASKED | VECTOR_PMC);
	lapic_write(LAPIC_LVT_LINT0, LVT_MASKED);
	lapic_write(LAPIC_LVT_LINT1, LVT_MASKED);
	/* LINT pins wired to NMI for this processor (or all): program them. */
	for (uint32_t i = 0; madt && i < madt->nnmis; i++) {
		const struct madt_nmi *n = &madt->nmi[i];
		if (n->acpi_uid != MADT_ALL_CPUS && n->acpi_uid != acpi_uid)
			continue;
		uint32_t lvt = ICR_NMI; /* delivery mode NMI: same encoding as ICR */
		if ((n->flags & 3) == 3)
			lvt |= 1u << 13; /* active low */
		lapic_write(n->lint ? LAPIC_LVT_LINT1 : LAPIC_LVT_LINT0, lvt);
	}
	lapic_write(LAPIC_LVT_ERROR, VECTOR_ERROR);
	lapic_write(LAPIC_ESR, 0); /* arm, then clear the error status */
	lapic_write(LAPIC_ESR, 0);
	lapic_eoi();
}

const char *lapic_describe(void)
{
	static char buf[160];
	uint32_t v = lapic_read(LAPIC_VERSION);

	ksnprintf(buf, sizeof(buf), "%s, version 0x%x, %u LVT entries", lapic.desc, v & 0xFF,
		  ((v >> 16) & 0xFF) + 1);
	return buf;
}
