/*
 * test_bot.c - the Bulk-Only Transport state machine and its recovery
 * (kernel/usb/storage/bot.c, scsi.c, scsi_sense.c) against the fake disk: the
 * command sequence of usb_stick_open(), stalls on the data and CSW
 * stages, CSWs with a bad signature, tag or a phase error (reset
 * recovery must run, then the command is retried once), residues larger
 * than asked (clamped) and bogus ones (ignored once INQUIRY shows them),
 * short residues, the patience of the open (the settle delay after
 * SET_CONFIGURATION, UNIT ATTENTION on each opening command, NOT READY
 * waited for within its bound), and REQUEST SENSE after CHECK CONDITION; and
 * the assertion that the controller driver never reports more bytes moved
 * than asked, at each stage, broken by the fake controller; and each
 * stage's time-out (usb.data_timeout_ms=, usb.csw_timeout_ms=).
 */
#include "support/usbstor_fixture.h"

#include "kernel/usb/core/usb.h"
#include "kernel/usb/storage/bot.h"
#include "kernel/usb/storage/scsi.h"
#include "kernel/usb/storage/stick_dev.h"
#include "kernel/usb/storage/stick_keys.h"

static struct fake_dev *disk;
static uint8_t *buf; /* 8 blocks, direct map */

/* The stick on root port 1, opened; the log and console start empty. */
static struct usb_stick *open_stick(void)
{
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_NO_FAKE_ERRORS();
	fake_log[0] = '\0';
	shadow_console[0] = '\0';
	return st;
}

static int setup(void **state)
{
	fx_setup(state);
	disk = fx_disk();
	fake_attach_root(1, disk);
	for (unsigned i = 0; i < 8 * 512; i++)
		disk->disk->store[40 * 512 + i] = (uint8_t)(i * 7 + 3);
	if (!buf)
		buf = usb_dma_alloc(8 * 512);
	memset(buf, 0, 8 * 512);
	return 0;
}

static void test_open_sequence(void **state)
{
	(void)state;
	disk->disk->unit_attentions = 1;
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	assert_string_equal(fake_log, "hc OPEN 0000:00:03.0\n"
				      "hc PORT_RESET 1\n"
				      "hc ADDRESS s1 disk rp 1 route 0x00000 depth 0 speed 3 tt 0/0\n"
				      "s1 GET_DESCRIPTOR DEVICE 18\n"
				      "s1 GET_DESCRIPTOR CONFIG 9\n"
				      "s1 GET_DESCRIPTOR CONFIG 57\n"
				      "s1 SET_CONFIGURATION 1\n"
				      "hc CONFIGURE s1 0x81/512/0 0x02/512/0\n"
				      "s1 GET_MAX_LUN\n"
				      "disk CBW 1 INQUIRY len 36\n"
				      "disk data-in 36\n"
				      "disk CSW 1 status 0 residue 0\n"
				      "disk CBW 2 TEST_UNIT_READY: unit attention\n"
				      "disk CSW 2 status 1 residue 0\n"
				      "disk CBW 3 REQUEST_SENSE len 18\n"
				      "disk data-in 18\n"
				      "disk CSW 3 status 0 residue 0\n"
				      "disk CBW 4 TEST_UNIT_READY len 0\n"
				      "disk CSW 4 status 0 residue 0\n"
				      "disk CBW 5 READ_CAPACITY(10) len 8\n"
				      "disk data-in 8\n"
				      "disk CSW 5 status 0 residue 0\n"
				      "disk CBW 6 MODE_SENSE(6) len 192\n"
				      "disk data-in 4\n"
				      "disk CSW 6 status 0 residue 188\n" /* a short answer is fine here */
				      "disk CBW 7 READ(10) lba 1 n 1 len 512\n"
				      "disk data-in 512\n"
				      "disk CSW 7 status 0 residue 0\n");
	/* the settle delay, and the unit attention sent again at once */
	assert_int_equal(fake_now_us, STICK_SETTLE_MS * 1000);
	FX_CONSOLE_HAS("stick: TEST UNIT READY: unit attention 6/29/00 (power on, reset, or bus device reset): sent "
		       "again\n");
	FX_CONSOLE_HAS("stick: device 0627:0001, interface 1, bulk IN 0x81, bulk OUT 0x02 (512 bytes)\n");
	FX_CONSOLE_HAS("stick: QEMU QEMU HARDDISK, 65536 blocks of 512 bytes\n");
	FX_CONSOLE_HAS("stick: disk GUID c12a7328-f81f-11d2-ba4b-00a0c93ec93b is the boot disk's\n");
	assert_false(usb_stick_write_protected(st));
	FX_NO_FAKE_ERRORS();
}

