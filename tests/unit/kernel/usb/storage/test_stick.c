/*
 * test_stick.c - the stick as the trace's block device (kernel/usb/storage/
 * stick.c, stick_file.c) against the fake disk: the safety rules first
 * (a wrong disk GUID, no GPT or another capacity refuses the stick before
 * anything is written, a capacity one off is taken only with the right
 * identity; a write-protected stick, seen by MODE SENSE or by
 * a WRITE failing 7/27/00; writes only inside the trace file's extents
 * and the GPT's usable blocks), then READ CAPACITY(16), READ/WRITE(16),
 * splitting at extents and at the transfer size, SYNCHRONIZE CACHE (and a
 * stick refusing it: not flushed, not an error), and
 * a stick behind a hub.  Every check of what was written compares the
 * whole fake disk with what it must hold.
 */
#include <stdlib.h>

#define FX_WHOLE_DISK
#include "support/usbstor_fixture.h"

#include "kernel/usb/core/usb.h"

#define BS FX_BS
#define STORE_BLOCKS FX_STORE_BLOCKS

static void test_wrong_guid_writes_nothing(void **state)
{
	(void)state;
	uint8_t other[16];
	memcpy(other, fx_guid, 16);
	other[15] ^= 1;
	fake_disk_write_gpt(disk->disk, other);
	snapshot();
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, BS, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_NODEV);
	assert_null(st);
	FX_CONSOLE_HAS("stick: the GPT disk GUID differs: disk GUID c12a7328-f81f-11d2-ba4b-00a0c93ec93a, the boot "
		       "disk's disk GUID c12a7328-f81f-11d2-ba4b-00a0c93ec93b: nothing written\n");
	/* the path's disk is not tried again by the search that follows */
	FX_CONSOLE_HAS("stick: no disk with the boot disk's disk GUID c12a7328-f81f-11d2-ba4b-00a0c93ec93b on 1 xHCI "
		       "controller (1 device): nothing written\n");
	assert_int_equal(fake_log_count("READ_CAPACITY"), 1);
	assert_int_equal(fake_log_count("WRITE"), 0);
	assert_int_equal(disk->disk->writes, 0);
	assert_disk_is(0, 0, NULL);
	FX_NO_FAKE_ERRORS();
}

static void test_no_gpt_or_damaged_gpt(void **state)
{
	(void)state;
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, BS, FX_BLOCKS);
	struct usb_stick *st = NULL;
	disk->disk->store[BS + 60] ^= 0xFF; /* inside the GUID: the header CRC no longer matches */
	assert_int_equal(usb_stick_open(&t, &st), USB_NODEV);
	FX_CONSOLE_HAS("stick: LBA 1 holds no valid GPT header (the GPT header's CRC32 does not match (damaged header)): "
		       "not the boot disk, nothing written\n");
	memset(disk->disk->store + BS, 0, BS);
	assert_int_equal(usb_stick_open(&t, &st), USB_NODEV);
	assert_int_equal(disk->disk->writes, 0);
	FX_NO_FAKE_ERRORS();
}

static void test_capacity_mismatch(void **state)
{
	(void)state;
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, BS, FX_BLOCKS + 2);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_NODEV);
	FX_CONSOLE_HAS("stick: QEMU QEMU HARDDISK has 65536 blocks of 512 bytes, the boot disk 65538 of 512: not the boot disk\n");
	t = fx_target(1, (const uint8_t[]){ 1 }, BS, FX_BLOCKS - 2);
	assert_int_equal(usb_stick_open(&t, &st), USB_NODEV);
	t = fx_target(1, (const uint8_t[]){ 1 }, 4096, FX_BLOCKS);
	assert_int_equal(usb_stick_open(&t, &st), USB_NODEV);
	t = fx_target(1, (const uint8_t[]){ 1 }, 500, FX_BLOCKS);
	assert_int_equal(usb_stick_open(&t, &st), USB_BADARG);
	FX_CONSOLE_HAS("stick: block size 500 from the loader is not usable\n");
	assert_int_equal(fake_log_count("READ(10)"), 0); /* refused before LBA 1 is read */
	FX_NO_FAKE_ERRORS();
}

/* A stick whose READ CAPACITY is one off from the firmware's count (one
 * more: it gives the number of blocks where the last LBA belongs, Linux's
 * US_FL_FIX_CAPACITY; one fewer: CAPACITY_HEURISTICS' case) is taken
 * when its identity matches, with one line; nothing past the fewer of
 * the two counts is read or written. */
