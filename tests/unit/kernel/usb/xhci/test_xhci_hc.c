/*
 * test_xhci_hc.c - the xHCI bring-up and command sequences against a
 * model of the controller: the firmware hand-off (USB Legacy Support
 * capability), halt, reset (HCRST, CNR), start (DCBAA, scratchpads,
 * command and event rings), commands through the command ring with
 * completion events (across many laps of the ring), Command Abort after
 * a command that never completes, Supported Protocol capabilities and
 * USB 2 / USB 3 port resets - each with its timeout and message - with
 * the warm resets USB 3 ports need (CAS, Compliance, SS.Inactive, a link
 * stuck in Polling, a failed hot reset) and the 3 s connect window.
 *
 * The model (tests/unit/support/xhci_model.c) replaces kernel/usb/xhci/pci/xhci_hw.c and
 * plays the controller and the firmware's SMI handler with a virtual
 * clock, so timeouts of seconds take no real time.
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
#include "support/xhci_model.h"

static struct usb_hci hc;

static int setup(void **state)
{
	model_reset(&hc, 32);
	shadow_console[0] = 0;
	return 0;
}

static int teardown(void **state)
{
	model_free_pages();
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
	assert_int_equal(*model_reg(MODEL_XECP) & (USBLEGSUP_BIOS_OWNED | USBLEGSUP_OS_OWNED), USBLEGSUP_OS_OWNED);
	assert_int_equal(*model_reg(MODEL_XECP + 4), 0); /* SMIs off, SMI events cleared */
	assert_true(model.legsup_reads >= 50);
	assert_true(said("took the controller from the firmware"));
}

static void test_handoff_timeout(void **state)
{
	model.bios_release_after = NEVER;
	assert_int_equal(xhci_bios_handoff(&hc), USB_TIMEOUT);
	assert_true(model.now_us >= XHCI_HANDOFF_MS * 1000ull);
	assert_true(said("firmware kept the controller (USBLEGSUP HC BIOS Owned still set after 1000 ms)"));
	/* Taken anyway, and its SMIs are off. */
	assert_int_equal(*model_reg(MODEL_XECP) & (USBLEGSUP_BIOS_OWNED | USBLEGSUP_OS_OWNED), USBLEGSUP_OS_OWNED);
	assert_int_equal(*model_reg(MODEL_XECP + 4) & USBLEGCTLSTS_SMI_ENABLES, 0);
}

static void test_no_legacy_capability(void **state)
{
	*model_reg(MODEL_XECP) = XECP_PROTOCOL | 4u << 8 | 0x0300u << 16; /* the chain starts with a protocol */
	assert_int_equal(xhci_bios_handoff(&hc), USB_OK);
	assert_int_equal(model.now_us < 100, true); /* nothing waited for */
}

/* -------------------------------------------------------- halt, reset */

static void test_halt_reset(void **state)
{
	assert_int_equal(xhci_reset(&hc), USB_ERROR); /* running: refused */
	assert_true(said("not resetting a running controller"));
	assert_int_equal(*model_reg(MODEL_OP + XHCI_USBCMD) & USBCMD_HCRST, 0);

	assert_int_equal(xhci_halt(&hc), USB_OK);
	assert_true(*model_reg(MODEL_OP + XHCI_USBSTS) & USBSTS_HCH);
	assert_int_equal(xhci_reset(&hc), USB_OK);
	assert_int_equal(*model_reg(MODEL_OP + XHCI_USBCMD) & USBCMD_HCRST, 0);
	assert_int_equal(*model_reg(MODEL_OP + XHCI_USBSTS) & USBSTS_CNR, 0);
	assert_int_equal(xhci_halt(&hc), USB_OK); /* already halted: at once */
}

static void test_halt_timeout(void **state)
{
	model.halt_after = NEVER;
	assert_int_equal(xhci_halt(&hc), USB_TIMEOUT);
	assert_true(model.now_us >= XHCI_HALT_MS * 1000ull);
	assert_true(said("controller did not halt (USBSTS.HCH still 0 100 ms after USBCMD.R/S = 0)"));
}