static void assert_read_ok(struct usb_stick *st)
{
	memset(buf, 0, 8 * 512);
	assert_int_equal(usb_stick_read(st, 40, buf, 8), USB_OK);
	assert_memory_equal(buf, disk->disk->store + 40 * 512, 8 * 512);
}

static void test_data_stall_in(void **state)
{
	(void)state;
	struct usb_stick *st = open_stick();
	disk->disk->stall_data = 1;
	assert_int_equal(usb_stick_read(st, 40, buf, 8), USB_ERROR);
	assert_string_equal(fake_log, "disk CBW 6 READ(10) lba 40 n 8 len 4096\n"
				      "disk STALL data-in\n"
				      "hc CLEAR_HALT s1 0x81\n"
				      "s1 CLEAR_FEATURE ENDPOINT_HALT 0x81\n"
				      "disk CSW 6 status 1 residue 4096\n"
				      "disk CBW 7 REQUEST_SENSE len 18\n"
				      "disk data-in 18\n"
				      "disk CSW 7 status 0 residue 0\n");
	assert_string_equal(shadow_console, "stick: READ(10) at LBA 40 failed: sense 3/11/00 (unrecovered read error)\n");
	struct stick_sense s = usb_stick_last_sense(st);
	assert_int_equal(s.key, 3);
	assert_int_equal(s.asc, 0x11);
	assert_int_equal(s.ascq, 0);
	assert_read_ok(st); /* the transport is in step again */
	assert_int_equal(disk->disk->resets, 0);
	FX_NO_FAKE_ERRORS();
}

static void test_data_stall_out(void **state)
{
	(void)state;
	struct usb_stick *st = open_stick();
	disk->disk->stall_data = 1;
	memset(buf, 0xAB, 8 * 512);
	assert_int_equal(usb_stick_write(st, 40, buf, 8), USB_ERROR);
	FX_LOG_SEQ("disk CBW 6 WRITE(10) lba 40 n 8 len 4096", "disk STALL data-out", "hc CLEAR_HALT s1 0x02",
		   "s1 CLEAR_FEATURE ENDPOINT_HALT 0x02", "disk CSW 6 status 1 residue 4096",
		   "disk CBW 7 REQUEST_SENSE len 18");
	FX_CONSOLE_HAS("stick: WRITE(10) at LBA 40 failed: sense 3/0c/00 (write error)\n");
	assert_int_equal(disk->disk->store[40 * 512], (uint8_t)3); /* unchanged */
	assert_false(usb_stick_write_protected(st));
	FX_NO_FAKE_ERRORS();
}

/* READ(10) of 8 blocks at LBA 40 whose CSW stalled once: the halt is
 * cleared in the controller and in the device. */
#define READ40_CSW_STALL_CLEARED \
	"disk CBW 6 READ(10) lba 40 n 8 len 4096\n" \
	"disk data-in 4096\n" \
	"disk STALL CSW\n" \
	"hc CLEAR_HALT s1 0x81\n" \
	"s1 CLEAR_FEATURE ENDPOINT_HALT 0x81\n"

static void test_csw_stall_once(void **state)
{
	(void)state;
	struct usb_stick *st = open_stick();
	disk->disk->stall_csw = 1;
	assert_read_ok(st);
	assert_string_equal(fake_log, READ40_CSW_STALL_CLEARED
				      "disk CSW 6 status 0 residue 0\n");
	assert_int_equal(disk->disk->resets, 0);
	FX_NO_FAKE_ERRORS();
}

