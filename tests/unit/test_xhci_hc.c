/*
 * test_xhci_hc.c - the xHCI bring-up and command sequences against a
 * model of the controller: the firmware hand-off (USB Legacy Support
 * capability), halt, reset (HCRST, CNR), start (DCBAA, scratchpads,
 * command and event rings), commands through the command ring with
 * completion events (across many laps of the ring), Command Abort after
 * a command that never completes, Supported Protocol capabilities and
 * USB 2 / USB 3 port resets - each with its timeout and message.
 *
 * The model replaces kernel/usb/xhci_hw.c: every register access of the
 * driver lands in model_read()/model_write(), which play the controller
 * (and the firmware's SMI handler) with a virtual clock that advances
 * 1 us per register read and by whatever the driver waits, so timeouts
 * of seconds take no real time.  Memory the driver allocates is host
 * memory (physical == virtual: arch_hhdm_offset is 0).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "shadow.h"

#include "kernel/mm/heap.h"
#include "kernel/mm/pmm.h"
#include "kernel/usb/xhci.h"

/* ------------------------------------------------ memory for the driver */

/* Every page run handed out, so each test's teardown frees what the
 * driver (which never frees a running controller's memory) still holds. */
static void *pages[256];
static unsigned npages;

uint64_t pmm_alloc_pages_below(size_t n, uint64_t limit)
{
	void *p = aligned_alloc(4096, n * 4096);
	(void)limit;
	assert_true(npages < 256);
	pages[npages++] = p;
	return (uint64_t)(uintptr_t)p;
}

bool pmm_free_pages(uint64_t pa, size_t n)
{
	for (unsigned i = 0; i < npages; i++) {
		if (pages[i] == (void *)(uintptr_t)pa) {
			free(pages[i]);
			pages[i] = pages[--npages];
			return true;
		}
	}
	return false;
}

static int teardown(void **state)
{
	while (npages)
		free(pages[--npages]);
	return 0;
}

void *kzalloc(size_t size)
{
	return calloc(1, size);
}

void kfree(void *p)
{
	free(p);
}

/* ------------------------------------------------------------ the model */

#define OP     0x80
#define RT     0x2000
#define DB     0x3000
#define XECP   0x1000
#define NPORTS 4
#define NEVER  0xFFFFFFFFu

static uint8_t bar[0x4000] __attribute__((aligned(4096)));

static struct {
	uint64_t now_us;
	unsigned bios_release_after; /* reads of USBLEGSUP after OS Owned is set */
	unsigned halt_after;         /* USBSTS reads until HCH after R/S = 0    */
	unsigned reset_after;        /* USBCMD reads until HCRST clears          */
	unsigned cnr_after;          /* USBSTS reads after that until CNR clears */
	unsigned port_reset_after;   /* PORTSC reads until a reset finishes      */
	bool answer_commands;
	unsigned legsup_reads, sts_reads, cmd_reads, port_reads[NPORTS + 1];
	bool halting, resetting, cnr, port_resetting[NPORTS + 1];
	uint32_t port_speed[NPORTS + 1];
	uint64_t cmd_deq;            /* the controller's command ring dequeue    */
	uint32_t cmd_ccs;
	uint32_t ev_idx, ev_pcs;
	unsigned commands, ped_written;
} m;

static uint32_t *reg(unsigned off)
{
	return (uint32_t *)(bar + off);
}

static void post_event(uint64_t param, uint32_t cc, uint32_t type, uint32_t slot)
{
	struct xhci_erst_entry *erst = (void *)(uintptr_t)(*reg(RT + XHCI_IR0 + XHCI_ERSTBA) |
							   (uint64_t)*reg(RT + XHCI_IR0 + XHCI_ERSTBA + 4) << 32);
	struct xhci_trb *t = (struct xhci_trb *)(uintptr_t)erst->base + m.ev_idx;

	t->param = param;
	t->status = cc << 24;
	t->control = TRB_TYPE(type) | TRB_SLOT(slot) | m.ev_pcs;
	if (++m.ev_idx == erst->size) {
		m.ev_idx = 0;
		m.ev_pcs ^= 1;
	}
}

/* Doorbell 0: run the command ring until a TRB the controller does not
 * own; link TRBs are followed (toggling the cycle state with TC). */
