/*
 * bot.h - USB Mass Storage Class Bulk-Only Transport 1.0: one SCSI
 * command as CBW, optional data stage, CSW, with the host's error
 * recovery (BOT 5.3, 6.6-6.7).
 *
 * Called by scsi.c (and stick.c for GET MAX LUN), one command at a time
 * from the single thread that owns the stick.
 */
#ifndef KPROF_USB_BOT_H
#define KPROF_USB_BOT_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/usb/hci.h"

#define BOT_CBW_SIGNATURE 0x43425355u /* "USBC" */
#define BOT_CSW_SIGNATURE 0x53425355u /* "USBS" */
#define BOT_CBW_LEN 31
#define BOT_CSW_LEN 13
#define BOT_CB_MAX 16

/* bCSWStatus */
#define BOT_CSW_PASSED 0
#define BOT_CSW_FAILED 1
#define BOT_CSW_PHASE_ERROR 2

/* Class requests (BOT 3.1, 3.2). */
#define BOT_REQ_RESET 0xFF
#define BOT_REQ_GET_MAX_LUN 0xFE

/* Time-outs; the data stage's and the CSW's are the defaults of
 * usb.data_timeout_ms= and usb.csw_timeout_ms= (stick_keys.c), which
 * bot_command() uses. */
#define BOT_CBW_TIMEOUT_MS 5000
#define BOT_DATA_TIMEOUT_MS 30000 /* cheap sticks stall for seconds (garbage collection) */
#define BOT_CSW_TIMEOUT_MS 20000 /* a flush may hold the CSW back */

enum bot_dir {
	BOT_DIR_NONE, /* no data stage            */
	BOT_DIR_IN,   /* device to host           */
	BOT_DIR_OUT,  /* host to device           */
};

struct bot {
	struct usb_device *dev; /* configured, bulk endpoints added      */
	uint8_t interface;      /* bInterfaceNumber, wIndex of requests  */
	uint8_t ep_in, ep_out;  /* bulk endpoint addresses               */
	uint8_t lun;            /* bCBWLUN                               */
	uint32_t tag;           /* dCBWTag of the last CBW sent          */
	uint8_t *cbw;           /* BOT_CBW_LEN bytes, DMA-able           */
	uint8_t *csw;           /* BOT_CSW_LEN bytes, DMA-able           */
	uint8_t *ctrl;          /* 1 byte for GET MAX LUN, DMA-able      */
	unsigned resets;        /* reset recoveries run                  */
	bool ignore_residue;    /* its residues proved bogus: the bytes
				 * moved count (bot.c, bot_residue)      */
	bool residue_clamped;   /* a residue > length was said once      */
	bool broken;            /* a reset recovery failed: commands fail
				 * until the stick is bound again (the
				 * recovery ladder, stick.c)             */
};

/* Bind to the interface; allocates the CBW/CSW page. */
int bot_init(struct bot *b, struct usb_device *dev, uint8_t interface, uint8_t ep_in, uint8_t ep_out);
void bot_release(struct bot *b);

/* GET MAX LUN; a device that stalls it has LUN 0 only (BOT 3.2). */
int bot_get_max_lun(struct bot *b, uint8_t *max_lun);

/* One command.  Returns BOT_CSW_PASSED or BOT_CSW_FAILED (the caller
 * then asks REQUEST SENSE) with *residue the bytes of the data stage not
 * processed (the CSW's residue, or more if fewer bytes moved; a residue
 * larger than len, or any residue of a stick whose residues proved
 * bogus, gives way to the bytes moved), or a negative enum usb_status
 * when the transport failed: an invalid or not meaningful CSW, a phase
 * error, or a CBW/CSW that could not be moved even after clearing a
 * stall; reset recovery has then been run. */
int bot_command(struct bot *b, const uint8_t *cdb, uint8_t cdb_len, enum bot_dir dir, void *data, uint32_t len,
		uint32_t *residue);

/* Bulk-Only Mass Storage Reset, then clear the halt of bulk IN and
 * bulk OUT (BOT 5.3.4).  Sets broken if any of it fails. */
int bot_reset_recovery(struct bot *b, const char *why);

#endif /* KPROF_USB_BOT_H */
