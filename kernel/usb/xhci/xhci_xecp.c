/*
 * xhci_xecp.c - the extended capability list (7): a chain of dwords in
 * BAR0 starting at HCCPARAMS1.xECP, each with an id and the distance to
 * the next in dwords (0 ends the list).  Read-only; callable any time
 * after BAR0 is mapped.
 */
#include "kernel/usb/xhci/xhci.h"

#define XECP_MAX 256 /* a list longer than this is a broken one */

uint32_t xhci_xecp_find(struct usb_hci *hc, uint32_t after, unsigned id)
{
	uint32_t off = HCCPARAMS1_XECP(hc->hccparams1) * 4u;
	bool past = after == 0;

	for (unsigned guard = 0; off && guard < XECP_MAX; guard++) {
		uint32_t v = xhci_read32(hc->cap + off);

		if (past && XECP_ID(v) == id)
			return off;
		if (off == after)
			past = true;
		if (!XECP_NEXT(v))
			break;
		off += XECP_NEXT(v) * 4u;
	}
	return 0;
}