static void test_capacity_one_off(void **state)
{
	for (int off = -1; off <= 1; off += 2) {
		setup(state);
		uint64_t firmware = FX_BLOCKS + off; /* the fake reports FX_BLOCKS */
		uint64_t fewer = off < 0 ? firmware : FX_BLOCKS;
		struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, BS, firmware);
		t.id.part_blocks = FX_BLOCKS - 67; /* the GPT's usable blocks, as the disk has them */
		struct usb_stick *st = NULL;
		assert_int_equal(usb_stick_open(&t, &st), USB_OK);
		char want[200];
		snprintf(want, sizeof(want), "stick: QEMU QEMU HARDDISK says 65536 blocks, the firmware %llu: one off, as "
			 "some sticks count; taken if its identity matches, nothing read or written past block %llu\n",
			 (unsigned long long)firmware, (unsigned long long)(fewer - 1));
		FX_CONSOLE_HAS(want);
		FX_CONSOLE_HAS("stick: disk GUID c12a7328-f81f-11d2-ba4b-00a0c93ec93b is the boot disk's\n");
		uint8_t *p = pattern(1, 9);
		assert_int_equal(usb_stick_read(st, fewer - 1, p, 1), USB_OK);
		assert_int_equal(usb_stick_read(st, fewer, p, 1), USB_BADARG);
		/* writes: inside the partition (34 .. 65502), whatever the counts */
		assert_int_equal(usb_stick_write(st, 34 + FX_BLOCKS - 67, p, 1), USB_BADARG);
		usb_dma_free(p, BS);
		FX_NO_FAKE_ERRORS();
		teardown(state);
	}
	setup(state);
	/* one off, but another disk: refused as before */
	uint8_t other[16];
	memcpy(other, fx_guid, 16);
	other[0] ^= 1;
	fake_disk_write_gpt(disk->disk, other);
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, BS, FX_BLOCKS - 1);
	t.id.part_blocks = FX_BLOCKS - 67;
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_NODEV);
	FX_CONSOLE_HAS("stick: the GPT disk GUID differs");
	assert_int_equal(disk->disk->writes, 0);
}

/* MODE SENSE says WP: nothing is even sent. */
static void test_write_protect_from_mode_sense(void **state)
{
	(void)state;
	disk->disk->wp_mode_sense = disk->disk->wp_media = true;
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, BS, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_CONSOLE_HAS("stick: QEMU QEMU HARDDISK, 65536 blocks of 512 bytes, write protected\n");
	assert_true(usb_stick_write_protected(st));
	struct stick_file f = { .stick = st, .block_size = BS, .nextents = 1, .extents = { { 100, 64 } },
				.file_bytes = 64 * BS };
	uint8_t *p = pattern(4, 1);
	snapshot();
	assert_int_equal(stick_file_write(&f, 0, p, 4 * BS), USB_ERROR);
	FX_CONSOLE_HAS("stick: WRITE at LBA 100 refused: the stick is write protected\n");
	assert_int_equal(fake_log_count("WRITE"), 0);
	assert_disk_is(0, 0, NULL);
	usb_dma_free(p, 4 * BS);
	FX_NO_FAKE_ERRORS();
}

/* MODE SENSE says nothing (as some sticks do); the WRITE fails 7/27/00,
 * with its data stage stalled, and the stick is then known protected. */
static void test_write_protect_from_write(void **state)
{
	(void)state;
	disk->disk->wp_media = disk->disk->wp_stalls_data = true;
	struct usb_stick *st = open_ok();
	assert_false(usb_stick_write_protected(st));
	uint8_t *p = pattern(8, 2);
	snapshot();
	assert_int_equal(usb_stick_write(st, 4000, p, 8), USB_ERROR);
	assert_string_equal(shadow_console, "stick: WRITE(10) at LBA 4000 failed: sense 7/27/00 (write protected)\n");
	struct stick_sense s = usb_stick_last_sense(st);
	assert_int_equal(s.key, 7);
	assert_int_equal(s.asc, 0x27);
	assert_int_equal(s.ascq, 0);
	assert_true(usb_stick_write_protected(st));
	FX_LOG_SEQ("disk CBW 6 WRITE(10) lba 4000 n 8 len 4096", "disk STALL data-out", "hc CLEAR_HALT s1 0x02",
		   "s1 CLEAR_FEATURE ENDPOINT_HALT 0x02", "disk CSW 6 status 1 residue 4096",
		   "disk CBW 7 REQUEST_SENSE len 18");
	assert_disk_is(0, 0, NULL);
	fake_log[0] = '\0';
	assert_int_equal(usb_stick_write(st, 4000, p, 8), USB_ERROR); /* not sent again */
	assert_string_equal(fake_log, "");
	usb_dma_free(p, 8 * BS);
	FX_NO_FAKE_ERRORS();
}