static void run_commands(void)
{
	for (;;) {
		struct xhci_trb *t = (struct xhci_trb *)(uintptr_t)m.cmd_deq;
		if ((t->control & TRB_CYCLE) != m.cmd_ccs)
			return;
		if (TRB_GET_TYPE(t->control) == TRB_LINK) {
			if (t->control & TRB_TC)
				m.cmd_ccs ^= 1;
			m.cmd_deq = t->param;
			continue;
		}
		if (!m.answer_commands) {
			*reg(OP + XHCI_CRCR) |= CRCR_CRR;
			return;
		}
		m.commands++;
		post_event(m.cmd_deq, CC_SUCCESS, TRB_COMMAND_COMPLETION,
			   TRB_GET_TYPE(t->control) == TRB_ENABLE_SLOT ? 1 : TRB_GET_SLOT(t->control));
		m.cmd_deq += sizeof(*t);
	}
}

static uint32_t model_read(unsigned off)
{
	uint32_t *r = reg(off);

	if (off == XECP && (*r & USBLEGSUP_OS_OWNED) && (*r & USBLEGSUP_BIOS_OWNED) &&
	    ++m.legsup_reads >= m.bios_release_after)
		*r &= ~USBLEGSUP_BIOS_OWNED;
	if (off == OP + XHCI_USBSTS) {
		if (m.halting && ++m.sts_reads >= m.halt_after) {
			*r |= USBSTS_HCH;
			m.halting = false;
		}
		if (m.cnr && ++m.sts_reads >= m.cnr_after) {
			*r &= ~USBSTS_CNR;
			m.cnr = false;
		}
	}
	if (off == OP + XHCI_USBCMD && m.resetting && ++m.cmd_reads >= m.reset_after) {
		*r &= ~USBCMD_HCRST;
		m.resetting = false;
		m.sts_reads = 0;
	}
	for (unsigned p = 1; p <= NPORTS; p++) {
		if (off == OP + XHCI_PORTSC(p) && m.port_resetting[p] && ++m.port_reads[p] >= m.port_reset_after) {
			bool warm = *r & PORTSC_WPR;
			*r &= ~(PORTSC_PR | PORTSC_WPR | (0xFu << 10) | (0xFu << PORTSC_PLS_SHIFT));
			*r |= PORTSC_PED | PORTSC_PRC | (warm ? PORTSC_WRC : 0) | m.port_speed[p] << 10;
			m.port_resetting[p] = false;
		}
	}
	return *r;
}

static void model_write(unsigned off, uint32_t v)
{
	uint32_t *r = reg(off), old = *r;

	if (off == XECP + USBLEGCTLSTS) {
		*r = (v & ~USBLEGCTLSTS_SMI_EVENTS) | (old & USBLEGCTLSTS_SMI_EVENTS & ~v);
	} else if (off == OP + XHCI_USBCMD) {
		*r = v;
		if ((old & USBCMD_RS) && !(v & USBCMD_RS)) {
			m.halting = true;
			m.sts_reads = 0;
		}
		if (v & USBCMD_HCRST) {
			m.resetting = true;
			m.cmd_reads = 0;
			m.cnr = true;
			*reg(OP + XHCI_USBSTS) |= USBSTS_CNR;
		}
		if (v & USBCMD_RS)
			*reg(OP + XHCI_USBSTS) &= ~USBSTS_HCH;
	} else if (off == OP + XHCI_USBSTS) {
		*r = old & ~(v & (USBSTS_HSE | USBSTS_EINT | USBSTS_PCD)); /* RW1C */
	} else if (off == OP + XHCI_CRCR) {
		if (v & CRCR_CA) {
			if (*r & CRCR_CRR) { /* the command in progress is aborted */
				post_event(m.cmd_deq, CC_COMMAND_ABORTED, TRB_COMMAND_COMPLETION, 0);
				m.cmd_deq += sizeof(struct xhci_trb);
			}
			*r &= ~CRCR_CRR;
			post_event(m.cmd_deq, CC_COMMAND_RING_STOPPED, TRB_COMMAND_COMPLETION, 0);
		} else {
			*r = v & ~0x3Fu;
			m.cmd_deq = (m.cmd_deq & ~0xFFFFFFFFull) | (v & ~0x3Fu);
			m.cmd_ccs = v & CRCR_RCS;
		}
	} else if (off == OP + XHCI_CRCR + 4) {
		if (!(*reg(OP + XHCI_CRCR) & CRCR_CRR))
			m.cmd_deq = (m.cmd_deq & 0xFFFFFFFFull) | (uint64_t)v << 32;
	} else if (off == DB) {
		run_commands();
	} else if (off >= OP + 0x400 && off < OP + 0x400 + 0x10 * NPORTS && (off & 0xF) == 0) {
		unsigned p = (off - OP - 0x400) / 0x10 + 1;
		if (v & PORTSC_PED)
			m.ped_written++; /* would disable the port */
		*r = (old & ~(v & PORTSC_CHANGE_BITS) & ~PORTSC_PP) | (v & PORTSC_PP) | (v & (PORTSC_PR | PORTSC_WPR));
		if (v & (PORTSC_PR | PORTSC_WPR)) {
			m.port_resetting[p] = true;
			m.port_reads[p] = 0;
		}
	} else {
		*r = v;
	}
}

