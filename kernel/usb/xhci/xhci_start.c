/*
 * xhci_start.c - from a reset controller to a running one (4.2): slots,
 * the DCBAA with its scratchpad array, the command ring, interrupter 0's
 * event ring (one ERST segment, polled: IMAN.IE stays 0), then R/S.
 *
 * Invariant on return: the controller runs (HCH = 0), the command ring's
 * PCS is 1 as CRCR.RCS says, the event ring's CCS is 1 and ERDP points at
 * its first TRB.  Called once per controller from hci_open(), after
 * xhci_reset().
 */
#include "kernel/usb/xhci/xhci.h"

#include <arch/mmu.h>

#include "kernel/console/console.h"
#include "kernel/lib/printf.h"

static int setup_scratchpads(struct usb_hci *hc)
{
	unsigned n = HCSPARAMS2_MAX_SCRATCHPAD(hc->hcsparams2);
	uint64_t array_phys, phys;
	uint64_t *array;

	if (!n)
		return USB_OK;
	/* The array (64-byte aligned) and one PAGESIZE buffer per entry. */
	array = xhci_alloc(hc, (n * 8 + PAGE_SIZE - 1) / PAGE_SIZE, &array_phys);
	if (!array)
		return USB_NOMEM;
	for (unsigned i = 0; i < n; i++) {
		if (!xhci_alloc(hc, 1, &phys))
			return USB_NOMEM;
		array[i] = phys;
	}
	hc->dcbaa[0] = array_phys;
	return USB_OK;
}

int xhci_start(struct usb_hci *hc)
{
	uint64_t phys;
	void *trbs;
	int rc;

	if (!(xhci_op_read(hc, XHCI_PAGESIZE) & 1)) {
		kprintf("xhci: controller does not support 4 KiB pages (PAGESIZE 0x%x)\n",
			xhci_op_read(hc, XHCI_PAGESIZE));
		return USB_ERROR;
	}
	xhci_op_write(hc, XHCI_CONFIG, hc->max_slots);

	hc->dcbaa = xhci_alloc(hc, 1, &hc->dcbaa_phys);
	if (!hc->dcbaa)
		return USB_NOMEM;
	if ((rc = setup_scratchpads(hc)))
		return rc;
	xhci_write64(hc->op + XHCI_DCBAAP, hc->dcbaa_phys);

	trbs = xhci_alloc(hc, 1, &phys);
	if (!trbs)
		return USB_NOMEM;
	xhci_ring_init(&hc->cmd, trbs, phys, XHCI_RING_TRBS, true);
	xhci_write64(hc->op + XHCI_CRCR, phys | CRCR_RCS);

	trbs = xhci_alloc(hc, 1, &phys);
	hc->erst = xhci_alloc(hc, 1, &hc->erst_phys);
	if (!trbs || !hc->erst)
		return USB_NOMEM;
	xhci_ring_init(&hc->event, trbs, phys, XHCI_RING_TRBS, false);
	hc->erst[0].base = phys;
	hc->erst[0].size = XHCI_RING_TRBS;
	volatile uint8_t *ir = hc->rt + XHCI_IR0;
	xhci_write32(ir + XHCI_IMAN, IMAN_IP); /* IE = 0; clear a pending IP */
	xhci_write32(ir + XHCI_IMOD, 0);
	xhci_write32(ir + XHCI_ERSTSZ, 1);
	xhci_write64(ir + XHCI_ERDP, phys | ERDP_EHB);
	xhci_write64(ir + XHCI_ERSTBA, hc->erst_phys); /* last: enables the ring (4.9.4) */

	xhci_op_write(hc, XHCI_USBSTS, USBSTS_HSE | USBSTS_EINT | USBSTS_PCD); /* RW1C */
	xhci_op_write(hc, XHCI_USBCMD, USBCMD_RS);
	if (!xhci_wait_bits(hc->op + XHCI_USBSTS, USBSTS_HCH, 0, XHCI_HALT_MS)) {
		kprintf("xhci: controller did not start (USBSTS.HCH still 1 %u ms after USBCMD.R/S = 1, USBSTS 0x%x)\n",
			XHCI_HALT_MS, xhci_op_read(hc, XHCI_USBSTS));
		return USB_TIMEOUT;
	}
	hc->started_us = xhci_time_us();
	hc->running = true;
	return USB_OK;
}
