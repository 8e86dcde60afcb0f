/*
 * test_hub.c - enumeration along the boot path (kernel/usb/core/usb.c,
 * usb_config.c, hub.c; kernel/usb/storage/stick_path.c) on the fake
 * controller: a device on a root port and behind one and two hubs (USB 2
 * and USB 3), with the exact request sequences, route strings, TT fields
 * and waits; hubs that time out; configuration descriptors that are
 * malformed; the tolerance real devices need: enumeration retried after a
 * missed address or descriptor, a device that never answers given up,
 * a SuperSpeed hub's port warm reset (BH_PORT_RESET) when its link needs
 * it or a PORT_RESET fails, on the path and in the search of the bus.
 */
#include "support/usbstor_fixture.h"

#include "kernel/usb/core/usb.h"
#include "kernel/usb/core/usb_enum.h"

static struct usb_device *open_path(unsigned depth, const uint8_t *ports, int want_rc)
{
	struct usb_stick_target t = fx_target(depth, ports, 512, FX_BLOCKS);
	struct usb_device *dev = NULL;
	assert_int_equal(stick_path_open(&t, &dev), want_rc);
	return dev;
}

static void test_root_port(void **state)
{
	(void)state;
	fake_attach_root(3, fx_disk());
	struct usb_device *dev = open_path(1, (const uint8_t[]){ 3 }, USB_OK);
	assert_string_equal(fake_log, "hc OPEN 0000:00:03.0\n"
				      "hc PORT_RESET 3\n"
				      "hc ADDRESS s1 disk rp 3 route 0x00000 depth 0 speed 3 tt 0/0\n"
				      "s1 GET_DESCRIPTOR DEVICE 18\n");
	assert_int_equal(dev->slot, 1);
	assert_int_equal(dev->root_port, 3);
	assert_int_equal(dev->ep0_mps, 64);
	FX_NO_FAKE_ERRORS();
}

static void test_one_usb2_hub(void **state)
{
	(void)state;
	struct fake_dev *hub = fake_hub_new("hub1", USB_SPEED_HIGH, 4);
	fake_attach_root(2, hub);
	fake_hub_attach(hub, 3, fx_disk());
	struct usb_device *dev = open_path(2, (const uint8_t[]){ 2, 3 }, USB_OK);
	assert_string_equal(fake_log, "hc OPEN 0000:00:03.0\n"
				      "hc PORT_RESET 2\n"
				      "hc ADDRESS s1 hub1 rp 2 route 0x00000 depth 0 speed 3 tt 0/0\n"
				      "s1 GET_DESCRIPTOR DEVICE 18\n"
				      "s1 GET_DESCRIPTOR CONFIG 9\n"
				      "s1 GET_DESCRIPTOR CONFIG 25\n"
				      "s1 SET_CONFIGURATION 1\n"
				      "s1 GET_HUB_DESCRIPTOR 0x29 71\n"
				      "hc HUB s1 ports 4 mtt 0 ttt 1\n"
				      "s1 SET_PORT_FEATURE 3 PORT_POWER\n"
				      "s1 PORT_STATUS 3 0101/0001\n"
				      "s1 CLEAR_PORT_FEATURE 3 C_PORT_CONNECTION\n"
				      "s1 SET_PORT_FEATURE 3 PORT_RESET\n"
				      "s1 PORT_STATUS 3 0111/0000\n"
				      "s1 PORT_STATUS 3 0503/0010\n"
				      "s1 CLEAR_PORT_FEATURE 3 C_PORT_RESET\n"
				      "hc ADDRESS s2 disk rp 2 route 0x00003 depth 1 speed 3 tt 0/0\n"
				      "s2 GET_DESCRIPTOR DEVICE 18\n");
	assert_int_equal(dev->route, 0x3);
	assert_int_equal(dev->depth, 1);
	/* bPwrOn2PwrGood 50 (100 ms), 100 ms debounce, 20 ms of reset polled
	 * every 10 ms, 10 ms reset recovery. */
	assert_int_equal(fake_now_us, (100 + 100 + 20 + 10) * 1000);
	FX_CONSOLE_HAS("usb: hub 1 (slot 1): high-speed, 4 ports\n");
	FX_CONSOLE_HAS("usb: hub 1 (slot 1) port 3: high-speed device, route 0x00003\n");
	FX_NO_FAKE_ERRORS();
}