static const char *const reset_recovery[] = {
	"s1 BOT_RESET",
	"hc CLEAR_HALT s1 0x81",
	"s1 CLEAR_FEATURE ENDPOINT_HALT 0x81",
	"hc CLEAR_HALT s1 0x02",
	"s1 CLEAR_FEATURE ENDPOINT_HALT 0x02",
	NULL,
};

static void test_csw_stall_twice_resets(void **state)
{
	(void)state;
	struct usb_stick *st = open_stick();
	disk->disk->stall_csw = 2;
	assert_read_ok(st);
	assert_string_equal(fake_log, READ40_CSW_STALL_CLEARED
				      "disk STALL CSW\n"
				      "s1 BOT_RESET\n"
				      "hc CLEAR_HALT s1 0x81\n"
				      "s1 CLEAR_FEATURE ENDPOINT_HALT 0x81\n"
				      "hc CLEAR_HALT s1 0x02\n"
				      "s1 CLEAR_FEATURE ENDPOINT_HALT 0x02\n"
				      "disk CBW 7 READ(10) lba 40 n 8 len 4096\n"
				      "disk data-in 4096\n"
				      "disk CSW 7 status 0 residue 0\n");
	assert_string_equal(shadow_console, "stick: Bulk-Only reset recovery (no CSW)\n");
	FX_NO_FAKE_ERRORS();
}

static void test_bad_csw_signature(void **state)
{
	(void)state;
	struct usb_stick *st = open_stick();
	disk->disk->bad_csw_sig = 1;
	assert_read_ok(st);
	FX_LOG_SEQ("disk CSW 6 status 0 residue 0 bad signature");
	assert_true(fake_log_has_seq(reset_recovery));
	FX_LOG_SEQ("s1 BOT_RESET", "disk CBW 7 READ(10) lba 40 n 8 len 4096", "disk CSW 7 status 0 residue 0");
	FX_CONSOLE_HAS("stick: Bulk-Only reset recovery (CSW not valid: wrong length, signature or tag)\n");
	assert_int_equal(disk->disk->resets, 1);
	FX_NO_FAKE_ERRORS();
}

/* A tag that is wrong twice: both tries fail, each with reset recovery,
 * the command fails, and the next one works with the next tag. */
static void test_bad_csw_tag(void **state)
{
	(void)state;
	struct usb_stick *st = open_stick();
	disk->disk->bad_csw_tag = 2;
	assert_int_equal(usb_stick_read(st, 40, buf, 8), USB_ERROR);
	assert_int_equal(disk->disk->resets, 2);
	assert_int_equal(fake_log_count("disk CBW"), 2);
	FX_CONSOLE_HAS("stick: READ(10) at LBA 40 failed: error\n");
	assert_read_ok(st);
	FX_LOG_SEQ("disk CBW 8 READ(10) lba 40 n 8 len 4096", "disk CSW 8 status 0 residue 0");
	FX_NO_FAKE_ERRORS();
}

/* A residue larger than the length asked for means nothing: clamped,
 * the bytes moved believed (Linux), said once, no reset recovery. */
static void test_residue_larger_than_asked(void **state)
{
	(void)state;
	struct usb_stick *st = open_stick();
	disk->disk->big_residue = 2;
	assert_read_ok(st);
	assert_read_ok(st);
	assert_string_equal(fake_log, "disk CBW 6 READ(10) lba 40 n 8 len 4096\n"
				      "disk data-in 4096\n"
				      "disk CSW 6 status 0 residue 4608\n"
				      "disk CBW 7 READ(10) lba 40 n 8 len 4096\n"
				      "disk data-in 4096\n"
				      "disk CSW 7 status 0 residue 4608\n");
	assert_string_equal(shadow_console, "stick: a CSW's residue of 4608 is more than the 4096 bytes asked for: the "
					    "4096 bytes moved count instead (said once)\n");
	assert_int_equal(disk->disk->resets, 0);
	/* a short READ is still found short */
	disk->disk->big_residue = 1;
	disk->disk->read_short = 512;
	assert_int_equal(usb_stick_read(st, 40, buf, 8), USB_ERROR);
	FX_CONSOLE_HAS("stick: READ(10) at LBA 40: 512 of 4096 bytes not transferred\n");
	FX_NO_FAKE_ERRORS();
}

