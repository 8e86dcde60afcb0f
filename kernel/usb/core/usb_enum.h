/*
 * usb_enum.h - bringing up the device on one port, root or hub, with the
 * bounded retries real devices need (usb_enum.c).
 *
 * Called by storage/stick_path.c and storage/stick_scan.c (and through
 * them by the stick's recovery); polled, one thread at a time, as every
 * call of the core (usb.h).
 */
#ifndef KPROF_USB_USB_ENUM_H
#define KPROF_USB_USB_ENUM_H

#include "kernel/usb/core/hub.h"
#include "kernel/usb/core/usb_desc.h"
#include "kernel/usb/hci.h"

/* Tries of port reset + Address Device + device descriptor before a port
 * is given up: Linux's hub_port_connect tries PORT_INIT_TRIES (4) times;
 * 3 here, which bounds a device that never answers to 3 times the
 * slowest try (a port reset and a 2 s control time-out: 6 s on a root
 * port, 6.7 s behind a hub, in test_hub's virtual time). */
#define USB_ENUM_TRIES 3

/* The device on root port `port` of hc (hub NULL) or on port `port` of
 * hub (hc is then the hub's): reset the port (hci_port_reset, or
 * hub_port_attach, which fills the route, depth and TT), address the
 * device (hci_device_add), read its device descriptor into *dd (dma: a
 * usb_dma_alloc() page) and keep it in dev->descriptor.  A failure in
 * any of the three starts again from the port reset, at most
 * USB_ENUM_TRIES times, one console line per retry; the slot of a try
 * that failed is given back before the next (hci_device_remove).
 * USB_NODEV at once when nothing is connected (no retry, no line: a
 * search meets many empty ports).  On failure dev holds no slot. */
int usb_enumerate(struct usb_hci *hc, struct usb_hub *hub, unsigned port, void *dma, struct usb_device *dev,
		  struct usb_device_descriptor *dd);

#endif /* KPROF_USB_USB_ENUM_H */
