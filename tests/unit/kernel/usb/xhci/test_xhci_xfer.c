/*
 * test_xhci_xfer.c - devices and transfers through hci.h against the
 * controller model (tests/unit/support/xhci_model.c) and a scripted device:
 * Enable Slot and Address Device (and Evaluate Context for a full-speed
 * ep0 of 64 bytes; a failed Address Device and hci_device_remove giving
 * the slot back), the hub fields, Configure Endpoint (and again),
 * control transfers (TRB layout, short data stage, stall and recovery),
 * bulk transfers (1 MiB in 17 chained TRBs that never cross 64 KiB, laps
 * of the ring, a TD boundary for transfers over 253 x 64 KiB, short
 * packets with and without the controller's late second event, stall and
 * hci_clear_halt, hci_clear_halt restarting the data toggle of a running
 * or stopped endpoint, a device that never answers and the recovery
 * after).
 * Data moved through the model is checked byte for byte.  Every test runs
 * with 32- and 64-byte contexts (the second under the name ..._64).
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

/* ------------------------------------------------------ scripted device */

static struct {
	uint8_t desc[18];        /* answered to any IN control request      */
	uint32_t ctl_pos;        /* bytes of desc sent in this control TD   */
	unsigned setups;
	struct usb_setup last_setup;
	bool stall_setup;        /* STALL the next SETUP                    */
	bool bulk_stall, bulk_nak;
	uint64_t in_left;        /* bulk IN bytes until a short packet      */
	uint64_t in_pos, out_bytes;
} d;

static uint8_t pattern(uint64_t i)
{
	return (uint8_t)(i * 7 + 3);
}

static int device(unsigned slot, unsigned dci, bool in, uint8_t *buf, uint32_t len, const struct usb_setup *setup)
{
	if (setup) {
		d.setups++;
		d.last_setup = *setup;
		d.ctl_pos = 0;
		if (d.stall_setup) {
			d.stall_setup = false;
			return MODEL_STALL;
		}
		return 0;
	}
	if (dci == 1) {
		if (!in) {
			d.out_bytes += len;
			return (int)len;
		}
		uint32_t n = len < sizeof(d.desc) - d.ctl_pos ? len : (uint32_t)sizeof(d.desc) - d.ctl_pos;
		memcpy(buf, d.desc + d.ctl_pos, n);
		d.ctl_pos += n;
		return (int)n;
	}
	if (d.bulk_nak)
		return MODEL_NAK;
	if (d.bulk_stall)
		return MODEL_STALL;
	if (!in) {
		d.out_bytes += len;
		return (int)len;
	}
	uint32_t n = len < d.in_left ? len : (uint32_t)d.in_left;
	for (uint32_t i = 0; i < n; i++)
		buf[i] = pattern(d.in_pos + i);
	d.in_pos += n;
	d.in_left -= n;
	return (int)n;
}

/* *state: the context size to model (32 or 64 bytes). */
static int setup(void **state)
{
	model_reset(&hc, *(const unsigned *)*state);
	model.device = device;
	memset(&d, 0, sizeof(d));
	d.in_left = ~0ull;
	static const uint8_t desc[18] = { 18, 1, 0x00, 0x02, 0, 0, 0, 64, 0xf4, 0x46, 0x01, 0x00, 0, 1, 1, 2, 3, 1 };
	memcpy(d.desc, desc, sizeof(desc));
	shadow_console[0] = 0;
	model_bring_up(&hc);
	return 0;
}

static int teardown(void **state)
{
	for (unsigned i = 1; i <= XHCI_MAX_SLOTS; i++) {
		struct xhci_slot *s = hc.slot[i];
		if (!s)
			continue;
		for (unsigned e = 0; e < 32; e++)
			free(s->ring[e]);
		free(s);
	}
	model_free_pages();
	return 0;
}

static struct usb_device *add(uint8_t speed, uint8_t port)
{
	static struct usb_device devs[4];
	static unsigned n;
	struct usb_device *dev = &devs[n++ % 4];

	memset(dev, 0, sizeof(*dev));
	dev->speed = speed;
	dev->root_port = port;
	assert_int_equal(hci_device_add(&hc, dev), USB_OK);
	return dev;
}

/* ------------------------------------------------------------- devices */