/* A stick whose every CSW claims nothing was moved though all of it was:
 * INQUIRY's 36 bytes show it, and from then on the bytes moved count
 * (Linux's US_FL_IGNORE_RESIDUE): it opens, reads, writes. */
static void test_bogus_residues(void **state)
{
	(void)state;
	disk->disk->bogus_residues = 1000;
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_LOG_SEQ("disk CBW 1 INQUIRY len 36", "disk data-in 36", "disk CSW 1 status 0 residue 36",
		   "disk CBW 3 READ_CAPACITY(10) len 8", "disk data-in 8", "disk CSW 3 status 0 residue 8");
	FX_CONSOLE_HAS("stick: command 0x12 moved all 36 bytes but its CSW's residue says 36 did not: the stick's "
		       "residues are ignored from now on, the bytes moved count\n");
	FX_CONSOLE_HAS("stick: QEMU QEMU HARDDISK, 65536 blocks of 512 bytes\n");
	fake_log[0] = '\0';
	assert_read_ok(st);
	FX_LOG_SEQ("disk CSW 6 status 0 residue 4096");
	memset(buf, 0x5A, 8 * 512);
	assert_int_equal(usb_stick_write(st, 40, buf, 8), USB_OK);
	assert_int_equal(disk->disk->resets, 0);
	FX_NO_FAKE_ERRORS();
}

static void test_phase_error(void **state)
{
	(void)state;
	struct usb_stick *st = open_stick();
	disk->disk->phase_error = 1;
	assert_read_ok(st);
	FX_LOG_SEQ("disk CSW 6 status 2 residue 0", "s1 BOT_RESET", "disk CBW 7 READ(10) lba 40 n 8 len 4096");
	assert_true(fake_log_has_seq(reset_recovery));
	FX_CONSOLE_HAS("stick: Bulk-Only reset recovery (phase error)\n");
	FX_NO_FAKE_ERRORS();
}

/* A READ that passes with data missing is a failure, without recovery. */
static void test_short_read_residue(void **state)
{
	(void)state;
	struct usb_stick *st = open_stick();
	disk->disk->read_short = 512;
	assert_int_equal(usb_stick_read(st, 40, buf, 8), USB_ERROR);
	assert_string_equal(fake_log, "disk CBW 6 READ(10) lba 40 n 8 len 4096\n"
				      "disk data-in 3584\n"
				      "disk CSW 6 status 0 residue 512\n");
	assert_string_equal(shadow_console, "stick: READ(10) at LBA 40: 512 of 4096 bytes not transferred\n");
	FX_NO_FAKE_ERRORS();
}

/* Reset recovery itself fails: the stick is given up, without traffic. */
static void test_stick_stops_answering(void **state)
{
	(void)state;
	struct usb_stick *st = open_stick();
	disk->disk->stall_csw = 2;
	disk->disk->reset_fails = true;
	assert_int_equal(usb_stick_read(st, 40, buf, 8), USB_NODEV);
	FX_CONSOLE_HAS("stick: Bulk-Only Mass Storage Reset failed: stall\n");
	FX_CONSOLE_HAS("stick: reset recovery failed: the stick no longer answers\n");
	FX_CONSOLE_HAS("stick: READ(10) at LBA 40 failed: no device\n");
	fake_log[0] = '\0';
	assert_int_equal(usb_stick_write(st, 40, buf, 8), USB_NODEV);
	assert_int_equal(usb_stick_sync(st), USB_NODEV);
	assert_string_equal(fake_log, "");
	FX_NO_FAKE_ERRORS();
}

/* UNIT ATTENTION for ever: sent again SCSI_ATTENTION_TRIES times, at
 * once (no waiting), then the stick is refused. */
