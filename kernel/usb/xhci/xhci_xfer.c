/*
 * xhci_xfer.c - transfers: control (Setup with Immediate Data, Data,
 * Status TRBs: 4.11.2.2) and bulk/interrupt (Normal TRBs chained into one
 * TD, split at 64 KiB boundaries, Interrupt on Short Packet on each, IOC
 * on the last), each waited for on the event ring; and a transfer ring
 * brought back after a stall or a timeout (endpoint recovery, at the end).
 *
 * A control transfer is three TDs (Setup, Data, Status Stage: only the
 * Data Stage's TRBs are chained), waited for as one.  A TD is matched to
 * its Transfer Events by slot, endpoint (DCI) and TRB address inside it.  It ends with the event for its last TRB, or an
 * event with an error, or (bulk) a Short Packet event: the controller
 * then skips to the TD's end, and a late event for the last TRB, if the
 * controller sends one, lies outside the next TD and is dropped.  Only
 * one TD per ring is ever outstanding, so the ring's dequeue pointer is
 * at the enqueue index when a TD starts.  Called by the one thread
 * driving the controller; buffers are physically contiguous (hci.h).
 */
#include "kernel/usb/xhci/xhci.h"

#include <arch/mmu.h>

#include "kernel/lib/libk.h"
#include "kernel/console/console.h"
#include "kernel/lib/printf.h"

struct td_match {
	uint8_t slot, dci;
	const struct xhci_ring *ring;
	uint32_t first, span; /* ring index of the first TRB; distance to the last */
};

static uint32_t ring_distance(const struct td_match *m, uint32_t idx)
{
	return (idx + m->ring->size - m->first) % m->ring->size;
}

static bool is_event_of_td(const struct xhci_trb *ev, void *ctx)
{
	const struct td_match *m = ctx;
	int idx;

	if (TRB_GET_TYPE(ev->control) != TRB_TRANSFER_EVENT || TRB_GET_SLOT(ev->control) != m->slot ||
	    TRB_GET_EP(ev->control) != m->dci)
		return false;
	idx = xhci_ring_index_of(m->ring, ev->param);
	return idx >= 0 && ring_distance(m, (uint32_t)idx) <= m->span;
}

/* The TD's piece number of a ring index (the link TRB is not a piece). */
static uint32_t piece_of(const struct td_match *m, uint32_t idx)
{
	return ring_distance(m, idx) - (idx < m->first ? 1 : 0);
}

static void td_open(struct td_match *m, struct usb_device *dev, unsigned dci, const struct xhci_ring *r)
{
	m->slot = dev->slot;
	m->dci = (uint8_t)dci;
	m->ring = r;
	m->first = r->index;
}

static void td_close(struct td_match *m, uint64_t last_trb)
{
	m->span = ring_distance(m, (uint32_t)xhci_ring_index_of(m->ring, last_trb));
}

static bool buffer_ok(struct usb_hci *hc, uint64_t phys, uint32_t len)
{
	xhci_dma_note_buffer(hc, phys, len);
	return phys + len <= hc->dma_limit && phys + len >= phys;
}

/* Push the data pieces as one TD: Normal TRBs (the first with
 * first_ctl's type and flags), each chained to the next, the last with
 * last_ctl instead of the chain bit (IOC for a bulk TD; nothing for a
 * control Data Stage, which ends there so that a short packet skips to
 * its end and not past the Status Stage); returns the last TRB. */
static uint64_t push_pieces(struct xhci_ring *r, const struct xhci_td_piece *p, unsigned n, uint32_t first_ctl,
			    uint32_t last_ctl)
{
	uint64_t at = 0;

	for (unsigned i = 0; i < n; i++) {
		bool last = i == n - 1;
		uint32_t ctl = (i == 0 ? first_ctl : TRB_TYPE(TRB_NORMAL)) | TRB_ISP;

		ctl |= last ? last_ctl : TRB_CH;
		at = xhci_ring_push(r, p[i].phys, TRB_LEN(p[i].len) | TRB_TD_SIZE(p[i].td_size), ctl);
	}
	return at;
}