static void test_address_superspeed(void **state)
{
	struct usb_device *dev = add(USB_SPEED_SUPER, 1);
	uint32_t *slot = model_out_ctx(&hc, dev->slot, 0), *ep0 = model_out_ctx(&hc, dev->slot, 1);

	assert_int_equal(dev->slot, 1);
	assert_int_equal(dev->ep0_mps, 512);
	assert_int_equal((slot[0] >> 20) & 0xF, USB_SPEED_SUPER);
	assert_int_equal((slot[1] >> 16) & 0xFF, 1);   /* root hub port */
	assert_int_equal(SLOT_GET_STATE(slot[3]), 2);   /* addressed */
	assert_int_equal(ep0[1] >> 16, 512);
	assert_int_equal((ep0[1] >> 3) & 7, EP_CONTROL);
	assert_int_equal(model.cmd_count[TRB_EVALUATE_CONTEXT], 0);
	assert_int_equal(d.setups, 0); /* SuperSpeed: ep0's size is fixed */
}

static void test_address_full_speed_ep0(void **state)
{
	struct usb_device *dev = add(USB_SPEED_FULL, 3);

	/* The first 8 bytes of the device descriptor said 64. */
	assert_int_equal(d.last_setup.bmRequestType, 0x80);
	assert_int_equal(d.last_setup.bRequest, 6);
	assert_int_equal(d.last_setup.wValue, 0x0100);
	assert_int_equal(d.last_setup.wLength, 8);
	assert_int_equal(model.cmd_count[TRB_EVALUATE_CONTEXT], 1);
	assert_int_equal(dev->ep0_mps, 64);
	assert_int_equal(model_out_ctx(&hc, dev->slot, 1)[1] >> 16, 64);

	d.desc[7] = 8; /* already right: no Evaluate Context */
	add(USB_SPEED_FULL, 4);
	assert_int_equal(model.cmd_count[TRB_EVALUATE_CONTEXT], 1);

	d.desc[7] = 7; /* not a size ep0 can have: refused, slot given back */
	struct usb_device bad = { .speed = USB_SPEED_FULL, .root_port = 2 };
	assert_int_equal(hci_device_add(&hc, &bad), USB_ERROR);
	assert_int_equal(bad.slot, 0);
	assert_int_equal(model.cmd_count[TRB_DISABLE_SLOT], 1);
	assert_non_null(strstr(shadow_console, "ep0 max packet size 7"));
}

static void test_added_again(void **state)
{
	struct usb_device *first = add(USB_SPEED_SUPER, 1);
	uint8_t was = first->slot;

	/* The same place again (after a port reset): the old slot goes. */
	struct usb_device *again = add(USB_SPEED_SUPER, 1);
	assert_int_equal(model.cmd_count[TRB_DISABLE_SLOT], 1);
	assert_int_equal(again->slot, was); /* the controller gave the freed slot out again */
	assert_ptr_equal(hc.slot[was]->dev, again);
	assert_int_equal(SLOT_GET_STATE(model_out_ctx(&hc, again->slot, 0)[3]), 2);
	assert_non_null(strstr(shadow_console, "root port 1 route 0x0: device added again, slot 1 disabled"));
	/* Elsewhere: both stay. */
	add(USB_SPEED_HIGH, 3);
	assert_int_equal(model.cmd_count[TRB_DISABLE_SLOT], 1);
}

/* An Address Device that fails (the device did not answer SET_ADDRESS)
 * gives its slot back at once, so the USB layer's retry finds the slot
 * free; hci_device_remove gives back the slot of a device that was
 * addressed but then did not answer. */
