/*
 * hub.h - a hub on the boot path (USB 2.0 chapter 11, USB 3.2 chapter
 * 10): read its descriptor, tell the controller it is a hub, then bring
 * up the one downstream port the path goes through.
 *
 * Called by storage/stick_path.c while it walks the path, and by
 * storage/stick_scan.c while it searches every hub for the stick; polled,
 * one thread.
 */
#ifndef KPROF_USB_HUB_H
#define KPROF_USB_HUB_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/usb/hci.h"

struct usb_hub {
	struct usb_device *dev; /* the hub itself, addressed               */
	unsigned hop;           /* 1 = first hub after the root port       */
	uint8_t nports;         /* bNbrPorts                               */
	bool superspeed;        /* USB 3 hub: 0x2A descriptor, SS status   */
	uint16_t power_good_ms; /* bPwrOn2PwrGood x 2                      */
	uint8_t tt_think_time;  /* wHubCharacteristics bits 6:5 (0-3)      */
};

/* How long the hub code waits (milliseconds). */
#define HUB_CONNECT_TIMEOUT_MS 3000 /* device seen on the port (Linux)   */
#define HUB_POLLING_MS 360          /* USB 3 link may sit in Polling     */
#define HUB_RESET_TIMEOUT_MS 500    /* PORT_RESET to enabled             */
#define HUB_DEBOUNCE_MS 100         /* USB 2.0 7.1.7.3 TATTDB            */
#define HUB_RESET_RECOVERY_MS 10    /* USB 2.0 7.1.7.5 TRSTRCY           */

/* Configure the hub device (dma: a usb_dma_alloc() page), read its hub
 * descriptor (0x29 or, for a SuperSpeed hub, 0x2A), hci_hub_configure()
 * it and, for a USB 3 hub, SET_HUB_DEPTH. */
int hub_open(struct usb_device *dev, unsigned hop, void *dma, struct usb_hub *hub);

/* Power the port, wait for a connection, reset it, and fill child's
 * speed, root_port, depth, route and TT fields from the hub's; change
 * bits are cleared.  The caller then hci_device_add()s the child.  On a
 * SuperSpeed hub the reset is a warm one (BH_PORT_RESET) when the link
 * sits in SS.Inactive or Compliance Mode or stays in Polling past
 * HUB_POLLING_MS, and a PORT_RESET that fails is tried again as one.
 * Timeouts print which hub and port; USB_NODEV when nothing is there. */
int hub_port_attach(struct usb_hub *hub, unsigned port, void *dma, struct usb_device *child);

/* Power every downstream port, wait bPwrOn2PwrGood and the connect
 * debounce once, then set bit p of *connected for each port p (1-based,
 * at most 15) with a device connected (or, on a SuperSpeed hub, a link
 * that only a warm reset or more time brings up: a device is there). */
int hub_ports_connected(struct usb_hub *hub, void *dma, uint16_t *connected);

#endif /* KPROF_USB_HUB_H */
