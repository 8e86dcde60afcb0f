/*
 * xhci_event.c - the driver's two bounded waits, both polled: for an event
 * (interrupter 0's single-segment event ring, consumed by cycle bit, with
 * ERDP written after each event, EHB written 1 to clear it) and for a
 * register's bits (xhci_wait_bits); and the completion codes as USB
 * statuses.
 *
 * Interrupts are never enabled (IMAN.IE = 0, USBCMD.INTE = 0): the one
 * thread driving the controller calls xhci_event_wait() whenever it waits
 * for a command or a transfer, and events nobody waits for are consumed
 * and dropped there (port status changes: the port is read directly).
 */
#include "kernel/usb/xhci/xhci.h"

static void consume(struct usb_hci *hc)
{
	uint64_t erdp = xhci_event_advance(&hc->event);

	xhci_write64(hc->rt + XHCI_IR0 + XHCI_ERDP, erdp | ERDP_EHB);
}

bool xhci_event_wait(struct usb_hci *hc, xhci_event_match match, void *ctx, unsigned ms, struct xhci_trb *ev)
{
	uint64_t end = xhci_time_us() + (uint64_t)ms * 1000;

	for (;;) {
		bool past = xhci_time_us() >= end;

		while (xhci_event_peek(&hc->event, ev)) {
			consume(hc);
			if (match(ev, ctx))
				return true;
		}
		if (past)
			return false;
		xhci_delay_us(5);
	}
}

int xhci_status_of(uint32_t cc)
{
	switch (cc) {
	case CC_SUCCESS:
	case CC_SHORT_PACKET:
		return USB_OK;
	case CC_STALL:
		return USB_STALL;
	default:
		return USB_ERROR;
	}
}

const char *xhci_completion_name(uint32_t cc)
{
	switch (cc) {
	case CC_SUCCESS: return "success";
	case CC_DATA_BUFFER: return "data buffer error";
	case CC_BABBLE: return "babble";
	case CC_USB_TRANSACTION: return "USB transaction error";
	case CC_TRB: return "TRB error";
	case CC_STALL: return "stall";
	case CC_RESOURCE: return "resource error";
	case CC_BANDWIDTH: return "bandwidth error";
	case CC_NO_SLOTS: return "no slots available";
	case CC_SLOT_NOT_ENABLED: return "slot not enabled";
	case CC_EP_NOT_ENABLED: return "endpoint not enabled";
	case CC_SHORT_PACKET: return "short packet";
	case CC_PARAMETER: return "parameter error";
	case CC_CONTEXT_STATE: return "context state error";
	case CC_COMMAND_RING_STOPPED: return "command ring stopped";
	case CC_COMMAND_ABORTED: return "command aborted";
	case CC_STOPPED: return "stopped";
	default: return "completion error";
	}
}

/* The other bounded wait: for the controller's state in a register (not
 * for an event), polled every 10 us. */
bool xhci_wait_bits(const volatile void *reg, uint32_t mask, uint32_t want, unsigned ms)
{
	uint64_t end = xhci_time_us() + (uint64_t)ms * 1000;

	for (;;) {
		/* Read before looking at the clock: a register that got there
		 * just as time ran out still counts. */
		bool past = xhci_time_us() >= end;
		if ((xhci_read32(reg) & mask) == want)
			return true;
		if (past)
			return false;
		xhci_delay_us(10);
	}
}