static void test_reset_timeouts(void **state)
{
	*model_reg(MODEL_OP + XHCI_USBCMD) = 0;
	*model_reg(MODEL_OP + XHCI_USBSTS) = USBSTS_HCH;
	model.reset_after = NEVER;
	assert_int_equal(xhci_reset(&hc), USB_TIMEOUT);
	assert_true(said("controller reset did not finish (USBCMD.HCRST still 1 after 10000 ms)"));

	setup(state);
	*model_reg(MODEL_OP + XHCI_USBCMD) = 0;
	*model_reg(MODEL_OP + XHCI_USBSTS) = USBSTS_HCH;
	model.cnr_after = NEVER;
	assert_int_equal(xhci_reset(&hc), USB_TIMEOUT);
	assert_true(said("controller not ready after reset (USBSTS.CNR still 1 after 10000 ms)"));
}

/* A controller that takes seconds to reset (Linux waits 10 s for HCRST
 * and for CNR): about 3 s of HCRST, then 5 s of CNR, is waited for. */
static void test_slow_reset(void **state)
{
	*model_reg(MODEL_OP + XHCI_USBCMD) = 0;
	*model_reg(MODEL_OP + XHCI_USBSTS) = USBSTS_HCH;
	model.reset_after = 3000000 / 11; /* a read and a 10 us delay a poll */
	model.cnr_after = 5000000 / 11;
	assert_int_equal(xhci_reset(&hc), USB_OK);
	assert_true(model.now_us > 7000000);
	assert_int_equal(*model_reg(MODEL_OP + XHCI_USBSTS) & USBSTS_CNR, 0);
}

/* -------------------------------------------------------- quirk table */

/* Renesas uPD720201/2 keep the upper halves of their address registers
 * over HCRST: with the quirk they are zeroed before it, else untouched. */
static void test_zero_64b_regs(void **state)
{
	static const unsigned regs[] = { MODEL_OP + XHCI_DCBAAP, MODEL_RT + XHCI_IR0 + XHCI_ERSTBA,
					 MODEL_RT + XHCI_IR0 + XHCI_ERDP };

	for (int quirk = 1; quirk >= 0; quirk--) {
		setup(state);
		hc.hcsparams1 = *model_reg(XHCI_HCSPARAMS1);
		hc.quirks = quirk ? xhci_quirks_lookup(0x1912, 0x0015, NULL) : 0;
		assert_int_equal(xhci_halt(&hc), USB_OK);
		for (unsigned i = 0; i < 3; i++)
			model_reg(regs[i])[1] = 0x12;
		model.cmd_deq = 0x12ull << 32; /* CRCR's pointer (it reads as 0) */
		assert_int_equal(xhci_reset(&hc), USB_OK);
		for (unsigned i = 0; i < 3; i++)
			assert_int_equal(model_reg(regs[i])[1], quirk ? 0 : 0x12);
		assert_int_equal(model.cmd_deq >> 32, quirk ? 0 : 0x12);
	}
	assert_int_equal(xhci_quirks_lookup(0x1912, 0x0014, NULL), XHCI_QUIRK_ZERO_64B_REGS);
}

