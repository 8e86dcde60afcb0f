/*
 * test_stick_scan.c - the boot stick found by its identity
 * (kernel/usb/storage/stick.c, stick_scan.c) against the fake controller,
 * hubs and disks: an MBR stick recognised by disk signature, partition and FAT
 * volume serial (and refused when any one differs), its writes kept
 * inside the partition; and, when the loader's path is no use, the search
 * of every root port and hub: a stick behind a hub, two sticks of which
 * only one matches (on root ports, and behind the hub the path went
 * through), the boot disk on LUN 1 of a card reader, usb.stick_port= on
 * an empty port, and no matching disk anywhere.  Each found stick is then
 * written and the fake disks compared: only the boot disk changed.
 */
#include <stdlib.h>

#include "support/usbstor_fixture.h"

#include "kernel/usb/core/usb.h"

#define BS 512
#define STORE_BLOCKS 4096
#define PART_LBA 64u
#define PART_BLOCKS (FX_BLOCKS - PART_LBA)
#define SIGNATURE 0x1a2b3c4du
#define SERIAL 0x12345678u

static struct fake_dev *mbr_disk(const char *name, uint32_t signature, uint32_t serial)
{
	struct fake_dev *d = fake_disk_new(name, USB_SPEED_HIGH, BS, FX_BLOCKS, STORE_BLOCKS);
	fake_disk_write_mbr(d->disk, signature, PART_LBA, PART_BLOCKS, serial);
	return d;
}

static struct usb_stick_target mbr_target(unsigned depth, const uint8_t *ports)
{
	struct usb_stick_target t = fx_target(depth, ports, BS, FX_BLOCKS);
	t.id = (struct disk_identity){ .table = DISKID_TABLE_MBR, .mbr_signature = SIGNATURE, .part_lba = PART_LBA,
				       .part_blocks = PART_BLOCKS, .volume_serial = SERIAL };
	return t;
}

/* Write 4 blocks at the partition's block 100 and check they landed on
 * disk d, and nothing reached the disks in others[]. */