/* High-speed hub, then a full-speed hub (QEMU's usb-hub) on its port 2,
 * then a full-speed disk on that one's port 4: the route string takes a
 * nibble per tier, and both full-speed devices use the high-speed hub's
 * transaction translator (slot 1, port 2). */
static void test_two_hubs_tt(void **state)
{
	(void)state;
	struct fake_dev *hub1 = fake_hub_new("hub1", USB_SPEED_HIGH, 4);
	struct fake_dev *hub2 = fake_hub_new("hub2", USB_SPEED_FULL, 8);
	struct fake_dev *disk = fake_disk_new("disk", USB_SPEED_FULL, 512, FX_BLOCKS, 64);
	fake_attach_root(1, hub1);
	fake_hub_attach(hub1, 2, hub2);
	fake_hub_attach(hub2, 4, disk);
	struct usb_device *dev = open_path(3, (const uint8_t[]){ 1, 2, 4 }, USB_OK);
	FX_LOG_SEQ("hc ADDRESS s1 hub1 rp 1 route 0x00000 depth 0 speed 3 tt 0/0",
		   "s1 SET_PORT_FEATURE 2 PORT_POWER", "s1 SET_PORT_FEATURE 2 PORT_RESET",
		   "s1 PORT_STATUS 2 0103/0010", "s1 CLEAR_PORT_FEATURE 2 C_PORT_RESET",
		   "hc ADDRESS s2 hub2 rp 1 route 0x00002 depth 1 speed 1 tt 1/2",
		   "s2 GET_HUB_DESCRIPTOR 0x29 71", "hc HUB s2 ports 8 mtt 0 ttt 0",
		   "s2 SET_PORT_FEATURE 4 PORT_POWER", "s2 PORT_STATUS 4 0101/0001",
		   "s2 CLEAR_PORT_FEATURE 4 C_PORT_CONNECTION", "s2 SET_PORT_FEATURE 4 PORT_RESET",
		   "s2 PORT_STATUS 4 0103/0010", "s2 CLEAR_PORT_FEATURE 4 C_PORT_RESET",
		   "hc ADDRESS s3 disk rp 1 route 0x00042 depth 2 speed 1 tt 1/2");
	assert_int_equal(dev->route, 0x42);
	assert_int_equal(dev->depth, 2);
	assert_int_equal(dev->ep0_mps, 64);
	assert_int_equal(fake_log_count("SET_HUB_DEPTH"), 0);
	FX_NO_FAKE_ERRORS();
}

/* A USB 3 hub: descriptor 0x2A, SET_HUB_DEPTH 0, SuperSpeed from the hub's
 * kind, SuperSpeed port status bits. */
static void test_usb3_hub(void **state)
{
	(void)state;
	struct fake_dev *hub = fake_hub_new("hub3", USB_SPEED_SUPER, 4);
	struct fake_dev *disk = fake_disk_new("disk", USB_SPEED_SUPER, 512, FX_BLOCKS, 64);
	fake_attach_root(5, hub);
	fake_hub_attach(hub, 1, disk);
	struct usb_device *dev = open_path(2, (const uint8_t[]){ 5, 1 }, USB_OK);
	FX_LOG_SEQ("hc ADDRESS s1 hub3 rp 5 route 0x00000 depth 0 speed 4 tt 0/0", "s1 GET_DESCRIPTOR CONFIG 31",
		   "s1 SET_CONFIGURATION 1", "s1 GET_HUB_DESCRIPTOR 0x2a 12", "hc HUB s1 ports 4 mtt 0 ttt 0",
		   "s1 SET_HUB_DEPTH 0", "s1 SET_PORT_FEATURE 1 PORT_POWER", "s1 PORT_STATUS 1 0201/0001",
		   "s1 SET_PORT_FEATURE 1 PORT_RESET", "s1 PORT_STATUS 1 0203/0010",
		   "s1 CLEAR_PORT_FEATURE 1 C_PORT_RESET",
		   "hc ADDRESS s2 disk rp 5 route 0x00001 depth 1 speed 4 tt 0/0");
	assert_int_equal(dev->ep0_mps, 512);
	FX_NO_FAKE_ERRORS();
}