uint32_t xhci_read32(const volatile void *p)
{
	m.now_us++;
	return model_read((unsigned)((const volatile uint8_t *)p - bar));
}

void xhci_write32(volatile void *p, uint32_t v)
{
	model_write((unsigned)((volatile uint8_t *)p - bar), v);
}

uint64_t xhci_time_us(void)
{
	return m.now_us;
}

void xhci_delay_us(uint64_t us)
{
	m.now_us += us;
}

/* A halted, reset-looking controller with 4 ports (1-2 USB 3, 3-4 USB 2)
 * whose firmware holds it, and a driver handle on it. */
static struct usb_hci hc;

static int setup(void **state)
{
	memset(bar, 0, sizeof(bar));
	memset(&m, 0, sizeof(m));
	memset(&hc, 0, sizeof(hc));
	shadow_console[0] = 0;
	m.bios_release_after = 50;
	m.halt_after = 20;
	m.reset_after = 30;
	m.cnr_after = 10;
	m.port_reset_after = 40;
	m.answer_commands = true;
	m.ev_pcs = 1;

	*reg(XHCI_CAPLENGTH) = OP | 0x0100u << 16;
	*reg(XHCI_HCSPARAMS1) = 8 | 1u << 8 | (uint32_t)NPORTS << 24;
	*reg(XHCI_HCSPARAMS2) = (1u << 21) | (1u << 27); /* 33 scratchpad buffers */
	*reg(XHCI_HCCPARAMS1) = HCCPARAMS1_AC64 | (XECP / 4u) << 16;
	*reg(XHCI_DBOFF) = DB;
	*reg(XHCI_RTSOFF) = RT;
	/* Legacy support (firmware owns it, SMIs on), then two protocols. */
	*reg(XECP) = XECP_LEGACY | 4u << 8 | USBLEGSUP_BIOS_OWNED;
	*reg(XECP + 4) = USBLEGCTLSTS_SMI_ENABLES | USBLEGCTLSTS_SMI_EVENTS;
	*reg(XECP + 0x10) = XECP_PROTOCOL | 8u << 8 | 0x0300u << 16;
	*reg(XECP + 0x18) = 1 | 2u << 8;
	*reg(XECP + 0x30) = XECP_PROTOCOL | 0x0200u << 16;
	*reg(XECP + 0x38) = 3 | 2u << 8;
	*reg(OP + XHCI_USBCMD) = USBCMD_RS; /* the firmware left it running */
	*reg(OP + XHCI_PAGESIZE) = 1;

	hc.cap = bar;
	hc.op = bar + OP;
	hc.rt = bar + RT;
	hc.db = (volatile uint32_t *)(bar + DB);
	hc.hcsparams1 = *reg(XHCI_HCSPARAMS1);
	hc.hcsparams2 = *reg(XHCI_HCSPARAMS2);
	hc.hccparams1 = *reg(XHCI_HCCPARAMS1);
	hc.csz = 32;
	hc.max_slots = 8;
	hc.max_ports = NPORTS;
	hc.dma_limit = ~0ull;
	return 0;
}

static bool said(const char *text)
{
	return strstr(shadow_console, text) != NULL;
}

/* ------------------------------------------------------------ hand-off */

static void test_handoff(void **state)
{
	assert_int_equal(xhci_bios_handoff(&hc), USB_OK);
	assert_int_equal(*reg(XECP) & (USBLEGSUP_BIOS_OWNED | USBLEGSUP_OS_OWNED), USBLEGSUP_OS_OWNED);
	assert_int_equal(*reg(XECP + 4), 0); /* SMIs off, SMI events cleared */
	assert_true(m.legsup_reads >= 50);
	assert_true(said("took the controller from the firmware"));
}

static void test_handoff_timeout(void **state)
{
	m.bios_release_after = NEVER;
	assert_int_equal(xhci_bios_handoff(&hc), USB_TIMEOUT);
	assert_true(m.now_us >= XHCI_HANDOFF_MS * 1000ull);
	assert_true(said("firmware kept the controller (USBLEGSUP HC BIOS Owned still set after 1000 ms)"));
	/* Taken anyway, and its SMIs are off. */
	assert_int_equal(*reg(XECP) & (USBLEGSUP_BIOS_OWNED | USBLEGSUP_OS_OWNED), USBLEGSUP_OS_OWNED);
	assert_int_equal(*reg(XECP + 4) & USBLEGCTLSTS_SMI_ENABLES, 0);
}

