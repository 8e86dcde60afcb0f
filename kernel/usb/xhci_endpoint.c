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
 */
#include "kernel/usb/xhci.h"

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