static void test_empty_hub_port_times_out(void **state)
{
	(void)state;
	struct fake_dev *hub = fake_hub_new("hub1", USB_SPEED_HIGH, 4);
	fake_attach_root(1, hub);
	open_path(2, (const uint8_t[]){ 1, 4 }, USB_NODEV);
	FX_CONSOLE_HAS("usb: hub 1 (slot 1) port 4: nothing connected after 3000 ms (status 0x0100)\n");
	assert_int_equal(fake_log_count("PORT_RESET"), 1); /* the root port's only */
	FX_NO_FAKE_ERRORS();
}

static void test_hub_reset_times_out(void **state)
{
	(void)state;
	struct fake_dev *hub = fake_hub_new("hub1", USB_SPEED_HIGH, 4);
	fake_attach_root(1, hub);
	fake_hub_attach(hub, 2, fx_disk());
	hub->hub->never_finish_reset = true;
	open_path(2, (const uint8_t[]){ 1, 2 }, USB_TIMEOUT);
	FX_CONSOLE_HAS("usb: hub 1 (slot 1) port 2: reset did not complete in 500 ms (status 0x0111, change 0x0000)\n");
	assert_int_equal(fake_log_count("hc ADDRESS"), 1);
	FX_NO_FAKE_ERRORS();
}

/* ------------------------------------------- tolerance: retries, warm resets */

/* The device misses its first Address Device: the root port is reset
 * again and the second try addresses it. */
static void test_address_retried(void **state)
{
	(void)state;
	fake_attach_root(3, fx_disk());
	fake_address_failures = 1;
	struct usb_device *dev = open_path(1, (const uint8_t[]){ 3 }, USB_OK);
	assert_string_equal(fake_log, "hc OPEN 0000:00:03.0\n"
				      "hc PORT_RESET 3\n"
				      "hc ADDRESS disk route 0x00000: no answer to SET_ADDRESS\n"
				      "hc PORT_RESET 3\n"
				      "hc ADDRESS s1 disk rp 3 route 0x00000 depth 0 speed 3 tt 0/0\n"
				      "s1 GET_DESCRIPTOR DEVICE 18\n");
	assert_int_equal(dev->slot, 1);
	FX_CONSOLE_HAS("usb: root port 3: addressing failed (error); try 2 of 3: resetting the port again\n");
	FX_CONSOLE_HAS("usb: root port 3: device answered on try 2 of 3\n");
	FX_NO_FAKE_ERRORS();
}

/* Behind a hub, the device's first descriptor read gets no answer: its
 * slot is given back (the fake refuses a second address for a device
 * that still holds one), the hub port is reset again, the second try
 * answers. */
static void test_descriptor_retried_behind_hub(void **state)
{
	(void)state;
	struct fake_dev *hub = fake_hub_new("hub1", USB_SPEED_HIGH, 4);
	struct fake_dev *disk = fx_disk();
	fake_attach_root(1, hub);
	fake_hub_attach(hub, 2, disk);
	disk->desc_timeouts = 1;
	struct usb_device *dev = open_path(2, (const uint8_t[]){ 1, 2 }, USB_OK);
	FX_LOG_SEQ("hc ADDRESS s2 disk rp 1 route 0x00002 depth 1 speed 3 tt 0/0", "s2 GET_DESCRIPTOR DEVICE 18",
		   "s2 TIMEOUT", "hc REMOVE s2 disk", "s1 SET_PORT_FEATURE 2 PORT_RESET", "s1 CLEAR_PORT_FEATURE 2 C_PORT_RESET",
		   "hc ADDRESS s3 disk rp 1 route 0x00002 depth 1 speed 3 tt 0/0", "s3 GET_DESCRIPTOR DEVICE 18");
	assert_int_equal(dev->slot, 3);
	assert_int_equal(disk->slot, 3);
	FX_CONSOLE_HAS("usb: hub 1 (slot 1) port 2: device descriptor failed (timeout); try 2 of 3: resetting the port again\n");
	FX_NO_FAKE_ERRORS();
}

