/*
 * acpi_setup.c - read the ACPI tables the x86 platform code needs.
 *
 * Tables are mapped read-only, cached, into the kernel virtual area as
 * they are found (kernel/acpi/ does the validation); the MADT, FADT and
 * HPET tables are parsed into struct x86_platform.
 */
#include <arch/mmu.h>

#include "arch/x86_64/platform_x86.h"
#include "kernel/arch_services.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"

struct x86_platform x86;

static const void *acpi_map(uint64_t phys, size_t len)
{
	return kva_map_phys(phys, len, MAP_READ);
}

static void acpi_warn(const char *msg)
{
	kprintf("%s\n", msg);
}

static void print_tables(void)
{
	char line[ACPI_MAX_TABLES * 5 + 1];
	size_t n = 0;

	for (uint32_t i = 0; i < x86.acpi.count; i++)
		n += (size_t)ksnprintf(line + n, sizeof(line) - n, "%s%s", i ? " " : "", x86.acpi.table[i].signature);
	line[n] = '\0';
	kprintf("acpi: RSDP revision %u (OEM \"%s\"), %s with %u tables: %s%s\n", x86.acpi.revision, x86.acpi.oem_id,
		x86.acpi.xsdt ? "XSDT" : "RSDT", x86.acpi.count, line,
		x86.acpi.skipped ? " (some skipped, see above)" : "");
}

static void print_madt(void)
{
	const struct madt_info *m = &x86.madt;
	uint32_t lint1_nmi = 0;

	for (uint32_t i = 0; i < m->nnmis; i++)
		lint1_nmi += m->nmi[i].lint == 1;
	kprintf("acpi: MADT: %u processors (%u enabled%s), local APIC at 0x%llx, %u I/O APIC%s, %u source override%s, "
		"%u NMI entr%s\n",
		m->ncpus, m->cpus_enabled, m->cpus_dropped ? ", more beyond the supported number" : "",
		(unsigned long long)m->lapic_phys, m->nioapics, m->nioapics == 1 ? "" : "s", m->noverrides,
		m->noverrides == 1 ? "" : "s", m->nnmis, m->nnmis == 1 ? "y" : "ies");
}

void acpi_setup(uint64_t rsdp_phys)
{
	const struct acpi_table_ref *t;

	if (!rsdp_phys) {
		kprintf("acpi: the loader found no RSDP: running on one CPU with TSC-only time\n");
		return;
	}
	if (acpi_scan(rsdp_phys, acpi_map, acpi_warn, &x86.acpi)) {
		kprintf("acpi: the RSDP at 0x%llx is unusable: running without ACPI\n", (unsigned long long)rsdp_phys);
		return;
	}
	x86.have_acpi = true;
	print_tables();

	if ((t = acpi_find(&x86.acpi, "APIC", 0)))
		x86.have_madt = madt_parse(t->va, t->length, acpi_warn, &x86.madt) == 0;
	if ((t = acpi_find(&x86.acpi, "FACP", 0)))
		x86.have_fadt = acpi_parse_fadt(t->va, t->length, acpi_warn, &x86.fadt) == 0;
	if ((t = acpi_find(&x86.acpi, "HPET", 0)))
		x86.have_hpet = acpi_parse_hpet(t->va, t->length, acpi_warn, &x86.hpet) == 0;
	if (x86.have_madt)
		print_madt();
	else
		kprintf("acpi: no usable MADT: only the boot CPU will run\n");
}
