/*
 * xhci_device.c - a device's slot: Enable Slot, Address Device (the
 * controller sends SET_ADDRESS), ep0's max packet size through Evaluate
 * Context, the hub fields of the slot context, and Configure Endpoint for
 * the endpoints the USB layer chose (4.3, 4.6.3-4.6.7).
 *
 * Ownership: the slot's input context is software's and rewritten before
 * each command; the output context and DCBAA[slot] are the controller's
 * from Address Device on.  Called by the thread driving the controller.
 */
#include "kernel/usb/xhci/xhci.h"

#include "kernel/lib/libk.h"
#include "kernel/console/console.h"
#include "kernel/lib/printf.h"
#include "kernel/mm/heap.h"

#define USB_DT_DEVICE 1

static uint16_t default_mps(uint8_t speed)
{
	switch (speed) {
	case USB_SPEED_SUPER: return 512;
	case USB_SPEED_HIGH: return 64;
	default: return 8; /* low speed always, full speed until asked */
	}
}

/* Fresh input context with the given Add flags; returns it. */
static uint32_t *input_control(struct usb_hci *hc, struct xhci_slot *s, uint32_t add)
{
	memset(s->in_ctx, 0, (size_t)33 * hc->csz);
	uint32_t *icc = xhci_in_ctx(s->in_ctx, hc->csz, 0);
	icc[INPUT_ADD] = add;
	return icc;
}

/* The slot context as the controller has it, for commands that change
 * it (the input copy must be complete: 6.2.2.2). */
static uint32_t *input_slot_from_output(struct usb_hci *hc, struct xhci_slot *s)
{
	uint32_t *in = xhci_in_ctx(s->in_ctx, hc->csz, 1), *out = xhci_dev_ctx(s->out_ctx, hc->csz, 0);

	memcpy(in, out, 4 * sizeof(uint32_t));
	in[3] = 0; /* device address and slot state are the controller's */
	return in;
}

static void slot_free(struct usb_hci *hc, struct xhci_slot *s)
{
	for (unsigned i = 0; i < 32; i++) {
		if (s->ring[i]) {
			xhci_free(s->ring[i]->trb, 1);
			kfree(s->ring[i]);
		}
	}
	xhci_free(s->in_ctx, 1);
	xhci_free(s->out_ctx, 1);
	kfree(s);
}

static void slot_disable(struct usb_hci *hc, struct usb_device *dev)
{
	uint32_t cc;

	xhci_command(hc, 0, TRB_TYPE(TRB_DISABLE_SLOT) | TRB_SLOT(dev->slot), &cc, 0);
	hc->dcbaa[dev->slot] = 0;
	hc->slot[dev->slot] = NULL;
	dev->slot = 0;
	dev->hcpriv = NULL;
}

/* A device added again where a slot already has one (a port reset after
 * usb.probe, or a retry of the USB layer) is the same place on the bus:
 * the old slot is stale, and a controller may refuse to address a second
 * slot on the same port (QEMU does).  Disable it; the usb_device that
 * held it must not be used again. */
static void replace_stale_slot(struct usb_hci *hc, const struct usb_device *dev)
{
	for (unsigned i = 1; i <= hc->max_slots; i++) {
		struct xhci_slot *old = hc->slot[i];
		uint32_t cc;

		if (!old || old->root_port != dev->root_port || old->route != dev->route)
			continue;
		kprintf("xhci: root port %u route 0x%x: device added again, slot %u disabled\n", dev->root_port,
			dev->route, i);
		xhci_command(hc, 0, TRB_TYPE(TRB_DISABLE_SLOT) | TRB_SLOT(i), &cc, 0);
		hc->dcbaa[i] = 0;
		hc->slot[i] = NULL;
		slot_free(hc, old);
	}
}

/* Full speed: ep0's max packet size is in byte 7 of the device
 * descriptor (8, 16, 32 or 64); tell the controller if it is not 8. */
