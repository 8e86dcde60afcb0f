/*
 * stick.c - the boot stick as a block device (stick.h): binding its
 * Bulk-Only SCSI interface, proving it is the boot disk, and the reads
 * and writes everything else goes through.
 *
 * usb_stick_open() (stick_open.c) takes the device its path leads to,
 * and stick_on_device() below runs, in this order, and refuses it at the
 * first step that fails, with one console line saying why:
 *   device and configuration descriptors ->
 *   the class 8/6/0x50 interface -> SET_CONFIGURATION -> hci_configure()
 *   of its two bulk endpoints -> GET MAX LUN -> for the loader's LUN
 *   (then, on a multi-LUN card reader, each other LUN until one passes):
 *   INQUIRY (a direct-access device) -> TEST UNIT READY -> READ CAPACITY
 *   (block size equal to the loader's, block count equal or one off) ->
 *   MODE SENSE (WP)
 *   -> the disk's identity read back (boot/common/diskid.c: LBA 1's GPT
 *   header and its DiskGUID; or LBA 0's MBR disk signature and the boot
 *   partition's primary entry, and the partition's FAT volume serial),
 *   which must equal the loader's.
 * When the path leads to no such disk, stick_scan.c looks for it on every
 * controller, port and hub through stick_on_device() too; this file
 * calls neither the path nor the scan (stick_open.c does).
 * Invariant: st->verified is set only after that last check, and
 * usb_stick_write() sends nothing unless it is set, the medium is not
 * known to be write protected, and every block lies inside the boot
 * partition (for GPT also between FirstUsableLBA and LastUsableLBA): never
 * the MBR, the GPT's structures, or another partition.
 * Recovery (usb_stick_recover): stick_recover.c.  At open, the stick's
 * quirks that Linux's usb-storage and sd tolerate are tolerated: a settle
 * delay after SET_CONFIGURATION (STICK_SETTLE_MS), UNIT ATTENTION and
 * NOT READY retried within bounds (scsi.c), bogus residues (bot.c), a
 * block count one off from the firmware's (the fewer taken, the identity
 * deciding); a SYNCHRONIZE CACHE the stick refuses is reported as
 * USB_STICK_NOT_FLUSHED, not an error.
 * Callers: the trace output, one thread at a time (see hci.h).
 */
#include "kernel/usb/storage/stick.h"
#include "kernel/usb/storage/stick_dev.h"

#include "boot/common/gpt.h"
#include "kernel/console/console.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/libk.h"
#include "kernel/mm/heap.h"
#include "kernel/usb/core/usb.h"
#include "kernel/usb/storage/bot.h"
#include "kernel/usb/storage/scsi.h"

#define STICK_MAX_TRANSFER_BYTES (120u * 1024) /* per READ/WRITE command */
#define STICK_CONFIG_BYTES 1024                /* configuration read    */

/* Device, configuration, interface, endpoints, transport. */
int stick_bind(struct usb_stick *st)
{
	void *dma = usb_dma_alloc(STICK_CONFIG_BYTES);
	if (!dma)
		return USB_NOMEM;
	struct usb_device_descriptor dd;
	struct usb_storage_interface si;
	uint32_t len = 0;
	int rc = usb_read_device_descriptor(st->dev, dma, &dd);
	if (rc == USB_OK)
		rc = usb_read_config(st->dev, dma, STICK_CONFIG_BYTES, &len);
	if (rc == USB_OK) {
		rc = usb_config_find_storage(dma, len, &si);
		if (rc == USB_NODEV)
			kprintf("stick: device %04x:%04x has no Bulk-Only SCSI interface (class 8, subclass 6, protocol 0x50)\n",
				dd.idVendor, dd.idProduct);
	}
	usb_dma_free(dma, STICK_CONFIG_BYTES);
	if (rc != USB_OK)
		return rc;
	if ((rc = usb_set_configuration(st->dev, si.config_value)) != USB_OK)
		return rc;
	struct usb_endpoint eps[2] = { si.bulk_in, si.bulk_out };
	rc = hci_configure(st->dev, eps, 2);
	if (rc != USB_OK) {
		kprintf("stick: configuring bulk endpoints 0x%02x and 0x%02x failed: %s\n", si.bulk_in.address,
			si.bulk_out.address, usb_status_name(rc));
		return rc;
	}
	kprintf("stick: device %04x:%04x, interface %u, bulk IN 0x%02x, bulk OUT 0x%02x (%u bytes)\n", dd.idVendor,
		dd.idProduct, si.interface, si.bulk_in.address, si.bulk_out.address, si.bulk_in.max_packet);
	ke_stall_execution_processor(STICK_SETTLE_MS * 1000); /* before the first class request */
	if ((rc = bot_init(&st->bot, st->dev, si.interface, si.bulk_in.address, si.bulk_out.address)) != USB_OK)
		return rc;
	rc = bot_get_max_lun(&st->bot, &st->max_lun);
	if (rc != USB_OK)
		kprintf("stick: GET MAX LUN failed (%s): using LUN 0\n", usb_status_name(rc));
	else if (st->max_lun)
		kprintf("stick: %u LUNs (a card reader?): looking for the boot disk on each\n", st->max_lun + 1);
	st->lun.bot = &st->bot;
	st->lun.scratch = usb_dma_alloc(SCSI_SCRATCH_BYTES);
	return st->lun.scratch ? USB_OK : USB_NOMEM;
}

