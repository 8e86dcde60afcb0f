/*
 * stick_open.c - usb_stick_open() (stick.h): the boot stick found from
 * the loader's target, first where its path leads (stick_path.c), then,
 * when the path leads nowhere or to a device that is not the boot disk,
 * by its identity on every controller, port and hub (stick_scan.c); each
 * candidate is proved by stick_on_device() (stick.c).
 *
 * It is a file of its own so that the layer's calls run one way: open ->
 * path, scan -> stick.c; stick.c calls neither.
 * Callers: the trace output, one thread at a time (see hci.h).
 */
#include "kernel/usb/storage/stick.h"

#include "kernel/console/console.h"

int usb_stick_open(const struct usb_stick_target *t, struct usb_stick **out)
{
	if (t->block_size < 512 || t->block_size > 65536 || (t->block_size & (t->block_size - 1))) {
		kprintf("stick: block size %u from the loader is not usable\n", t->block_size);
		return USB_BADARG;
	}
	/* The path is a hint: when it leads nowhere, or to a device that is
	 * not the boot disk, the stick is looked for by identity.  A device
	 * there that fails (errors, time-outs) is the stick, sick: no search. */
	struct usb_device *dev = NULL;
	int rc = stick_path_open(t, &dev);
	if (rc == USB_NOMEM)
		return rc;
	if (rc != USB_OK)
		return stick_scan(t, NULL, out);
	rc = stick_on_device(dev, t, out);
	if (rc != USB_NODEV)
		return rc;
	return stick_scan(t, dev, out);
}
