/*
 * stick_dev.h - the boot stick's state inside the storage layer: what
 * stick.c (open, identity, reads and writes) and stick_recover.c (the
 * recovery ladder) share.  Nothing outside kernel/usb/storage/ includes
 * it: the rest of the kernel sees struct usb_stick as opaque (stick.h).
 *
 * Invariant: verified is set only by the identity check (stick.c) and
 * cleared before any rebind; usb_stick_write() sends nothing unless it
 * is set.  One thread at a time (see hci.h).
 */
#ifndef KPROF_USB_STICK_DEV_H
#define KPROF_USB_STICK_DEV_H

#include "kernel/usb/storage/bot.h"
#include "kernel/usb/storage/scsi.h"
#include "kernel/usb/storage/stick.h"

/* After SET_CONFIGURATION and the endpoints, before the first class
 * request (GET MAX LUN) and SCSI command: Linux's usb-storage waits
 * delay_use, 1 s, for sticks that drop what comes at once.  The boot
 * stick has been powered and read by the firmware since power-on, so
 * what is left is its firmware settling after the bus reset; a slower
 * start ends in NOT READY or UNIT ATTENTION, which the commands at open
 * retry (scsi.h).  250 ms keeps a command off such a stick at a cost
 * paid at open, per device the search tries, and per port or controller
 * rung of recovery. */
#define STICK_SETTLE_MS 250

struct usb_stick {
	struct usb_stick_target target; /* where it is and what it must be */
	struct usb_device *dev;      /* the stick, configured              */
	struct bot bot;              /* its Bulk-Only transport            */
	struct scsi_lun lun;         /* LUN 0 on it                        */
	uint32_t block_size;         /* READ CAPACITY's, equal to target's */
	uint64_t blocks;             /* likewise, or the fewer of the two
				      * when they are one apart           */
	uint64_t write_first;        /* the boot partition's blocks (for   */
	uint64_t write_last;         /* GPT inside the usable ones), incl. */
	uint8_t max_lun;             /* GET MAX LUN; bot.lun is the one used */
	int read_rc;                 /* the last failed identity READ's    */
	bool write_protected;        /* MODE SENSE WP, or a WRITE said so  */
	bool verified;               /* identity matched the boot disk's   */
};

/* stick.c: the interface bound on st->dev (descriptors,
 * SET_CONFIGURATION, endpoints, the settle delay, GET MAX LUN); the LUN
 * that is the boot disk found and proved (verified set); the transport's
 * buffers given back (the device stays the controller's). */
int stick_bind(struct usb_stick *st);
int stick_find_lun(struct usb_stick *st, const struct usb_stick_target *t);
void stick_unbind(struct usb_stick *st);

#endif /* KPROF_USB_STICK_DEV_H */