int hci_control(struct usb_device *dev, const struct usb_setup *setup, void *data, uint32_t *actual)
{
	struct usb_hci *hc = dev->hci;
	struct xhci_slot *s = dev->hcpriv;
	struct xhci_ring *r = s ? s->ring[1] : NULL;
	bool in = (setup->bmRequestType & 0x80) != 0;
	uint32_t len = setup->wLength, got = len, cc;
	uint64_t param, phys = data ? virt_to_phys(data) : 0, status_trb;
	unsigned n = 0;
	struct td_match m;
	struct xhci_trb ev;

	if (actual)
		*actual = 0;
	if (!r || (len && (!data || !buffer_ok(hc, phys, len))))
		return USB_BADARG;
	if (len && !(n = xhci_td_split(phys, len, dev->ep0_mps, hc->version, hc->td, XHCI_RING_TRBS)))
		return USB_BADARG;
	memcpy(&param, setup, sizeof(param));

	td_open(&m, dev, 1, r);
	xhci_ring_td_begin(r);
	xhci_ring_push(r, param, TRB_LEN(8), TRB_TYPE(TRB_SETUP) | TRB_IDT | TRB_TRT(len ? (in ? 3 : 2) : 0));
	if (len)
		push_pieces(r, hc->td, n, TRB_TYPE(TRB_DATA) | (in ? TRB_DIR_IN : 0), 0);
	/* The status stage goes the other way (IN when there is no data). */
	status_trb = xhci_ring_push(r, 0, 0, TRB_TYPE(TRB_STATUS) | TRB_IOC | ((len && in) ? 0 : TRB_DIR_IN));
	td_close(&m, status_trb);
	xhci_ring_td_commit(r);
	xhci_ring_doorbell(hc, dev->slot, 1);

	for (;;) {
		if (!xhci_event_wait(hc, is_event_of_td, &m, XHCI_CONTROL_MS, &ev)) {
			kprintf("xhci: control transfer (bmRequestType 0x%02x bRequest %u wValue 0x%04x) on slot %u port %u "
				"got no completion in %u ms\n", setup->bmRequestType, setup->bRequest, setup->wValue,
				dev->slot, dev->root_port, XHCI_CONTROL_MS);
			xhci_ep_recover(hc, s, 1);
			return USB_TIMEOUT;
		}
		cc = TRB_COMPLETION(ev.status);
		if (cc == CC_SHORT_PACKET && ev.param != status_trb) {
			/* Short data stage: count it, then the status stage runs. */
			uint32_t k = piece_of(&m, (uint32_t)xhci_ring_index_of(r, ev.param)) - 1, done = 0;
			for (uint32_t i = 0; i < k && i < n; i++)
				done += hc->td[i].len;
			if (k < n)
				got = done + hc->td[k].len - MIN(TRB_RESIDUAL(ev.status), hc->td[k].len);
			continue;
		}
		break;
	}
	if (cc != CC_SUCCESS && cc != CC_SHORT_PACKET) {
		int rc = xhci_status_of(cc);
		if (rc != USB_STALL)
			kprintf("xhci: control transfer (bmRequestType 0x%02x bRequest %u) on slot %u: %s\n",
				setup->bmRequestType, setup->bRequest, dev->slot, xhci_completion_name(cc));
		/* ep0 halted: bring it back (the next SETUP clears the device's
		 * stall), so the USB layer can go on. */
		xhci_ep_recover(hc, s, 1);
		return rc;
	}
	if (actual)
		*actual = got;
	return USB_OK;
}

