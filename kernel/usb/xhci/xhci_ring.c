/*
 * xhci_ring.c - producer rings (command and transfer rings, closed by a
 * Link TRB with Toggle Cycle), the consumer side of the event ring (4.9),
 * and a transfer buffer cut into the TRBs of one TD (at the end).
 *
 * Producer invariants: TRBs [index, size-1) with a cycle bit != PCS
 * belong to software; writing a TRB's control word (cycle bit last, after
 * a write barrier for the other three words) hands it to the controller.
 * On reaching the link TRB, software hands the link over too (with the
 * chain bit of the TRB before it, so a chained TD may span the link),
 * wraps to 0 and toggles PCS, as the controller does when it follows the
 * link.  A ring never holds more than one TD at a time here (every caller
 * waits for completion), so the controller's dequeue pointer is at the
 * enqueue index whenever a TD starts and capacity is size - 1.
 *
 * Asserted (kernel/debug/kassert.h; test_xhci_ring breaks each): the
 * enqueue index is below the link TRB and the dequeue index inside the
 * event ring (an index out of range reads or writes past the ring); the
 * TRB at the enqueue index is software's (cycle bit != PCS) when a push
 * writes it - an enqueue index moved back over TRBs handed over, or a TD
 * longer than the ring (it comes back to its own first TRB, whose cycle
 * bit is held back until commit), would write the controller's; a Normal
 * or Data Stage TRB's buffer (4.11.7.1, 6.4.1.1) is at most 64 KiB and
 * does not cross a 64 KiB boundary.
 *
 * Event ring invariants: software reads the TRB at the dequeue index only
 * if its cycle bit equals CCS, copies it, then advances; CCS toggles at
 * the end of the (single) segment.  ERDP is written by the caller with the
 * address advance returns.
 * Callers: the one thread driving the controller.
 */
#include "kernel/usb/xhci/xhci.h"

#include <arch/barrier.h>

#include "kernel/debug/kassert.h"
#include "kernel/lib/libk.h"

void xhci_ring_init(struct xhci_ring *r, struct xhci_trb *trbs, uint64_t phys, uint32_t size, bool link)
{
	memset(trbs, 0, size * sizeof(*trbs));
	*r = (struct xhci_ring){ .trb = trbs, .phys = phys, .size = size, .cycle = 1, .link = link, .td_first = -1 };
	if (link) {
		struct xhci_trb *l = &trbs[size - 1];
		l->param = phys;
		l->status = 0;
		/* Cycle 0: the controller does not own it until the first wrap. */
		l->control = TRB_TYPE(TRB_LINK) | TRB_TC;
	}
}

static void write_control(volatile struct xhci_trb *t, uint32_t control)
{
	arch_dma_wmb(); /* param and status before the cycle bit that gives the TRB to the controller */
	t->control = control;
}

/* A Normal or Data Stage TRB with a buffer (not Immediate Data) keeps
 * within 64 KiB and one 64 KiB-aligned block (xhci_td_split cuts so). */
static void check_buffer(uint64_t param, uint32_t status, uint32_t control)
{
	uint32_t type = TRB_GET_TYPE(control);

	if ((type == TRB_NORMAL || type == TRB_DATA) && !(control & TRB_IDT))
		KASSERT_OP((param & 0xFFFFu) + TRB_LEN(status), <=, 0x10000u);
}

uint64_t xhci_ring_push(struct xhci_ring *r, uint64_t param, uint32_t status, uint32_t control)
{
	volatile struct xhci_trb *t = &r->trb[r->index];
	uint64_t at = r->phys + (uint64_t)r->index * sizeof(struct xhci_trb);
	uint32_t cycle = r->cycle;

	KASSERT_OP(r->index, <, xhci_ring_capacity(r));
	KASSERT_OP((t->control & TRB_CYCLE), !=, r->cycle); /* software's TRB, not the controller's */
	check_buffer(param, status, control);

	/* The first TRB of an open TD stays software's until commit. */
	if (r->td_first == (int32_t)r->index)
		cycle ^= 1;
	t->param = param;
	t->status = status;
	write_control(t, (control & ~TRB_CYCLE) | cycle);

	if (++r->index == r->size - 1 && r->link) {
		volatile struct xhci_trb *l = &r->trb[r->index];
		write_control(l, TRB_TYPE(TRB_LINK) | TRB_TC | (control & TRB_CH) | r->cycle);
		r->index = 0;
		r->cycle ^= 1;
	}
	return at;
}

void xhci_ring_td_begin(struct xhci_ring *r)
{
	r->td_first = (int32_t)r->index;
}

void xhci_ring_td_commit(struct xhci_ring *r)
{
	if (r->td_first < 0)
		return;
	volatile struct xhci_trb *t = &r->trb[r->td_first];
	write_control(t, t->control ^ TRB_CYCLE); /* now the controller's */
	r->td_first = -1;
}

uint32_t xhci_ring_capacity(const struct xhci_ring *r)
{
	return r->link ? r->size - 1 : r->size;
}

uint64_t xhci_ring_enqueue_ptr(const struct xhci_ring *r)
{
	return (r->phys + (uint64_t)r->index * sizeof(struct xhci_trb)) | r->cycle;
}

bool xhci_event_peek(const struct xhci_ring *r, struct xhci_trb *ev)
{
	const volatile struct xhci_trb *t = &r->trb[r->index];
	uint32_t control;

	KASSERT_OP(r->index, <, r->size);
	control = t->control;

	if ((control & TRB_CYCLE) != r->cycle)
		return false;
	arch_dma_rmb(); /* the cycle bit the controller wrote before the rest of its event TRB */
	ev->param = t->param;
	ev->status = t->status;
	ev->control = control;
	return true;
}

uint64_t xhci_event_advance(struct xhci_ring *r)
{
	if (++r->index == r->size) {
		r->index = 0;
		r->cycle ^= 1;
	}
	return r->phys + (uint64_t)r->index * sizeof(struct xhci_trb);
}

int xhci_ring_index_of(const struct xhci_ring *r, uint64_t phys)
{
	if (phys < r->phys || phys >= r->phys + (uint64_t)r->size * sizeof(struct xhci_trb) ||
	    (phys - r->phys) % sizeof(struct xhci_trb))
		return -1;
	return (int)((phys - r->phys) / sizeof(struct xhci_trb));
}

/*
 * TD splitting: a transfer buffer cut into the TRBs of one TD (4.11.7,
 * 6.4.1).  Each TRB's buffer is at most 64 KiB and does not cross a
 * 64 KiB boundary.  TD Size (4.11.2.4), at most 31: on xHCI 1.0 and
 * later the number of max-size packets still to come after the TRB, 0 in
 * the TD's last TRB; on 0.96 controllers (HCIVERSION < 0x100, see
 * xhci_td_size_096) the bytes left in the TD including this TRB's, in
 * 1 KiB units, as xHCI 0.96 defined the field.
 * Pure computation: no state, callable anywhere.
 */
#define TRB_MAX_BYTES 0x10000u

unsigned xhci_td_split(uint64_t phys, uint32_t len, uint16_t mps, uint16_t version, struct xhci_td_piece *out,
		       unsigned max)
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
		uint64_t left;
		if (xhci_td_size_096(version)) {
			left = (len - done) >> 10;
			done += chunk;
		} else {
			done += chunk;
			left = done == len ? 0 : packets - (mps ? done / mps : 0);
		}
		out[n++] = (struct xhci_td_piece){ .phys = at, .len = chunk, .td_size = (uint32_t)MIN(left, 31u) };
	}
	return n;
}
