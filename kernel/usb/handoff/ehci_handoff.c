/*
 * ehci_handoff.c - an EHCI controller taken from the firmware (EHCI 1.0,
 * 2.1.7 and 5.1): HCCPARAMS.EECP points into PCI configuration space at
 * a list of extended capabilities; the USB Legacy Support one (id 1) has
 * USBLEGSUP (HC BIOS Owned, byte 2; HC OS Owned, byte 3) and, 4 bytes
 * on, USBLEGCTLSTS (SMI enables in bits 0-5 and 13-15, SMI events RW1C in
 * bits 29-31).
 *
 * Order: OS Owned set, BIOS Owned waited for (HCI_HANDOFF_MS; after it
 * BIOS Owned is cleared by hand, as Linux does), every SMI enable off
 * and the events cleared, then the controller halted (Run/Stop 0, wait
 * for HCHalted, EHCI_HALT_MS) with its interrupts off and status
 * cleared, so that nothing of the firmware's schedule runs on.  Nothing
 * is done when BAR0 is not an assigned memory BAR.  Boot CPU (handoff.h).
 */
#include "kernel/usb/handoff/handoff.h"

#include <arch/mmu.h>

#include "kernel/mm/kva.h"

#define EHCI_HCCPARAMS     0x08
#define HCCPARAMS_EECP(v)  (((v) >> 8) & 0xFF)
#define EHCI_USBCMD        0x00 /* operational, from CAPLENGTH */
#define EHCI_USBSTS        0x04
#define EHCI_USBINTR       0x08
#define USBCMD_RS          (1u << 0)
#define USBSTS_HCHALTED    (1u << 12)
#define USBSTS_RW1C        0x3Fu

#define EECP_LEGACY        1
#define LEGSUP_BIOS_OWNED  (1u << 16)
#define LEGSUP_OS_OWNED    (1u << 24)
#define LEGCTLSTS          4
#define LEGCTLSTS_EVENTS   0xE0000000u /* RW1C; enables all 0 */
#define EECP_MAX           32          /* a longer list is a broken one */

/* USBLEGSUP's offset in configuration space, 0 if none. */
static uint16_t legacy_capability(struct pci_addr a, uint32_t hccparams)
{
	uint16_t off = HCCPARAMS_EECP(hccparams);

	for (unsigned guard = 0; off >= 0x40 && guard < EECP_MAX; guard++) {
		uint32_t v = pci_read32(a, off);
		if ((v & 0xFF) == EECP_LEGACY)
			return off;
		off = (v >> 8) & 0xFC;
	}
	return 0;
}

static bool wait_cfg_clear(struct pci_addr a, uint16_t off, uint32_t mask, unsigned ms)
{
	uint64_t end = handoff_time_us() + (uint64_t)ms * 1000;

	for (;;) {
		if (!(pci_read32(a, off) & mask))
			return true;
		if (handoff_time_us() >= end)
			return false;
		handoff_delay_us(100);
	}
}

static enum usb_handoff handoff(struct pci_addr a, uint16_t off)
{
	enum usb_handoff how = USB_HANDOFF_OS_OWNED;

	if (pci_read32(a, off) & LEGSUP_BIOS_OWNED) {
		how = USB_HANDOFF_TAKEN;
		pci_write(a, off + 3, 1, 1); /* HC OS Owned (byte 3 alone: byte 2 is the firmware's) */
		if (!wait_cfg_clear(a, off, LEGSUP_BIOS_OWNED, HCI_HANDOFF_MS)) {
			pci_write(a, off + 2, 1, 0);
			how = USB_HANDOFF_FORCED;
		}
	} else {
		pci_write(a, off + 3, 1, 1);
	}
	pci_write32(a, off + LEGCTLSTS, LEGCTLSTS_EVENTS);
	return how;
}

static bool halt(volatile uint8_t *op)
{
	uint64_t end;

	handoff_write32(op + EHCI_USBINTR, 0);
	if (!(handoff_read32(op + EHCI_USBSTS) & USBSTS_HCHALTED)) {
		handoff_write32(op + EHCI_USBCMD, handoff_read32(op + EHCI_USBCMD) & ~USBCMD_RS);
		end = handoff_time_us() + EHCI_HALT_MS * 1000ull;
		while (!(handoff_read32(op + EHCI_USBSTS) & USBSTS_HCHALTED)) {
			if (handoff_time_us() >= end)
				return false;
			handoff_delay_us(100);
		}
	}
	handoff_write32(op + EHCI_USBSTS, USBSTS_RW1C);
	return true;
}

int ehci_take_from_firmware(const struct pci_func *f, enum usb_handoff *how, bool *halted)
{
	struct pci_bar bar;
	volatile uint8_t *cap;
	uint16_t off;

	if (pci_bar_read(f->addr, 0, &bar) || bar.io || !bar.size || !bar.base)
		return USB_NODEV;
	pci_enable(f->addr, PCI_COMMAND_MEMORY);
	cap = kva_map_phys(bar.base, bar.size, MAP_UNCACHED | MAP_WRITE);
	if (!cap)
		return USB_NOMEM;
	off = legacy_capability(f->addr, handoff_read32(cap + EHCI_HCCPARAMS));
	*how = off ? handoff(f->addr, off) : USB_HANDOFF_NO_CAPABILITY;
	*halted = halt(cap + (handoff_read32(cap) & 0xFF));
	return USB_OK;
}