static void test_no_legacy_capability(void **state)
{
	*reg(XECP) = XECP_PROTOCOL | 4u << 8 | 0x0300u << 16; /* the chain starts with a protocol */
	assert_int_equal(xhci_bios_handoff(&hc), USB_OK);
	assert_int_equal(m.now_us < 100, true); /* nothing waited for */
}

/* -------------------------------------------------------- halt, reset */

static void test_halt_reset(void **state)
{
	assert_int_equal(xhci_reset(&hc), USB_ERROR); /* running: refused */
	assert_true(said("not resetting a running controller"));
	assert_int_equal(*reg(OP + XHCI_USBCMD) & USBCMD_HCRST, 0);

	assert_int_equal(xhci_halt(&hc), USB_OK);
	assert_true(*reg(OP + XHCI_USBSTS) & USBSTS_HCH);
	assert_int_equal(xhci_reset(&hc), USB_OK);
	assert_int_equal(*reg(OP + XHCI_USBCMD) & USBCMD_HCRST, 0);
	assert_int_equal(*reg(OP + XHCI_USBSTS) & USBSTS_CNR, 0);
	assert_int_equal(xhci_halt(&hc), USB_OK); /* already halted: at once */
}

static void test_halt_timeout(void **state)
{
	m.halt_after = NEVER;
	assert_int_equal(xhci_halt(&hc), USB_TIMEOUT);
	assert_true(m.now_us >= XHCI_HALT_MS * 1000ull);
	assert_true(said("controller did not halt (USBSTS.HCH still 0 100 ms after USBCMD.R/S = 0)"));
}

static void test_reset_timeouts(void **state)
{
	*reg(OP + XHCI_USBCMD) = 0;
	*reg(OP + XHCI_USBSTS) = USBSTS_HCH;
	m.reset_after = NEVER;
	assert_int_equal(xhci_reset(&hc), USB_TIMEOUT);
	assert_true(said("controller reset did not finish (USBCMD.HCRST still 1 after 1000 ms)"));

	setup(state);
	*reg(OP + XHCI_USBCMD) = 0;
	*reg(OP + XHCI_USBSTS) = USBSTS_HCH;
	m.cnr_after = NEVER;
	assert_int_equal(xhci_reset(&hc), USB_TIMEOUT);
	assert_true(said("controller not ready after reset (USBSTS.CNR still 1 after 1000 ms)"));
}

/* ------------------------------------------------- start and commands */

static void bring_up(void)
{
	assert_int_equal(xhci_halt(&hc), USB_OK);
	assert_int_equal(xhci_reset(&hc), USB_OK);
	assert_int_equal(xhci_start(&hc), USB_OK);
}

static void test_start(void **state)
{
	bring_up();
	assert_int_equal(*reg(OP + XHCI_CONFIG), 8);
	uint64_t dcbaa = *reg(OP + XHCI_DCBAAP) | (uint64_t)*reg(OP + XHCI_DCBAAP + 4) << 32;
	assert_int_equal(dcbaa, (uint64_t)(uintptr_t)hc.dcbaa);
	assert_int_equal(dcbaa % 64, 0);
	/* 33 scratchpad pages, each PAGESIZE-aligned, behind DCBAA[0]. */
	uint64_t *sp = (uint64_t *)(uintptr_t)hc.dcbaa[0];
	assert_non_null(sp);
	for (unsigned i = 0; i < 33; i++)
		assert_true(sp[i] && sp[i] % 4096 == 0);
	assert_int_equal(m.cmd_deq, hc.cmd.phys);
	assert_int_equal(m.cmd_ccs, 1);
	assert_int_equal(*reg(RT + XHCI_IR0 + XHCI_ERSTSZ), 1);
	assert_int_equal(*reg(RT + XHCI_IR0 + XHCI_IMAN) & IMAN_IE, 0); /* polled */
	assert_true(*reg(OP + XHCI_USBCMD) & USBCMD_RS);
	assert_int_equal(*reg(OP + XHCI_USBCMD) & USBCMD_INTE, 0);
	assert_int_equal(*reg(OP + XHCI_USBSTS) & USBSTS_HCH, 0);
}