static void test_file_write_bounds(void **state)
{
	(void)state;
	struct usb_stick *st = open_ok();
	/* 8 blocks at 100, 4 at 300, 8 at 500; the file is 18 blocks long. */
	struct stick_file f = { .stick = st, .block_size = BS, .nextents = 3,
				.extents = { { 100, 8 }, { 300, 4 }, { 500, 8 } }, .file_bytes = 18 * BS };
	uint8_t *p = pattern(8, 3);
	snapshot();

	/* inside the first extent */
	assert_int_equal(stick_file_write(&f, 2 * BS, p, 4 * BS), USB_OK);
	assert_string_equal(fake_log, "disk CBW 6 WRITE(10) lba 102 n 4 len 2048\n"
				      "disk data-out 2048\n"
				      "disk CSW 6 status 0 residue 0\n");
	assert_disk_is(102, 4, p);

	/* straddling all three extents: 2 + 4 + 2 blocks */
	fake_log[0] = '\0';
	assert_int_equal(stick_file_write(&f, 6 * BS, p, 8 * BS), USB_OK);
	FX_LOG_SEQ("disk CBW 7 WRITE(10) lba 106 n 2 len 1024", "disk CBW 8 WRITE(10) lba 300 n 4 len 2048",
		   "disk CBW 9 WRITE(10) lba 500 n 2 len 1024");
	assert_int_equal(fake_log_count("WRITE"), 3);
	memcpy(before + 106 * BS, p, 2 * BS);
	memcpy(before + 300 * BS, p + 2 * BS, 4 * BS);
	assert_disk_is(500, 2, p + 6 * BS);

	/* refused, nothing sent: past the end (the last extent is longer than
	 * the file), unaligned offset or length, beyond everything */
	fake_log[0] = '\0';
	shadow_console[0] = '\0';
	assert_int_equal(stick_file_write(&f, 16 * BS, p, 4 * BS), USB_BADARG);
	FX_CONSOLE_HAS("stick: write of 2048 bytes at offset 8192 of the trace file refused: past the end of the file\n");
	assert_int_equal(stick_file_write(&f, 100, p, BS), USB_BADARG);
	assert_int_equal(stick_file_write(&f, 0, p, 100), USB_BADARG);
	FX_CONSOLE_HAS("refused: not whole blocks\n");
	assert_int_equal(stick_file_write(&f, UINT64_MAX - BS + 1, p, BS), USB_BADARG);
	/* a file whose extents do not cover its size: the gap is refused */
	f.file_bytes = 24 * BS;
	assert_int_equal(stick_file_write(&f, 18 * BS, p, 4 * BS), USB_BADARG);
	FX_CONSOLE_HAS("refused: outside the file's extents\n");
	/* ... even when the write begins inside the extents */
	assert_int_equal(stick_file_write(&f, 19 * BS, p, 2 * BS), USB_BADARG);
	/* zero bytes is nothing to do */
	assert_int_equal(stick_file_write(&f, 0, p, 0), USB_OK);
	assert_string_equal(fake_log, "");
	assert_disk_is(0, 0, NULL);
	usb_dma_free(p, 8 * BS);
	FX_NO_FAKE_ERRORS();
}

/* Extents the loader should never give: over the GPT, or past the
 * partition area.  usb_stick_write() refuses them whatever the file says. */