static void test_quirk_table(void **state)
{
	const char *chip = "x";
	static const uint16_t asmedia_no_ac64[] = { 0x1142, 0x1242, 0x2142, 0x3242 };

	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(xhci_quirks_lookup(0x1B21, asmedia_no_ac64[i], &chip), XHCI_QUIRK_NO_AC64);
		assert_non_null(chip);
		/* AC64 set, not trusted: 4 GiB. */
		assert_int_equal(xhci_quirks_dma_limit(HCCPARAMS1_AC64, XHCI_QUIRK_NO_AC64), 1ull << 32);
	}
	assert_string_equal((xhci_quirks_lookup(0x1B21, 0x3242, &chip), chip), "ASMedia ASM3242");
	/* Not on the list: the ASM1042 (1b21:1042), QEMU's qemu-xhci and
	 * nec-usb-xhci, another vendor's 0x2142. */
	assert_int_equal(xhci_quirks_lookup(0x1B21, 0x1042, &chip), 0);
	assert_null(chip);
	assert_int_equal(xhci_quirks_lookup(0x1B36, 0x000D, NULL), 0);
	assert_int_equal(xhci_quirks_lookup(0x1033, 0x0194, NULL), 0);
	assert_int_equal(xhci_quirks_lookup(0x8086, 0x2142, NULL), 0);
	/* AC64 trusted, clear, or usb.dma32=on. */
	assert_int_equal(xhci_quirks_dma_limit(HCCPARAMS1_AC64, 0), ~0ull);
	assert_int_equal(xhci_quirks_dma_limit(0, 0), 1ull << 32);
	assert_int_equal(xhci_quirks_dma_limit(HCCPARAMS1_AC64, XHCI_QUIRK_FORCED_32), 1ull << 32);
}

/* An untrusted AC64: everything the controller is given at start (DCBAA,
 * scratchpads and their array, command and event rings, ERST) is asked
 * for below 4 GiB, and usb.dmalog prints each region. */
static void test_start_below_4g(void **state)
{
	hc.vendor = 0x1B21;
	hc.device = 0x2142;
	hc.quirks = xhci_quirks_lookup(hc.vendor, hc.device, NULL);
	hc.dma_limit = xhci_quirks_dma_limit(*model_reg(XHCI_HCCPARAMS1), hc.quirks);
	hc.dma_log = true;
	assert_true(*model_reg(XHCI_HCCPARAMS1) & HCCPARAMS1_AC64);
	model_bring_up(&hc);
	assert_int_equal(model.alloc_limit_max, 1ull << 32);
	assert_true(said("xhci: DMA pages 0x"));

	setup(state); /* trusted: the whole address space */
	model_bring_up(&hc);
	assert_int_equal(model.alloc_limit_max, ~0ull);
}

/* ------------------------------------------------- start and commands */

static void bring_up(void)
{
	model_bring_up(&hc);
}

static void test_start(void **state)
{
	bring_up();
	assert_int_equal(*model_reg(MODEL_OP + XHCI_CONFIG), 8);
	uint64_t dcbaa = *model_reg(MODEL_OP + XHCI_DCBAAP) | (uint64_t)*model_reg(MODEL_OP + XHCI_DCBAAP + 4) << 32;
	assert_int_equal(dcbaa, (uint64_t)(uintptr_t)hc.dcbaa);
	assert_int_equal(dcbaa % 64, 0);
	/* 33 scratchpad pages, each PAGESIZE-aligned, behind DCBAA[0]. */
	uint64_t *sp = (uint64_t *)(uintptr_t)hc.dcbaa[0];
	assert_non_null(sp);
	for (unsigned i = 0; i < 33; i++)
		assert_true(sp[i] && sp[i] % 4096 == 0);
	assert_int_equal(model.cmd_deq, hc.cmd.phys);
	assert_int_equal(model.cmd_ccs, 1);
	assert_int_equal(*model_reg(MODEL_RT + XHCI_IR0 + XHCI_ERSTSZ), 1);
	assert_int_equal(*model_reg(MODEL_RT + XHCI_IR0 + XHCI_IMAN) & IMAN_IE, 0); /* polled */
	assert_true(*model_reg(MODEL_OP + XHCI_USBCMD) & USBCMD_RS);
	assert_int_equal(*model_reg(MODEL_OP + XHCI_USBCMD) & USBCMD_INTE, 0);
	assert_int_equal(*model_reg(MODEL_OP + XHCI_USBSTS) & USBSTS_HCH, 0);
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
	assert_int_equal(model.commands, 801);
	assert_int_equal(hc.cmd.cycle, model.cmd_ccs);
	assert_int_equal(hc.event.index, model.ev_idx);
	assert_int_equal(hc.event.cycle, model.ev_pcs);
}

