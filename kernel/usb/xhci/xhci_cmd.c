/*
 * xhci_cmd.c - the command ring (4.6): one command at a time, each waited
 * for by its Command Completion Event (matched by the command TRB's
 * address), and doorbells.
 *
 * Invariant: when xhci_command() returns, the controller holds no command
 * of ours: a command that got no completion in time is aborted (CRCR.CA),
 * and the Command Ring Stopped event that follows is consumed, so the
 * next command starts from a stopped, consistent ring.
 */
#include "kernel/usb/xhci/xhci.h"

#include <arch/barrier.h>

#include "kernel/console/console.h"
#include "kernel/lib/printf.h"

const char *xhci_command_name(unsigned type)
{
	switch (type) {
	case TRB_ENABLE_SLOT: return "Enable Slot";
	case TRB_DISABLE_SLOT: return "Disable Slot";
	case TRB_ADDRESS_DEVICE: return "Address Device";
	case TRB_CONFIGURE_ENDPOINT: return "Configure Endpoint";
	case TRB_EVALUATE_CONTEXT: return "Evaluate Context";
	case TRB_RESET_ENDPOINT: return "Reset Endpoint";
	case TRB_STOP_ENDPOINT: return "Stop Endpoint";
	case TRB_SET_TR_DEQUEUE: return "Set TR Dequeue Pointer";
	case TRB_NOOP_CMD: return "No Op";
	default: return "command";
	}
}

void xhci_ring_doorbell(struct usb_hci *hc, unsigned slot, unsigned target)
{
	arch_dma_wmb(); /* the TRBs (in memory the controller reads) before the doorbell that sends it to them */
	xhci_write32(&hc->db[slot], target);
}

struct cmd_match {
	uint64_t trb;
};

static bool is_completion_of(const struct xhci_trb *ev, void *ctx)
{
	const struct cmd_match *m = ctx;

	return TRB_GET_TYPE(ev->control) == TRB_COMMAND_COMPLETION && ev->param == m->trb;
}

/* The Command Ring Stopped event ends an abort; a Command Aborted
 * completion for the command in progress comes before it and is dropped.
 * Its TRB pointer is where the next command goes, so it must not be left
 * for that command's wait to take as its completion. */
static bool is_ring_stopped(const struct xhci_trb *ev, void *ctx)
{
	(void)ctx;
	return TRB_GET_TYPE(ev->control) == TRB_COMMAND_COMPLETION &&
	       TRB_COMPLETION(ev->status) == CC_COMMAND_RING_STOPPED;
}

/* Stop the command ring after a command that never completed (4.6.1.2). */
static void abort_command(struct usb_hci *hc)
{
	struct xhci_trb ev;

	/* The low dword only: a 64-bit write's upper half could land after
	 * the ring stopped (CRR = 0), when the pointer field is writable,
	 * and zero the ring's upper address bits.  The low half carries our
	 * enqueue pointer and cycle, right if it lands after the stop too. */
	xhci_write32(hc->op + XHCI_CRCR, (uint32_t)xhci_ring_enqueue_ptr(&hc->cmd) | CRCR_CA);
	if (!xhci_wait_bits(hc->op + XHCI_CRCR, CRCR_CRR, 0, XHCI_COMMAND_MS))
		kprintf("xhci: command ring still running (CRCR.CRR) %u ms after Command Abort\n", XHCI_COMMAND_MS);
	if (!xhci_event_wait(hc, is_ring_stopped, 0, XHCI_COMMAND_MS, &ev))
		kprintf("xhci: no Command Ring Stopped event %u ms after Command Abort\n", XHCI_COMMAND_MS);
}

int xhci_command(struct usb_hci *hc, uint64_t param, uint32_t control, uint32_t *cc, uint8_t *slot_id)
{
	struct cmd_match m;
	struct xhci_trb ev;
	unsigned type = TRB_GET_TYPE(control);

	m.trb = xhci_ring_push(&hc->cmd, param, 0, control);
	xhci_ring_doorbell(hc, 0, 0);
	if (!xhci_event_wait(hc, is_completion_of, &m, XHCI_COMMAND_MS, &ev)) {
		kprintf("xhci: command %s (slot %u, endpoint %u) got no completion event in %u ms\n",
			xhci_command_name(type), TRB_GET_SLOT(control), TRB_GET_EP(control), XHCI_COMMAND_MS);
		abort_command(hc);
		return USB_TIMEOUT;
	}
	*cc = TRB_COMPLETION(ev.status);
	if (slot_id)
		*slot_id = (uint8_t)TRB_GET_SLOT(ev.control);
	if (*cc != CC_SUCCESS) {
		kprintf("xhci: command %s (slot %u, endpoint %u) failed: %s (completion code %u)\n",
			xhci_command_name(type), TRB_GET_SLOT(control), TRB_GET_EP(control),
			xhci_completion_name(*cc), *cc);
		return xhci_status_of(*cc) == USB_OK ? USB_ERROR : xhci_status_of(*cc);
	}
	return USB_OK;
}