static void test_unit_attention_bound(void **state)
{
	(void)state;
	disk->disk->unit_attentions = 1000;
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_ERROR);
	assert_int_equal(fake_log_count("TEST_UNIT_READY"), SCSI_ATTENTION_TRIES + 1);
	assert_int_equal(fake_log_count("unit attention 6/29/00"), 0); /* the fake's lines say "unit attention" */
	FX_CONSOLE_HAS("stick: TEST UNIT READY failed: sense 6/29/00 (power on, reset, or bus device reset)\n");
	assert_int_equal(fake_now_us, STICK_SETTLE_MS * 1000);
	assert_int_equal(fake_log_count("READ(10)"), 0);
	FX_NO_FAKE_ERRORS();
}

/* A UNIT ATTENTION on any command of the open, not only TEST UNIT READY,
 * is answered by sending the command again: each opening command in
 * turn gets two, and the stick opens with every check done. */
static void test_unit_attention_on_every_opening_command(void **state)
{
	static const struct {
		uint8_t op;
		const char *fake, *name;
	} ops[] = {
		{ 0x12, "INQUIRY", "INQUIRY" },
		{ 0x25, "READ_CAPACITY(10)", "READ CAPACITY(10)" },
		{ 0x1A, "MODE_SENSE(6)", "MODE SENSE(6)" },
		{ 0x28, "READ(10)", "READ(10)" },
	};
	for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		setup(state);
		disk->disk->attention_op = ops[i].op;
		disk->disk->unit_attentions = 2;
		struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
		struct usb_stick *st = NULL;
		assert_int_equal(usb_stick_open(&t, &st), USB_OK);
		char want[128];
		snprintf(want, sizeof(want), "%s: unit attention", ops[i].fake);
		assert_int_equal(fake_log_count(want), 2);
		snprintf(want, sizeof(want), "stick: %s: unit attention 6/29/00 (power on, reset, or bus device reset): "
			 "sent again\n", ops[i].name);
		FX_CONSOLE_HAS(want);
		assert_null(strstr(shadow_console, "write protection unknown"));
		FX_CONSOLE_HAS("stick: disk GUID c12a7328-f81f-11d2-ba4b-00a0c93ec93b is the boot disk's\n");
		assert_int_equal(disk->disk->unit_attentions, 0);
		FX_NO_FAKE_ERRORS();
		fx_teardown(state);
	}
	setup(state);
}

/* A stick becoming ready (2/04/01) for 3 s after it is configured: asked
 * again every 100 ms, one line when the wait starts and one when it
 * ends, and it opens. */
static void test_not_ready_waited_for(void **state)
{
	(void)state;
	disk->disk->not_ready_ms = 3000;
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_CONSOLE_HAS("stick: TEST UNIT READY: not ready, sense 2/04/01 (becoming ready): asking again every 100 ms for "
		       "up to 15 s\n");
	FX_CONSOLE_HAS("stick: TEST UNIT READY: ready after 2.8 s\n"); /* asked at 0.25 s, 0.35 s, ...; ready at 3 s */
	assert_int_equal(fake_log_count("becoming ready"), 28);
	assert_int_equal(fake_log_count("not ready"), 0); /* only in the console */
	char *first = strstr(shadow_console, "not ready"), *again = first ? strstr(first + 1, "not ready") : NULL;
	assert_non_null(first);
	assert_null(again); /* one line, not one per try */
	FX_CONSOLE_HAS("stick: disk GUID c12a7328-f81f-11d2-ba4b-00a0c93ec93b is the boot disk's\n");
	FX_NO_FAKE_ERRORS();
}

