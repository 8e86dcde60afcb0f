/*
 * xhci_td.c - cutting a transfer buffer into the TRBs of one TD (4.11.7,
 * 6.4.1): each TRB's buffer is at most 64 KiB and does not cross a 64 KiB
 * boundary; TD Size (4.11.2.4) is the number of max-size packets still to
 * come after the TRB, at most 31, and 0 in the TD's last TRB.
 * Pure computation: no state, callable anywhere.
 */
#include "kernel/usb/xhci/xhci.h"

#include "kernel/lib/libk.h"

#define TRB_MAX_BYTES 0x10000u

unsigned xhci_td_split(uint64_t phys, uint32_t len, uint16_t mps, struct xhci_td_piece *out, unsigned max)
{
	uint64_t packets = mps ? (len + mps - 1u) / mps : 0, done = 0;
	unsigned n = 0;

	if (max == 0)
		return 0;
	if (len == 0) {
		out[0] = (struct xhci_td_piece){ .phys = phys, .len = 0, .td_size = 0 };
		return 1;
	}
	while (done < len) {
		uint64_t at = phys + done;
		uint32_t room = (uint32_t)(TRB_MAX_BYTES - (at & (TRB_MAX_BYTES - 1)));
		uint32_t chunk = (uint32_t)MIN((uint64_t)room, len - done);

		if (n == max)
			return 0;
		done += chunk;
		uint64_t sent = mps ? done / mps : 0;
		uint64_t left = done == len ? 0 : packets - sent;
		out[n++] = (struct xhci_td_piece){ .phys = at, .len = chunk, .td_size = (uint32_t)MIN(left, 31u) };
	}
	return n;
}
