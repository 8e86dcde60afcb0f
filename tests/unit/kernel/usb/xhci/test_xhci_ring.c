/*
 * test_xhci_ring.c - the xHCI driver's data structures on the host:
 * producer rings across link TRBs (cycle toggles, chain bit on the link,
 * a TD's first TRB handed over last), the event ring's dequeue by cycle
 * bit and the ERDP it writes (with EHB), splitting transfers at 64 KiB
 * boundaries with TD Size, and context offsets and fields for 32- and
 * 64-byte contexts (kernel/usb/xhci/xhci_ring.c, xhci_event.c,
 * xhci_ctx.c); and the rings' assertions, each broken on purpose (a push
 * onto a TRB the controller owns, a buffer across 64 KiB, an index out of
 * range).
 *
 * Physical addresses are host addresses (arch_hhdm_offset 0).  The
 * register accessors of xhci_hw.c are replaced by plain memory below.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "shadow.h"
#include "kernel/usb/xhci/xhci.h"

/* ------------------------------------------------ hardware as plain memory */

static uint64_t now_us;

uint32_t xhci_read32(const volatile void *reg)
{
	now_us++;
	return *(const volatile uint32_t *)reg;
}

void xhci_write32(volatile void *reg, uint32_t v)
{
	*(volatile uint32_t *)reg = v;
}

uint64_t xhci_time_us(void)
{
	return now_us++;
}

void xhci_delay_us(uint64_t us)
{
	now_us += us;
}