/* One TD of up to the ring's capacity in pieces. */
static int bulk_td(struct usb_device *dev, unsigned dci, uint64_t phys, uint32_t len, uint32_t *moved,
		   uint32_t timeout_ms, uint8_t ep_address)
{
	struct usb_hci *hc = dev->hci;
	struct xhci_slot *s = dev->hcpriv;
	struct xhci_ring *r = s->ring[dci];
	uint16_t mps = (uint16_t)(xhci_dev_ctx(s->out_ctx, hc->csz, dci)[1] >> 16);
	unsigned n = xhci_td_split(phys, len, mps, hc->version, hc->td, xhci_ring_capacity(r) - 1);
	struct td_match m;
	struct xhci_trb ev;
	uint32_t cc, k, done = 0;

	if (!n)
		return USB_BADARG;
	td_open(&m, dev, dci, r);
	xhci_ring_td_begin(r);
	td_close(&m, push_pieces(r, hc->td, n, TRB_TYPE(TRB_NORMAL), TRB_IOC));
	xhci_ring_td_commit(r);
	xhci_ring_doorbell(hc, dev->slot, dci);

	if (!xhci_event_wait(hc, is_event_of_td, &m, timeout_ms, &ev)) {
		kprintf("xhci: bulk %s transfer of %u bytes on slot %u endpoint 0x%02x (port %u) got no completion in %u ms\n",
			(ep_address & 0x80) ? "IN" : "OUT", len, dev->slot, ep_address, dev->root_port, timeout_ms);
		xhci_ep_recover(hc, s, dci);
		return USB_TIMEOUT;
	}
	cc = TRB_COMPLETION(ev.status);
	k = piece_of(&m, (uint32_t)xhci_ring_index_of(r, ev.param));
	for (uint32_t i = 0; i < k && i < n; i++)
		done += hc->td[i].len;
	if (k < n)
		done += hc->td[k].len - MIN(TRB_RESIDUAL(ev.status), hc->td[k].len);
	*moved = done;
	if (cc != CC_SUCCESS && cc != CC_SHORT_PACKET) {
		if (cc != CC_STALL)
			kprintf("xhci: bulk transfer on slot %u endpoint 0x%02x: %s\n", dev->slot, ep_address,
				xhci_completion_name(cc));
		return xhci_status_of(cc);
	}
	return USB_OK;
}

int hci_bulk(struct usb_device *dev, uint8_t ep_address, void *buf, uint32_t len, uint32_t *actual,
	     uint32_t timeout_ms)
{
	struct xhci_slot *s = dev->hcpriv;
	unsigned dci = xhci_dci(ep_address);
	uint64_t phys = buf ? virt_to_phys(buf) : 0;
	uint32_t done = 0;
	int rc = USB_OK;

	if (actual)
		*actual = 0;
	if (!s || dci < 2 || !s->ring[dci] || (len && !buf) || !buffer_ok(dev->hci, phys, len))
		return USB_BADARG;
	/* TDs of at most capacity-2 full 64 KiB pieces (one more if the
	 * buffer is not 64 KiB aligned), a multiple of any max packet size,
	 * so only the transfer's last TD may end in a short packet. */
	uint32_t td_max = (xhci_ring_capacity(s->ring[dci]) - 2) * 0x10000u;
	do {
		uint32_t part = MIN(len - done, td_max), moved = 0;

		rc = bulk_td(dev, dci, phys + done, part, &moved, timeout_ms, ep_address);
		done += moved;
		if (rc || moved < part)
			break;
	} while (done < len);
	if (actual)
		*actual = done;
	return rc;
}

int hci_clear_halt(struct usb_device *dev, uint8_t ep_address)
{
	struct xhci_slot *s = dev->hcpriv;
	unsigned dci = xhci_dci(ep_address);

	if (!s || dci < 2 || !s->ring[dci])
		return USB_BADARG;
	return xhci_ep_clear_halt(dev->hci, s, dci);
}

/*
 * Endpoint recovery: bringing a transfer ring back after a stall or a
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
