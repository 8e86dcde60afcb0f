/*
 * test_stick_recover.c - the stick's recovery ladder (kernel/usb/storage/stick.c,
 * usb_stick_recover) against the fake controller and disk: each rung
 * brings back the stick it is meant for (a WRITE failed b/00/06: reset
 * recovery; a disk that answers nothing until a bus reset: the port rung;
 * until a controller reset: the controller rung), each does what the
 * specifications ask in that order (the fake's log), the failed write
 * done again lands where the first should have (the whole fake disk
 * compared), and after a port or controller reset the identity is proved
 * again: another disk in the same port is refused and never written; a
 * stick that is no longer on its path after the reset is found by its
 * identity where it went (another root port, behind a hub), or nowhere.
 */
#include <stdlib.h>

#define FX_WHOLE_DISK
#include "support/usbstor_fixture.h"

#include "kernel/usb/core/usb.h"

#define BS FX_BS
#define STORE_BLOCKS FX_STORE_BLOCKS
#define LBA 2048

/* The disk holds the snapshot with src at LBA (n blocks), nothing else. */
static void assert_written(const uint8_t *src, uint32_t n)
{
	assert_disk_is(LBA, n, src);
}

static void test_reset_rung_after_write_error(void **state)
{
	struct usb_stick *st = open_ok();
	uint8_t *data = pattern(8, 0);

	disk->disk->write_errors = 1;
	assert_int_equal(usb_stick_write(st, LBA, data, 8), USB_ERROR);
	struct stick_sense s = usb_stick_last_sense(st);
	assert_int_equal(s.key, 0xb);
	assert_int_equal(s.ascq, 0x06);
	fake_log[0] = '\0';
	assert_int_equal(usb_stick_recover(st, STICK_RECOVER_RESET), USB_OK);
	FX_LOG_SEQ("s1 BOT_RESET", "hc CLEAR_HALT s1 0x81", "s1 CLEAR_FEATURE ENDPOINT_HALT 0x81",
		   "hc CLEAR_HALT s1 0x02", "s1 CLEAR_FEATURE ENDPOINT_HALT 0x02", "disk CBW 8 TEST_UNIT_READY len 0",
		   "disk CSW 8 status 0 residue 0");
	FX_CONSOLE_HAS("stick: recovering: Bulk-Only reset recovery");
	assert_int_equal(usb_stick_write(st, LBA, data, 8), USB_OK);
	assert_written(data, 8);
	FX_NO_FAKE_ERRORS();
	usb_dma_free(data, 8 * BS);
}

/* The disk stopped answering: the write times out, reset recovery cannot
 * reach it, the port rung resets the port, addresses it anew, binds and
 * checks the GPT again, and the write goes out. */
static void test_port_rung_after_time_out(void **state)
{
	struct usb_stick *st = open_ok();
	uint8_t *data = pattern(8, 0);

	disk->disk->hung = true;
	assert_true(usb_stick_write(st, LBA, data, 8) < 0);
	assert_true(usb_stick_recover(st, STICK_RECOVER_RESET) != USB_OK);
	fake_log[0] = '\0';
	assert_int_equal(usb_stick_recover(st, STICK_RECOVER_PORT), USB_OK);
	FX_LOG_SEQ("hc PORT_RESET 1", "hc ADDRESS s2 disk rp 1 route 0x00000 depth 0 speed 3 tt 0/0",
		   "s2 SET_CONFIGURATION 1", "hc CONFIGURE s2 0x81/512/0 0x02/512/0", "disk CBW 1 INQUIRY len 36",
		   "disk CBW 3 READ_CAPACITY(10) len 8", "disk CBW 5 READ(10) lba 1 n 1 len 512",
		   "disk CSW 5 status 0 residue 0");
	FX_CONSOLE_HAS("stick: disk GUID c12a7328-f81f-11d2-ba4b-00a0c93ec93b is the boot disk's");
	assert_int_equal(usb_stick_write(st, LBA, data, 8), USB_OK);
	assert_written(data, 8);
	FX_NO_FAKE_ERRORS();
	usb_dma_free(data, 8 * BS);
}

