/*
 * pci_bar.c - base address registers: decoding, sizing, and the command
 * register bits that turn decoding and bus mastering on.
 *
 * Sizing writes all ones to a BAR and reads back which address bits stick;
 * while it does, the function's memory and I/O decoding is off (command
 * register), so the half-written BAR never claims an address, and both
 * are restored afterwards.  One CPU at a time (pci.h).
 */
#include "kernel/pci/pci.h"

#define BAR_IO          0x1u
#define BAR_MEM_TYPE    0x6u  /* bits 2:1 of a memory BAR */
#define BAR_MEM_64      0x4u
#define BAR_PREFETCH    0x8u

void pci_bar_decode(uint32_t lo, uint32_t hi, uint32_t lo_mask, uint32_t hi_mask, struct pci_bar *out)
{
	*out = (struct pci_bar){ 0 };
	if (lo & BAR_IO) {
		uint32_t mask = lo_mask & ~3u;

		out->io = true;
		out->base = lo & ~3u;
		/* I/O BARs may leave the upper 16 bits zero (64 KiB space). */
		if (mask && !(mask & 0xFFFF0000u))
			mask |= 0xFFFF0000u;
		out->size = mask ? (uint32_t)(~mask + 1) : 0;
		return;
	}
	out->prefetch = (lo & BAR_PREFETCH) != 0;
	out->is64 = (lo & BAR_MEM_TYPE) == BAR_MEM_64;
	uint64_t mask = lo_mask & ~0xFu;
	out->base = lo & ~0xFu;
	if (out->is64) {
		out->base |= (uint64_t)hi << 32;
		mask |= (uint64_t)hi_mask << 32;
	} else if (mask) {
		mask |= 0xFFFFFFFF00000000ull; /* a 32-bit BAR decodes below 4 GiB */
	}
	/* No address bit sticks: the BAR is not implemented. */
	out->size = mask ? ~mask + 1 : 0;
}

int pci_bar_read(struct pci_addr a, unsigned index, struct pci_bar *out)
{
	uint16_t off = (uint16_t)(PCI_BAR0 + 4 * index), cmd;
	uint32_t lo, hi = 0, lo_mask, hi_mask = 0;

	if (index > 5)
		return -1;
	/* Walk from BAR0: index must start a BAR, not be the upper half
	 * of a 64-bit one. */
	for (unsigned i = 0; i < index;) {
		uint32_t v = pci_read32(a, (uint16_t)(PCI_BAR0 + 4 * i));
		i += (!(v & BAR_IO) && (v & BAR_MEM_TYPE) == BAR_MEM_64) ? 2 : 1;
		if (i > index)
			return -1;
	}
	cmd = pci_read16(a, PCI_COMMAND);
	pci_write16(a, PCI_COMMAND, cmd & (uint16_t)~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));

	lo = pci_read32(a, off);
	pci_write32(a, off, 0xFFFFFFFFu);
	lo_mask = pci_read32(a, off);
	pci_write32(a, off, lo);
	if (!(lo & BAR_IO) && (lo & BAR_MEM_TYPE) == BAR_MEM_64) {
		if (index == 5) {
			pci_write16(a, PCI_COMMAND, cmd);
			return -1; /* a 64-bit BAR cannot start in the last slot */
		}
		hi = pci_read32(a, (uint16_t)(off + 4));
		pci_write32(a, (uint16_t)(off + 4), 0xFFFFFFFFu);
		hi_mask = pci_read32(a, (uint16_t)(off + 4));
		pci_write32(a, (uint16_t)(off + 4), hi);
	}
	pci_write16(a, PCI_COMMAND, cmd);
	pci_bar_decode(lo, hi, lo_mask, hi_mask, out);
	return 0;
}

uint16_t pci_enable(struct pci_addr a, uint16_t bits)
{
	uint16_t cmd = pci_read16(a, PCI_COMMAND) | bits;

	pci_write16(a, PCI_COMMAND, cmd);
	return pci_read16(a, PCI_COMMAND);
}