/* A device that never answers is given up after USB_ENUM_TRIES tries,
 * holding no slot; on a root port each try costs the 2 s control
 * time-out, 6 s in all; behind a hub each try also powers, debounces,
 * resets and recovers the port (230 ms): 6.69 s. */
static void test_never_answers(void **state)
{
	(void)state;
	struct fake_dev *disk = fx_disk();
	fake_attach_root(1, disk);
	disk->desc_timeouts = 1000;
	open_path(1, (const uint8_t[]){ 1 }, USB_TIMEOUT);
	assert_int_equal(fake_log_count("hc PORT_RESET 1"), USB_ENUM_TRIES);
	assert_int_equal(fake_log_count("hc REMOVE"), USB_ENUM_TRIES);
	assert_int_equal(disk->slot, 0);
	assert_int_equal(fake_now_us, USB_ENUM_TRIES * 2000000ull);
	FX_CONSOLE_HAS("usb: root port 1: no usable device after 3 tries (last: device descriptor failed: timeout)\n");
	FX_CONSOLE_HAS("usb: root port 1 of the boot path: device not brought up (timeout)\n");
	FX_NO_FAKE_ERRORS();

	fx_setup(state);
	struct fake_dev *hub = fake_hub_new("hub1", USB_SPEED_HIGH, 4);
	disk = fx_disk();
	fake_attach_root(1, hub);
	fake_hub_attach(hub, 2, disk);
	disk->desc_timeouts = 1000;
	open_path(2, (const uint8_t[]){ 1, 2 }, USB_TIMEOUT);
	assert_int_equal(fake_log_count("s1 SET_PORT_FEATURE 2 PORT_RESET"), USB_ENUM_TRIES);
	assert_int_equal(fake_log_count("hc REMOVE"), USB_ENUM_TRIES);
	assert_int_equal(disk->slot, 0);
	assert_int_equal(fake_now_us, USB_ENUM_TRIES * (2000000ull + 230000));
	FX_CONSOLE_HAS("usb: hop 1 of the boot path (hub port 2): device not brought up (timeout)\n");
	FX_NO_FAKE_ERRORS();
}

/* A SuperSpeed hub's port whose link sits in SS.Inactive, Compliance
 * Mode or (past 360 ms) Polling, with no CONNECTION: BH_PORT_RESET, never
 * PORT_RESET (the fake refuses a PORT_RESET with nothing connected). */
static void test_ss_hub_warm_reset(void **state)
{
	static const struct {
		uint16_t link;
		const char *said;
	} cases[] = {
		{ USB_SS_PORT_LS_SS_INACTIVE, "usb: hub 1 (slot 1) port 1: link in SS.Inactive: warm reset (BH_PORT_RESET)\n" },
		{ USB_SS_PORT_LS_COMP_MOD, "usb: hub 1 (slot 1) port 1: link in Compliance Mode: warm reset (BH_PORT_RESET)\n" },
		{ USB_SS_PORT_LS_POLLING, "usb: hub 1 (slot 1) port 1: link stuck in Polling: warm reset (BH_PORT_RESET)\n" },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fx_setup(state);
		struct fake_dev *hub = fake_hub_new("hub3", USB_SPEED_SUPER, 4);
		fake_attach_root(5, hub);
		fake_hub_attach(hub, 1, fake_disk_new("disk", USB_SPEED_SUPER, 512, FX_BLOCKS, 64));
		hub->hub->stuck_link[1] = cases[i].link;
		struct usb_device *dev = open_path(2, (const uint8_t[]){ 5, 1 }, USB_OK);
		FX_LOG_SEQ("s1 SET_PORT_FEATURE 1 PORT_POWER", "s1 SET_PORT_FEATURE 1 BH_PORT_RESET",
			   "s1 CLEAR_PORT_FEATURE 1 C_BH_PORT_RESET",
			   "hc ADDRESS s2 disk rp 5 route 0x00001 depth 1 speed 4 tt 0/0");
		assert_int_equal(fake_log_count("SET_PORT_FEATURE 1 PORT_RESET"), 0);
		assert_int_equal(dev->slot, 2);
		FX_CONSOLE_HAS(cases[i].said);
		FX_NO_FAKE_ERRORS();
	}
}