/* ... but not for ever: 15 s, then the stick is refused. */
static void test_not_ready_bound(void **state)
{
	(void)state;
	disk->disk->not_ready_ms = 60000;
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_ERROR);
	assert_int_equal(fake_now_us, (STICK_SETTLE_MS + SCSI_NOT_READY_MS) * 1000ull);
	assert_int_equal(fake_log_count("TEST_UNIT_READY: becoming ready"), SCSI_NOT_READY_MS / SCSI_READY_DELAY_MS + 1);
	FX_CONSOLE_HAS("stick: TEST UNIT READY: still not ready after 15 s\n"
		       "stick: TEST UNIT READY failed: sense 2/04/01 (becoming ready)\n");
	assert_int_equal(fake_log_count("READ_CAPACITY"), 0);
	FX_NO_FAKE_ERRORS();
}

/* A stick that needs an initializing command (2/04/02) gets START UNIT
 * (IMMED, START) once, as Linux's sd sends it, and opens. */
static void test_start_unit_when_asked(void **state)
{
	(void)state;
	disk->disk->needs_start = true;
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_LOG_SEQ("disk CBW 2 TEST_UNIT_READY: initializing command required", "disk CBW 3 REQUEST_SENSE len 18",
		   "disk CBW 4 START_STOP_UNIT len 0", "disk CSW 4 status 0 residue 0", "disk CBW 5 TEST_UNIT_READY len 0",
		   "disk CSW 5 status 0 residue 0");
	assert_int_equal(fake_log_count("START_STOP_UNIT"), 1);
	FX_CONSOLE_HAS("stick: TEST UNIT READY: not ready, sense 2/04/02 (initializing command required): sending START "
		       "UNIT\n");
	FX_NO_FAKE_ERRORS();
}

/* A stick that NAKs everything for 200 ms after SET_CONFIGURATION: the
 * settle delay keeps the first request off it. */
static void test_settle_delay(void **state)
{
	(void)state;
	disk->disk->settle_ms = 200;
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	assert_int_equal(fake_log_count("not settled"), 0);
	FX_LOG_SEQ("s1 SET_CONFIGURATION 1", "hc CONFIGURE s1 0x81/512/0 0x02/512/0", "s1 GET_MAX_LUN",
		   "disk CBW 1 INQUIRY len 36");
	assert_null(strstr(shadow_console, "GET MAX LUN failed"));
	FX_NO_FAKE_ERRORS();
}

static void test_max_lun_stalls(void **state)
{
	(void)state;
	disk->disk->max_lun_stalls = true;
	open_stick();
	FX_NO_FAKE_ERRORS();
}

/* A card reader with three slots, the boot medium in the second: LUN 0
 * has no medium, LUN 1 passes, and the stick's commands then go there. */
static void test_multi_lun_reader(void **state)
{
	(void)state;
	disk->disk->max_lun = 2;
	disk->disk->boot_lun = 1;
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	FX_LOG_SEQ("disk CBW 1 INQUIRY len 36", "disk CBW 2 lun 0 TEST_UNIT_READY: no medium",
		   "disk CBW 3 REQUEST_SENSE len 18", "disk CBW 4 INQUIRY len 36", "disk CBW 5 TEST_UNIT_READY len 0",
		   "disk CBW 8 READ(10) lba 1 n 1 len 512");
	FX_CONSOLE_HAS("stick: 3 LUNs (a card reader?): looking for the boot disk on each\n"
		       "stick: trying LUN 0\n"
		       "stick: TEST UNIT READY failed: sense 2/3a/00 (medium not present)\n"
		       "stick: trying LUN 1\n");
	assert_int_equal(fake_log_count("trying LUN 2"), 0);
	assert_read_ok(st);
	assert_int_equal(disk->disk->lun, 1);
	FX_NO_FAKE_ERRORS();
}

/* No LUN holds the boot disk: refused, nothing written. */
static void test_multi_lun_none_is_boot(void **state)
{
	(void)state;
	disk->disk->max_lun = 1;
	disk->disk->boot_lun = 1;
	memset(disk->disk->store + 512, 0, 512); /* no GPT on the medium */
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, 512, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_NODEV);
	FX_CONSOLE_HAS("stick: trying LUN 1\n");
	FX_CONSOLE_HAS("stick: LBA 1 holds no valid GPT header (no \"EFI PART\" signature at LBA 1 (not a GPT disk)): "
		       "not the boot disk, nothing written\n");
	assert_int_equal(disk->disk->writes, 0);
	FX_NO_FAKE_ERRORS();
}

