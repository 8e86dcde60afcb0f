/*
 * stick_internal.h - between the stick's halves in kernel/usb: stick.c
 * (bind a device, find the boot disk's LUN by its identity) and
 * stick_scan.c (look for that device on every controller, port and hub
 * when the loader's path does not lead to it).  Same thread rules as
 * stick.h: one caller at a time, polled.
 */
#ifndef KPROF_USB_STICK_INTERNAL_H
#define KPROF_USB_STICK_INTERNAL_H

#include "kernel/usb/hci.h"
#include "kernel/usb/stick.h"

/* dev (addressed, not configured) as the boot stick: bind its Bulk-Only
 * interface and find the LUN whose disk has t's capacity and identity.
 * USB_OK with *out set; USB_NODEV (one line saying why) when it is not
 * the boot disk; on failure dev is left as it is. */
int stick_on_device(struct usb_device *dev, const struct usb_stick_target *t, struct usb_stick **out);

/* The boot stick by identity: every xHCI controller (hci_find), every
 * root port with a device, every hub port (up to 5 hubs deep), each
 * device tried with stick_on_device() until one is the boot disk; one
 * line says where it was found, or that it was found nowhere.  tried
 * (may be NULL): the device at the end of the loader's path, already
 * found not to be the boot disk, which is not tried again. */
int stick_scan(const struct usb_stick_target *t, const struct usb_device *tried, struct usb_stick **out);

#endif
