/*
 * bot.c - the host side of the Bulk-Only Transport (USB Mass Storage
 * Class, Bulk-Only Transport 1.0).
 *
 * State machine of one command (BOT 5, 6.7's thirteen cases reduced to
 * what a host that always asks for exactly the data it expects sees):
 *
 *   CBW    31 bytes on bulk OUT, dCBWTag = ++tag.
 *          STALL or error            -> reset recovery, transport error
 *   DATA   (if dCBWDataTransferLength > 0) on bulk IN or OUT.
 *          STALL                     -> clear the halt, go on to CSW
 *          other error               -> reset recovery, transport error
 *   CSW    13 bytes on bulk IN.
 *          STALL                     -> clear the halt, read it once more;
 *                                       STALL again -> reset recovery
 *          not valid (13 bytes, "USBS", our tag) or not meaningful
 *          (status > 2), or status 2 (phase error)
 *                                    -> reset recovery, transport error
 *          status 0 / 1              -> passed / failed (REQUEST SENSE
 *                                       is the caller's); the residue as
 *                                       bot_residue() believes it (a
 *                                       residue > length is clamped, not
 *                                       an error: Linux's usb-storage)
 *
 * Invariant: when bot_command() returns, the device waits for a CBW (or
 * is marked broken): every path that leaves it elsewhere runs reset
 * recovery.  Tags only grow, so a stale CSW cannot match.  Caller: scsi.c
 * and stick.c, one command at a time.
 *
 * What the device says (the CSW's signature, tag, status and residue) is
 * input, checked above.  What the controller driver says is not: hci.h
 * promises that a bulk transfer moves at most the bytes asked for, which
 * the residue arithmetic relies on; asserted after each stage
 * (kernel/debug/kassert.h; test_bot breaks it with a fake controller that
 * reports one byte more).
 */
#include "kernel/usb/storage/bot.h"

#include "kernel/console/console.h"
#include "kernel/debug/kassert.h"
#include "kernel/lib/bytes.h"
#include "kernel/lib/libk.h"
#include "kernel/usb/core/usb.h"
#include "kernel/usb/storage/stick_keys.h"

#define BOT_DMA_BYTES 4096
#define BOT_CSW_OFFSET 64
#define BOT_CTRL_OFFSET 128
/* The two commands whose fixed lengths show a stick's bogus residues
 * (SPC-4 INQUIRY's standard data, SBC-3 READ CAPACITY(10)'s 8 bytes). */
#define BOT_OP_INQUIRY 0x12
#define BOT_OP_READ_CAPACITY_10 0x25

int bot_init(struct bot *b, struct usb_device *dev, uint8_t interface, uint8_t ep_in, uint8_t ep_out)
{
	memset(b, 0, sizeof(*b));
	uint8_t *page = usb_dma_alloc(BOT_DMA_BYTES);
	if (!page)
		return USB_NOMEM;
	b->dev = dev;
	b->interface = interface;
	b->ep_in = ep_in;
	b->ep_out = ep_out;
	b->cbw = page;
	b->csw = page + BOT_CSW_OFFSET;
	b->ctrl = page + BOT_CTRL_OFFSET;
	return USB_OK;
}

void bot_release(struct bot *b)
{
	usb_dma_free(b->cbw, BOT_DMA_BYTES);
	b->cbw = b->csw = b->ctrl = NULL;
}

int bot_get_max_lun(struct bot *b, uint8_t *max_lun)
{
	uint32_t got = 0;
	int rc = usb_control(b->dev, USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE, BOT_REQ_GET_MAX_LUN, 0,
			     b->interface, b->ctrl, 1, &got);
	*max_lun = 0;
	if (rc == USB_STALL)
		return USB_OK; /* single-LUN devices may stall it (BOT 3.2) */
	if (rc == USB_OK && got == 1)
		*max_lun = b->ctrl[0] & 0x0F;
	return rc;
}

int bot_reset_recovery(struct bot *b, const char *why)
{
	b->resets++;
	kprintf("stick: Bulk-Only reset recovery (%s)\n", why);
	int rc = usb_control(b->dev, USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE, BOT_REQ_RESET, 0,
			     b->interface, NULL, 0, NULL);
	if (rc != USB_OK)
		kprintf("stick: Bulk-Only Mass Storage Reset failed: %s\n", usb_status_name(rc));
	if (rc == USB_OK)
		rc = usb_clear_halt(b->dev, b->ep_in);
	if (rc == USB_OK)
		rc = usb_clear_halt(b->dev, b->ep_out);
	if (rc != USB_OK) {
		kprintf("stick: reset recovery failed: the stick no longer answers\n");
		b->broken = true;
	}
	return rc;
}

/* Transport failure: recover, then report rc (USB_ERROR for a bad CSW). */
static int bot_fail(struct bot *b, int rc, const char *why)
{
	bot_reset_recovery(b, why);
	return b->broken ? USB_NODEV : rc;
}