static void test_address_fails_slot_given_back(void **state)
{
	struct usb_device dev = { .speed = USB_SPEED_HIGH, .root_port = 3 };

	model.address_fails = 1;
	assert_int_equal(hci_device_add(&hc, &dev), USB_ERROR);
	assert_int_equal(dev.slot, 0);
	assert_null(hc.slot[1]);
	assert_false(model.enabled[1]);
	assert_int_equal(model.cmd_count[TRB_DISABLE_SLOT], 1);
	assert_non_null(strstr(shadow_console, "root port 3 route 0x0: device not addressed (error)"));

	assert_int_equal(hci_device_add(&hc, &dev), USB_OK);
	assert_int_equal(dev.slot, 1);
	assert_int_equal(model.cmd_count[TRB_ENABLE_SLOT], 2);

	hci_device_remove(&dev);
	assert_int_equal(dev.slot, 0);
	assert_null(dev.hcpriv);
	assert_null(hc.slot[1]);
	assert_false(model.enabled[1]);
	assert_int_equal(hc.dcbaa[1], 0);
	assert_int_equal(model.cmd_count[TRB_DISABLE_SLOT], 2);
	hci_device_remove(&dev); /* no slot: nothing */
	assert_int_equal(model.cmd_count[TRB_DISABLE_SLOT], 2);
	/* Added again: no stale slot to replace. */
	assert_int_equal(hci_device_add(&hc, &dev), USB_OK);
	assert_null(strstr(shadow_console, "device added again"));
	for (unsigned i = 1; i <= MODEL_SLOTS; i++)
		assert_int_equal(model.enabled[i], i == dev.slot);
}

static void test_hub_fields(void **state)
{
	struct usb_device *hub = add(USB_SPEED_HIGH, 3);

	assert_int_equal(hci_hub_configure(hub, 4, true, 2), USB_OK);
	uint32_t *slot = model_out_ctx(&hc, hub->slot, 0);
	assert_true(slot[0] & SLOT_HUB);
	assert_true(slot[0] & SLOT_MTT);
	assert_int_equal(slot[1] >> 24, 4);
	assert_int_equal((slot[2] >> 16) & 3, 2);
	assert_int_equal((slot[1] >> 16) & 0xFF, 3); /* the root port kept */
}

/* ------------------------------------------------------------ control */

static void test_control(void **state)
{
	struct usb_device *dev = add(USB_SPEED_SUPER, 1);
	struct xhci_slot *s = dev->hcpriv;
	uint8_t *buf = aligned_alloc(4096, 4096);
	struct usb_setup get = { 0x80, 6, 0x0100, 0, 18 };
	uint32_t got = 0;

	assert_int_equal(hci_control(dev, &get, buf, &got), USB_OK);
	assert_int_equal(got, 18);
	assert_memory_equal(buf, d.desc, 18);
	/* Setup (IDT, IN data stage), Data (IN, ISP), Status (OUT, IOC). */
	struct xhci_trb *t = s->ring[1]->trb;
	assert_int_equal(TRB_GET_TYPE(t[0].control), TRB_SETUP);
	assert_true(t[0].control & TRB_IDT);
	assert_int_equal((t[0].control >> 16) & 3, 3);
	assert_int_equal(TRB_LEN(t[0].status), 8);
	assert_int_equal(TRB_GET_TYPE(t[1].control), TRB_DATA);
	assert_true(t[1].control & TRB_DIR_IN);
	assert_true(t[1].control & TRB_ISP);
	assert_false(t[1].control & TRB_CH); /* the Data Stage TD ends here */
	assert_int_equal(TRB_GET_TYPE(t[2].control), TRB_STATUS);
	assert_true(t[2].control & TRB_IOC);
	assert_false(t[2].control & TRB_DIR_IN);

	/* Asked for 255, the device has 18: short data stage. */
	get.wLength = 255;
	assert_int_equal(hci_control(dev, &get, buf, &got), USB_OK);
	assert_int_equal(got, 18);

	/* No data stage: the status stage is IN. */
	struct usb_setup set = { 0x00, 9, 1, 0, 0 };
	assert_int_equal(hci_control(dev, &set, NULL, &got), USB_OK);
	assert_int_equal(got, 0);
	assert_int_equal((t[6].control >> 16) & 3, 0);
	assert_true(t[7].control & TRB_DIR_IN);

	/* OUT data. */
	struct usb_setup out = { 0x21, 0xFF, 0, 0, 10 };
	assert_int_equal(hci_control(dev, &out, buf, &got), USB_OK);
	assert_int_equal(got, 10);
	assert_int_equal(d.out_bytes, 10);
	assert_int_equal(hci_control(dev, &out, NULL, &got), USB_BADARG);
	free(buf);
}

