/*
 * fake_bot.c - a fake USB mass-storage device for the unit tests: the
 * device side of Bulk-Only Transport over an in-memory SCSI disk (see
 * fake_hci.h for the knobs).
 *
 * Device states: WAIT_CBW -> (DATA_IN | DATA_OUT) -> SEND_CSW -> WAIT_CBW.
 * An invalid CBW, or one that arrives in another state, is logged as BAD
 * and leaves the device in NEED_RESET (both endpoints stalled) until a
 * Bulk-Only Mass Storage Reset (BOT 6.6.1).  A read of bulk IN while the
 * device waits for a CBW has no answer: USB_TIMEOUT, as a real device
 * NAKs.  The disk answers TEST UNIT READY, REQUEST SENSE (fixed format),
 * INQUIRY, READ CAPACITY(10)/(16), MODE SENSE(6), START STOP UNIT,
 * READ/WRITE(10)/(16) and SYNCHRONIZE CACHE(10); anything else is 5/20/00.  The quirks of
 * real sticks, each a knob: NAKs for a while after SET_CONFIGURATION,
 * UNIT ATTENTIONs on a chosen command, NOT READY (becoming ready) for a
 * while, NOT READY until START UNIT, bogus CSW residues, a SYNCHRONIZE CACHE refused.  Blocks beyond
 * the backing store read as zeros; a WRITE there is BAD.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/fake_hci.h"
#include "kernel/lib/bytes.h"
#include "kernel/usb/core/usb_desc.h"

#include <zlib.h>

enum { WAIT_CBW, DATA_IN, DATA_OUT, SEND_CSW, NEED_RESET };

struct fake_dev *fake_disk_new(const char *name, enum usb_speed speed, uint32_t block_size, uint64_t blocks,
			       uint64_t store_blocks)
{
	struct fake_dev *d = fake_dev_alloc(FAKE_DISK, name, speed);
	struct fake_disk *k = calloc(1, sizeof(*k));
	d->disk = k;
	k->block_size = block_size;
	k->blocks = blocks;
	k->store_blocks = store_blocks;
	k->store = calloc(store_blocks, block_size);
	uint16_t mps = speed == USB_SPEED_SUPER ? 1024 : speed == USB_SPEED_HIGH ? 512 : 64;
	const uint8_t dd[18] = { 18, USB_DT_DEVICE, 0x00, speed == USB_SPEED_SUPER ? 0x03 : 0x02, 0, 0, 0,
				 speed == USB_SPEED_SUPER ? 9 : 64, 0x27, 0x06, 0x01, 0x00, 0x00, 0x01, 1, 2, 3, 1 };
	memcpy(d->dev_desc, dd, sizeof(dd));
	/* An unrelated interface first (with a class-specific descriptor),
	 * then the Bulk-Only SCSI one. */
	uint8_t cfg[] = {
		9, USB_DT_CONFIG, 0, 0, 2, 1, 0, 0x80, 50,
		9, USB_DT_INTERFACE, 0, 0, 1, 3, 0, 0, 0,
		9, 0x21, 0x11, 0x01, 0, 1, 0x22, 50, 0,
		7, USB_DT_ENDPOINT, 0x83, 3, 8, 0, 10,
		9, USB_DT_INTERFACE, 1, 0, 2, USB_CLASS_MASS_STORAGE, USB_MSC_SUBCLASS_SCSI, USB_MSC_PROTOCOL_BBB, 0,
		7, USB_DT_ENDPOINT, 0x81, USB_EP_BULK, (uint8_t)mps, (uint8_t)(mps >> 8), 0,
		6, USB_DT_SS_ENDPOINT_COMP, 3, 0, 0, 0,
		7, USB_DT_ENDPOINT, 0x02, USB_EP_BULK, (uint8_t)mps, (uint8_t)(mps >> 8), 0,
		6, USB_DT_SS_ENDPOINT_COMP, 3, 0, 0, 0,
	};
	uint16_t len = 0;
	for (unsigned off = 0; off < sizeof(cfg); off += cfg[off]) {
		if (cfg[off + 1] == USB_DT_SS_ENDPOINT_COMP && speed != USB_SPEED_SUPER)
			continue;
		memcpy(d->cfg_desc + len, cfg + off, cfg[off]);
		len += cfg[off];
	}
	d->cfg_len = len;
	d->cfg_desc[2] = (uint8_t)len;
	return d;
}