static void test_command_timeout_and_abort(void **state)
{
	uint32_t cc;

	bring_up();
	model.answer_commands = false;
	assert_int_equal(xhci_command(&hc, 0x1000, TRB_TYPE(TRB_ADDRESS_DEVICE) | TRB_SLOT(3), &cc, NULL),
			 USB_TIMEOUT);
	assert_true(said("command Address Device (slot 3, endpoint 0) got no completion event in 1000 ms"));
	assert_int_equal(*model_reg(MODEL_OP + XHCI_CRCR) & CRCR_CRR, 0); /* aborted */
	/* The ring goes on with the next command. */
	model.answer_commands = true;
	assert_int_equal(xhci_command(&hc, 0, TRB_TYPE(TRB_NOOP_CMD), &cc, NULL), USB_OK);
	assert_int_equal(xhci_command(&hc, 0, TRB_TYPE(TRB_NOOP_CMD), &cc, NULL), USB_OK);
	assert_int_equal(model.commands, 2);
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
	*model_reg(MODEL_OP + XHCI_PORTSC(3)) = PORTSC_PP | PORTSC_CCS | PORTSC_CSC;
	model.port_speed[3] = USB_SPEED_HIGH;
	assert_int_equal(hci_port_reset(&hc, 3, &speed), USB_OK);
	assert_int_equal(speed, USB_SPEED_HIGH);
	assert_int_equal(*model_reg(MODEL_OP + XHCI_PORTSC(3)) & PORTSC_CHANGE_BITS, 0); /* changes cleared */
	assert_true(*model_reg(MODEL_OP + XHCI_PORTSC(3)) & PORTSC_PP);

	/* USB 3 port stuck in SS.Inactive: a warm reset. */
	*model_reg(MODEL_OP + XHCI_PORTSC(1)) = PORTSC_PP | PORTSC_CCS | PLS_SS_INACTIVE << PORTSC_PLS_SHIFT;
	model.port_speed[1] = USB_SPEED_SUPER;
	assert_int_equal(hci_port_reset(&hc, 1, &speed), USB_OK);
	assert_int_equal(speed, USB_SPEED_SUPER);
	assert_int_equal(model.ped_written, 0); /* PED never written 1 (that disables) */

	/* Nothing connected: no device, after waiting out the connect time. */
	assert_int_equal(hci_port_reset(&hc, 4, &speed), USB_NODEV);
	assert_true(model.now_us >= hc.started_us + XHCI_CONNECT_MS * 1000ull);
	assert_int_equal(hci_port_reset(&hc, 5, &speed), USB_BADARG);

	/* A reset that never finishes. */
	*model_reg(MODEL_OP + XHCI_PORTSC(2)) = PORTSC_PP | PORTSC_CCS;
	model.port_reset_after = NEVER;
	assert_int_equal(hci_port_reset(&hc, 2, &speed), USB_TIMEOUT);
	assert_true(said("xhci: port 2 (USB 3): reset did not finish in 500 ms"));
}

/* USB 3 ports that only a warm reset brings back (xHCI 1.2 4.19.8): a
 * cold attach (CAS, CCS still 0), Compliance Mode, SS.Inactive without a
 * connection, a link stuck in Polling past 360 ms; each gets WPR and no
 * PR, and comes up with its speed. */