static void test_control_stall(void **state)
{
	struct usb_device *dev = add(USB_SPEED_HIGH, 3);
	uint8_t *buf = aligned_alloc(4096, 4096);
	struct usb_setup get = { 0x80, 6, 0x4200, 0, 8 };
	uint32_t got = 0;

	d.stall_setup = true;
	assert_int_equal(hci_control(dev, &get, buf, &got), USB_STALL);
	assert_int_equal(model.cmd_count[TRB_RESET_ENDPOINT], 1);
	assert_int_equal(model.cmd_count[TRB_SET_TR_DEQUEUE], 1);
	/* ep0 works again, from where the driver enqueues. */
	get.wValue = 0x0100;
	assert_int_equal(hci_control(dev, &get, buf, &got), USB_OK);
	assert_int_equal(got, 8);
	free(buf);
}

/* --------------------------------------------------------------- bulk */

static const struct usb_endpoint bulk_eps[2] = {
	{ .address = 0x81, .type = 2, .max_packet = 1024, .max_burst = 15 },
	{ .address = 0x02, .type = 2, .max_packet = 1024, .max_burst = 15 },
};

static struct usb_device *bulk_device(void)
{
	struct usb_device *dev = add(USB_SPEED_SUPER, 1);

	assert_int_equal(hci_configure(dev, bulk_eps, 2), USB_OK);
	assert_int_equal(model_out_ctx(&hc, dev->slot, 3)[0] & 7, 1); /* running */
	assert_int_equal(model_out_ctx(&hc, dev->slot, 4)[0] & 7, 1);
	assert_int_equal(model_out_ctx(&hc, dev->slot, 0)[0] >> 27, 4); /* context entries */
	return dev;
}

/* A buffer of len bytes at 512 past a 64 KiB boundary. */
static uint8_t *big_buffer(uint32_t len, void **base)
{
	*base = aligned_alloc(0x10000, len + 0x10000);
	assert_non_null(*base);
	return (uint8_t *)*base + 512;
}

static void expect_pattern(const uint8_t *buf, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		if (buf[i] != pattern(i))
			fail_msg("byte %u is 0x%02x, expected 0x%02x", i, buf[i], pattern(i));
}

static void test_bulk_long_laps(void **state)
{
	struct usb_device *dev = bulk_device();
	void *base;
	uint8_t *buf = big_buffer(1u << 20, &base);
	uint32_t got;

	for (unsigned i = 0; i < 20; i++) { /* 20 x 17 TRBs: the ring lapped */
		unsigned trbs = model.trbs;
		memset(buf, 0, 1u << 20);
		d.in_pos = 0;
		assert_int_equal(hci_bulk(dev, 0x81, buf, 1u << 20, &got, 1000), USB_OK);
		assert_int_equal(got, 1u << 20);
		assert_int_equal(model.trbs - trbs, 17);
		expect_pattern(buf, 1u << 20);
	}
	assert_int_equal(model.boundary_crossings, 0);
	assert_int_equal(hci_bulk(dev, 0x02, buf, 4096, &got, 1000), USB_OK);
	assert_int_equal(d.out_bytes, 4096);
	assert_int_equal(hci_bulk(dev, 0x83, buf, 4096, &got, 1000), USB_BADARG); /* not configured */
	free(base);
}

static void bulk_short(bool late_event)
{
	struct usb_device *dev = bulk_device();
	void *base;
	uint8_t *buf = big_buffer(1u << 20, &base);
	uint32_t got;

	model.event_after_short = late_event;
	for (unsigned i = 0; i < 30; i++) { /* short TDs all round the ring */
		d.in_pos = 0;
		d.in_left = 70000 + i;
		assert_int_equal(hci_bulk(dev, 0x81, buf, 200000, &got, 1000), USB_OK);
		assert_int_equal(got, 70000 + i);
		expect_pattern(buf, got);
		/* then a full one: a late event of the short TD must not end it */
		d.in_pos = 0;
		d.in_left = ~0ull;
		assert_int_equal(hci_bulk(dev, 0x81, buf, 4096, &got, 1000), USB_OK);
		assert_int_equal(got, 4096);
	}
	free(base);
}

static void test_bulk_short(void **state)
{
	bulk_short(false);
}

static void test_bulk_short_late_event(void **state)
{
	bulk_short(true);
}

static void test_bulk_over_one_td(void **state)
{
	struct usb_device *dev = bulk_device();
	uint32_t len = 20u << 20, got;
	void *base;
	uint8_t *buf = big_buffer(len, &base);
	unsigned tds = model.tds;

	assert_int_equal(hci_bulk(dev, 0x81, buf, len, &got, 1000), USB_OK);
	assert_int_equal(got, len);
	assert_int_equal(model.tds - tds, 2); /* 253 x 64 KiB, then the rest */
	expect_pattern(buf, len);
	assert_int_equal(model.boundary_crossings, 0);
	free(base);
}

