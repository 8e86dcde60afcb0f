/*
 * xhci_quirks.c - what a controller says about itself that is not to be
 * believed, by PCI id, and the rules that follow its HCIVERSION.
 *
 * The table holds facts about chips (which ones report HCCPARAMS1.AC64
 * but drop the upper 32 address bits on the bus, which keep the upper
 * halves of their 64-bit address registers over a reset: xhci_reset.c);
 * the same facts steer Linux's xhci-pci.  Pure computation on the ids and registers read in
 * hci_open(): no hardware access, callable from host unit tests.
 *
 * Invariant: hc->dma_limit is 4 GiB whenever AC64 is clear, the
 * controller is in the table with XHCI_QUIRK_NO_AC64, or the caller
 * forces 32-bit addressing (usb.dma32=on); only then may anything the
 * controller reads or writes lie above 4 GiB.
 */
#include "kernel/usb/xhci/xhci.h"

struct xhci_quirk_entry {
	uint16_t vendor, device;
	uint32_t quirks;
	const char *chip;
};

#define PCI_VENDOR_ASMEDIA 0x1B21
#define PCI_VENDOR_RENESAS 0x1912

/* ASMedia: AC64 set, but DMA above 4 GiB reads and writes the wrong
 * memory (ASM1042A, ASM1142, ASM2142/ASM3142, ASM3242). */
static const struct xhci_quirk_entry table[] = {
	{ PCI_VENDOR_ASMEDIA, 0x1142, XHCI_QUIRK_NO_AC64, "ASMedia ASM1042A" },
	{ PCI_VENDOR_ASMEDIA, 0x1242, XHCI_QUIRK_NO_AC64, "ASMedia ASM1142" },
	{ PCI_VENDOR_ASMEDIA, 0x2142, XHCI_QUIRK_NO_AC64, "ASMedia ASM2142/ASM3142" },
	{ PCI_VENDOR_ASMEDIA, 0x3242, XHCI_QUIRK_NO_AC64, "ASMedia ASM3242" },
	/* Renesas uPD720201 / uPD720202: upper address halves survive HCRST. */
	{ PCI_VENDOR_RENESAS, 0x0014, XHCI_QUIRK_ZERO_64B_REGS, "Renesas uPD720201" },
	{ PCI_VENDOR_RENESAS, 0x0015, XHCI_QUIRK_ZERO_64B_REGS, "Renesas uPD720202" },
};

uint32_t xhci_quirks_lookup(uint16_t vendor, uint16_t device, const char **chip)
{
	for (unsigned i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (table[i].vendor == vendor && table[i].device == device) {
			if (chip)
				*chip = table[i].chip;
			return table[i].quirks;
		}
	}
	if (chip)
		*chip = NULL;
	return 0;
}

uint64_t xhci_quirks_dma_limit(uint32_t hccparams1, uint32_t quirks)
{
	if ((hccparams1 & HCCPARAMS1_AC64) && !(quirks & (XHCI_QUIRK_NO_AC64 | XHCI_QUIRK_FORCED_32)))
		return ~0ull;
	return XHCI_DMA_LIMIT_32;
}

bool xhci_td_size_096(uint16_t version)
{
	return version < 0x100;
}