static void test_controller_rung(void **state)
{
	struct usb_stick *st = open_ok();
	uint8_t *data = pattern(8, 0);

	disk->disk->hung_until_hc_reset = true;
	assert_true(usb_stick_write(st, LBA, data, 8) < 0);
	assert_true(usb_stick_recover(st, STICK_RECOVER_RESET) != USB_OK);
	assert_true(usb_stick_recover(st, STICK_RECOVER_PORT) != USB_OK);
	assert_null(strstr(shadow_console, "looking for it")); /* there but sick: no search */
	assert_true(usb_stick_write(st, LBA, data, 8) < 0); /* a failed rung leaves it unusable */
	fake_log[0] = '\0';
	assert_int_equal(usb_stick_recover(st, STICK_RECOVER_CONTROLLER), USB_OK);
	/* The port rung tried USB_ENUM_TRIES times (slots 2 to 4). */
	FX_LOG_SEQ("hc CONTROLLER_RESET", "hc PORT_RESET 1", "hc ADDRESS s5 disk rp 1 route 0x00000 depth 0 speed 3 tt 0/0",
		   "disk CBW 5 READ(10) lba 1 n 1 len 512", "disk CSW 5 status 0 residue 0");
	assert_int_equal(usb_stick_write(st, LBA, data, 8), USB_OK);
	assert_written(data, 8);
	FX_NO_FAKE_ERRORS();
	usb_dma_free(data, 8 * BS);
}

/* Between the failure and the port reset the disk in the port changed
 * (another GPT disk GUID): the rung refuses it and nothing is written. */