static void test_bulk_stall_and_clear(void **state)
{
	struct usb_device *dev = bulk_device();
	uint8_t *buf = aligned_alloc(4096, 4096);
	uint32_t got;

	d.bulk_stall = true;
	assert_int_equal(hci_bulk(dev, 0x81, buf, 512, &got, 1000), USB_STALL);
	assert_int_equal(got, 0);
	assert_int_equal(model_out_ctx(&hc, dev->slot, 3)[0] & 7, EP_STATE_HALTED);
	d.bulk_stall = false;
	assert_int_equal(hci_clear_halt(dev, 0x81), USB_OK);
	assert_int_equal(model.cmd_count[TRB_RESET_ENDPOINT], 1);
	assert_int_equal(model.cmd_count[TRB_SET_TR_DEQUEUE], 1);
	d.in_pos = 0;
	assert_int_equal(hci_bulk(dev, 0x81, buf, 512, &got, 1000), USB_OK);
	assert_int_equal(got, 512);
	expect_pattern(buf, 512);
	free(buf);
}

/* CLEAR_FEATURE(ENDPOINT_HALT) restarts the device's toggle at DATA0, so
 * hci_clear_halt must restart the controller's, also on an endpoint that
 * never stalled (BOT reset recovery clears both bulk endpoints): running
 * (Stop Endpoint, then Configure Endpoint dropping and adding it) or
 * stopped (after a timeout: Configure Endpoint alone). */
static void test_clear_halt_resets_toggle(void **state)
{
	struct usb_device *dev = bulk_device();
	uint8_t *buf = aligned_alloc(4096, 4096);
	struct model_ep *in = &model.ep[dev->slot][3], *out = &model.ep[dev->slot][4];
	uint32_t got;

	/* One packet each way: both toggles at DATA1. */
	assert_int_equal(hci_bulk(dev, 0x81, buf, 512, &got, 1000), USB_OK);
	assert_int_equal(hci_bulk(dev, 0x02, buf, 1024, &got, 1000), USB_OK);
	assert_int_equal(in->toggle, 1);
	assert_int_equal(out->toggle, 1);
	unsigned stops = model.cmd_count[TRB_STOP_ENDPOINT], configs = model.cmd_count[TRB_CONFIGURE_ENDPOINT];
	assert_int_equal(hci_clear_halt(dev, 0x81), USB_OK);
	assert_int_equal(hci_clear_halt(dev, 0x02), USB_OK);
	assert_int_equal(in->toggle, 0);
	assert_int_equal(out->toggle, 0);
	assert_int_equal(model.cmd_count[TRB_STOP_ENDPOINT] - stops, 2);
	assert_int_equal(model.cmd_count[TRB_CONFIGURE_ENDPOINT] - configs, 2);
	assert_int_equal(model.cmd_count[TRB_RESET_ENDPOINT], 0);
	/* Its context as before (type, packet size, burst), running again at
	 * the ring's enqueue index: the next transfers go through. */
	assert_int_equal(model_out_ctx(&hc, dev->slot, 3)[0] & 7, 1);
	assert_int_equal(model_out_ctx(&hc, dev->slot, 3)[1] >> 16, 1024);
	assert_int_equal(model_out_ctx(&hc, dev->slot, 3)[1] & 0xFF00, 15 << 8);
	assert_int_equal(model_out_ctx(&hc, dev->slot, 0)[0] >> 27, 4);
	d.in_pos = 0;
	assert_int_equal(hci_bulk(dev, 0x81, buf, 3000, &got, 1000), USB_OK);
	assert_int_equal(got, 3000);
	expect_pattern(buf, 3000);
	assert_int_equal(in->toggle, 1); /* three packets from DATA0 */

	/* Stopped after a timeout: no Stop Endpoint, the toggle restarts. */
	d.bulk_nak = true;
	assert_int_equal(hci_bulk(dev, 0x81, buf, 512, &got, 50), USB_TIMEOUT);
	d.bulk_nak = false;
	assert_int_equal(model_out_ctx(&hc, dev->slot, 3)[0] & 7, 3);
	stops = model.cmd_count[TRB_STOP_ENDPOINT];
	assert_int_equal(hci_clear_halt(dev, 0x81), USB_OK);
	assert_int_equal(model.cmd_count[TRB_STOP_ENDPOINT], stops);
	assert_int_equal(in->toggle, 0);
	d.in_pos = 0;
	assert_int_equal(hci_bulk(dev, 0x81, buf, 1024, &got, 1000), USB_OK);
	expect_pattern(buf, 1024);
	assert_int_equal(hci_clear_halt(dev, 0x00), USB_BADARG); /* ep0 is not cleared this way */
	free(buf);
}