static uint64_t phys_of(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static struct xhci_trb *trbs_alloc(unsigned n)
{
	struct xhci_trb *t = aligned_alloc(4096, 4096);
	assert_non_null(t);
	assert_true(n * sizeof(*t) <= 4096);
	return t;
}

/* ------------------------------------------------------ producer rings */

static void test_push_wraps_through_link(void **state)
{
	struct xhci_trb *t = trbs_alloc(8);
	struct xhci_ring r;

	xhci_ring_init(&r, t, phys_of(t), 8, true);
	assert_int_equal(xhci_ring_capacity(&r), 7);
	assert_int_equal(TRB_GET_TYPE(t[7].control), TRB_LINK);
	assert_true(t[7].control & TRB_TC);
	assert_int_equal(t[7].control & TRB_CYCLE, 0); /* not the controller's yet */
	assert_int_equal(t[7].param, phys_of(t));

	for (unsigned i = 0; i < 7; i++) {
		uint64_t at = xhci_ring_push(&r, 0x1000 + i, i, TRB_TYPE(TRB_NORMAL));
		assert_int_equal(at, phys_of(&t[i]));
		assert_int_equal(t[i].control & TRB_CYCLE, 1);
		assert_int_equal(t[i].param, 0x1000 + i);
	}
	/* The seventh push handed the link over with the old cycle and
	 * toggled PCS. */
	assert_int_equal(r.index, 0);
	assert_int_equal(r.cycle, 0);
	assert_int_equal(t[7].control & TRB_CYCLE, 1);
	assert_int_equal(t[7].control & TRB_CH, 0);
	assert_int_equal(xhci_ring_enqueue_ptr(&r), phys_of(t) | 0);

	/* Second lap: cycle 0, and the link goes back to cycle 0. */
	for (unsigned i = 0; i < 7; i++) {
		xhci_ring_push(&r, 0, 0, TRB_TYPE(TRB_NORMAL) | TRB_CYCLE /* ignored */);
		assert_int_equal(t[i].control & TRB_CYCLE, 0);
	}
	assert_int_equal(t[7].control & TRB_CYCLE, 0);
	assert_int_equal(r.cycle, 1);
	assert_int_equal(xhci_ring_enqueue_ptr(&r), phys_of(t) | 1);
	free(t);
}

static void test_chained_td_spans_link(void **state)
{
	struct xhci_trb *t = trbs_alloc(4);
	struct xhci_ring r;

	xhci_ring_init(&r, t, phys_of(t), 4, true);
	xhci_ring_push(&r, 0, 0, TRB_TYPE(TRB_NORMAL) | TRB_IOC);
	xhci_ring_td_begin(&r);
	xhci_ring_push(&r, 0, 0, TRB_TYPE(TRB_NORMAL) | TRB_CH);
	/* index 2 is the last before the link: its chain bit goes on the link */
	xhci_ring_push(&r, 0, 0, TRB_TYPE(TRB_NORMAL) | TRB_CH);
	assert_true(t[3].control & TRB_CH);
	assert_int_equal(t[3].control & TRB_CYCLE, 1);
	uint64_t last = xhci_ring_push(&r, 0, 0, TRB_TYPE(TRB_NORMAL) | TRB_IOC);
	assert_int_equal(last, phys_of(&t[0]));
	assert_int_equal(t[0].control & TRB_CYCLE, 0); /* second lap */

	/* Until commit the TD's first TRB (index 1) keeps the wrong cycle,
	 * so the controller stops in front of the whole TD. */
	assert_int_equal(t[1].control & TRB_CYCLE, 0);
	assert_int_equal(t[2].control & TRB_CYCLE, 1);
	xhci_ring_td_commit(&r);
	assert_int_equal(t[1].control & TRB_CYCLE, 1);
	assert_int_equal(r.td_first, -1);
	xhci_ring_td_commit(&r); /* no open TD: nothing changes */
	assert_int_equal(t[1].control & TRB_CYCLE, 1);

	assert_int_equal(xhci_ring_index_of(&r, phys_of(&t[2])), 2);
	assert_int_equal(xhci_ring_index_of(&r, phys_of(&t[2]) + 4), -1);
	assert_int_equal(xhci_ring_index_of(&r, phys_of(&t[4])), -1);
	free(t);
}

/* Asserted (xhci_ring.c): each push writes a TRB that is software's, and
 * a buffer TRB keeps within one 64 KiB block; each broken on purpose. */
#define assert_tripped(what) assert_true(shadow_assertion_failed(what, "/xhci_ring.c:"))

static void test_push_onto_controllers_trb(void **state)
{
	struct xhci_trb *t = trbs_alloc(8);
	struct xhci_ring r;

	/* The enqueue index moved back over TRBs already handed over. */
	xhci_ring_init(&r, t, phys_of(t), 8, true);
	xhci_ring_push(&r, 0x1000, 8, TRB_TYPE(TRB_NORMAL));
	xhci_ring_push(&r, 0x2000, 8, TRB_TYPE(TRB_NORMAL));
	r.index = 1;
	assert_true(SHADOW_EXPECT_BUGCHECK(xhci_ring_push(&r, 0x3000, 8, TRB_TYPE(TRB_NORMAL))));
	assert_tripped("(t->control & TRB_CYCLE) != r->cycle (1 vs 1)");
	assert_int_equal(t[1].param, 0x2000); /* not overwritten */

	/* A TD longer than the ring (capacity 7) comes back to its own first
	 * TRB, still held back from the controller: the eighth push trips. */
	xhci_ring_init(&r, t, phys_of(t), 8, true);
	xhci_ring_push(&r, 0x1000, 8, TRB_TYPE(TRB_NORMAL) | TRB_IOC);
	xhci_ring_td_begin(&r);
	for (unsigned i = 0; i < 7; i++)
		xhci_ring_push(&r, 0x1000, 8, TRB_TYPE(TRB_NORMAL) | TRB_CH);
	assert_true(SHADOW_EXPECT_BUGCHECK(xhci_ring_push(&r, 0x1000, 8, TRB_TYPE(TRB_NORMAL) | TRB_IOC)));
	assert_tripped("(t->control & TRB_CYCLE) != r->cycle (0 vs 0)");
	free(t);
}

/* An index out of range: the enqueue index on the link TRB, the dequeue
 * index past the event ring. */
static void test_index_out_of_range(void **state)
{
	struct xhci_trb *t = trbs_alloc(8), ev;
	struct xhci_ring r;

	xhci_ring_init(&r, t, phys_of(t), 8, true);
	r.index = 7;
	assert_true(SHADOW_EXPECT_BUGCHECK(xhci_ring_push(&r, 0x1000, 8, TRB_TYPE(TRB_NORMAL))));
	assert_tripped("r->index < xhci_ring_capacity(r) (7 vs 7)");
	assert_int_equal(TRB_GET_TYPE(t[7].control), TRB_LINK); /* the link kept */

	xhci_ring_init(&r, t, phys_of(t), 8, false);
	r.index = 8;
	assert_true(SHADOW_EXPECT_BUGCHECK(xhci_event_peek(&r, &ev)));
	assert_tripped("r->index < r->size (8 vs 8)");
	free(t);
}

static void test_push_across_64k(void **state)
{
	struct xhci_trb *t = trbs_alloc(8);
	struct xhci_ring r;

	xhci_ring_init(&r, t, phys_of(t), 8, true);
	/* Up to the boundary, and immediate data, are fine. */
	xhci_ring_push(&r, 0x1ff00, TRB_LEN(0x100), TRB_TYPE(TRB_NORMAL));
	xhci_ring_push(&r, 0x20000, TRB_LEN(0x10000), TRB_TYPE(TRB_DATA));
	xhci_ring_push(&r, 0xfffffff0, TRB_LEN(8), TRB_TYPE(TRB_SETUP) | TRB_IDT);
	assert_true(SHADOW_EXPECT_BUGCHECK(xhci_ring_push(&r, 0x1ff00, TRB_LEN(0x101), TRB_TYPE(TRB_NORMAL))));
	assert_tripped("(param & 0xFFFFu) + TRB_LEN(status) <= 0x10000u (65537 vs 65536)");
	assert_true(SHADOW_EXPECT_BUGCHECK(xhci_ring_push(&r, 0x30000, TRB_LEN(0x10001), TRB_TYPE(TRB_DATA))));
	assert_tripped("(65537 vs 65536)");
	free(t);
}

/* --------------------------------------------------------- event ring */

static void post(struct xhci_trb *t, unsigned i, uint32_t cycle, uint64_t param, uint32_t type)
{
	t[i].param = param;
	t[i].status = CC_SUCCESS << 24;
	t[i].control = TRB_TYPE(type) | cycle;
}

static bool match_param(const struct xhci_trb *ev, void *ctx)
{
	return ev->param == *(uint64_t *)ctx;
}

static void test_event_ring_cycle_and_erdp(void **state)
{
	static uint8_t rt[0x40] __attribute__((aligned(64)));
	struct usb_hci *hc = calloc(1, sizeof(*hc));
	struct xhci_trb *t = trbs_alloc(4), ev;
	uint64_t want;

	hc->rt = rt;
	xhci_ring_init(&hc->event, t, phys_of(t), 4, false);
	assert_false(xhci_event_peek(&hc->event, &ev)); /* all cycle 0, CCS 1 */

	post(t, 0, 1, 0xA0, TRB_PORT_STATUS_CHANGE);
	post(t, 1, 1, 0xA1, TRB_COMMAND_COMPLETION);
	want = 0xA1;
	assert_true(xhci_event_wait(hc, match_param, &want, 5, &ev));
	assert_int_equal(ev.param, 0xA1);
	/* The port event was consumed and dropped; ERDP points past both,
	 * with EHB written 1 to clear it. */
	uint64_t erdp = *(uint32_t *)(rt + XHCI_IR0 + XHCI_ERDP) | (uint64_t) * (uint32_t *)(rt + XHCI_IR0 + XHCI_ERDP + 4) << 32;
	assert_int_equal(erdp, phys_of(&t[2]) | ERDP_EHB);

	/* Nothing more: a bounded wait that fails. */
	want = 0xA2;
	uint64_t before = now_us;
	assert_false(xhci_event_wait(hc, match_param, &want, 3, &ev));
	assert_true(now_us - before >= 3000);

	post(t, 2, 1, 0xA2, TRB_TRANSFER_EVENT);
	post(t, 3, 1, 0xA3, TRB_TRANSFER_EVENT);
	assert_true(xhci_event_wait(hc, match_param, &want, 5, &ev));
	want = 0xA3;
	assert_true(xhci_event_wait(hc, match_param, &want, 5, &ev));
	/* End of the segment: back to TRB 0 with CCS 0; TRB 0 still has
	 * cycle 1 from the last lap, so it is not an event. */
	assert_int_equal(hc->event.index, 0);
	assert_int_equal(hc->event.cycle, 0);
	erdp = *(uint32_t *)(rt + XHCI_IR0 + XHCI_ERDP) | (uint64_t) * (uint32_t *)(rt + XHCI_IR0 + XHCI_ERDP + 4) << 32;
	assert_int_equal(erdp, phys_of(&t[0]) | ERDP_EHB);
	assert_false(xhci_event_peek(&hc->event, &ev));
	post(t, 0, 0, 0xB0, TRB_TRANSFER_EVENT);
	want = 0xB0;
	assert_true(xhci_event_wait(hc, match_param, &want, 5, &ev));
	assert_int_equal(hc->event.index, 1);
	free(t);
	free(hc);
}

/* ------------------------------------------------- splitting transfers */

static void check_pieces(uint64_t phys, uint32_t len, const struct xhci_td_piece *p, unsigned n)
{
	uint64_t at = phys;
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(p[i].phys, at);
		assert_true(p[i].len <= 0x10000);
		/* never across a 64 KiB boundary */
		if (p[i].len)
			assert_int_equal(p[i].phys >> 16, (p[i].phys + p[i].len - 1) >> 16);
		at += p[i].len;
	}
	assert_int_equal(at, phys + len);
	assert_int_equal(p[n - 1].td_size, 0);
}

