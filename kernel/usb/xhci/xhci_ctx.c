/*
 * xhci_ctx.c - device and input contexts (6.2): where each context lies
 * for 32- and 64-byte contexts (HCCPARAMS1.CSZ) and how the slot and
 * endpoint contexts are filled from what the USB layer knows.
 *
 * Software writes only input contexts; the device (output) context is the
 * controller's and is only read (slot state, endpoint state).
 */
#include "kernel/usb/xhci/xhci.h"

#include "kernel/lib/libk.h"

uint32_t *xhci_dev_ctx(void *base, unsigned csz, unsigned i)
{
	return (uint32_t *)((uint8_t *)base + (size_t)i * csz);
}

uint32_t *xhci_in_ctx(void *base, unsigned csz, unsigned i)
{
	return (uint32_t *)((uint8_t *)base + (size_t)i * csz);
}

void xhci_ctx_slot(uint32_t *slot, const struct usb_device *dev, unsigned entries)
{
	slot[0] = SLOT_ROUTE(dev->route) | SLOT_SPEED(dev->speed) | SLOT_ENTRIES(entries);
	slot[1] = SLOT_ROOT_PORT(dev->root_port);
	slot[2] = 0;
	/* A low/full-speed device behind a high-speed hub is reached through
	 * that hub's transaction translator. */
	if (dev->tt_slot && (dev->speed == USB_SPEED_LOW || dev->speed == USB_SPEED_FULL))
		slot[2] = SLOT_TT_SLOT(dev->tt_slot) | SLOT_TT_PORT(dev->tt_port);
	slot[3] = 0;
}

void xhci_ctx_ep0(uint32_t *ep, uint16_t mps, uint64_t deq)
{
	ep[0] = 0;
	ep[1] = EP_CERR(3) | EP_TYPE(EP_CONTROL) | EP_MPS(mps);
	ep[2] = (uint32_t)deq;
	ep[3] = (uint32_t)(deq >> 32);
	ep[4] = EP_AVG_TRB_LEN(8); /* 6.2.3: 8 for control endpoints */
}

/* bInterval as the Interval field: 2^Interval x 125 us (6.2.3.6). */
static unsigned ep_interval(const struct usb_endpoint *e, enum usb_speed speed)
{
	unsigned iv = e->interval, exp = 0;

	if (e->type == 2 || e->type == 0)
		return 0; /* bulk and control: no service interval (NAK rate unused) */
	if (speed == USB_SPEED_HIGH || speed == USB_SPEED_SUPER || e->type == 1) {
		/* Already an exponent: 2^(bInterval-1) (micro)frames. */
		iv = iv ? iv - 1 : 0;
		if (speed == USB_SPEED_FULL) /* full-speed isochronous: frames */
			iv += 3;
		return MIN(iv, 15u);
	}
	/* Low/full-speed interrupt: bInterval frames of 1 ms = 8 x 125 us;
	 * the largest power of two not above it, at least 8 (3). */
	iv = iv ? iv * 8 : 8;
	while ((2u << exp) <= iv)
		exp++;
	return MIN(MAX(exp, 3u), 10u);
}

int xhci_ctx_endpoint(uint32_t *ep, const struct usb_endpoint *e, enum usb_speed speed, uint64_t deq)
{
	static const uint8_t out_type[4] = { EP_CONTROL, EP_ISOCH_OUT, EP_BULK_OUT, EP_INTERRUPT_OUT };
	bool in = (e->address & 0x80) != 0;
	unsigned type, mps = e->max_packet & 0x7FF, burst = 0, avg;

	if (e->type > 3)
		return -1;
	type = e->type == 0 ? EP_CONTROL : out_type[e->type] + (in ? 4u : 0u);
	if (speed == USB_SPEED_SUPER)
		burst = e->max_burst;
	else if (speed == USB_SPEED_HIGH && (e->type == 1 || e->type == 3))
		burst = (e->max_packet >> 11) & 3; /* additional transactions per microframe */
	avg = e->type == 2 ? 3072 : e->type == 0 ? 8 : mps * (burst + 1);

	memset(ep, 0, 5 * sizeof(uint32_t));
	ep[0] = EP_INTERVAL(ep_interval(e, speed));
	/* CErr 3 except isochronous, which is not retried (6.2.3). */
	ep[1] = EP_CERR(e->type == 1 ? 0 : 3) | EP_TYPE(type) | EP_MAX_BURST(burst) | EP_MPS(mps);
	ep[2] = (uint32_t)deq;
	ep[3] = (uint32_t)(deq >> 32);
	ep[4] = EP_AVG_TRB_LEN(avg);
	if (e->type == 1 || e->type == 3)
		ep[4] |= EP_MAX_ESIT_LO(mps * (burst + 1)); /* Max ESIT Payload */
	return 0;
}