static int learn_ep0_mps(struct usb_hci *hc, struct usb_device *dev, struct xhci_slot *s)
{
	struct usb_setup get = { 0x80, 6, USB_DT_DEVICE << 8, 0, 8 };
	uint64_t phys;
	uint8_t *desc = xhci_alloc(hc, 1, &phys); /* a page: contiguous */
	uint32_t got = 0, cc;
	int rc;

	if (!desc)
		return USB_NOMEM;
	rc = hci_control(dev, &get, desc, &got);
	uint16_t mps = desc[7];
	xhci_free(desc, 1);
	if (rc)
		return rc;
	if (got < 8 || (mps != 8 && mps != 16 && mps != 32 && mps != 64)) {
		kprintf("xhci: slot %u: device descriptor gives ep0 max packet size %u (%u bytes read)\n", dev->slot,
			mps, got);
		return USB_ERROR;
	}
	if (mps == dev->ep0_mps)
		return USB_OK;
	input_control(hc, s, 1u << 1);
	uint32_t *ep0 = xhci_in_ctx(s->in_ctx, hc->csz, 2);
	memcpy(ep0, xhci_dev_ctx(s->out_ctx, hc->csz, 1), 5 * sizeof(uint32_t));
	ep0[1] = (ep0[1] & 0xFFFF) | EP_MPS(mps);
	rc = xhci_command(hc, s->in_phys, TRB_TYPE(TRB_EVALUATE_CONTEXT) | TRB_SLOT(dev->slot), &cc, 0);
	if (rc == USB_OK)
		dev->ep0_mps = mps;
	return rc;
}

int hci_device_add(struct usb_hci *hc, struct usb_device *dev)
{
	struct xhci_slot *s;
	uint32_t cc;
	uint8_t slot_id = 0;
	int rc;

	if (dev->speed < USB_SPEED_FULL || dev->speed > USB_SPEED_SUPER || !dev->root_port ||
	    dev->root_port > hc->max_ports)
		return USB_BADARG;
	replace_stale_slot(hc, dev);
	rc = xhci_command(hc, 0, TRB_TYPE(TRB_ENABLE_SLOT), &cc, &slot_id);
	if (rc)
		return rc;
	s = kzalloc(sizeof(*s));
	if (s) {
		s->in_ctx = xhci_alloc(hc, 1, &s->in_phys);
		s->out_ctx = xhci_alloc(hc, 1, &s->out_phys);
		s->ring[1] = xhci_ring_alloc(hc, true);
	}
	dev->hci = hc;
	dev->slot = slot_id;
	dev->hcpriv = s;
	if (!s || !s->in_ctx || !s->out_ctx || !s->ring[1]) {
		if (s)
			slot_free(hc, s);
		slot_disable(hc, dev);
		return USB_NOMEM;
	}
	s->dev = dev;
	s->root_port = dev->root_port;
	s->route = dev->route;
	hc->slot[slot_id] = s;
	hc->dcbaa[slot_id] = s->out_phys;
	dev->ep0_mps = default_mps(dev->speed);

	input_control(hc, s, (1u << 0) | (1u << 1));
	xhci_ctx_slot(xhci_in_ctx(s->in_ctx, hc->csz, 1), dev, 1);
	xhci_ctx_ep0(xhci_in_ctx(s->in_ctx, hc->csz, 2), dev->ep0_mps, xhci_ring_enqueue_ptr(s->ring[1]));
	rc = xhci_command(hc, s->in_phys, TRB_TYPE(TRB_ADDRESS_DEVICE) | TRB_SLOT(slot_id), &cc, 0);
	if (rc == USB_OK) {
		xhci_delay_us(2000); /* SET_ADDRESS recovery (USB 2.0 9.2.6.3) */
		if (dev->speed == USB_SPEED_FULL)
			rc = learn_ep0_mps(hc, dev, s);
	}
	if (rc) {
		kprintf("xhci: root port %u route 0x%x: device not addressed (%s)\n", dev->root_port, dev->route,
			usb_status_name(rc));
		slot_disable(hc, dev);
		slot_free(hc, s);
		return rc;
	}
	return USB_OK;
}

void hci_device_remove(struct usb_device *dev)
{
	struct xhci_slot *s = dev->hcpriv;

	if (!dev->slot || !s)
		return;
	slot_disable(dev->hci, dev);
	slot_free(dev->hci, s);
}