static void test_td_split_boundaries(void **state)
{
	struct xhci_td_piece p[16];
	unsigned n;

	/* Starts 4 KiB before a boundary: 4 KiB, 64 KiB, 4 KiB. */
	n = xhci_td_split(0x10000F000ull, 0x12000, 512, 0x100, p, 16);
	assert_int_equal(n, 3);
	check_pieces(0x10000F000ull, 0x12000, p, n);
	assert_int_equal(p[0].len, 0x1000);
	assert_int_equal(p[1].len, 0x10000);
	assert_int_equal(p[2].len, 0x1000);
	/* 144 packets: 136 left after the first, 8 after the second. */
	assert_int_equal(p[0].td_size, 31);
	assert_int_equal(p[1].td_size, 8);

	/* Aligned 128 KiB: two full TRBs. */
	n = xhci_td_split(0x200000, 0x20000, 1024, 0x100, p, 16);
	assert_int_equal(n, 2);
	check_pieces(0x200000, 0x20000, p, n);
	assert_int_equal(p[0].td_size, 31);

	/* A short tail: 13 bytes left after 64 KiB of 64-byte packets is one
	 * packet more. */
	n = xhci_td_split(0x300000, 0x1000D, 64, 0x100, p, 16);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].td_size, 1);

	/* Zero length: one empty TRB.  Too many pieces for max: 0. */
	assert_int_equal(xhci_td_split(0x1234, 0, 512, 0x100, p, 16), 1);
	assert_int_equal(p[0].len, 0);
	assert_int_equal(xhci_td_split(0x10000F000ull, 0x12000, 512, 0x100, p, 2), 0);

	/* 1 MiB at an odd offset: 17 pieces, all within their 64 KiB. */
	n = xhci_td_split(0x40200, 0x100000, 512, 0x100, p, 16);
	assert_int_equal(n, 0);
	struct xhci_td_piece big[32];
	n = xhci_td_split(0x40200, 0x100000, 512, 0x100, big, 32);
	assert_int_equal(n, 17);
	check_pieces(0x40200, 0x100000, big, n);
}

