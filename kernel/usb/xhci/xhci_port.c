/*
 * xhci_port.c - root hub ports: which protocol each speaks (Supported
 * Protocol capabilities, 7.2: never a fixed numbering), port power, and
 * port reset (4.19.5): USB 2 ports by PORTSC.PR; USB 3 ports train their
 * link on their own and get a hot reset (PR), or a warm reset (WPR) when
 * the link sits in SS.Inactive or Compliance Mode.
 *
 * PORTSC is written only as (read & PORTSC_PRESERVE) | bits: its change
 * bits are RW1C and PED is disabled by writing 1, so nothing else may be
 * written back as read.  Called by the thread driving the controller.
 */
#include "kernel/usb/xhci/xhci.h"

#include "kernel/console/console.h"
#include "kernel/lib/printf.h"

static volatile uint8_t *portsc(struct usb_hci *hc, unsigned port)
{
	return hc->op + XHCI_PORTSC(port);
}

static void port_write(struct usb_hci *hc, unsigned port, uint32_t bits)
{
	volatile uint8_t *r = portsc(hc, port);

	xhci_write32(r, (xhci_read32(r) & PORTSC_PRESERVE) | bits);
}

void xhci_read_protocols(struct usb_hci *hc)
{
	for (uint32_t off = xhci_xecp_find(hc, 0, XECP_PROTOCOL); off; off = xhci_xecp_find(hc, off, XECP_PROTOCOL)) {
		uint32_t d0 = xhci_read32(hc->cap + off), d2 = xhci_read32(hc->cap + off + 8);
		unsigned major = d0 >> 24, minor = (d0 >> 16) & 0xFF, first = d2 & 0xFF, count = (d2 >> 8) & 0xFF;

		kprintf("xhci: ports %u-%u speak USB %x.%02x\n", first, first + count - 1, major, minor);
		for (unsigned p = first; p < first + count && p <= hc->max_ports && p; p++)
			hc->port_major[p] = (uint8_t)major;
	}
}

void xhci_power_ports(struct usb_hci *hc)
{
	bool powered = false;

	if (!(hc->hccparams1 & HCCPARAMS1_PPC))
		return; /* ports are always powered */
	for (unsigned p = 1; p <= hc->max_ports; p++) {
		if (!(xhci_read32(portsc(hc, p)) & PORTSC_PP)) {
			port_write(hc, p, PORTSC_PP);
			powered = true;
		}
	}
	if (powered)
		xhci_delay_us(20000); /* power-on to power-good (USB 2.0 11.23.2.1: bPwrOn2PwrGood, 20 ms) */
}

unsigned hci_port_count(struct usb_hci *hc)
{
	return hc->max_ports;
}

static enum usb_speed port_speed(uint32_t v)
{
	unsigned s = PORTSC_SPEED(v);

	/* Default Protocol Speed IDs (7.2.2.1.1); SuperSpeedPlus as SuperSpeed. */
	return s >= USB_SPEED_SUPER ? USB_SPEED_SUPER : (enum usb_speed)s;
}

/* A device connected? Devices need a while after the controller starts
 * (USB 3 link training, USB 2 debounce): wait until XHCI_CONNECT_MS after
 * the start before answering no. */
static bool wait_connect(struct usb_hci *hc, unsigned port)
{
	uint64_t end = hc->started_us + XHCI_CONNECT_MS * 1000ull;

	for (;;) {
		bool past = xhci_time_us() >= end;
		if (xhci_read32(portsc(hc, port)) & PORTSC_CCS)
			return true;
		if (past)
			return false;
		xhci_delay_us(1000);
	}
}

int hci_port_reset(struct usb_hci *hc, unsigned port, enum usb_speed *speed)
{
	volatile uint8_t *r;
	uint32_t v, reset, change;
	bool usb3;

	*speed = USB_SPEED_NONE;
	if (port == 0 || port > hc->max_ports)
		return USB_BADARG;
	r = portsc(hc, port);
	if (!wait_connect(hc, port))
		return USB_NODEV;
	v = xhci_read32(r);
	usb3 = hc->port_major[port] == 3;
	if (usb3 && (PORTSC_PLS(v) == PLS_SS_INACTIVE || PORTSC_PLS(v) == PLS_COMPLIANCE)) {
		reset = PORTSC_WPR;
		change = PORTSC_WRC;
	} else {
		reset = PORTSC_PR;
		change = PORTSC_PRC;
	}
	port_write(hc, port, PORTSC_CHANGE_BITS & xhci_read32(r)); /* clear old changes */
	port_write(hc, port, reset);
	if (!xhci_wait_bits(r, change, change, XHCI_PORT_RESET_MS)) {
		kprintf("xhci: port %u (USB %u): %s did not finish in %u ms (PORTSC 0x%08x)\n", port, usb3 ? 3 : 2,
			reset == PORTSC_WPR ? "warm reset" : "reset", XHCI_PORT_RESET_MS, xhci_read32(r));
		return USB_TIMEOUT;
	}
	port_write(hc, port, PORTSC_CHANGE_BITS & xhci_read32(r));
	/* Enabled once the link is in U0 after the reset (USB 3 may take a
	 * moment more); disconnected meanwhile: no device. */
	if (!xhci_wait_bits(r, PORTSC_PED | PORTSC_PR, PORTSC_PED, XHCI_PORT_RESET_MS)) {
		v = xhci_read32(r);
		if (!(v & PORTSC_CCS))
			return USB_NODEV;
		kprintf("xhci: port %u (USB %u): not enabled after reset (PORTSC 0x%08x)\n", port, usb3 ? 3 : 2, v);
		return USB_TIMEOUT;
	}
	*speed = port_speed(xhci_read32(r));
	xhci_delay_us(10000); /* reset recovery, TRSTRCY (USB 2.0 7.1.7.5) */
	return USB_OK;
}