static void test_warm_reset_states(void **state)
{
	static const struct {
		uint32_t portsc;
		const char *said;
	} cases[] = {
		{ PORTSC_PP | PORTSC_CAS | PLS_POLLING << PORTSC_PLS_SHIFT,
		  "xhci: port 1 (USB 3): cold attach status (PORTSC.CAS): warm reset" },
		{ PORTSC_PP | PLS_COMPLIANCE << PORTSC_PLS_SHIFT,
		  "xhci: port 1 (USB 3): link in Compliance Mode: warm reset" },
		{ PORTSC_PP | PLS_SS_INACTIVE << PORTSC_PLS_SHIFT, "xhci: port 1 (USB 3): link in SS.Inactive: warm reset" },
		{ PORTSC_PP | PLS_POLLING << PORTSC_PLS_SHIFT, "xhci: port 1 (USB 3): link stuck in Polling: warm reset" },
	};
	enum usb_speed speed;

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setup(state);
		bring_up();
		xhci_read_protocols(&hc);
		*model_reg(MODEL_OP + XHCI_PORTSC(1)) = cases[i].portsc;
		model.port_speed[1] = USB_SPEED_SUPER;
		uint64_t t0 = model.now_us;
		assert_int_equal(hci_port_reset(&hc, 1, &speed), USB_OK);
		assert_int_equal(speed, USB_SPEED_SUPER);
		assert_int_equal(model.warm_resets[1], 1);
		assert_int_equal(model.hot_resets[1], 0);
		assert_true(said(cases[i].said));
		uint32_t v = *model_reg(MODEL_OP + XHCI_PORTSC(1));
		assert_true((v & (PORTSC_CCS | PORTSC_PED)) == (PORTSC_CCS | PORTSC_PED));
		assert_int_equal(v & PORTSC_CHANGE_BITS, 0); /* WRC, PRC cleared */
		/* Polling is given 360 ms before it counts as stuck; the others
		 * are reset at once. */
		if (PORTSC_PLS(cases[i].portsc) == PLS_POLLING && !(cases[i].portsc & PORTSC_CAS))
			assert_true(model.now_us - t0 >= XHCI_POLLING_MS * 1000ull);
		else
			assert_true(model.now_us - t0 < 100000);
		teardown(state);
	}
}

/* A hot reset that leaves a USB 3 link in SS.Inactive is tried again as a
 * warm reset; on a USB 2 port a failed reset stays failed. */
static void test_hot_reset_escalates(void **state)
{
	enum usb_speed speed;

	bring_up();
	xhci_read_protocols(&hc);
	*model_reg(MODEL_OP + XHCI_PORTSC(2)) = PORTSC_PP | PORTSC_CCS;
	model.port_speed[2] = USB_SPEED_SUPER;
	model.hot_reset_fails[2] = true;
	assert_int_equal(hci_port_reset(&hc, 2, &speed), USB_OK);
	assert_int_equal(speed, USB_SPEED_SUPER);
	assert_int_equal(model.hot_resets[2], 1);
	assert_int_equal(model.warm_resets[2], 1);
	assert_true(said("xhci: port 2 (USB 3): not enabled after reset"));
	assert_true(said("xhci: port 2 (USB 3): hot reset failed, trying a warm reset"));

	*model_reg(MODEL_OP + XHCI_PORTSC(3)) = PORTSC_PP | PORTSC_CCS;
	model.port_reset_after = NEVER;
	assert_int_equal(hci_port_reset(&hc, 3, &speed), USB_TIMEOUT);
	assert_int_equal(model.hot_resets[3], 1);
	assert_int_equal(model.warm_resets[3], 0);
}

/* Devices get 3 s after the controller starts to show up (Linux waits as
 * long): one connecting at 2.5 s is found; an empty port answers no
 * device after 3 s, and a second empty port waits no longer. */
static void test_connect_window(void **state)
{
	enum usb_speed speed;

	bring_up();
	xhci_read_protocols(&hc);
	model.port_speed[3] = USB_SPEED_HIGH;
	model.connect_at_us[3] = hc.started_us + 2500000;
	assert_int_equal(hci_port_reset(&hc, 3, &speed), USB_OK);
	assert_int_equal(speed, USB_SPEED_HIGH);
	assert_true(model.now_us >= hc.started_us + 2500000);

	assert_int_equal(hci_port_reset(&hc, 4, &speed), USB_NODEV);
	assert_true(model.now_us >= hc.started_us + 3000000);
	uint64_t t = model.now_us;
	assert_int_equal(hci_port_reset(&hc, 2, &speed), USB_NODEV);
	assert_true(model.now_us - t < 10000);
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
		cmocka_unit_test_setup_teardown(test_slow_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quirk_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zero_64b_regs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_below_4g, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commands_lap_the_rings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_timeout_and_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protocols_and_port_resets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_warm_reset_states, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hot_reset_escalates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connect_window, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