/* TD Size by HCIVERSION: xHCI 0.96 counts the bytes left in the TD
 * including the TRB's own, in 1 KiB units; 1.0 and later the packets
 * after the TRB (0 in the last).  The same buffer under both rules. */
static void test_td_size_by_version(void **state)
{
	struct xhci_td_piece p[16];
	unsigned n;

	n = xhci_td_split(0x10000F000ull, 0x12000, 512, 0x96, p, 16);
	assert_int_equal(n, 3);
	assert_true(p[0].len == 0x1000 && p[1].len == 0x10000 && p[2].len == 0x1000); /* as from 1.0 on */
	assert_int_equal(p[0].td_size, 31); /* 72 KiB left: capped */
	assert_int_equal(p[1].td_size, 31); /* 68 KiB */
	assert_int_equal(p[2].td_size, 4);  /* its own 4 KiB */

	n = xhci_td_split(0x200000, 0x10800, 512, 0x96, p, 16);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].td_size, 31);
	assert_int_equal(p[1].td_size, 2);
	n = xhci_td_split(0x200000, 0x10800, 512, 0x100, p, 16);
	assert_int_equal(p[0].td_size, 4); /* 132 packets, 128 sent */
	assert_int_equal(p[1].td_size, 0);

	/* One TRB: 5 KiB under 0.96, 0 from 1.0 on (1.1, 1.2 alike). */
	assert_int_equal(xhci_td_split(0x30000, 0x1400, 512, 0x96, p, 16), 1);
	assert_int_equal(p[0].td_size, 5);
	assert_int_equal(xhci_td_split(0x30000, 0x1400, 512, 0x110, p, 16), 1);
	assert_int_equal(p[0].td_size, 0);
	assert_int_equal(xhci_td_split(0x30000, 0x1400, 512, 0x120, p, 16), 1);
	assert_int_equal(p[0].td_size, 0);
	/* Under 1 KiB left: 0 in both. */
	assert_int_equal(xhci_td_split(0x30000, 0x200, 512, 0x96, p, 16), 1);
	assert_int_equal(p[0].td_size, 0);
	assert_true(xhci_td_size_096(0x95) && xhci_td_size_096(0x96) && !xhci_td_size_096(0x100));
}