static void test_writes_stay_in_gpt_usable_area(void **state)
{
	(void)state;
	fake_reset(8);
	disk = fake_disk_new("disk", USB_SPEED_HIGH, BS, STORE_BLOCKS, STORE_BLOCKS);
	fake_disk_write_gpt(disk->disk, fx_guid);
	fake_attach_root(1, disk);
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, BS, STORE_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	fake_log[0] = '\0';
	uint8_t *p = pattern(4, 4);
	snapshot();
	struct stick_file f = { .stick = st, .block_size = BS, .nextents = 1, .extents = { { 0, 64 } },
				.file_bytes = 64 * BS };
	assert_int_equal(stick_file_write(&f, 0, p, 4 * BS), USB_BADARG);
	FX_CONSOLE_HAS("stick: WRITE of 4 blocks at LBA 0 refused: outside the boot partition's blocks 34-4062\n");
	assert_int_equal(usb_stick_write(st, 33, p, 2), USB_BADARG);
	assert_int_equal(usb_stick_write(st, 4060, p, 4), USB_BADARG);
	assert_int_equal(fake_log_count("WRITE"), 0);
	assert_disk_is(0, 0, NULL);
	assert_int_equal(usb_stick_write(st, 4059, p, 4), USB_OK); /* up to the last usable block */
	assert_int_equal(usb_stick_write(st, 34, p, 1), USB_OK);   /* the first */
	assert_int_equal(fake_log_count("WRITE"), 2);
	memcpy(before + 34 * BS, p, BS);
	assert_disk_is(4059, 4, p);
	assert_int_equal(usb_stick_read(st, STORE_BLOCKS, p, 1), USB_BADARG);
	assert_int_equal(usb_stick_read(st, STORE_BLOCKS - 1, p, 2), USB_BADARG);
	usb_dma_free(p, 4 * BS);
	FX_NO_FAKE_ERRORS();
}

/* 600 blocks in one extent go out as commands of at most 120 KiB. */
static void test_large_write_split(void **state)
{
	(void)state;
	struct usb_stick *st = open_ok();
	struct stick_file f = { .stick = st, .block_size = BS, .nextents = 2, .extents = { { 1000, 600 }, { 2000, 100 } },
				.file_bytes = 700 * BS };
	uint8_t *p = pattern(650, 5);
	snapshot();
	assert_int_equal(stick_file_write(&f, 0, p, 650 * BS), USB_OK);
	assert_string_equal(fake_log, "disk CBW 6 WRITE(10) lba 1000 n 240 len 122880\n"
				      "disk data-out 122880\n"
				      "disk CSW 6 status 0 residue 0\n"
				      "disk CBW 7 WRITE(10) lba 1240 n 240 len 122880\n"
				      "disk data-out 122880\n"
				      "disk CSW 7 status 0 residue 0\n"
				      "disk CBW 8 WRITE(10) lba 1480 n 120 len 61440\n"
				      "disk data-out 61440\n"
				      "disk CSW 8 status 0 residue 0\n"
				      "disk CBW 9 WRITE(10) lba 2000 n 50 len 25600\n"
				      "disk data-out 25600\n"
				      "disk CSW 9 status 0 residue 0\n");
	memcpy(before + 1000 * BS, p, 600 * BS);
	assert_disk_is(2000, 50, p + 600 * BS);
	/* and it reads back the same way */
	uint8_t *q = usb_dma_alloc(600 * BS);
	assert_int_equal(usb_stick_read(st, 1000, q, 600), USB_OK);
	assert_memory_equal(q, p, 600 * BS);
	usb_dma_free(q, 600 * BS);
	usb_dma_free(p, 650 * BS);
	FX_NO_FAKE_ERRORS();
}

/* 2^33 blocks: READ CAPACITY(10) says 0xFFFFFFFF, (16) gives the size,
 * and blocks past 2^32 are addressed with READ(16). */
static void test_read_capacity_16(void **state)
{
	(void)state;
	const uint64_t blocks = 1ull << 33;
	fake_reset(8);
	disk = fake_disk_new("disk", USB_SPEED_SUPER, BS, blocks, 64);
	fake_disk_write_gpt(disk->disk, fx_guid);
	fake_attach_root(4, disk);
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 4 }, BS, blocks);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_LOG_SEQ("hc CONFIGURE s1 0x81/1024/3 0x02/1024/3", "disk CBW 3 READ_CAPACITY(10) len 8",
		   "disk CSW 3 status 0 residue 0", "disk CBW 4 READ_CAPACITY(16) len 32", "disk data-in 32",
		   "disk CSW 4 status 0 residue 0", "disk CBW 5 MODE_SENSE(6) len 192");
	FX_CONSOLE_HAS("stick: QEMU QEMU HARDDISK, 8589934592 blocks of 512 bytes\n");
	uint8_t *p = usb_dma_alloc(2 * BS);
	fake_log[0] = '\0';
	assert_int_equal(usb_stick_read(st, (1ull << 32) - 1, p, 2), USB_OK);
	assert_int_equal(usb_stick_read(st, 1000, p, 2), USB_OK);
	FX_LOG_SEQ("disk CBW 7 READ(16) lba 4294967295 n 2 len 1024", "disk CBW 8 READ(10) lba 1000 n 2 len 1024");
	usb_dma_free(p, 2 * BS);
	FX_NO_FAKE_ERRORS();
}