/* INQUIRY, TEST UNIT READY, READ CAPACITY against the target, MODE SENSE. */
static int stick_identify(struct usb_stick *st, const struct usb_stick_target *t)
{
	struct scsi_inquiry_data inq;
	int rc = scsi_inquiry(&st->lun, &inq);
	if (rc != SCSI_GOOD)
		return rc < 0 ? rc : USB_ERROR;
	if (inq.peripheral_type != 0) {
		kprintf("stick: %s %s is not a block device (peripheral type %u)\n", inq.vendor, inq.product,
			inq.peripheral_type);
		return USB_NODEV;
	}
	if ((rc = scsi_wait_ready(&st->lun)) != SCSI_GOOD ||
	    (rc = scsi_read_capacity(&st->lun, &st->blocks, &st->block_size)) != SCSI_GOOD)
		return rc < 0 ? rc : USB_ERROR;
	bool one_off = t->blocks && (st->blocks + 1 == t->blocks || st->blocks == t->blocks + 1);
	if (st->block_size != t->block_size || (st->blocks != t->blocks && !one_off)) {
		kprintf("stick: %s %s has %llu blocks of %u bytes, the boot disk %llu of %u: not the boot disk\n",
			inq.vendor, inq.product, (unsigned long long)st->blocks, st->block_size,
			(unsigned long long)t->blocks, t->block_size);
		return USB_NODEV;
	}
	if (one_off) { /* Linux's US_FL_FIX_CAPACITY and CAPACITY_HEURISTICS sticks */
		uint64_t fewer = MIN(st->blocks, t->blocks);
		kprintf("stick: %s %s says %llu blocks, the firmware %llu: one off, as some sticks count; taken if its "
			"identity matches, nothing read or written past block %llu\n", inq.vendor, inq.product,
			(unsigned long long)st->blocks, (unsigned long long)t->blocks, (unsigned long long)(fewer - 1));
		st->blocks = fewer;
	}
	bool wp = false;
	if (scsi_mode_sense_wp(&st->lun, &wp) != SCSI_GOOD)
		kprintf("stick: write protection unknown: a WRITE will tell\n");
	st->write_protected = wp;
	kprintf("stick: %s %s, %llu blocks of %u bytes%s\n", inq.vendor, inq.product, (unsigned long long)st->blocks,
		st->block_size, wp ? ", write protected" : "");
	return USB_OK;
}

/* diskid_read()'s reads: one block by SCSI READ. */
static int stick_read_block(void *ctx, uint64_t lba, void *buf)
{
	struct usb_stick *st = ctx;
	int rc = scsi_read_write(&st->lun, false, lba, 1, st->block_size, buf);
	if (rc == SCSI_GOOD)
		return 0;
	st->read_rc = rc < 0 ? rc : USB_ERROR;
	return -1;
}

/* The disk's identity, read back, must be the loader's. */
static int stick_check_identity(struct usb_stick *st, const struct usb_stick_target *t)
{
	uint8_t *b = usb_dma_alloc(st->block_size);
	if (!b)
		return USB_NOMEM;
	struct disk_identity have;
	st->read_rc = USB_OK;
	enum diskid_status ds = diskid_read(stick_read_block, st, b, st->block_size, st->blocks, t->id.table,
					    t->id.part_lba, t->id.part_blocks, &have);
	usb_dma_free(b, st->block_size);
	if (ds == DISKID_IO)
		return st->read_rc;
	if (ds == DISKID_BAD_GPT) {
		kprintf("stick: %s (%s): not the boot disk, nothing written\n", diskid_status_name(ds),
			gpt_status_name(have.gpt));
		return USB_NODEV;
	}
	if (ds != DISKID_OK) {
		kprintf("stick: read as the boot disk's %s: %s: not the boot disk, nothing written\n",
			diskid_table_name(t->id.table), diskid_status_name(ds));
		return USB_NODEV;
	}
	char text[128], want[128];
	const char *differs = diskid_differs(&t->id, &have);
	diskid_format(&have, text, sizeof(text));
	if (differs) {
		diskid_format(&t->id, want, sizeof(want));
		kprintf("stick: %s differs: %s, the boot disk's %s: nothing written\n", differs, text, want);
		return USB_NODEV;
	}
	st->write_first = have.write_first;
	st->write_last = have.write_last;
	st->verified = true;
	kprintf("stick: %s is the boot disk's\n", text);
	return USB_OK;
}

/* The boot disk on the loader's LUN or, behind a multi-LUN reader, on the
 * first other LUN that passes every check. */