/* ------------------------------------------------------------ contexts */

static void test_context_offsets(void **state)
{
	uint8_t base[64 * 33];

	assert_ptr_equal(xhci_dev_ctx(base, 32, 0), base);
	assert_ptr_equal(xhci_dev_ctx(base, 32, 3), base + 96);
	assert_ptr_equal(xhci_dev_ctx(base, 64, 3), base + 192);
	assert_ptr_equal(xhci_in_ctx(base, 32, 1), base + 32);  /* slot after input control */
	assert_ptr_equal(xhci_in_ctx(base, 64, 2), base + 128); /* ep0 */
	assert_ptr_equal(xhci_in_ctx(base, 64, 32), base + 64 * 32); /* DCI 31 */

	assert_int_equal(xhci_dci(0x00), 1);
	assert_int_equal(xhci_dci(0x80), 1);
	assert_int_equal(xhci_dci(0x01), 2);
	assert_int_equal(xhci_dci(0x81), 3);
	assert_int_equal(xhci_dci(0x02), 4);
	assert_int_equal(xhci_dci(0x8F), 31);
}

static void test_slot_context(void **state)
{
	uint32_t slot[8];
	struct usb_device d = { .speed = USB_SPEED_FULL, .root_port = 5, .depth = 2, .route = 0x21, .tt_slot = 3,
				.tt_port = 2 };

	xhci_ctx_slot(slot, &d, 1);
	assert_int_equal(slot[0], 0x21 | (USB_SPEED_FULL << 20) | (1u << 27));
	assert_int_equal(slot[1], 5u << 16);
	assert_int_equal(slot[2], 3 | (2 << 8));
	assert_int_equal(slot[3], 0);

	/* A high-speed device is not behind a TT even if the caller set one. */
	d.speed = USB_SPEED_HIGH;
	xhci_ctx_slot(slot, &d, 4);
	assert_int_equal(slot[2], 0);
	assert_int_equal(slot[0] >> 27, 4);
}

