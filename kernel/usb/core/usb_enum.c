/*
 * usb_enum.c - one port's device brought up as Linux's hub_port_init and
 * hub_port_connect do: port reset, Address Device, the device descriptor,
 * and the whole again when a step fails, within USB_ENUM_TRIES
 * (usb_enum.h).
 *
 * Real devices miss their first address or descriptor now and then (a
 * USB 3 link that trained badly, a stick still starting its firmware);
 * a new port reset is what brings them back.  A port with nothing on it
 * is not retried.  Each try gets a freshly reset port and, since the
 * previous try's slot was given back, a new slot: the controller never
 * holds two slots for one place on the bus.  Polled, one thread at a
 * time (usb.h).
 */
#include "kernel/usb/core/usb_enum.h"

#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"
#include "kernel/usb/core/usb.h"

/* "root port 3" or "hub 1 (slot 2) port 4", for messages. */
static void enum_where(struct usb_hub *hub, unsigned port, char *buf, size_t size)
{
	if (hub)
		ksnprintf(buf, size, "hub %u (slot %u) port %u", hub->hop, hub->dev->slot, port);
	else
		ksnprintf(buf, size, "root port %u", port);
}

static int enum_reset(struct usb_hci *hc, struct usb_hub *hub, unsigned port, void *dma, struct usb_device *dev)
{
	if (hub)
		return hub_port_attach(hub, port, dma, dev);
	enum usb_speed speed = USB_SPEED_NONE;
	int rc = hci_port_reset(hc, port, &speed);
	if (rc != USB_OK)
		return rc;
	memset(dev, 0, sizeof(*dev));
	dev->hci = hc;
	dev->speed = (uint8_t)speed;
	dev->root_port = (uint8_t)port;
	kprintf("usb: root port %u: %s device\n", port, usb_speed_name(speed));
	return USB_OK;
}

int usb_enumerate(struct usb_hci *hc, struct usb_hub *hub, unsigned port, void *dma, struct usb_device *dev,
		  struct usb_device_descriptor *dd)
{
	char where[48];
	const char *step = "port reset";
	int rc = USB_ERROR;

	enum_where(hub, port, where, sizeof(where));
	for (unsigned try = 1; try <= USB_ENUM_TRIES; try++) {
		if (try > 1)
			kprintf("usb: %s: %s failed (%s); try %u of %u: resetting the port again\n", where, step,
				usb_status_name(rc), try, USB_ENUM_TRIES);
		step = "port reset";
		rc = enum_reset(hc, hub, port, dma, dev);
		if (rc == USB_NODEV || rc == USB_BADARG || rc == USB_NOMEM)
			return rc; /* nothing there, no such port: not retried */
		if (rc != USB_OK)
			continue;
		memset(dev->descriptor, 0, sizeof(dev->descriptor));
		step = "addressing";
		rc = hci_device_add(hc, dev); /* gives its slot back itself on failure */
		if (rc == USB_NOMEM)
			return rc;
		if (rc != USB_OK)
			continue;
		step = "device descriptor";
		rc = usb_read_device_descriptor(dev, dma, dd);
		if (rc == USB_OK) {
			memcpy(dev->descriptor, dd, sizeof(dev->descriptor));
			if (try > 1)
				kprintf("usb: %s: device answered on try %u of %u\n", where, try, USB_ENUM_TRIES);
			return USB_OK;
		}
		hci_device_remove(dev);
	}
	kprintf("usb: %s: no usable device after %u tries (last: %s failed: %s)\n", where, USB_ENUM_TRIES, step,
		usb_status_name(rc));
	return rc;
}
