/*
 * stick.c - the boot stick as a block device (stick.h): binding its
 * Bulk-Only SCSI interface, proving it is the boot disk, and the reads
 * and writes everything else goes through.
 *
 * usb_stick_open() runs, in this order, and refuses the stick at the
 * first step that fails, with one console line saying why:
 *   the path (stick_path.c) -> device and configuration descriptors ->
 *   the class 8/6/0x50 interface -> SET_CONFIGURATION -> hci_configure()
 *   of its two bulk endpoints -> GET MAX LUN -> for LUN 0 (then, on a
 *   multi-LUN card reader, each further LUN until one passes): INQUIRY
 *   (a direct-access device) -> TEST UNIT READY -> READ CAPACITY (block
 *   size and block count equal to the loader's) -> MODE SENSE (WP) ->
 *   READ of LBA 1: the GPT header ("EFI PART", MyLBA 1, header CRC: the
 *   loader's own check, boot/common/gpt.c) whose DiskGUID must equal the
 *   loader's.
 * Invariant: st->verified is set only after that last check, and
 * usb_stick_write() sends nothing unless it is set, the medium is not
 * known to be write protected, and every block lies between the GPT
 * header's FirstUsableLBA and LastUsableLBA (never the protective MBR,
 * the GPT headers or the partition entries).
 * Callers: the trace output, one thread at a time (see hci.h).
 */
#include "kernel/usb/storage/stick.h"

#include "boot/common/gpt.h"
#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/mm/heap.h"
#include "kernel/usb/core/usb.h"
#include "kernel/usb/storage/bot.h"
#include "kernel/usb/storage/scsi.h"

#define STICK_MAX_TRANSFER_BYTES (120u * 1024) /* per READ/WRITE command */
#define STICK_CONFIG_BYTES 1024                /* configuration read    */

struct usb_stick {
	struct usb_device *dev;      /* the stick, configured              */
	struct bot bot;              /* its Bulk-Only transport            */
	struct scsi_lun lun;         /* LUN 0 on it                        */
	uint32_t block_size;         /* READ CAPACITY's, equal to target's */
	uint64_t blocks;             /* likewise                           */
	uint64_t first_usable;       /* GPT FirstUsableLBA                 */
	uint64_t last_usable;        /* GPT LastUsableLBA                  */
	uint8_t max_lun;             /* GET MAX LUN; bot.lun is the one used */
	bool write_protected;        /* MODE SENSE WP, or a WRITE said so  */
	bool verified;               /* disk GUID matched the boot disk    */
};

/* Device, configuration, interface, endpoints, transport. */
static int stick_bind(struct usb_stick *st)
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
	if (st->block_size != t->block_size || st->blocks != t->blocks) {
		kprintf("stick: %s %s has %llu blocks of %u bytes, the boot disk %llu of %u: not the boot disk\n",
			inq.vendor, inq.product, (unsigned long long)st->blocks, st->block_size,
			(unsigned long long)t->blocks, t->block_size);
		return USB_NODEV;
	}
	bool wp = false;
	if (scsi_mode_sense_wp(&st->lun, &wp) != SCSI_GOOD)
		kprintf("stick: write protection unknown: a WRITE will tell\n");
	st->write_protected = wp;
	kprintf("stick: %s %s, %llu blocks of %u bytes%s\n", inq.vendor, inq.product, (unsigned long long)st->blocks,
		st->block_size, wp ? ", write protected" : "");
	return USB_OK;
}

/* LBA 1 must be a GPT header (gpt_header_check, as the loader checked
 * it) of the boot disk's GUID, its usable blocks inside the disk. */
static int stick_check_gpt(struct usb_stick *st, const struct usb_stick_target *t)
{
	uint8_t *h = usb_dma_alloc(st->block_size);
	if (!h)
		return USB_NOMEM;
	int rc = scsi_read_write(&st->lun, false, GPT_HEADER_LBA, 1, st->block_size, h);
	if (rc != SCSI_GOOD) {
		usb_dma_free(h, st->block_size);
		return rc < 0 ? rc : USB_ERROR;
	}
	struct gpt_header_info gi;
	bool ok = gpt_header_check(h, st->block_size, &gi) == GPT_OK;
	usb_dma_free(h, st->block_size);
	ok = ok && gi.FirstUsableLBA > GPT_HEADER_LBA && gi.FirstUsableLBA <= gi.LastUsableLBA &&
	     gi.LastUsableLBA < st->blocks;
	if (!ok) {
		kprintf("stick: LBA 1 holds no valid GPT header: not the boot disk, nothing written\n");
		return USB_NODEV;
	}
	char have[37], want[37];
	gpt_guid_format_upper(gi.DiskGUID, have);
	gpt_guid_format_upper(t->disk_guid, want);
	if (memcmp(gi.DiskGUID, t->disk_guid, 16) != 0) {
		kprintf("stick: disk GUID %s is not the boot disk's %s: nothing written\n", have, want);
		return USB_NODEV;
	}
	st->first_usable = gi.FirstUsableLBA;
	st->last_usable = gi.LastUsableLBA;
	st->verified = true;
	kprintf("stick: disk GUID %s is the boot disk's\n", have);
	return USB_OK;
}

/* The boot disk on LUN 0 or, behind a multi-LUN reader, on the first LUN
 * that passes every check. */
static int stick_find_lun(struct usb_stick *st, const struct usb_stick_target *t)
{
	int rc = USB_NODEV;
	for (unsigned lun = 0; lun <= st->max_lun && !st->bot.broken; lun++) {
		st->bot.lun = (uint8_t)lun;
		if (st->max_lun)
			kprintf("stick: trying LUN %u\n", lun);
		rc = stick_identify(st, t);
		if (rc == USB_OK)
			rc = stick_check_gpt(st, t);
		if (rc == USB_OK || rc == USB_NOMEM)
			break;
	}
	return rc;
}

static void stick_free(struct usb_stick *st)
{
	usb_dma_free(st->lun.scratch, SCSI_SCRATCH_BYTES);
	if (st->bot.cbw)
		bot_release(&st->bot);
	kfree(st);
}

int usb_stick_open(const struct usb_stick_target *t, struct usb_stick **out)
{
	if (t->block_size < 512 || t->block_size > 65536 || (t->block_size & (t->block_size - 1))) {
		kprintf("stick: block size %u from the loader is not usable\n", t->block_size);
		return USB_BADARG;
	}
	struct usb_stick *st = kzalloc(sizeof(*st));
	int rc = st ? stick_path_open(t, &st->dev) : USB_NOMEM;
	if (rc == USB_OK)
		rc = stick_bind(st);
	if (rc == USB_OK)
		rc = stick_find_lun(st, t);
	if (rc == USB_NOMEM && (!st || st->dev)) /* stick_path_open says it itself */
		kprintf("stick: out of memory for transfer buffers\n");
	if (rc != USB_OK) {
		if (st)
			stick_free(st);
		return rc;
	}
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
	if (!blocks || lba < st->first_usable || lba > st->last_usable || blocks - 1 > st->last_usable - lba) {
		kprintf("stick: WRITE of %u blocks at LBA %llu refused: outside the GPT's usable blocks %llu-%llu\n",
			blocks, (unsigned long long)lba, (unsigned long long)st->first_usable,
			(unsigned long long)st->last_usable);
		return USB_BADARG;
	}
	return stick_transfer(st, true, lba, (uint8_t *)buf, blocks);
}

int usb_stick_sync(struct usb_stick *st)
{
	int rc = scsi_synchronize_cache(&st->lun);
	return rc == SCSI_GOOD ? USB_OK : rc < 0 ? rc : USB_ERROR;
}
