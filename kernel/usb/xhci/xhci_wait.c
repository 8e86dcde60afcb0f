/*
 * xhci_wait.c - bounded polling of a register, the one way the driver
 * waits for the controller's state (not its events: xhci_event.c).
 */
#include "kernel/usb/xhci/xhci.h"

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