static void write_lands_on(struct usb_stick *st, struct fake_dev *d, struct fake_dev *const *others, unsigned n)
{
	uint8_t *p = usb_dma_alloc(4 * BS);
	for (unsigned i = 0; i < 4 * BS; i++)
		p[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(usb_stick_write(st, PART_LBA + 100, p, 4), USB_OK);
	assert_memory_equal(d->disk->store + (PART_LBA + 100) * BS, p, 4 * BS);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(others[i]->disk->writes, 0);
	usb_dma_free(p, 4 * BS);
}

static void test_mbr_identity(void **state)
{
	(void)state;
	struct fake_dev *d = mbr_disk("disk", SIGNATURE, SERIAL);
	fake_attach_root(1, d);
	struct usb_stick_target t = mbr_target(1, (const uint8_t[]){ 1 });
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_CONSOLE_HAS("stick: MBR disk signature 0x1a2b3c4d, partition at LBA 64 (65472 blocks), FAT volume serial "
		       "1234-5678 is the boot disk's\n");
	assert_int_equal(fake_log_count("looking for"), 0);
	write_lands_on(st, d, NULL, 0);
	/* Never the MBR, never before the partition. */
	uint8_t *p = usb_dma_alloc(BS);
	assert_int_equal(usb_stick_write(st, 0, p, 1), USB_BADARG);
	assert_int_equal(usb_stick_write(st, PART_LBA - 1, p, 2), USB_BADARG);
	FX_CONSOLE_HAS("stick: WRITE of 2 blocks at LBA 63 refused: outside the boot partition's blocks 64-65535\n");
	usb_dma_free(p, BS);
	assert_int_equal(d->disk->writes, 1);
	FX_NO_FAKE_ERRORS();
}

/* Each part of the MBR identity counts: a disk that differs in one is
 * refused, with the field named, and nothing is written. */
static void test_mbr_identity_differs(void **state)
{
	(void)state;
	static const char *const why[] = {
		"stick: the MBR disk signature differs: MBR disk signature 0x1a2b3c4e,",
		"stick: the FAT volume serial number differs: MBR disk signature 0x1a2b3c4d, partition at LBA 64 "
		"(65472 blocks), FAT volume serial 1234-5679,",
		"stick: read as the boot disk's MBR: the MBR has no primary entry for the boot partition (a logical "
		"partition?): not the boot disk, nothing written\n",
	};
	for (unsigned i = 0; i < 3; i++) {
		fx_setup(state);
		struct fake_dev *d = mbr_disk("disk", SIGNATURE + (i == 0), SERIAL + (i == 1));
		if (i == 2)
			d->disk->store[446 + 12] ^= 1; /* the entry's size */
		fake_attach_root(1, d);
		struct usb_stick_target t = mbr_target(1, (const uint8_t[]){ 1 });
		struct usb_stick *st = NULL;
		assert_int_equal(usb_stick_open(&t, &st), USB_NODEV);
		assert_null(st);
		FX_CONSOLE_HAS(why[i]);
		assert_int_equal(d->disk->writes, 0);
		FX_NO_FAKE_ERRORS();
	}
}

/* The loader's root port 2 is empty; the stick is behind a hub on port 1. */
static void test_scan_behind_hub(void **state)
{
	(void)state;
	struct fake_dev *hub = fake_hub_new("hub1", USB_SPEED_HIGH, 4);
	struct fake_dev *d = mbr_disk("disk", SIGNATURE, SERIAL);
	fake_attach_root(1, hub);
	fake_hub_attach(hub, 3, d);
	struct usb_stick_target t = mbr_target(1, (const uint8_t[]){ 2 });
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_CONSOLE_HAS("stick: looking for the disk with the boot disk's MBR disk signature 0x1a2b3c4d, partition at "
		       "LBA 64 (65472 blocks), FAT volume serial 1234-5678 on every xHCI controller\n");
	FX_CONSOLE_HAS("stick: not at the loader's port 2; found by its identity at port 1 > 3 (controller "
		       "0000:00:03.0)\n");
	/* only the connected port of the hub was attached */
	assert_int_equal(fake_log_count("hc ADDRESS"), 2);
	write_lands_on(st, d, NULL, 0);
	FX_NO_FAKE_ERRORS();
}

/* Two sticks of the same size; the loader's port holds the wrong one
 * (another volume serial): it is refused, not tried again, and the
 * search takes the other. */
static void test_scan_two_sticks_one_matches(void **state)
{
	(void)state;
	struct fake_dev *wrong = mbr_disk("wrong", SIGNATURE, SERIAL ^ 0xFF);
	struct fake_dev *right = mbr_disk("right", SIGNATURE, SERIAL);
	fake_attach_root(1, wrong);
	fake_attach_root(4, right);
	struct usb_stick_target t = mbr_target(1, (const uint8_t[]){ 1 });
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_CONSOLE_HAS("stick: the FAT volume serial number differs");
	FX_CONSOLE_HAS("stick: not at the loader's port 1; found by its identity at port 4 (controller 0000:00:03.0)\n");
	assert_int_equal(fake_log_count("READ_CAPACITY"), 2); /* wrong once, right once */
	write_lands_on(st, right, (struct fake_dev *const[]){ wrong }, 1);
	FX_NO_FAKE_ERRORS();
}

/* The loader's path goes through a hub to the wrong stick on its port 1;
 * the search resets the hub's root port, opens the hub again and takes
 * the stick on its port 2, skipping port 1. */
static void test_scan_through_the_paths_hub(void **state)
{
	(void)state;
	struct fake_dev *hub = fake_hub_new("hub1", USB_SPEED_HIGH, 4);
	struct fake_dev *wrong = mbr_disk("wrong", SIGNATURE ^ 1, SERIAL);
	struct fake_dev *right = mbr_disk("right", SIGNATURE, SERIAL);
	fake_attach_root(5, hub);
	fake_hub_attach(hub, 1, wrong);
	fake_hub_attach(hub, 2, right);
	struct usb_stick_target t = mbr_target(2, (const uint8_t[]){ 5, 1 });
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_CONSOLE_HAS("stick: the MBR disk signature differs");
	FX_CONSOLE_HAS("stick: not at the loader's port 5 > 1; found by its identity at port 5 > 2 (controller "
		       "0000:00:03.0)\n");
	assert_int_equal(fake_log_count("READ_CAPACITY"), 2);
	write_lands_on(st, right, (struct fake_dev *const[]){ wrong }, 1);
	FX_NO_FAKE_ERRORS();
}

/* A card reader on root port 3 with the boot disk on LUN 1; the loader
 * said LUN 1 on port 1, where nothing is.  LUN 1 is tried first. */
static void test_scan_lun1(void **state)
{
	(void)state;
	struct fake_dev *d = mbr_disk("reader", SIGNATURE, SERIAL);
	d->disk->max_lun = 1;
	d->disk->boot_lun = 1;
	fake_attach_root(3, d);
	struct usb_stick_target t = mbr_target(1, (const uint8_t[]){ 1 });
	t.lun = 1;
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_CONSOLE_HAS("stick: 2 LUNs (a card reader?): looking for the boot disk on each\nstick: trying LUN 1\n");
	assert_null(strstr(shadow_console, "trying LUN 0"));
	assert_int_equal(fake_log_count("lun 0"), 0);
	FX_CONSOLE_HAS("stick: not at the loader's port 1; found by its identity at port 3 (controller 0000:00:03.0)\n");
	write_lands_on(st, d, NULL, 0);
	assert_int_equal(d->disk->lun, 1);
	FX_NO_FAKE_ERRORS();
}

/* usb.stick_port=2 on a bus whose stick is on port 1 (a GPT stick). */
static void test_scan_port_override(void **state)
{
	(void)state;
	struct fake_dev *d = fx_disk();
	fake_attach_root(1, d);
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, BS, FX_BLOCKS);
	t.root_port_override = 2;
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_CONSOLE_HAS("stick: not at port 2 (usb.stick_port=2; the loader's port 1); found by its identity at port 1 "
		       "(controller 0000:00:03.0)\n");
	FX_NO_FAKE_ERRORS();
}

/* No disk anywhere has the identity: one line, nothing written. */
static void test_scan_nowhere(void **state)
{
	(void)state;
	struct fake_dev *hub = fake_hub_new("hub1", USB_SPEED_HIGH, 4);
	struct fake_dev *a = mbr_disk("a", SIGNATURE + 1, SERIAL), *b = mbr_disk("b", SIGNATURE, SERIAL + 1);
	fake_attach_root(2, a);
	fake_attach_root(5, hub);
	fake_hub_attach(hub, 2, b);
	struct usb_stick_target t = mbr_target(1, (const uint8_t[]){ 1 });
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_NODEV);
	assert_null(st);
	FX_CONSOLE_HAS("stick: no disk with the boot disk's MBR disk signature 0x1a2b3c4d, partition at LBA 64 (65472 "
		       "blocks), FAT volume serial 1234-5678 on 1 xHCI controller (3 devices): nothing written\n");
	assert_int_equal(a->disk->writes + b->disk->writes, 0);
	FX_NO_FAKE_ERRORS();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mbr_identity, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_mbr_identity_differs, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_scan_behind_hub, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_scan_two_sticks_one_matches, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_scan_through_the_paths_hub, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_scan_lun1, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_scan_port_override, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_scan_nowhere, fx_setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
