/*
 * xhci_reset.c - taking the controller from the firmware and bringing it
 * to a known state: the USB Legacy Support hand-off (7.1), halt (R/S = 0,
 * wait for HCH) and reset (HCRST, wait for it and CNR to clear) (4.2).
 *
 * Order (xhci_open.c): hand-off, halt, reset; nothing else may touch the
 * operational registers before the reset finished and CNR is clear.  On a
 * controller with XHCI_QUIRK_ZERO_64B_REGS (xhci_quirks.c) the 64-bit
 * address registers the firmware left with an upper half are zeroed
 * before HCRST: those chips keep the upper half over a reset.
 * Every wait is bounded and names what did not happen.  Called once per
 * controller, from hci_open().
 */
#include "kernel/usb/xhci/xhci.h"

#include "kernel/console/console.h"
#include "kernel/lib/printf.h"

enum usb_handoff xhci_legacy_take(struct usb_hci *hc)
{
	uint32_t off = xhci_xecp_find(hc, 0, XECP_LEGACY), v, ctl;
	enum usb_handoff how = USB_HANDOFF_OS_OWNED;

	if (!off)
		return USB_HANDOFF_NO_CAPABILITY; /* nothing to take */
	v = xhci_read32(hc->cap + off);
	xhci_write32(hc->cap + off, v | USBLEGSUP_OS_OWNED);
	if (v & USBLEGSUP_BIOS_OWNED) {
		how = USB_HANDOFF_TAKEN;
		if (!xhci_wait_bits(hc->cap + off, USBLEGSUP_BIOS_OWNED, 0, XHCI_HANDOFF_MS)) {
			/* The firmware's SMI handler never let go: take it anyway
			 * (its SMIs are disabled below). */
			xhci_write32(hc->cap + off, (xhci_read32(hc->cap + off) & ~USBLEGSUP_BIOS_OWNED) |
							   USBLEGSUP_OS_OWNED);
			how = USB_HANDOFF_FORCED;
		}
	}
	/* No more SMIs for USB events; clear the SMI events pending (RW1C). */
	ctl = xhci_read32(hc->cap + off + USBLEGCTLSTS);
	xhci_write32(hc->cap + off + USBLEGCTLSTS, (ctl & ~USBLEGCTLSTS_SMI_ENABLES) | USBLEGCTLSTS_SMI_EVENTS);
	return how;
}

int xhci_bios_handoff(struct usb_hci *hc)
{
	switch (xhci_legacy_take(hc)) {
	case USB_HANDOFF_TAKEN:
		kprintf("xhci: took the controller from the firmware (USB legacy support hand-off)\n");
		return USB_OK;
	case USB_HANDOFF_FORCED:
		kprintf("xhci: firmware kept the controller (USBLEGSUP HC BIOS Owned still set after %u ms); "
			"taking it anyway\n", XHCI_HANDOFF_MS);
		return USB_TIMEOUT;
	default:
		return USB_OK;
	}
}

int xhci_halt(struct usb_hci *hc)
{
	uint32_t cmd = xhci_op_read(hc, XHCI_USBCMD);

	if (xhci_op_read(hc, XHCI_USBSTS) & USBSTS_HCH)
		return USB_OK;
	xhci_op_write(hc, XHCI_USBCMD, cmd & ~(USBCMD_RS | USBCMD_INTE | USBCMD_HSEE));
	if (!xhci_wait_bits(hc->op + XHCI_USBSTS, USBSTS_HCH, USBSTS_HCH, XHCI_HALT_MS)) {
		kprintf("xhci: controller did not halt (USBSTS.HCH still 0 %u ms after USBCMD.R/S = 0)\n",
			XHCI_HALT_MS);
		return USB_TIMEOUT;
	}
	return USB_OK;
}

/* DCBAAP and every interrupter's ERSTBA and ERDP zeroed where the upper
 * half is not 0; CRCR always (its pointer reads as 0).  The controller
 * is halted and the command ring stopped. */
static void zero_64b_regs(struct usb_hci *hc)
{
	unsigned nintr = HCSPARAMS1_MAX_INTRS(hc->hcsparams1);

	if (xhci_read32(hc->op + XHCI_DCBAAP + 4))
		xhci_write64(hc->op + XHCI_DCBAAP, 0);
	xhci_write64(hc->op + XHCI_CRCR, 0);
	for (unsigned i = 0; i < nintr; i++) {
		volatile uint8_t *ir = hc->rt + XHCI_IR0 + i * XHCI_IR_SIZE;
		if (xhci_read32(ir + XHCI_ERSTBA + 4))
			xhci_write64(ir + XHCI_ERSTBA, 0);
		if (xhci_read32(ir + XHCI_ERDP + 4))
			xhci_write64(ir + XHCI_ERDP, 0);
	}
}

int xhci_reset(struct usb_hci *hc)
{
	/* 4.22.1: software may not set HCRST unless the controller halted. */
	if (!(xhci_op_read(hc, XHCI_USBSTS) & USBSTS_HCH)) {
		kprintf("xhci: not resetting a running controller (USBSTS.HCH = 0)\n");
		return USB_ERROR;
	}
	if (hc->quirks & XHCI_QUIRK_ZERO_64B_REGS)
		zero_64b_regs(hc);
	xhci_op_write(hc, XHCI_USBCMD, USBCMD_HCRST);
	/* Some Intel controllers hang, rarely, if their registers are read
	 * right after HCRST is set: leave them 1 ms first (Linux does too). */
	xhci_delay_us(1000);
	if (!xhci_wait_bits(hc->op + XHCI_USBCMD, USBCMD_HCRST, 0, XHCI_RESET_MS)) {
		kprintf("xhci: controller reset did not finish (USBCMD.HCRST still 1 after %u ms)\n", XHCI_RESET_MS);
		return USB_TIMEOUT;
	}
	if (!xhci_wait_bits(hc->op + XHCI_USBSTS, USBSTS_CNR, 0, XHCI_RESET_MS)) {
		kprintf("xhci: controller not ready after reset (USBSTS.CNR still 1 after %u ms)\n", XHCI_RESET_MS);
		return USB_TIMEOUT;
	}
	return USB_OK;
}
