/*
 * pci_legacy.c - PCI configuration mechanism #1 (ports 0xCF8/0xCFC), the
 * fallback for machines without ECAM (QEMU's `pc`), and the firmware's
 * ECAM windows (ACPI MCFG) for kernel/pci/.
 *
 * The address/data pair is not reentrant: callers configure devices from
 * one CPU at a time (kernel/pci/pci.h).
 */
#include <arch/dev/pci.h>

#include "arch/x86_64/platform_x86.h"
#include "arch/x86_64/x86.h"

#define PCI_CONFIG_ADDRESS 0xCF8
#define PCI_CONFIG_DATA    0xCFC
#define PCI_CONFIG_ENABLE  0x80000000u

static void select_register(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	outl(PCI_CONFIG_ADDRESS, PCI_CONFIG_ENABLE | (uint32_t)bus << 16 | (uint32_t)(dev & 31) << 11 |
					 (uint32_t)(fn & 7) << 8 | (off & 0xFC));
}

uint32_t arch_pci_legacy_read(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, unsigned width)
{
	select_register(bus, dev, fn, off);
	switch (width) {
	case 1:
		return inb(PCI_CONFIG_DATA + (off & 3));
	case 2:
		return inw(PCI_CONFIG_DATA + (off & 2));
	default:
		return inl(PCI_CONFIG_DATA);
	}
}

void arch_pci_legacy_write(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, unsigned width, uint32_t v)
{
	select_register(bus, dev, fn, off);
	switch (width) {
	case 1:
		outb(PCI_CONFIG_DATA + (off & 3), (uint8_t)v);
		break;
	case 2:
		outw(PCI_CONFIG_DATA + (off & 2), (uint16_t)v);
		break;
	default:
		outl(PCI_CONFIG_DATA, v);
	}
}

/* Mechanism #1 is there if the address register keeps the enable bit
 * (the check Linux's pci_check_type1 makes), and the host bridge at
 * 00:00.0 answers. */
bool arch_pci_legacy_present(void)
{
	uint32_t saved = inl(PCI_CONFIG_ADDRESS), back;

	outl(PCI_CONFIG_ADDRESS, PCI_CONFIG_ENABLE);
	back = inl(PCI_CONFIG_ADDRESS);
	outl(PCI_CONFIG_ADDRESS, saved);
	if (back != PCI_CONFIG_ENABLE)
		return false;
	return (arch_pci_legacy_read(0, 0, 0, 0, 2) & 0xFFFF) != 0xFFFF;
}

bool arch_pci_mcfg(struct acpi_mcfg_info *out)
{
	const struct acpi_table_ref *t = x86.have_acpi ? acpi_find(&x86.acpi, "MCFG", 0) : 0;

	if (!t || acpi_parse_mcfg(t->va, t->length, 0, out))
		return false;
	return out->count > 0;
}