/* A PORT_RESET that leaves a SuperSpeed hub's port in SS.Inactive is
 * tried again as a BH_PORT_RESET; a USB 2 hub never gets one. */
static void test_ss_hub_hot_reset_escalates(void **state)
{
	struct fake_dev *hub = fake_hub_new("hub3", USB_SPEED_SUPER, 4);
	fake_attach_root(5, hub);
	fake_hub_attach(hub, 3, fake_disk_new("disk", USB_SPEED_SUPER, 512, FX_BLOCKS, 64));
	hub->hub->hot_reset_fails[3] = true;
	open_path(2, (const uint8_t[]){ 5, 3 }, USB_OK);
	FX_LOG_SEQ("s1 SET_PORT_FEATURE 3 PORT_RESET", "s1 PORT_STATUS 3 02c0/0010", "s1 CLEAR_PORT_FEATURE 3 C_PORT_RESET",
		   "s1 SET_PORT_FEATURE 3 BH_PORT_RESET", "s1 CLEAR_PORT_FEATURE 3 C_BH_PORT_RESET",
		   "hc ADDRESS s2 disk rp 5 route 0x00003 depth 1 speed 4 tt 0/0");
	FX_CONSOLE_HAS("usb: hub 1 (slot 1) port 3: reset did not complete in 500 ms");
	FX_CONSOLE_HAS("usb: hub 1 (slot 1) port 3: hot reset failed, trying a warm reset (BH_PORT_RESET)\n");
	FX_NO_FAKE_ERRORS();

	fx_setup(state);
	hub = fake_hub_new("hub1", USB_SPEED_HIGH, 4);
	fake_attach_root(1, hub);
	fake_hub_attach(hub, 2, fx_disk());
	hub->hub->never_finish_reset = true;
	open_path(2, (const uint8_t[]){ 1, 2 }, USB_TIMEOUT);
	assert_int_equal(fake_log_count("BH_PORT_RESET"), 0);
	FX_NO_FAKE_ERRORS();
}

/* The search of the bus (the path's root port is empty) counts a
 * SuperSpeed hub's port whose link sits in SS.Inactive as holding a
 * device: it is warm reset and the stick behind it found. */
static void test_scan_warm_resets_ss_hub_port(void **state)
{
	(void)state;
	struct fake_dev *hub = fake_hub_new("hub3", USB_SPEED_SUPER, 4);
	struct fake_dev *disk = fake_disk_new("disk", USB_SPEED_SUPER, 512, FX_BLOCKS, 4096);
	fake_disk_write_gpt(disk->disk, fx_guid);
	fake_attach_root(2, hub);
	fake_hub_attach(hub, 3, disk);
	hub->hub->stuck_link[3] = USB_SS_PORT_LS_SS_INACTIVE;
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_LOG_SEQ("s1 PORT_STATUS 3 02c0/0000", "s1 SET_PORT_FEATURE 3 BH_PORT_RESET",
		   "hc ADDRESS s2 disk rp 2 route 0x00003 depth 1 speed 4 tt 0/0");
	FX_CONSOLE_HAS("found by its identity at port 2 > 3");
	FX_NO_FAKE_ERRORS();
}

static void test_path_refusals(void **state)
{
	(void)state;
	fake_attach_root(1, fx_disk());
	/* a hop that is not a hub */
	open_path(2, (const uint8_t[]){ 1, 1 }, USB_NODEV);
	FX_CONSOLE_HAS("usb: hop 1 of the boot path (slot 1) is not a hub (class 0)\n");
	/* a root port the controller does not have, an empty root port */
	open_path(1, (const uint8_t[]){ 9 }, USB_BADARG);
	FX_CONSOLE_HAS("usb: root port 9 does not exist (the controller has 8)\n");
	open_path(1, (const uint8_t[]){ 2 }, USB_NODEV);
	FX_CONSOLE_HAS("usb: root port 2 of the boot path: device not brought up (no device)\n");
	/* no path at all, and one longer than USB allows */
	open_path(0, (const uint8_t[]){ 1 }, USB_BADARG);
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
	t.depth = STICK_PATH_MAX + 1;
	struct usb_device *dev;
	assert_int_equal(stick_path_open(&t, &dev), USB_BADARG);
	/* another controller */
	t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
	t.pci_dev = 4;
	assert_int_equal(stick_path_open(&t, &dev), USB_NODEV);
	FX_CONSOLE_HAS("usb: no controller at PCI 0000:00:04.0: no device\n");
	FX_NO_FAKE_ERRORS();
}

