/*
 * usbstor_fixture.h - what the USB stick tests (test_hub.c,
 * test_bot.c, test_stick.c, test_stick_recover.c, test_stick_scan.c) share: the boot disk's GUID, targets built
 * like the output engineer builds them from bootinfo, a disk with a GPT
 * on the fake bus, and checks of the fake's log and the console.
 * Static helpers: each test program includes it once.
 */
#ifndef KPROF_TESTS_USBSTOR_FIXTURE_H
#define KPROF_TESTS_USBSTOR_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "support/fake_hci.h"
#include "shadow.h"

#define FX_BLOCKS 65536 /* a 32 MiB disk of 512-byte blocks */

static const uint8_t fx_guid[16] = { 0x28, 0x73, 0x2A, 0xC1, 0x1F, 0xF8, 0xD2, 0x11,
				     0xBA, 0x4B, 0x00, 0xA0, 0xC9, 0x3E, 0xC9, 0x3B };

static inline struct usb_stick_target fx_target(unsigned depth, const uint8_t *ports, uint32_t block_size,
						uint64_t blocks)
{
	struct usb_stick_target t = { .pci_segment = 0, .pci_bus = 0, .pci_dev = 3, .pci_fn = 0 };
	t.depth = (uint8_t)depth;
	memcpy(t.ports, ports, depth);
	t.id.table = DISKID_TABLE_GPT;
	memcpy(t.id.disk_guid, fx_guid, 16);
	t.id.part_lba = 34; /* the whole of fake_disk_write_gpt's usable blocks */
	t.id.part_blocks = blocks - 67;
	t.block_size = block_size;
	t.blocks = blocks;
	return t;
}

/* A high-speed disk of FX_BLOCKS x 512 bytes with the boot GPT, not attached. */
static inline struct fake_dev *fx_disk(void)
{
	struct fake_dev *d = fake_disk_new("disk", USB_SPEED_HIGH, 512, FX_BLOCKS, 4096);
	fake_disk_write_gpt(d->disk, fx_guid);
	return d;
}

static inline int fx_setup(void **state)
{
	(void)state;
	fake_reset(8);
	shadow_console[0] = '\0';
	return 0;
}

static inline int fx_teardown(void **state)
{
	(void)state;
	fake_reset(8); /* frees the fake devices */
	return 0;
}

/* The fake saw nothing a real controller or device would refuse. */
#define FX_NO_FAKE_ERRORS()                                                          \
	do {                                                                         \
		if (fake_errors)                                                     \
			fprintf(stderr, "fake log:\n%s", fake_log);                  \
		assert_int_equal(fake_errors, 0);                                    \
	} while (0)

#define FX_CONSOLE_HAS(s)                                                            \
	do {                                                                         \
		if (!strstr(shadow_console, (s)))                                    \
			fprintf(stderr, "console lacks \"%s\"; it has:\n%s", (s),   \
				shadow_console);                                     \
		assert_non_null(strstr(shadow_console, (s)));                        \
	} while (0)

#define FX_LOG_SEQ(...)                                                              \
	do {                                                                         \
		const char *const want_[] = { __VA_ARGS__, NULL };                   \
		assert_true(fake_log_has_seq(want_));                                \
	} while (0)

#ifdef FX_WHOLE_DISK
/* For the tests that compare the whole disk after each act (test_stick.c,
 * test_stick_recover.c, which define FX_WHOLE_DISK before including
 * this): the boot disk on root port 1, FX_STORE_BLOCKS of backing store,
 * and a snapshot of that store to compare against. */
#include <stdlib.h>

#include "kernel/usb/core/usb.h"

#define FX_BS 512
#define FX_STORE_BLOCKS 4096

static struct fake_dev *disk;
static uint8_t *before; /* the disk's store as it was before the act */

static int setup(void **state)
{
	fx_setup(state);
	disk = fx_disk();
	fake_attach_root(1, disk);
	free(before);
	before = NULL;
	return 0;
}

static int teardown(void **state)
{
	free(before);
	before = NULL;
	return fx_teardown(state);
}

static void snapshot(void)
{
	free(before);
	before = malloc(FX_STORE_BLOCKS * FX_BS);
	memcpy(before, disk->disk->store, FX_STORE_BLOCKS * FX_BS);
}

/* The stick on root port 1, opened and snapshot; log and console empty. */
static struct usb_stick *open_ok(void)
{
	struct usb_stick_target t = fx_target(1, (const uint8_t[]){ 1 }, FX_BS, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	snapshot();
	fake_log[0] = '\0';
	shadow_console[0] = '\0';
	return st;
}

/* From a fresh bus: a hub of nports ports at speed on root port root, a
 * new disk at speed with the boot GPT on its port port, and the stick
 * opened along that path. */
static struct usb_stick *open_behind_hub(enum usb_speed speed, unsigned nports, uint8_t root, uint8_t port)
{
	fake_reset(8);
	struct fake_dev *hub = fake_hub_new("hub1", speed, nports);
	disk = fake_disk_new("disk", speed, FX_BS, FX_BLOCKS, FX_STORE_BLOCKS);
	fake_disk_write_gpt(disk->disk, fx_guid);
	fake_attach_root(root, hub);
	fake_hub_attach(hub, port, disk);
	struct usb_stick_target t = fx_target(2, (const uint8_t[]){ root, port }, FX_BS, FX_BLOCKS);
	struct usb_stick *st = NULL;
	assert_int_equal(usb_stick_open(&t, &st), USB_OK);
	return st;
}

/* The disk equals the snapshot except blocks [lba, lba + n), which hold
 * src. */
static void assert_disk_is(uint64_t lba, uint32_t n, const uint8_t *src)
{
	if (n)
		memcpy(before + lba * FX_BS, src, (size_t)n * FX_BS);
	assert_memory_equal(disk->disk->store, before, FX_STORE_BLOCKS * FX_BS);
}

/* blocks of a pattern that differs with seed, in DMA-able memory. */
static uint8_t *pattern(uint32_t blocks, uint8_t seed)
{
	uint8_t *p = usb_dma_alloc(blocks * FX_BS);
	for (uint32_t i = 0; i < blocks * FX_BS; i++)
		p[i] = (uint8_t)(seed + i * 13 + (i >> 9));
	return p;
}
#endif /* FX_WHOLE_DISK */

#endif /* KPROF_TESTS_USBSTOR_FIXTURE_H */