static void test_identity_checked_again(void **state)
{
	static const uint8_t other[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct usb_stick *st = open_ok();
	uint8_t *data = pattern(8, 0);

	disk->disk->hung = true;
	assert_true(usb_stick_write(st, LBA, data, 8) < 0);
	fake_disk_write_gpt(disk->disk, other);
	snapshot();
	assert_int_equal(usb_stick_recover(st, STICK_RECOVER_PORT), USB_NODEV);
	FX_CONSOLE_HAS("stick: the GPT disk GUID differs: disk GUID 04030201-0605-0807-090a-0b0c0d0e0f10, the boot "
		       "disk's disk GUID c12a7328-f81f-11d2-ba4b-00a0c93ec93b: nothing written\n");
	assert_int_equal(usb_stick_write(st, LBA, data, 8), USB_BADARG);
	FX_CONSOLE_HAS("not verified as the boot disk");
	assert_written(NULL, 0);
	assert_int_equal(fake_log_count("WRITE(10)"), 0);
	usb_dma_free(data, 8 * BS);
}

/* Behind a hub, the port rung walks the whole path again: the root port
 * (the hub), the hub opened and its port reset, the disk addressed anew
 * through it with the same route. */
static void test_port_rung_behind_hub(void **state)
{
	(void)state;
	struct usb_stick *st = open_behind_hub(USB_SPEED_HIGH, 4, 5, 2);
	snapshot();
	uint8_t *data = pattern(8, 0);

	disk->disk->hung = true;
	assert_true(usb_stick_write(st, LBA, data, 8) < 0);
	fake_log[0] = '\0';
	assert_int_equal(usb_stick_recover(st, STICK_RECOVER_PORT), USB_OK);
	FX_LOG_SEQ("hc PORT_RESET 5", "hc ADDRESS s3 hub1 rp 5 route 0x00000 depth 0 speed 3 tt 0/0",
		   "hc ADDRESS s4 disk rp 5 route 0x00002 depth 1 speed 3 tt 0/0", "disk CBW 5 READ(10) lba 1 n 1 len 512");
	assert_int_equal(usb_stick_write(st, LBA, data, 8), USB_OK);
	assert_written(data, 8);
	FX_NO_FAKE_ERRORS();
	usb_dma_free(data, 8 * BS);
}

/* The stick opened, then hung: a write of *data (8 blocks at LBA) fails. */
static struct usb_stick *open_then_hang(uint8_t **data)
{
	struct usb_stick *st = open_ok();
	*data = pattern(8, 0);
	disk->disk->hung = true;
	assert_true(usb_stick_write(st, LBA, *data, 8) < 0);
	return st;
}

/* The failed write done again lands where it should, and only there. */
static void write_again_lands(struct usb_stick *st, uint8_t *data)
{
	assert_int_equal(usb_stick_write(st, LBA, data, 8), USB_OK);
	assert_written(data, 8);
	FX_NO_FAKE_ERRORS();
	usb_dma_free(data, 8 * BS);
}

/* After the failure the stick comes back on another root port (a USB 3
 * stick retrained on its USB 2 companion port): the port rung finds its
 * port empty, says so, finds the disk by its identity on port 3, and the
 * write goes there; the next rung follows the new port. */
static void test_port_rung_finds_the_stick_moved(void **state)
{
	(void)state;
	uint8_t *data;
	struct usb_stick *st = open_then_hang(&data);

	fake_attach_root(1, NULL);
	fake_attach_root(3, disk);
	fake_log[0] = '\0';
	assert_int_equal(usb_stick_recover(st, STICK_RECOVER_PORT), USB_OK);
	FX_CONSOLE_HAS("stick: the boot disk is no longer at port 1 of controller 0000:00:03.0 after the reset: looking "
		       "for it by its identity\n");
	FX_CONSOLE_HAS("found by its identity at port 3 (controller 0000:00:03.0)\n");
	FX_LOG_SEQ("hc PORT_RESET 1", "hc PORT_RESET 3", "hc ADDRESS s2 disk rp 3 route 0x00000 depth 0 speed 3 tt 0/0",
		   "disk CBW 5 READ(10) lba 1 n 1 len 512");
	/* the next recovery follows port 3 */
	fake_log[0] = '\0';
	shadow_console[0] = '\0';
	assert_int_equal(usb_stick_recover(st, STICK_RECOVER_PORT), USB_OK);
	FX_LOG_SEQ("hc PORT_RESET 3", "hc ADDRESS s3 disk rp 3 route 0x00000 depth 0 speed 3 tt 0/0");
	assert_int_equal(fake_log_count("hc PORT_RESET 1"), 0);
	assert_null(strstr(shadow_console, "looking for it"));
	write_again_lands(st, data);
}

/* After a controller reset the stick is behind a hub on another port, and
 * another disk sits where it was: that one is refused (its GPT differs)
 * and never written; the search skips it and finds the stick. */
static void test_controller_rung_finds_the_stick_behind_a_hub(void **state)
{
	(void)state;
	static const uint8_t other_guid[16] = { 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9 };
	struct usb_stick *st = open_ok();
	uint8_t *data = pattern(8, 0);

	disk->disk->hung_until_hc_reset = true;
	assert_true(usb_stick_write(st, LBA, data, 8) < 0);
	struct fake_dev *other = fake_disk_new("other", USB_SPEED_HIGH, BS, FX_BLOCKS, STORE_BLOCKS);
	fake_disk_write_gpt(other->disk, other_guid);
	struct fake_dev *hub = fake_hub_new("hub1", USB_SPEED_HIGH, 4);
	fake_attach_root(1, other);
	fake_attach_root(6, hub);
	fake_hub_attach(hub, 2, disk);
	assert_int_equal(usb_stick_recover(st, STICK_RECOVER_CONTROLLER), USB_OK);
	FX_CONSOLE_HAS("stick: the GPT disk GUID differs");
	FX_CONSOLE_HAS("stick: the boot disk is no longer at port 1 of controller 0000:00:03.0 after the reset");
	FX_CONSOLE_HAS("found by its identity at port 6 > 2 (controller 0000:00:03.0)\n");
	write_again_lands(st, data);
	assert_int_equal(other->disk->writes, 0);
}

/* Gone from everywhere: the search finds nothing, nothing is written. */
static void test_port_rung_stick_gone(void **state)
{
	(void)state;
	uint8_t *data;
	struct usb_stick *st = open_then_hang(&data);

	fake_attach_root(1, NULL);
	assert_int_equal(usb_stick_recover(st, STICK_RECOVER_PORT), USB_NODEV);
	FX_CONSOLE_HAS("stick: no disk with the boot disk's disk GUID c12a7328-f81f-11d2-ba4b-00a0c93ec93b on 1 xHCI "
		       "controller (0 devices): nothing written\n");
	assert_int_equal(usb_stick_write(st, LBA, data, 8), USB_BADARG);
	FX_NO_FAKE_ERRORS();
	usb_dma_free(data, 8 * BS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reset_rung_after_write_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_port_rung_after_time_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_controller_rung, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_checked_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_port_rung_behind_hub, setup, teardown),
		cmocka_unit_test_setup_teardown(test_port_rung_finds_the_stick_moved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_controller_rung_finds_the_stick_behind_a_hub, setup, teardown),
		cmocka_unit_test_setup_teardown(test_port_rung_stick_gone, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