void fake_disk_free(struct fake_dev *d)
{
	if (d->disk)
		free(d->disk->store);
	free(d->disk);
}

void fake_disk_write_gpt(struct fake_disk *k, const uint8_t guid[16])
{
	uint8_t *h = k->store + k->block_size;
	memset(h, 0, k->block_size);
	memcpy(h, "EFI PART", 8);
	put_le32(h + 8, 0x00010000);
	put_le32(h + 12, 92);
	put_le32(h + 24, 1);                                /* MyLBA          */
	put_le32(h + 32, (uint32_t)(k->blocks - 1));         /* AlternateLBA   */
	put_le32(h + 36, (uint32_t)((k->blocks - 1) >> 32));
	put_le32(h + 40, 34);                               /* FirstUsableLBA */
	put_le32(h + 48, (uint32_t)(k->blocks - 34));        /* LastUsableLBA  */
	put_le32(h + 52, (uint32_t)((k->blocks - 34) >> 32));
	memcpy(h + 56, guid, 16);
	put_le32(h + 72, 2);                                /* entries' LBA   */
	put_le32(h + 80, 128);
	put_le32(h + 84, 128);
	put_le32(h + 16, (uint32_t)crc32(0, h, 92));
}

void fake_disk_write_mbr(struct fake_disk *k, uint32_t signature, uint32_t part_lba, uint32_t part_blocks,
			 uint32_t serial)
{
	uint8_t *m = k->store, *e = m + 446, *bs = k->store + (uint64_t)part_lba * k->block_size;
	memset(m, 0, k->block_size);
	put_le32(m + 440, signature);
	e[4] = 0x0C; /* FAT32 (LBA) */
	put_le32(e + 8, part_lba);
	put_le32(e + 12, part_blocks);
	m[510] = 0x55, m[511] = 0xAA;
	memset(bs, 0, k->block_size); /* a FAT32 boot sector: what diskid.c reads of it */
	bs[11] = (uint8_t)k->block_size, bs[12] = (uint8_t)(k->block_size >> 8); /* BPB_BytsPerSec */
	bs[66] = 0x29;                                                         /* BS_BootSig     */
	put_le32(bs + 67, serial);                                         /* BS_VolID       */
	bs[510] = 0x55, bs[511] = 0xAA;
}

/* Not settled yet after SET_CONFIGURATION: a real device NAKs. */
static bool fake_unsettled(struct fake_disk *k)
{
	if (fake_now_us >= k->configured_at_us + k->settle_ms * 1000ull)
		return false;
	fake_log_add("disk NAK: not settled %llu us after SET_CONFIGURATION",
		     (unsigned long long)(fake_now_us - k->configured_at_us));
	return true;
}

int fake_disk_control(struct fake_dev *d, const struct usb_setup *s, uint8_t *data, uint32_t *actual)
{
	struct fake_disk *k = d->disk;
	if (fake_unsettled(k))
		return USB_TIMEOUT;
	if (s->bmRequestType == 0x21 && s->bRequest == 0xFF && s->wIndex == 1 && s->wLength == 0) {
		fake_log_add("s%u BOT_RESET", d->slot);
		if (k->reset_fails)
			return USB_STALL;
		k->state = WAIT_CBW;
		k->resets++;
		return USB_OK; /* halts stay until CLEAR_FEATURE (BOT 5.3.4) */
	}
	if (s->bmRequestType == 0xA1 && s->bRequest == 0xFE && s->wIndex == 1 && s->wLength == 1) {
		fake_log_add("s%u GET_MAX_LUN", d->slot);
		if (k->max_lun_stalls)
			return USB_STALL;
		data[0] = k->max_lun;
		*actual = 1;
		return USB_OK;
	}
	fake_log_add("s%u disk class request %02x/%02x/%u not handled", d->slot, s->bmRequestType, s->bRequest,
		     s->wIndex);
	return USB_STALL;
}