int hci_hub_configure(struct usb_device *dev, unsigned nports, bool multi_tt, unsigned tt_think_time)
{
	struct usb_hci *hc = dev->hci;
	struct xhci_slot *s = dev->hcpriv;
	uint32_t cc, *slot;

	if (!s || nports > 255 || tt_think_time > 3)
		return USB_BADARG;
	input_control(hc, s, 1u << 0);
	slot = input_slot_from_output(hc, s);
	slot[0] |= SLOT_HUB | (multi_tt ? SLOT_MTT : 0);
	slot[1] = (slot[1] & 0x00FFFFFF) | SLOT_NUM_PORTS(nports);
	if (dev->speed == USB_SPEED_HIGH)
		slot[2] = (slot[2] & ~SLOT_TTT(3)) | SLOT_TTT(tt_think_time);
	/* 4.6.7: since xHCI 1.0 the hub fields go through Configure Endpoint
	 * (Evaluate Context evaluates only a few slot fields). */
	return xhci_command(hc, s->in_phys, TRB_TYPE(TRB_CONFIGURE_ENDPOINT) | TRB_SLOT(s->dev->slot), &cc, 0);
}

int hci_configure(struct usb_device *dev, const struct usb_endpoint *eps, unsigned n)
{
	struct usb_hci *hc = dev->hci;
	struct xhci_slot *s = dev->hcpriv;
	uint32_t add = 1u << 0, cc, *slot;
	unsigned last = 1;

	if (!s)
		return USB_BADARG;
	input_control(hc, s, 0);
	for (unsigned i = 0; i < n; i++) {
		unsigned dci = xhci_dci(eps[i].address);

		if (dci < 2 || eps[i].type == 0 || eps[i].type > 3)
			return USB_BADARG;
		if (!s->ring[dci] && !(s->ring[dci] = xhci_ring_alloc(hc, true)))
			return USB_NOMEM;
		xhci_ring_init(s->ring[dci], s->ring[dci]->trb, s->ring[dci]->phys, s->ring[dci]->size, true);
		if (xhci_ctx_endpoint(xhci_in_ctx(s->in_ctx, hc->csz, dci + 1), &eps[i], dev->speed,
				      xhci_ring_enqueue_ptr(s->ring[dci])))
			return USB_BADARG;
		/* An endpoint enabled already is dropped and added again. */
		if (xhci_ep_state(hc, s, dci) != 0)
			xhci_in_ctx(s->in_ctx, hc->csz, 0)[INPUT_DROP] |= 1u << dci;
		add |= 1u << dci;
		last = MAX(last, dci);
	}
	xhci_in_ctx(s->in_ctx, hc->csz, 0)[INPUT_ADD] = add;
	slot = input_slot_from_output(hc, s);
	if (SLOT_GET_STATE(xhci_dev_ctx(s->out_ctx, hc->csz, 0)[3]) == 0)
		return USB_NODEV;
	last = MAX(last, slot[0] >> 27);
	slot[0] = (slot[0] & 0x07FFFFFF) | SLOT_ENTRIES(last);
	return xhci_command(hc, s->in_phys, TRB_TYPE(TRB_CONFIGURE_ENDPOINT) | TRB_SLOT(s->dev->slot), &cc, 0);
}

int xhci_ep_readd(struct usb_hci *hc, struct xhci_slot *s, unsigned dci)
{
	uint32_t cc, *icc, *ep;

	if (dci < 2 || dci > 31 || !s->ring[dci])
		return USB_BADARG;
	icc = input_control(hc, s, (1u << 0) | (1u << dci));
	icc[INPUT_DROP] = 1u << dci;
	input_slot_from_output(hc, s);
	/* The endpoint as the controller has it (type, packet size, burst,
	 * interval), without its state, at the ring's enqueue index. */
	ep = xhci_in_ctx(s->in_ctx, hc->csz, dci + 1);
	memcpy(ep, xhci_dev_ctx(s->out_ctx, hc->csz, dci), 5 * sizeof(uint32_t));
	ep[0] &= ~7u;
	uint64_t deq = xhci_ring_enqueue_ptr(s->ring[dci]);
	ep[2] = (uint32_t)deq;
	ep[3] = (uint32_t)(deq >> 32);
	s->ring[dci]->td_first = -1;
	return xhci_command(hc, s->in_phys, TRB_TYPE(TRB_CONFIGURE_ENDPOINT) | TRB_SLOT(s->dev->slot), &cc, 0);
}