static void test_synchronize_cache(void **state)
{
	(void)state;
	struct usb_stick *st = open_ok();
	assert_int_equal(usb_stick_sync(st), USB_OK);
	assert_string_equal(fake_log, "disk CBW 6 SYNCHRONIZE_CACHE(10) len 0\n"
				      "disk CSW 6 status 0 residue 0\n");
	disk->disk->sync_unsupported = true;
	assert_int_equal(usb_stick_sync(st), USB_OK);
	FX_CONSOLE_HAS("stick: SYNCHRONIZE CACHE(10) not supported (sense 5/20/00): no cache to flush\n");
	FX_NO_FAKE_ERRORS();
}

/* A stick that refuses SYNCHRONIZE CACHE (CHECK CONDITION with another
 * sense, or a stalled CSW even after reset recovery) but answers: not
 * flushed, not an error (its writes were acknowledged), and it goes on
 * working.  A UNIT ATTENTION is only sent again.  One that no longer
 * answers is an error, as before. */
static void test_synchronize_cache_refused(void **state)
{
	(void)state;
	struct usb_stick *st = open_ok();
	disk->disk->sync_sense[0] = 0x4, disk->disk->sync_sense[1] = 0x44; /* hardware error, internal target failure */
	assert_int_equal(usb_stick_sync(st), USB_STICK_NOT_FLUSHED);
	struct stick_sense s = usb_stick_last_sense(st);
	assert_int_equal(s.key, 0x4);
	assert_int_equal(s.asc, 0x44);
	FX_CONSOLE_HAS("stick: SYNCHRONIZE CACHE(10) failed: sense 4/44/00 (hardware error)\n");
	disk->disk->sync_sense[0] = 0;

	disk->disk->stall_csw = 4; /* twice per try, and tried twice */
	fake_log[0] = '\0';
	assert_int_equal(usb_stick_sync(st), USB_STICK_NOT_FLUSHED);
	assert_int_equal(fake_log_count("s1 BOT_RESET"), 2);
	FX_CONSOLE_HAS("stick: SYNCHRONIZE CACHE(10) failed: stall\n");
	uint8_t *p = pattern(1, 7);
	assert_int_equal(usb_stick_write(st, 1000, p, 1), USB_OK); /* in step again */
	assert_int_equal(usb_stick_sync(st), USB_OK);

	/* a UNIT ATTENTION is no refusal: sent again, flushed */
	disk->disk->attention_op = 0x35;
	disk->disk->unit_attentions = 1;
	assert_int_equal(usb_stick_sync(st), USB_OK);
	FX_CONSOLE_HAS("stick: SYNCHRONIZE CACHE(10): unit attention 6/29/00 (power on, reset, or bus device reset): sent "
		       "again\n");

	disk->disk->hung = true;
	assert_true(usb_stick_sync(st) < 0);
	usb_dma_free(p, BS);
	FX_NO_FAKE_ERRORS();
}

/* The whole thing behind a hub, as `USB_HUB=1` runs it: open, write the
 * file, read it back. */
static void test_behind_hub_round_trip(void **state)
{
	(void)state;
	struct usb_stick *st = open_behind_hub(USB_SPEED_FULL, 8, 5, 1);
	FX_LOG_SEQ("hc ADDRESS s2 disk rp 5 route 0x00001 depth 1 speed 1 tt 0/0", "hc CONFIGURE s2 0x81/64/0 0x02/64/0");
	struct stick_file f = { .stick = st, .block_size = BS, .nextents = 1, .extents = { { 2048, 1024 } },
				.file_bytes = 1024 * BS };
	uint8_t *p = pattern(16, 6);
	snapshot();
	assert_int_equal(stick_file_write(&f, 32 * BS, p, 16 * BS), USB_OK);
	assert_disk_is(2080, 16, p);
	usb_dma_free(p, 16 * BS);
	FX_NO_FAKE_ERRORS();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wrong_guid_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_gpt_or_damaged_gpt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_capacity_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_capacity_one_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_protect_from_mode_sense, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_protect_from_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_write_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writes_stay_in_gpt_usable_area, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_write_split, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_capacity_16, setup, teardown),
		cmocka_unit_test_setup_teardown(test_synchronize_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_synchronize_cache_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_behind_hub_round_trip, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