static void test_bot_refuses_bad_commands(void **state)
{
	(void)state;
	struct bot b = { 0 };
	uint8_t cdb[16] = { 0 };
	uint32_t residue;
	assert_int_equal(bot_command(&b, cdb, 0, BOT_DIR_NONE, NULL, 0, &residue), USB_BADARG);
	assert_int_equal(bot_command(&b, cdb, 17, BOT_DIR_NONE, NULL, 0, &residue), USB_BADARG);
	assert_int_equal(bot_command(&b, cdb, 6, BOT_DIR_IN, buf, 0, &residue), USB_BADARG);
	assert_int_equal(bot_command(&b, cdb, 6, BOT_DIR_NONE, buf, 512, &residue), USB_BADARG);
	assert_string_equal(fake_log, "");
}

/* A controller driver that reports more bytes than it was asked to move
 * (breaking hci.h) trips the assertion of the stage it answered. */
static void hci_overreports(unsigned nth, const char *what)
{
	struct usb_stick *st = open_stick();
	fake_bulk_overreport = nth;
	assert_true(SHADOW_EXPECT_BUGCHECK(usb_stick_read(st, 40, buf, 8)));
	assert_true(shadow_assertion_failed(what, "/bot.c:"));
}

static void test_hci_overreports_cbw(void **state)
{
	(void)state;
	hci_overreports(1, "moved <= (uint32_t)BOT_CBW_LEN (32 vs 31)");
}

static void test_hci_overreports_data(void **state)
{
	(void)state;
	hci_overreports(2, "data_moved <= len (4097 vs 4096)");
}

static void test_hci_overreports_csw(void **state)
{
	(void)state;
	hci_overreports(3, "got <= (uint32_t)BOT_CSW_LEN (14 vs 13)");
}

/* The stages of a command wait as long as the command line says: the
 * data stage usb.data_timeout_ms=, the CSW usb.csw_timeout_ms= (their
 * defaults, then other values written as config_parse() writes them), the
 * CBW 5 s; for a WRITE and a READ alike. */
static void expect_timeouts(struct usb_stick *st, uint32_t data_ms, uint32_t csw_ms)
{
	fake_bulk_count = 0;
	assert_int_equal(usb_stick_write(st, 40, buf, 8), USB_OK);
	assert_int_equal(usb_stick_read(st, 40, buf, 8), USB_OK);
	assert_int_equal(fake_bulk_count, 6);
	const uint32_t want[6] = { BOT_CBW_TIMEOUT_MS, data_ms, csw_ms, BOT_CBW_TIMEOUT_MS, data_ms, csw_ms };
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(fake_bulk_timeout_ms[i], want[i]);
}

static void test_stage_timeouts(void **state)
{
	(void)state;
	struct usb_stick *st = open_stick();
	expect_timeouts(st, 30000, 20000);
	struct usb_stick_config *config = (struct usb_stick_config *)usb_stick_config; /* the parser's own struct */
	const struct usb_stick_config saved = *config;
	config->data_timeout_ms = 1500;
	config->csw_timeout_ms = 700;
	expect_timeouts(st, 1500, 700);
	*config = saved;
	FX_NO_FAKE_ERRORS();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_sequence, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_data_stall_in, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_data_stall_out, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_csw_stall_once, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_csw_stall_twice_resets, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_bad_csw_signature, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_bad_csw_tag, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_residue_larger_than_asked, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_bogus_residues, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_phase_error, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_short_read_residue, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_stick_stops_answering, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_unit_attention_bound, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_unit_attention_on_every_opening_command, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_not_ready_waited_for, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_not_ready_bound, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_settle_delay, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_start_unit_when_asked, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_max_lun_stalls, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_multi_lun_reader, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_multi_lun_none_is_boot, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_bot_refuses_bad_commands, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_hci_overreports_cbw, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_hci_overreports_data, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_hci_overreports_csw, setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_stage_timeouts, setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