int stick_find_lun(struct usb_stick *st, const struct usb_stick_target *t)
{
	int rc = USB_NODEV;
	st->lun.patient = true; /* UNIT ATTENTION, NOT READY retried (scsi.c) */
	if (t->lun > st->max_lun)
		kprintf("stick: the loader's LUN %u is not on this device (LUNs 0-%u): trying each\n", t->lun,
			st->max_lun);
	for (unsigned i = 0; i <= st->max_lun && !st->bot.broken; i++) {
		unsigned first = t->lun <= st->max_lun ? t->lun : 0;
		unsigned lun = i == 0 ? first : i <= first ? i - 1 : i;
		st->bot.lun = (uint8_t)lun;
		if (st->max_lun)
			kprintf("stick: trying LUN %u\n", lun);
		rc = stick_identify(st, t);
		if (rc == USB_OK)
			rc = stick_check_identity(st, t);
		if (rc == USB_OK || rc == USB_NOMEM)
			break;
	}
	st->lun.patient = false;
	return rc;
}

/* The transport's and SCSI's buffers (the device stays the controller's). */
void stick_unbind(struct usb_stick *st)
{
	usb_dma_free(st->lun.scratch, SCSI_SCRATCH_BYTES);
	st->lun.scratch = NULL;
	if (st->bot.cbw)
		bot_release(&st->bot);
}

static void stick_free(struct usb_stick *st)
{
	stick_unbind(st);
	kfree(st);
}

int stick_on_device(struct usb_device *dev, const struct usb_stick_target *t, struct usb_stick **out)
{
	struct usb_stick *st = kzalloc(sizeof(*st));
	if (!st)
		return USB_NOMEM;
	st->target = *t; /* where recovery finds it again */
	st->dev = dev;
	int rc = stick_bind(st);
	if (rc == USB_OK)
		rc = stick_find_lun(st, t);
	if (rc == USB_NOMEM)
		kprintf("stick: out of memory for transfer buffers\n");
	if (rc != USB_OK) {
		stick_free(st);
		return rc;
	}
	st->target.lun = st->bot.lun; /* recovery tries the LUN found first */
	*out = st;
	return USB_OK;
}

bool usb_stick_write_protected(const struct usb_stick *st)
{
	return st->write_protected;
}

struct stick_sense usb_stick_last_sense(const struct usb_stick *st)
{
	return st->lun.sense;
}

/* READ or WRITE in commands of at most STICK_MAX_TRANSFER_BYTES. */
static int stick_transfer(struct usb_stick *st, bool write, uint64_t lba, uint8_t *buf, uint32_t blocks)
{
	uint32_t per = MAX(STICK_MAX_TRANSFER_BYTES / st->block_size, 1u);
	while (blocks) {
		uint32_t n = MIN(blocks, per);
		int rc = scsi_read_write(&st->lun, write, lba, n, st->block_size, buf);
		if (rc != SCSI_GOOD) {
			if (write && rc == SCSI_CHECK_CONDITION && st->lun.sense.key == SCSI_SENSE_DATA_PROTECT &&
			    st->lun.sense.asc == SCSI_ASC_WRITE_PROTECTED)
				st->write_protected = true;
			return rc < 0 ? rc : USB_ERROR;
		}
		lba += n;
		buf += (uint64_t)n * st->block_size;
		blocks -= n;
	}
	return USB_OK;
}

int usb_stick_read(struct usb_stick *st, uint64_t lba, void *buf, uint32_t blocks)
{
	if (!blocks || lba >= st->blocks || blocks > st->blocks - lba) {
		kprintf("stick: READ of %u blocks at LBA %llu refused: outside the disk\n", blocks,
			(unsigned long long)lba);
		return USB_BADARG;
	}
	return stick_transfer(st, false, lba, buf, blocks);
}

int usb_stick_write(struct usb_stick *st, uint64_t lba, const void *buf, uint32_t blocks)
{
	if (!st->verified || st->write_protected) {
		kprintf("stick: WRITE at LBA %llu refused: %s\n", (unsigned long long)lba,
			st->verified ? "the stick is write protected" : "not verified as the boot disk");
		return st->verified ? USB_ERROR : USB_BADARG;
	}
	if (!blocks || lba < st->write_first || lba > st->write_last || blocks - 1 > st->write_last - lba) {
		kprintf("stick: WRITE of %u blocks at LBA %llu refused: outside the boot partition's blocks %llu-%llu\n",
			blocks, (unsigned long long)lba, (unsigned long long)st->write_first,
			(unsigned long long)st->write_last);
		return USB_BADARG;
	}
	return stick_transfer(st, true, lba, (uint8_t *)buf, blocks);
}

int usb_stick_sync(struct usb_stick *st)
{
	int rc = scsi_synchronize_cache(&st->lun);
	if (rc == SCSI_GOOD)
		return USB_OK;
	/* Refused by a stick that answers: CHECK CONDITION with any sense,
	 * or stalled even after reset recovery.  The WRITEs were each
	 * acknowledged; many sticks reject or stall this command. */
	if (rc == SCSI_CHECK_CONDITION || (rc == USB_STALL && !st->bot.broken))
		return USB_STICK_NOT_FLUSHED;
	return rc < 0 ? rc : USB_ERROR;
}