static void fake_fail(struct fake_disk *k, uint8_t key, uint8_t asc, uint8_t ascq)
{
	k->csw_status = 1;
	k->sense[0] = key;
	k->sense[1] = asc;
	k->sense[2] = ascq;
}

static const char *fake_op_name(uint8_t op)
{
	switch (op) {
	case 0x00: return "TEST_UNIT_READY";
	case 0x03: return "REQUEST_SENSE";
	case 0x12: return "INQUIRY";
	case 0x1A: return "MODE_SENSE(6)";
	case 0x1B: return "START_STOP_UNIT";
	case 0x25: return "READ_CAPACITY(10)";
	case 0x28: return "READ(10)";
	case 0x2A: return "WRITE(10)";
	case 0x35: return "SYNCHRONIZE_CACHE(10)";
	case 0x88: return "READ(16)";
	case 0x8A: return "WRITE(16)";
	case 0x9E: return "READ_CAPACITY(16)";
	default: return "UNKNOWN";
	}
}

/* READ/WRITE: lba and blocks from a (10) or (16) CDB; false if out of range. */
static bool fake_rw(struct fake_disk *k, const uint8_t *cb, bool write, char *line, size_t n)
{
	bool x16 = cb[0] == 0x88 || cb[0] == 0x8A;
	uint64_t lba = x16 ? get_be64(cb + 2) : get_be32(cb + 2);
	uint32_t blocks = x16 ? get_be32(cb + 10) : (uint32_t)(cb[7] << 8 | cb[8]);
	snprintf(line, n, " lba %llu n %u", (unsigned long long)lba, blocks);
	if ((uint64_t)blocks * k->block_size != k->expected) {
		k->csw_status = 2; /* the host's length disagrees with the CDB: phase error */
		return false;
	}
	if (lba + blocks > k->blocks) {
		fake_fail(k, 5, 0x21, 0);
		return false;
	}
	if (write) {
		k->out_lba = lba;
		if (k->write_errors) {
			k->write_errors--;
			fake_fail(k, 0xb, 0x00, 0x06);
			return false;
		}
		if (k->wp_media) {
			fake_fail(k, 7, 0x27, 0);
			k->stall_this = k->wp_stalls_data;
			return false;
		}
		if (lba + blocks > k->store_blocks)
			fake_log_add("BAD WRITE at LBA %llu beyond the test's store", (unsigned long long)lba);
		k->out_ok = true;
		return true;
	}
	static uint8_t zero[1 << 17];
	k->resp = lba + blocks <= k->store_blocks ? k->store + lba * k->block_size : zero;
	k->resp_len = blocks * k->block_size;
	return true;
}