static void test_endpoint_context(void **state)
{
	uint32_t ep[8];
	struct usb_endpoint bulk_in = { .address = 0x81, .type = 2, .max_packet = 1024, .max_burst = 15 };
	struct usb_endpoint bulk_out = { .address = 0x02, .type = 2, .max_packet = 512 };
	struct usb_endpoint intr_fs = { .address = 0x83, .type = 3, .max_packet = 8, .interval = 10 };
	struct usb_endpoint intr_hs = { .address = 0x83, .type = 3, .max_packet = 64, .interval = 4 };
	struct usb_endpoint iso = { .address = 0x84, .type = 1, .max_packet = 192, .interval = 1 };

	assert_int_equal(xhci_ctx_endpoint(ep, &bulk_in, USB_SPEED_SUPER, 0x5000 | 1), 0);
	assert_int_equal(ep[0], 0);
	assert_int_equal(ep[1], EP_CERR(3) | EP_TYPE(EP_BULK_IN) | EP_MAX_BURST(15) | EP_MPS(1024));
	assert_int_equal(ep[2], 0x5001);
	assert_int_equal(ep[3], 0);
	assert_int_equal(ep[4], 3072);

	assert_int_equal(xhci_ctx_endpoint(ep, &bulk_out, USB_SPEED_HIGH, 0x123456780ull), 0);
	assert_int_equal(ep[1], EP_CERR(3) | EP_TYPE(EP_BULK_OUT) | EP_MPS(512));
	assert_int_equal(ep[3], 1);

	/* Full-speed interrupt, 10 ms: 80 x 125 us, rounded down to 2^6. */
	assert_int_equal(xhci_ctx_endpoint(ep, &intr_fs, USB_SPEED_FULL, 0), 0);
	assert_int_equal(ep[0], EP_INTERVAL(6));
	assert_int_equal(ep[1], EP_CERR(3) | EP_TYPE(EP_INTERRUPT_IN) | EP_MPS(8));
	assert_int_equal(ep[4], EP_AVG_TRB_LEN(8) | EP_MAX_ESIT_LO(8));
	/* High speed: bInterval is already an exponent, 2^(4-1). */
	assert_int_equal(xhci_ctx_endpoint(ep, &intr_hs, USB_SPEED_HIGH, 0), 0);
	assert_int_equal(ep[0], EP_INTERVAL(3));
	/* Full-speed isochronous: 2^(1-1) frames = 2^3 x 125 us; not retried. */
	assert_int_equal(xhci_ctx_endpoint(ep, &iso, USB_SPEED_FULL, 0), 0);
	assert_int_equal(ep[0], EP_INTERVAL(3));
	assert_int_equal(ep[1] & EP_CERR(3), 0);
	assert_int_equal((ep[1] >> 3) & 7, EP_ISOCH_IN);

	struct usb_endpoint bad = { .address = 0x81, .type = 4 };
	assert_int_equal(xhci_ctx_endpoint(ep, &bad, USB_SPEED_HIGH, 0), -1);

	xhci_ctx_ep0(ep, 64, 0x7000 | 1);
	assert_int_equal(ep[1], EP_CERR(3) | EP_TYPE(EP_CONTROL) | EP_MPS(64));
	assert_int_equal(ep[2], 0x7001);
	assert_int_equal(ep[4], 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_push_wraps_through_link),
		cmocka_unit_test(test_chained_td_spans_link),
		cmocka_unit_test(test_push_onto_controllers_trb),
		cmocka_unit_test(test_push_across_64k),
		cmocka_unit_test(test_index_out_of_range),
		cmocka_unit_test(test_event_ring_cycle_and_erdp),
		cmocka_unit_test(test_td_split_boundaries),
		cmocka_unit_test(test_td_size_by_version),
		cmocka_unit_test(test_context_offsets),
		cmocka_unit_test(test_slot_context),
		cmocka_unit_test(test_endpoint_context),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
