/*
 * stick_recover.c - the boot stick's recovery ladder (stick.h,
 * usb_stick_recover), one rung at a time as the caller climbs it:
 *   RESET       Bulk-Only reset recovery, then TEST UNIT READY;
 *   PORT        a port reset and a new address along the stick's path
 *               (the one it was found on, when the search found it);
 *   CONTROLLER  a controller reset, then every hop again as PORT.
 * The last two bind the interface anew and run every identity check of
 * usb_stick_open() again (verified is cleared first), so a different disk
 * put in the same port is never written.  When the stick is no longer
 * where its path leads (no device on a port of it, or another disk at
 * its end: a USB 3 stick that came back on its USB 2 companion port
 * after the reset, or on another port or controller), it is looked for
 * by its identity on every controller, port and hub (stick_scan.c), after
 * one line saying so; the stick found then keeps its new path for the
 * next rung.  A device on the path that fails (errors, time-outs) is the
 * stick, sick, as at open: no search, the caller's next rung.  Callers:
 * the trace output, one thread at a time (see hci.h).
 */
#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"
#include "kernel/mm/heap.h"
#include "kernel/usb/core/usb.h"
#include "kernel/usb/storage/stick_dev.h"

static const char *const recovery_names[STICK_RECOVER_COUNT] = {
	[STICK_RECOVER_RESET] = "Bulk-Only reset recovery",
	[STICK_RECOVER_PORT] = "port reset and new address",
	[STICK_RECOVER_CONTROLLER] = "controller reset",
};

const char *usb_stick_recovery_name(enum stick_recovery stage)
{
	return stage < STICK_RECOVER_COUNT ? recovery_names[stage] : "none";
}

/* "port 5 > 1 of controller 0000:00:05.0": where st's path leads. */
static void stick_path_text(const struct usb_stick_target *t, char *buf, size_t size)
{
	size_t n = (size_t)ksnprintf(buf, size, "port %u", t->root_port_override ? t->root_port_override : t->ports[0]);
	for (unsigned i = 1; i < t->depth && i < STICK_PATH_MAX && n < size; i++)
		n += (size_t)ksnprintf(buf + n, size - n, " > %u", t->ports[i]);
	if (n < size)
		ksnprintf(buf + n, size - n, " of controller %04x:%02x:%02x.%u", t->pci_segment, t->pci_bus, t->pci_dev,
			  t->pci_fn);
}

/* The stick is not at the end of its path: find it by its identity
 * (stick_scan.c) and take over what the search bound (st keeps its
 * address: the caller holds it).  tried: the device on the path, already
 * refused as not the boot disk, or NULL. */
static int stick_find_again(struct usb_stick *st, const struct usb_device *tried)
{
	char where[64];
	struct usb_stick *found = NULL;

	stick_path_text(&st->target, where, sizeof(where));
	kprintf("stick: the boot disk is no longer at %s after the reset: looking for it by its identity\n", where);
	int rc = stick_scan(&st->target, tried, &found);
	if (rc != USB_OK)
		return rc;
	*st = *found;
	st->lun.bot = &st->bot;
	kfree(found);
	return USB_OK;
}

/* Port reset and a new address along the same path (after a controller
 * reset: every hop again), then the interface bound anew and the
 * identity checked as at open: nothing is written to another disk.
 * Nothing on the path (USB_NODEV: no device on a port of it), or another
 * disk there: the search.  A device there that fails (errors, time-outs)
 * is the stick, sick, as at open: no search, the next rung. */
static int stick_rebind(struct usb_stick *st)
{
	struct usb_device *dev = NULL;

	stick_unbind(st);
	st->verified = false;
	int rc = stick_path_open(&st->target, &dev);
	if (rc == USB_NODEV)
		return stick_find_again(st, NULL);
	if (rc != USB_OK)
		return rc;
	st->dev = dev;
	rc = stick_bind(st);
	if (rc == USB_OK)
		rc = stick_find_lun(st, &st->target);
	if (rc != USB_NODEV)
		return rc;
	stick_unbind(st);
	return stick_find_again(st, dev);
}

int usb_stick_recover(struct usb_stick *st, enum stick_recovery stage)
{
	int rc;

	kprintf("stick: recovering: %s\n", usb_stick_recovery_name(stage));
	switch (stage) {
	case STICK_RECOVER_RESET:
		if (!st->bot.cbw || !st->lun.scratch)
			return USB_NODEV; /* an earlier rung left it unbound */
		st->bot.broken = false;
		rc = bot_reset_recovery(&st->bot, "a command failed");
		if (rc == USB_OK)
			rc = scsi_wait_ready(&st->lun) == SCSI_GOOD ? USB_OK : USB_ERROR;
		return rc;
	case STICK_RECOVER_PORT:
		return stick_rebind(st);
	case STICK_RECOVER_CONTROLLER:
		rc = hci_controller_reset(st->dev->hci);
		return rc == USB_OK ? stick_rebind(st) : rc;
	default:
		return USB_BADARG;
	}
}