/* Configuration parsing: bounds, other interfaces, SS companions. */
static void test_config_parse(void **state)
{
	(void)state;
	struct fake_dev *ss = fake_disk_new("disk", USB_SPEED_SUPER, 512, 64, 64);
	struct usb_storage_interface si;
	assert_int_equal(usb_config_find_storage(ss->cfg_desc, ss->cfg_len, &si), USB_OK);
	assert_int_equal(si.config_value, 1);
	assert_int_equal(si.interface, 1);
	assert_int_equal(si.bulk_in.address, 0x81);
	assert_int_equal(si.bulk_out.address, 0x02);
	assert_int_equal(si.bulk_in.type, 2);
	assert_int_equal(si.bulk_in.max_packet, 1024);
	assert_int_equal(si.bulk_in.max_burst, 3);
	assert_int_equal(si.bulk_out.max_burst, 3);

	uint8_t buf[128];
	memcpy(buf, ss->cfg_desc, ss->cfg_len);
	/* cut inside the last endpoint companion: malformed */
	assert_int_equal(usb_config_find_storage(buf, ss->cfg_len - 3, &si), USB_ERROR);
	/* the bulk OUT endpoint cut off entirely: no usable interface */
	assert_int_equal(usb_config_find_storage(buf, ss->cfg_len - 13, &si), USB_NODEV);
	/* a zero bLength would loop forever without the check */
	buf[9] = 0;
	assert_int_equal(usb_config_find_storage(buf, ss->cfg_len, &si), USB_ERROR);
	FX_CONSOLE_HAS("usb: malformed descriptor at offset 9 of the configuration (bLength 0,");
	/* a bLength running past the end */
	memcpy(buf, ss->cfg_desc, ss->cfg_len);
	buf[9] = 200;
	assert_int_equal(usb_config_find_storage(buf, ss->cfg_len, &si), USB_ERROR);
	/* not Bulk-Only (UAS is protocol 0x62) */
	memcpy(buf, ss->cfg_desc, ss->cfg_len);
	buf[34 + 7] = 0x62;
	assert_int_equal(buf[34 + 1], 4); /* that byte is in the storage interface */
	assert_int_equal(usb_config_find_storage(buf, ss->cfg_len, &si), USB_NODEV);
	/* a header that is not a configuration */
	memcpy(buf, ss->cfg_desc, ss->cfg_len);
	buf[1] = 1;
	assert_int_equal(usb_config_find_storage(buf, ss->cfg_len, &si), USB_ERROR);
	uint8_t v;
	assert_int_equal(usb_config_value(buf, 8, &v), USB_ERROR);
}

/* A device that sends less configuration than wTotalLength announced. */
static void test_config_cut_short(void **state)
{
	(void)state;
	struct fake_dev *hub = fake_hub_new("hub1", USB_SPEED_HIGH, 4);
	fake_attach_root(1, hub);
	fake_hub_attach(hub, 1, fx_disk());
	hub->cfg_desc[2] = 40; /* announces 40, has 25 */
	open_path(2, (const uint8_t[]){ 1, 1 }, USB_ERROR);
	FX_CONSOLE_HAS("usb: slot 1: configuration descriptor cut short: 25 of 40 bytes\n");
	assert_int_equal(fake_log_count("SET_CONFIGURATION"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_root_port, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_one_usb2_hub, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_two_hubs_tt, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_usb3_hub, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_empty_hub_port_times_out, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_hub_reset_times_out, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_address_retried, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_descriptor_retried_behind_hub, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_never_answers, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_ss_hub_warm_reset, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_ss_hub_hot_reset_escalates, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_scan_warm_resets_ss_hub_port, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_path_refusals, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_config_parse, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_config_cut_short, fx_setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