static void test_bulk_timeout(void **state)
{
	struct usb_device *dev = bulk_device();
	uint8_t *buf = aligned_alloc(4096, 4096);
	uint32_t got;
	uint64_t before = model.now_us;

	d.bulk_nak = true;
	assert_int_equal(hci_bulk(dev, 0x81, buf, 512, &got, 50), USB_TIMEOUT);
	assert_true(model.now_us - before >= 50000);
	assert_non_null(strstr(shadow_console,
			       "bulk IN transfer of 512 bytes on slot 1 endpoint 0x81 (port 1) got no completion in 50 ms"));
	assert_int_equal(model.cmd_count[TRB_STOP_ENDPOINT], 1);
	assert_int_equal(model.cmd_count[TRB_SET_TR_DEQUEUE], 1);
	/* The abandoned TD is skipped; the next transfer goes through. */
	d.bulk_nak = false;
	d.in_pos = 0;
	assert_int_equal(hci_bulk(dev, 0x81, buf, 1000, &got, 50), USB_OK);
	assert_int_equal(got, 1000);
	expect_pattern(buf, 1000);
	free(buf);
}

static void test_configure_again(void **state)
{
	struct usb_device *dev = bulk_device();
	uint8_t *buf = aligned_alloc(4096, 4096);
	uint32_t got;

	/* Configured again (a second SET_CONFIGURATION): dropped and added. */
	assert_int_equal(hci_configure(dev, bulk_eps, 2), USB_OK);
	assert_int_equal(hci_bulk(dev, 0x81, buf, 100, &got, 50), USB_OK);
	assert_int_equal(got, 100);
	struct usb_endpoint iso = { .address = 0x85, .type = 4 };
	assert_int_equal(hci_configure(dev, &iso, 1), USB_BADARG);
	free(buf);
}

static const unsigned csz32 = 32, csz64 = 64;

#define BOTH(f)                                                                                      \
	cmocka_unit_test_prestate_setup_teardown(f, setup, teardown, (void *)&csz32),                \
	cmocka_unit_test_prestate_setup_teardown(f##_64, setup, teardown, (void *)&csz64)

/* The same tests with 64-byte contexts (HCCPARAMS1.CSZ), under their own
 * names. */
#define CSZ64(f)                                                                                     \
	static void f##_64(void **state)                                                             \
	{                                                                                            \
		f(state);                                                                            \
	}
CSZ64(test_address_superspeed)
CSZ64(test_address_full_speed_ep0)
CSZ64(test_added_again)
CSZ64(test_address_fails_slot_given_back)
CSZ64(test_hub_fields)
CSZ64(test_control)
CSZ64(test_control_stall)
CSZ64(test_bulk_long_laps)
CSZ64(test_bulk_short)
CSZ64(test_bulk_short_late_event)
CSZ64(test_bulk_over_one_td)
CSZ64(test_bulk_stall_and_clear)
CSZ64(test_clear_halt_resets_toggle)
CSZ64(test_bulk_timeout)
CSZ64(test_configure_again)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_address_superspeed),
		BOTH(test_address_full_speed_ep0),
		BOTH(test_added_again),
		BOTH(test_address_fails_slot_given_back),
		BOTH(test_hub_fields),
		BOTH(test_control),
		BOTH(test_control_stall),
		BOTH(test_bulk_long_laps),
		BOTH(test_bulk_short),
		BOTH(test_bulk_short_late_event),
		BOTH(test_bulk_over_one_td),
		BOTH(test_bulk_stall_and_clear),
		BOTH(test_clear_halt_resets_toggle),
		BOTH(test_bulk_timeout),
		BOTH(test_configure_again),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