/* Decode a CDB: set up the data stage and the CSW it will end with. */
static void fake_scsi(struct fake_disk *k, const uint8_t *cb)
{
	char extra[48] = "";
	uint8_t *r = k->resp_buf;
	k->resp = r;
	k->resp_len = 0;
	k->csw_status = 0;
	k->out_ok = false;
	k->op = cb[0];
	memset(r, 0, sizeof(k->resp_buf));
	if (k->lun != k->boot_lun && cb[0] != 0x12 && cb[0] != 0x03) {
		fake_fail(k, 2, 0x3A, 0); /* an empty slot: medium not present */
		fake_log_add("disk CBW %u lun %u %s: no medium", k->tag, k->lun, fake_op_name(cb[0]));
		return;
	}
	if (k->unit_attentions && cb[0] == k->attention_op) {
		k->unit_attentions--;
		fake_fail(k, 6, 0x29, 0);
		fake_log_add("disk CBW %u %s: unit attention", k->tag, fake_op_name(cb[0]));
		return;
	}
	if (k->needs_start && cb[0] != 0x12 && cb[0] != 0x03 && cb[0] != 0x1B) {
		fake_fail(k, 2, 0x04, 0x02);
		fake_log_add("disk CBW %u %s: initializing command required", k->tag, fake_op_name(cb[0]));
		return;
	}
	if (cb[0] != 0x12 && cb[0] != 0x03 && fake_now_us < k->configured_at_us + k->not_ready_ms * 1000ull) {
		fake_fail(k, 2, 0x04, 0x01);
		fake_log_add("disk CBW %u %s: becoming ready", k->tag, fake_op_name(cb[0]));
		return;
	}
	switch (cb[0]) {
	case 0x00:
		break;
	case 0x03:
		r[0] = 0x70;
		r[2] = k->sense[0];
		r[7] = 10;
		r[12] = k->sense[1];
		r[13] = k->sense[2];
		k->resp_len = 18;
		memset(k->sense, 0, sizeof(k->sense));
		break;
	case 0x12:
		r[1] = 0x80;
		r[2] = 5;
		r[3] = 2;
		r[4] = 31;
		memcpy(r + 8, "QEMU    QEMU HARDDISK   2.5+", 28);
		k->resp_len = 36;
		break;
	case 0x25: {
		uint64_t last = k->blocks - 1;
		put_be32(r, last > 0xFFFFFFFFull ? 0xFFFFFFFFu : (uint32_t)last);
		put_be32(r + 4, k->block_size);
		k->resp_len = 8;
		break;
	}
	case 0x9E:
		put_be64(r, k->blocks - 1);
		put_be32(r + 8, k->block_size);
		k->resp_len = 32;
		break;
	case 0x1A:
		r[0] = 3;
		r[2] = k->wp_mode_sense ? 0x80 : 0;
		k->resp_len = 4;
		break;
	case 0x28:
	case 0x88:
		fake_rw(k, cb, false, extra, sizeof(extra));
		k->reads++;
		break;
	case 0x2A:
	case 0x8A:
		fake_rw(k, cb, true, extra, sizeof(extra));
		k->writes++;
		break;
	case 0x1B:
		if (cb[4] & 0x01)
			k->needs_start = false;
		break;
	case 0x35:
		if (k->sync_unsupported)
			fake_fail(k, 5, 0x20, 0);
		else if (k->sync_sense[0])
			fake_fail(k, k->sync_sense[0], k->sync_sense[1], k->sync_sense[2]);
		break;
	default:
		fake_fail(k, 5, 0x20, 0);
	}
	if (k->csw_status) {
		k->resp_len = 0;
	}
	if (k->resp_len > k->expected)
		k->resp_len = k->expected;
	fake_log_add("disk CBW %u %s%s len %u", k->tag, fake_op_name(cb[0]), extra, k->expected);
}

static int fake_take_cbw(struct fake_dev *d, const uint8_t *buf, uint32_t len)
{
	struct fake_disk *k = d->disk;
	if (k->state != WAIT_CBW || len != 31 || get_le32(buf) != 0x43425355u || buf[14] < 1 || buf[14] > 16) {
		fake_log_add("BAD CBW (%u bytes) in device state %d", len, k->state);
		k->state = NEED_RESET;
		return USB_STALL;
	}
	k->tag = get_le32(buf + 4);
	k->expected = get_le32(buf + 8);
	k->dir_in = buf[12] & 0x80;
	k->lun = buf[13] & 0x0F;
	if (k->lun > k->max_lun)
		fake_log_add("BAD CBW for LUN %u of a device with %u", k->lun, k->max_lun + 1);
	k->stall_this = false;
	fake_scsi(k, buf + 15);
	if (k->expected && k->stall_data && !k->stall_this) {
		k->stall_data--;
		k->stall_this = true;
		fake_fail(k, 3, k->dir_in ? 0x11 : 0x0C, 0);
	}
	if (k->stall_this) {
		k->resp_len = 0;
		k->out_ok = false;
	}
	k->csw_residue = k->expected - k->resp_len;
	if (k->dir_in && k->read_short && (k->op == 0x28 || k->op == 0x88) && !k->csw_status) {
		k->resp_len -= k->read_short;
		k->csw_residue = k->read_short;
		k->read_short = 0;
	}
	if (!k->dir_in && k->expected)
		k->csw_residue = k->out_ok ? 0 : k->expected;
	k->state = !k->expected ? SEND_CSW : k->dir_in ? DATA_IN : DATA_OUT;
	return USB_OK;
}

