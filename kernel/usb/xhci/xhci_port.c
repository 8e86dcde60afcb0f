/*
 * xhci_port.c - root hub ports: which protocol each speaks (Supported
 * Protocol capabilities, 7.2: never a fixed numbering), port power, and
 * port reset (4.19.5): USB 2 ports by PORTSC.PR; USB 3 ports train their
 * link on their own and get a hot reset (PR), or a warm reset (WPR, 4.19.8)
 * when PORTSC.CAS is set, the link sits in SS.Inactive or Compliance
 * Mode, or stays in Polling past XHCI_POLLING_MS; a hot reset that fails
 * on a USB 3 port is tried again as a warm reset, as Linux does.
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

/* A USB 3 port only a warm reset brings back (xHCI 1.2 4.19.8; Linux's
 * hub_port_warm_reset_required, and its xHCI root hub reporting CAS as
 * Compliance): Cold Attach Status, or the link in SS.Inactive or
 * Compliance Mode.  NULL if none, else what was seen. */
static const char *warm_reset_reason(uint32_t v)
{
	if (v & PORTSC_CAS)
		return "cold attach status (PORTSC.CAS)";
	if (PORTSC_PLS(v) == PLS_SS_INACTIVE)
		return "link in SS.Inactive";
	if (PORTSC_PLS(v) == PLS_COMPLIANCE)
		return "link in Compliance Mode";
	return NULL;
}

/* A device connected?  Devices need a while after the controller starts
 * (USB 3 link training, USB 2 debounce): wait until XHCI_CONNECT_MS after
 * the start before answering no.  A USB 3 port that needs a warm reset
 * (its CCS may read 0: a cold attach) has a device too; so has one whose
 * link sits in Polling, which is waited for XHCI_POLLING_MS more and then
 * counts as needing a warm reset.  *warm gets the reason, or NULL. */
static bool wait_connect(struct usb_hci *hc, unsigned port, bool usb3, const char **warm)
{
	uint64_t end = hc->started_us + XHCI_CONNECT_MS * 1000ull, polling_since = 0;
	bool polling = false;

	*warm = NULL;
	for (;;) {
		uint64_t now = xhci_time_us();
		uint32_t v = xhci_read32(portsc(hc, port));

		if (usb3 && (*warm = warm_reset_reason(v)) != NULL)
			return true;
		if (usb3 && PORTSC_PLS(v) == PLS_POLLING) {
			if (!polling)
				polling_since = now;
			polling = true;
			if (now - polling_since >= XHCI_POLLING_MS * 1000ull) {
				*warm = "link stuck in Polling";
				return true;
			}
		} else {
			polling = false;
			if (v & PORTSC_CCS)
				return true;
			if (now >= end)
				return false;
		}
		xhci_delay_us(1000);
	}
}

/* One reset, hot (PR) or warm (WPR), and the wait for the port to come
 * up enabled. */
static int port_reset_once(struct usb_hci *hc, unsigned port, bool usb3, bool warm)
{
	volatile uint8_t *r = portsc(hc, port);
	uint32_t reset = warm ? PORTSC_WPR : PORTSC_PR, change = warm ? PORTSC_WRC : PORTSC_PRC, v;
	const char *what = warm ? "warm reset" : "reset";

	port_write(hc, port, PORTSC_CHANGE_BITS & xhci_read32(r)); /* clear old changes */
	port_write(hc, port, reset);
	if (!xhci_wait_bits(r, change, change, XHCI_PORT_RESET_MS)) {
		kprintf("xhci: port %u (USB %u): %s did not finish in %u ms (PORTSC 0x%08x)\n", port, usb3 ? 3 : 2,
			what, XHCI_PORT_RESET_MS, xhci_read32(r));
		return USB_TIMEOUT;
	}
	port_write(hc, port, PORTSC_CHANGE_BITS & xhci_read32(r));
	/* Enabled once the link is in U0 after the reset (USB 3 may take a
	 * moment more); disconnected meanwhile: no device. */
	if (!xhci_wait_bits(r, PORTSC_PED | PORTSC_PR | PORTSC_WPR, PORTSC_PED, XHCI_PORT_RESET_MS)) {
		v = xhci_read32(r);
		if (!(v & PORTSC_CCS) && !(usb3 && warm_reset_reason(v)))
			return USB_NODEV;
		kprintf("xhci: port %u (USB %u): not enabled after %s (PORTSC 0x%08x)\n", port, usb3 ? 3 : 2, what, v);
		return USB_TIMEOUT;
	}
	return USB_OK;
}

int hci_port_reset(struct usb_hci *hc, unsigned port, enum usb_speed *speed)
{
	const char *warm;
	bool usb3;
	int rc;

	*speed = USB_SPEED_NONE;
	if (port == 0 || port > hc->max_ports)
		return USB_BADARG;
	usb3 = hc->port_major[port] == 3;
	if (!wait_connect(hc, port, usb3, &warm))
		return USB_NODEV;
	if (warm)
		kprintf("xhci: port %u (USB 3): %s: warm reset\n", port, warm);
	rc = port_reset_once(hc, port, usb3, warm != NULL);
	/* A hot reset that fails on a USB 3 port is escalated (Linux's
	 * hub_port_reset: "hot reset failed, warm reset"). */
	if (rc == USB_TIMEOUT && usb3 && !warm) {
		kprintf("xhci: port %u (USB 3): hot reset failed, trying a warm reset\n", port);
		rc = port_reset_once(hc, port, usb3, true);
	}
	if (rc != USB_OK)
		return rc;
	*speed = port_speed(xhci_read32(portsc(hc, port)));
	xhci_delay_us(10000); /* reset recovery, TRSTRCY (USB 2.0 7.1.7.5) */
	return USB_OK;
}