static void test_commands_lap_the_rings(void **state)
{
	uint32_t cc;
	uint8_t slot = 0;

	bring_up();
	assert_int_equal(xhci_command(&hc, 0, TRB_TYPE(TRB_ENABLE_SLOT), &cc, &slot), USB_OK);
	assert_int_equal(cc, CC_SUCCESS);
	assert_int_equal(slot, 1);
	/* Three laps of the command ring (255 commands a lap) and more of the
	 * 256-TRB event ring: both sides keep their cycle states in step. */
	for (unsigned i = 0; i < 800; i++)
		assert_int_equal(xhci_command(&hc, 0, TRB_TYPE(TRB_NOOP_CMD), &cc, NULL), USB_OK);
	assert_int_equal(m.commands, 801);
	assert_int_equal(hc.cmd.cycle, m.cmd_ccs);
	assert_int_equal(hc.event.index, m.ev_idx);
	assert_int_equal(hc.event.cycle, m.ev_pcs);
}

static void test_command_timeout_and_abort(void **state)
{
	uint32_t cc;

	bring_up();
	m.answer_commands = false;
	assert_int_equal(xhci_command(&hc, 0x1000, TRB_TYPE(TRB_ADDRESS_DEVICE) | TRB_SLOT(3), &cc, NULL),
			 USB_TIMEOUT);
	assert_true(said("command Address Device (slot 3, endpoint 0) got no completion event in 1000 ms"));
	assert_int_equal(*reg(OP + XHCI_CRCR) & CRCR_CRR, 0); /* aborted */
	/* The ring goes on with the next command. */
	m.answer_commands = true;
	assert_int_equal(xhci_command(&hc, 0, TRB_TYPE(TRB_NOOP_CMD), &cc, NULL), USB_OK);
	assert_int_equal(xhci_command(&hc, 0, TRB_TYPE(TRB_NOOP_CMD), &cc, NULL), USB_OK);
	assert_int_equal(m.commands, 2);
}

/* ----------------------------------------------------------------- ports */

static void test_protocols_and_port_resets(void **state)
{
	enum usb_speed speed;

	bring_up();
	xhci_read_protocols(&hc);
	assert_int_equal(hc.port_major[1], 3);
	assert_int_equal(hc.port_major[2], 3);
	assert_int_equal(hc.port_major[3], 2);
	assert_int_equal(hc.port_major[4], 2);
	assert_true(said("xhci: ports 1-2 speak USB 3.00"));
	assert_true(said("xhci: ports 3-4 speak USB 2.00"));

	/* USB 2 port with a high-speed device: PR, then PRC and PED. */
	*reg(OP + XHCI_PORTSC(3)) = PORTSC_PP | PORTSC_CCS | PORTSC_CSC;
	m.port_speed[3] = USB_SPEED_HIGH;
	assert_int_equal(hci_port_reset(&hc, 3, &speed), USB_OK);
	assert_int_equal(speed, USB_SPEED_HIGH);
	assert_int_equal(*reg(OP + XHCI_PORTSC(3)) & PORTSC_CHANGE_BITS, 0); /* changes cleared */
	assert_true(*reg(OP + XHCI_PORTSC(3)) & PORTSC_PP);

	/* USB 3 port stuck in SS.Inactive: a warm reset. */
	*reg(OP + XHCI_PORTSC(1)) = PORTSC_PP | PORTSC_CCS | PLS_SS_INACTIVE << PORTSC_PLS_SHIFT;
	m.port_speed[1] = USB_SPEED_SUPER;
	assert_int_equal(hci_port_reset(&hc, 1, &speed), USB_OK);
	assert_int_equal(speed, USB_SPEED_SUPER);
	assert_int_equal(m.ped_written, 0); /* PED never written 1 (that disables) */

	/* Nothing connected: no device, after waiting out the connect time. */
	assert_int_equal(hci_port_reset(&hc, 4, &speed), USB_NODEV);
	assert_true(m.now_us >= hc.started_us + XHCI_CONNECT_MS * 1000ull);
	assert_int_equal(hci_port_reset(&hc, 5, &speed), USB_BADARG);

	/* A reset that never finishes. */
	*reg(OP + XHCI_PORTSC(2)) = PORTSC_PP | PORTSC_CCS;
	m.port_reset_after = NEVER;
	assert_int_equal(hci_port_reset(&hc, 2, &speed), USB_TIMEOUT);
	assert_true(said("xhci: port 2 (USB 3): reset did not finish in 500 ms"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_handoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handoff_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_legacy_capability, setup, teardown),
		cmocka_unit_test_setup_teardown(test_halt_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_halt_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset_timeouts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commands_lap_the_rings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_timeout_and_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protocols_and_port_resets, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
