/*
 * xhci_endpoint.c - bringing a transfer ring back after a stall or a
 * transfer that never completed: Reset Endpoint (halted -> stopped; the
 * host's data toggle / sequence number restarts), Stop Endpoint (running
 * -> stopped), then Set TR Dequeue Pointer to the software enqueue index
 * with the ring's cycle state, which drops whatever TRBs the controller
 * had not finished.
 *
 * Invariant afterwards: the endpoint is stopped with its dequeue pointer
 * equal to the ring's enqueue index; the next doorbell starts the next
 * TD.  Called by the thread driving the controller.
 *
 * Clearing a halt (xhci_ep_clear_halt, for CLEAR_FEATURE(ENDPOINT_HALT),
 * after which the device's toggle is DATA0): the host's toggle must
 * restart too, also on an endpoint that never stalled (BOT reset recovery
 * clears both bulk endpoints).  Reset Endpoint does that only from the
 * Halted state (4.6.8); a running or stopped endpoint is stopped and then
 * dropped and added again with Configure Endpoint (4.6.6: an added
 * endpoint's toggle / sequence number starts at 0), as Linux's
 * xhci_endpoint_reset does.
 */
#include "kernel/usb/xhci/xhci.h"

unsigned xhci_ep_state(struct usb_hci *hc, struct xhci_slot *s, unsigned dci)
{
	return EP_GET_STATE(xhci_dev_ctx(s->out_ctx, hc->csz, dci)[0]);
}

int xhci_ep_recover(struct usb_hci *hc, struct xhci_slot *s, unsigned dci)
{
	uint32_t cc, slot = TRB_SLOT(s->dev->slot);
	struct xhci_ring *r = s->ring[dci];
	unsigned state = xhci_ep_state(hc, s, dci);
	int rc;

	if (!r)
		return USB_BADARG;
	if (state == EP_STATE_HALTED)
		rc = xhci_command(hc, 0, TRB_TYPE(TRB_RESET_ENDPOINT) | slot | TRB_EP(dci), &cc, 0);
	else if (state == 1) /* running */
		rc = xhci_command(hc, 0, TRB_TYPE(TRB_STOP_ENDPOINT) | slot | TRB_EP(dci), &cc, 0);
	else
		rc = USB_OK; /* stopped or error: the dequeue pointer may be set */
	if (rc)
		return rc;
	r->td_first = -1;
	return xhci_command(hc, xhci_ring_enqueue_ptr(r), TRB_TYPE(TRB_SET_TR_DEQUEUE) | slot | TRB_EP(dci), &cc, 0);
}

int xhci_ep_clear_halt(struct usb_hci *hc, struct xhci_slot *s, unsigned dci)
{
	uint32_t cc, slot = TRB_SLOT(s->dev->slot);
	unsigned state = xhci_ep_state(hc, s, dci);
	int rc;

	if (!s->ring[dci])
		return USB_BADARG;
	if (state == EP_STATE_HALTED)
		return xhci_ep_recover(hc, s, dci); /* Reset Endpoint restarts the toggle */
	if (state == 1 && (rc = xhci_command(hc, 0, TRB_TYPE(TRB_STOP_ENDPOINT) | slot | TRB_EP(dci), &cc, 0)))
		return rc;
	return xhci_ep_readd(hc, s, dci);
}