static int fake_send_csw(struct fake_dev *d, uint8_t *buf, uint32_t len, uint32_t *actual)
{
	struct fake_disk *k = d->disk;
	if (k->stall_csw) {
		k->stall_csw--;
		fake_log_add("disk STALL CSW");
		return USB_STALL;
	}
	if (len != 13)
		fake_log_add("BAD CSW read of %u bytes", len);
	uint32_t tag = k->tag, res = k->csw_residue;
	uint8_t status = k->csw_status;
	if (k->bad_csw_tag) {
		k->bad_csw_tag--;
		tag ^= 0x5A5A;
	}
	if (k->big_residue) {
		k->big_residue--;
		res = k->expected + 512;
	}
	if (k->bogus_residues && k->expected && !status) {
		k->bogus_residues--;
		res = k->expected;
	}
	if (k->phase_error) {
		k->phase_error--;
		status = 2;
	}
	put_le32(buf, k->bad_csw_sig ? 0x53425356u : 0x53425355u);
	if (k->bad_csw_sig)
		k->bad_csw_sig--;
	put_le32(buf + 4, tag);
	put_le32(buf + 8, res);
	buf[12] = status;
	*actual = 13;
	k->state = WAIT_CBW;
	fake_log_add("disk CSW %u status %u residue %u%s", tag, status, res, get_le32(buf) == 0x53425355u ? "" : " bad signature");
	return USB_OK;
}

int fake_disk_bulk(struct fake_dev *d, uint8_t ep, uint8_t *buf, uint32_t len, uint32_t *actual)
{
	struct fake_disk *k = d->disk;
	bool in = ep & 0x80;
	if (fake_unsettled(k))
		return USB_TIMEOUT;
	if (d->ep_dev_halted[ep & 15][in] || k->state == NEED_RESET)
		return USB_STALL;
	if (!in) {
		if (k->state == WAIT_CBW || k->state != DATA_OUT)
			return fake_take_cbw(d, buf, len) == USB_OK ? (*actual = len, USB_OK) : USB_STALL;
		if (len != k->expected)
			fake_log_add("BAD data-out of %u bytes for a CBW of %u", len, k->expected);
		k->state = SEND_CSW;
		if (k->stall_this) {
			fake_log_add("disk STALL data-out");
			return USB_STALL;
		}
		if (k->out_ok && k->out_lba * k->block_size + len <= k->store_blocks * k->block_size)
			memcpy(k->store + k->out_lba * k->block_size, buf, len);
		*actual = len;
		fake_log_add("disk data-out %u", len);
		return USB_OK;
	}
	if (k->state == WAIT_CBW) {
		fake_log_add("disk bulk IN with no command: NAK until timeout");
		return USB_TIMEOUT;
	}
	if (k->state == DATA_IN) {
		if (len != k->expected)
			fake_log_add("BAD data-in of %u bytes for a CBW of %u", len, k->expected);
		k->state = SEND_CSW;
		if (k->stall_this) {
			fake_log_add("disk STALL data-in");
			return USB_STALL;
		}
		memcpy(buf, k->resp, k->resp_len < len ? k->resp_len : len);
		*actual = k->resp_len < len ? k->resp_len : len;
		fake_log_add("disk data-in %u", *actual);
		return USB_OK;
	}
	return fake_send_csw(d, buf, len, actual);
}