static void bot_build_cbw(struct bot *b, const uint8_t *cdb, uint8_t cdb_len, enum bot_dir dir, uint32_t len)
{
	uint8_t *w = b->cbw;
	memset(w, 0, BOT_CBW_LEN);
	put_le32(w, BOT_CBW_SIGNATURE);
	put_le32(w + 4, ++b->tag);
	put_le32(w + 8, len);
	w[12] = dir == BOT_DIR_IN ? 0x80 : 0x00; /* bmCBWFlags: direction */
	w[13] = b->lun & 0x0F;
	w[14] = cdb_len;
	memcpy(w + 15, cdb, cdb_len);
}

/* Read the CSW, clearing one stall on the way. */
static int bot_read_csw(struct bot *b, uint32_t *got)
{
	int rc = hci_bulk(b->dev, b->ep_in, b->csw, BOT_CSW_LEN, got, usb_stick_config->csw_timeout_ms);
	if (rc == USB_STALL) {
		rc = usb_clear_halt(b->dev, b->ep_in);
		if (rc == USB_OK)
			rc = hci_bulk(b->dev, b->ep_in, b->csw, BOT_CSW_LEN, got, usb_stick_config->csw_timeout_ms);
	}
	return rc;
}

/* The bytes of the data stage not processed, from the CSW's residue as
 * Linux's usb-storage takes it: a residue larger than the length asked
 * for means nothing (clamped, and the bytes moved believed); an INQUIRY
 * of 36 bytes or a READ CAPACITY(10) of 8 that passed with every byte
 * moved but a residue claimed marks the stick as one whose residues are
 * bogus (US_FL_IGNORE_RESIDUE), and from then on the bytes moved alone
 * count.  Otherwise the larger of the residue and the bytes not moved. */
static uint32_t bot_residue(struct bot *b, uint8_t opcode, uint8_t status, uint32_t len, uint32_t moved,
			    uint32_t res)
{
	uint32_t not_moved = len - MIN(moved, len);
	if (res && !b->ignore_residue && status == BOT_CSW_PASSED && !not_moved &&
	    ((opcode == BOT_OP_INQUIRY && len == 36) || (opcode == BOT_OP_READ_CAPACITY_10 && len == 8))) {
		kprintf("stick: command 0x%02x moved all %u bytes but its CSW's residue says %u did not: the stick's "
			"residues are ignored from now on, the bytes moved count\n", opcode, len, res);
		b->ignore_residue = true;
	}
	if (res > len && !b->ignore_residue && !b->residue_clamped) {
		kprintf("stick: a CSW's residue of %u is more than the %u bytes asked for: the %u bytes moved count "
			"instead (said once)\n", res, len, moved);
		b->residue_clamped = true;
	}
	if (b->ignore_residue || res > len)
		return not_moved;
	return MAX(res, not_moved);
}

int bot_command(struct bot *b, const uint8_t *cdb, uint8_t cdb_len, enum bot_dir dir, void *data, uint32_t len,
		uint32_t *residue)
{
	if (b->broken)
		return USB_NODEV;
	if (cdb_len == 0 || cdb_len > BOT_CB_MAX || (dir == BOT_DIR_NONE) != (len == 0))
		return USB_BADARG;

	bot_build_cbw(b, cdb, cdb_len, dir, len);
	uint32_t moved = 0;
	int rc = hci_bulk(b->dev, b->ep_out, b->cbw, BOT_CBW_LEN, &moved, BOT_CBW_TIMEOUT_MS);
	KASSERT_OP(moved, <=, (uint32_t)BOT_CBW_LEN); /* hci.h: never more than asked */
	if (rc == USB_OK && moved != BOT_CBW_LEN)
		rc = USB_ERROR;
	if (rc != USB_OK)
		return bot_fail(b, rc, "CBW not accepted");

	uint32_t data_moved = 0;
	if (len) {
		uint8_t ep = dir == BOT_DIR_IN ? b->ep_in : b->ep_out;
		rc = hci_bulk(b->dev, ep, data, len, &data_moved, usb_stick_config->data_timeout_ms);
		KASSERT_OP(data_moved, <=, len);
		if (rc == USB_STALL)
			rc = usb_clear_halt(b->dev, ep); /* the CSW tells what happened */
		if (rc != USB_OK)
			return bot_fail(b, rc, "data stage failed");
	}

	uint32_t got = 0;
	rc = bot_read_csw(b, &got);
	KASSERT_OP(got, <=, (uint32_t)BOT_CSW_LEN);
	if (rc != USB_OK)
		return bot_fail(b, rc, "no CSW");
	const uint8_t *s = b->csw;
	uint32_t sig = get_le32(s), tag = get_le32(s + 4), res = get_le32(s + 8);
	uint8_t status = s[12];
	if (got != BOT_CSW_LEN || sig != BOT_CSW_SIGNATURE || tag != b->tag)
		return bot_fail(b, USB_ERROR, "CSW not valid: wrong length, signature or tag");
	if (status > BOT_CSW_PHASE_ERROR)
		return bot_fail(b, USB_ERROR, "CSW not meaningful: bad status");
	if (status == BOT_CSW_PHASE_ERROR)
		return bot_fail(b, USB_ERROR, "phase error");
	*residue = bot_residue(b, cdb[0], status, len, data_moved, res);
	return status;
}
