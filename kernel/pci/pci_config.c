/*
 * pci_config.c - configuration space reads and writes: ECAM where the
 * firmware's MCFG lists a window for the segment and bus, else the
 * architecture's legacy mechanism (segment 0 only).
 *
 * ECAM: function (bus, dev, fn) of a window starting at bus_start is the
 * 4 KiB at base + ((bus - bus_start) << 20 | dev << 15 | fn << 12).  Each
 * bus's 1 MiB is mapped uncached the first time it is touched, and kept.
 * Invariant: pci_init()/pci_config_init() ran before any other call (a
 * read before returns all ones).  One CPU at a time (pci.h).
 */
#include "kernel/pci/pci.h"

#include <arch/mmu.h>
#include <arch/dev/pci.h>

#include "kernel/lib/libk.h"
#include "kernel/mm/kva.h"

#define ECAM_BUS_BYTES (1u << 20)

static struct {
	enum pci_access method;
	bool legacy;                         /* the legacy mechanism answers */
	struct acpi_mcfg_info mcfg;
	volatile uint8_t *bus_va[ACPI_MCFG_MAX][256]; /* mapped buses, by window */
} pcfg;

enum pci_access pci_config_init(const struct acpi_mcfg_info *mcfg)
{
	memset(&pcfg, 0, sizeof(pcfg));
	if (mcfg)
		pcfg.mcfg = *mcfg;
	pcfg.legacy = arch_pci_legacy_present();
	if (pcfg.mcfg.count)
		pcfg.method = PCI_ACCESS_ECAM;
	else if (pcfg.legacy)
		pcfg.method = PCI_ACCESS_LEGACY;
	else
		pcfg.method = PCI_ACCESS_NONE;
	return pcfg.method;
}

enum pci_access pci_init(void)
{
	struct acpi_mcfg_info mcfg;

	if (pcfg.method != PCI_ACCESS_NONE)
		return pcfg.method; /* chosen already: keep the windows mapped */

	if (!arch_pci_mcfg(&mcfg))
		mcfg.count = 0;
	return pci_config_init(&mcfg);
}

enum pci_access pci_access_method(void)
{
	return pcfg.method;
}

void pci_config_windows(struct acpi_mcfg_info *out)
{
	*out = pcfg.mcfg;
}

/* The configuration page of a, through ECAM, or NULL if no window has it
 * (or it cannot be mapped). */
static volatile uint8_t *ecam_function(struct pci_addr a)
{
	for (uint32_t w = 0; w < pcfg.mcfg.count; w++) {
		const __typeof__(pcfg.mcfg.seg[0]) *s = &pcfg.mcfg.seg[w];

		if (s->segment != a.segment || a.bus < s->bus_start || a.bus > s->bus_end)
			continue;
		volatile uint8_t **va = &pcfg.bus_va[w][a.bus];
		if (!*va) {
			uint64_t pa = s->base + ((uint64_t)(a.bus - s->bus_start) << 20);
			*va = kva_map_phys(pa, ECAM_BUS_BYTES, MAP_UNCACHED | MAP_WRITE);
			if (!*va)
				return NULL;
		}
		return *va + ((uint32_t)(a.dev & 31) << 15 | (uint32_t)(a.fn & 7) << 12);
	}
	return NULL;
}

static bool legacy_reaches(struct pci_addr a, uint16_t off)
{
	return pcfg.legacy && a.segment == 0 && off < 256;
}

uint32_t pci_read(struct pci_addr a, uint16_t off, unsigned width)
{
	volatile uint8_t *f = ecam_function(a);

	if (f) {
		switch (width) {
		case 1:
			return *(f + off);
		case 2:
			return *(volatile uint16_t *)(f + off);
		default:
			return *(volatile uint32_t *)(f + off);
		}
	}
	if (legacy_reaches(a, off))
		return arch_pci_legacy_read(a.bus, a.dev, a.fn, off, width);
	return width == 1 ? 0xFF : width == 2 ? 0xFFFF : 0xFFFFFFFFu;
}

void pci_write(struct pci_addr a, uint16_t off, unsigned width, uint32_t v)
{
	volatile uint8_t *f = ecam_function(a);

	if (f) {
		switch (width) {
		case 1:
			*(f + off) = (uint8_t)v;
			break;
		case 2:
			*(volatile uint16_t *)(f + off) = (uint16_t)v;
			break;
		default:
			*(volatile uint32_t *)(f + off) = v;
		}
		return;
	}
	if (legacy_reaches(a, off))
		arch_pci_legacy_write(a.bus, a.dev, a.fn, off, width, v);
}

bool pci_present(struct pci_addr a)
{
	return pci_read16(a, PCI_VENDOR_ID) != 0xFFFF;
}
