/*
 * fake_stick.c - the in-memory stick of fake_stick.h: kernel/usb/storage/
 * stick.h's functions for host unit tests (the words for their statuses
 * are the kernel's own: kernel/usb/core/usb_status.c).
 */
#include "support/fake_stick.h"

#include <stdlib.h>
#include <string.h>

struct fake_stick fake_stick;

struct usb_stick {
	int unused;
};
static struct usb_stick the_stick;

void fake_stick_reset(uint64_t blocks, uint32_t block_size, uint8_t fill)
{
	free(fake_stick.disk);
	memset(&fake_stick, 0, sizeof(fake_stick));
	fake_stick.blocks = blocks;
	fake_stick.block_size = block_size;
	fake_stick.disk = malloc(blocks * block_size);
	memset(fake_stick.disk, fill, blocks * block_size);
}

int usb_stick_open(const struct usb_stick_target *t, struct usb_stick **out)
{
	fake_stick.target = *t;
	if (fake_stick.open_rc)
		return fake_stick.open_rc;
	*out = &the_stick;
	return USB_OK;
}

bool usb_stick_write_protected(const struct usb_stick *st)
{
	if (fake_stick.write_protected)
		fake_stick.sense = (struct stick_sense){ .key = 0x7, .asc = 0x27, .ascq = 0x00 };
	return fake_stick.write_protected;
}

int usb_stick_read(struct usb_stick *st, uint64_t lba, void *buf, uint32_t blocks)
{
	if (lba + blocks > fake_stick.blocks)
		return USB_BADARG;
	memcpy(buf, fake_stick.disk + lba * fake_stick.block_size, (size_t)blocks * fake_stick.block_size);
	return USB_OK;
}

int usb_stick_write(struct usb_stick *st, uint64_t lba, const void *buf, uint32_t blocks)
{
	if (lba + blocks > fake_stick.blocks)
		return USB_BADARG;
	memcpy(fake_stick.disk + lba * fake_stick.block_size, buf, (size_t)blocks * fake_stick.block_size);
	return USB_OK;
}

int usb_stick_sync(struct usb_stick *st)
{
	fake_stick.syncs++;
	if (fake_stick.sync_fails && fake_stick.syncs > (unsigned)fake_stick.sync_fails)
		return USB_OK;
	return fake_stick.sync_rc;
}

int usb_stick_recover(struct usb_stick *st, enum stick_recovery stage)
{
	if (fake_stick.recoveries < sizeof(fake_stick.rungs))
		fake_stick.rungs[fake_stick.recoveries] = (uint8_t)stage;
	fake_stick.recoveries++;
	return stage < STICK_RECOVER_COUNT ? fake_stick.recover_rc[stage] : USB_BADARG;
}

const char *usb_stick_recovery_name(enum stick_recovery stage)
{
	static const char *const names[] = { "Bulk-Only reset recovery", "port reset and new address",
					     "controller reset" };
	return stage < STICK_RECOVER_COUNT ? names[stage] : "none";
}

struct stick_sense usb_stick_last_sense(const struct usb_stick *st)
{
	return fake_stick.sense;
}

/* The LBA of the file's block `b` (0-based), or UINT64_MAX past its extents. */
static uint64_t file_lba(const struct stick_file *f, uint64_t b)
{
	for (uint32_t i = 0; i < f->nextents; i++) {
		if (b < f->extents[i].blocks)
			return f->extents[i].lba + b;
		b -= f->extents[i].blocks;
	}
	return UINT64_MAX;
}

int stick_file_write(struct stick_file *f, uint64_t off, const void *buf, uint32_t len)
{
	uint32_t bs = f->block_size;
	unsigned n = fake_stick.writes++;

	if (n < FAKE_STICK_LOG) {
		fake_stick.log_off[n] = off;
		fake_stick.log_len[n] = len;
	}
	if (fake_stick.fail_write && fake_stick.writes >= fake_stick.fail_write &&
	    fake_stick.writes <= fake_stick.fail_write + (fake_stick.fail_times ? fake_stick.fail_times - 1 : 0)) {
		fake_stick.sense = fake_stick.fail_sense;
		return fake_stick.fail_rc;
	}
	if (bs != fake_stick.block_size || off % bs || len % bs || !len) {
		fake_stick.bad_writes++;
		return USB_BADARG;
	}
	for (uint64_t b = off / bs; b < (off + len) / bs; b++)
		if (file_lba(f, b) >= fake_stick.blocks) {
			fake_stick.bad_writes++;
			return USB_BADARG;
		}
	for (uint64_t b = off / bs; b < (off + len) / bs; b++)
		memcpy(fake_stick.disk + file_lba(f, b) * bs, (const uint8_t *)buf + (b - off / bs) * bs, bs);
	return USB_OK;
}

void fake_stick_read_file(const struct stick_file *f, uint8_t *out)
{
	for (uint64_t b = 0; b * f->block_size < f->file_bytes; b++) {
		uint64_t n = f->file_bytes - b * f->block_size;
		memcpy(out + b * f->block_size, fake_stick.disk + file_lba(f, b) * f->block_size,
		       n < f->block_size ? n : f->block_size);
	}
}
