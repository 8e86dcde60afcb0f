/*
 * stick_path.c - from the controller to the boot stick along the port chain
 * the loader found in the UEFI device path (struct usb_stick_target).
 *
 * hci_open() on the PCI function, hci_port_reset() of root port
 * ports[0] (or usb.stick_port='s, root_port_override), hci_device_add(); then for each hub hop i (1 .. depth-1):
 * hub_open() on the device just added and hub_port_attach() of its port
 * ports[i], and hci_device_add() of what is there.  The device at the end
 * is returned addressed, not configured (stick.c binds its interface).
 * Devices are kzalloc'ed and never freed: the controller keeps their
 * slots for the rest of the run, and the hubs must stay configured for
 * the stick behind them to work.  Called once, by usb_stick_open().
 */
#include "kernel/usb/storage/stick.h"

#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/mm/heap.h"
#include "kernel/usb/core/hub.h"
#include "kernel/usb/core/usb.h"

#define STICK_PATH_DMA_BYTES 4096

static int stick_path_add(struct usb_device *dev, unsigned hop)
{
	int rc = hci_device_add(dev->hci, dev);
	if (rc != USB_OK)
		kprintf("usb: hop %u of the boot path (root port %u, route 0x%05x): addressing the device failed: %s\n",
			hop, dev->root_port, dev->route, usb_status_name(rc));
	return rc;
}

static int stick_path_root(const struct usb_stick_target *t, struct usb_device *dev)
{
	struct usb_hci *hc = NULL;
	int rc = hci_open(t->pci_segment, t->pci_bus, t->pci_dev, t->pci_fn, &hc);
	if (rc != USB_OK) {
		kprintf("usb: no controller at PCI %04x:%02x:%02x.%u: %s\n", t->pci_segment, t->pci_bus, t->pci_dev,
			t->pci_fn, usb_status_name(rc));
		return rc;
	}
	unsigned port = t->root_port_override ? t->root_port_override : t->ports[0];
	if (port == 0 || port > hci_port_count(hc)) {
		kprintf("usb: root port %u does not exist (the controller has %u)\n", port, hci_port_count(hc));
		return USB_BADARG;
	}
	enum usb_speed speed = USB_SPEED_NONE;
	rc = hci_port_reset(hc, port, &speed);
	if (rc != USB_OK) {
		kprintf("usb: root port %u: reset failed: %s\n", port, usb_status_name(rc));
		return rc;
	}
	dev->hci = hc;
	dev->speed = (uint8_t)speed;
	dev->root_port = (uint8_t)port;
	dev->ep0_mps = speed == USB_SPEED_SUPER ? 512 : speed == USB_SPEED_HIGH ? 64 : 8;
	kprintf("usb: root port %u: %s device\n", port, usb_speed_name(speed));
	return stick_path_add(dev, 0);
}

int stick_path_open(const struct usb_stick_target *t, struct usb_device **out)
{
	if (t->depth == 0 || t->depth > STICK_PATH_MAX) {
		kprintf("usb: boot path of %u hops is not usable (1 to %u)\n", t->depth, STICK_PATH_MAX);
		return USB_BADARG;
	}
	void *dma = usb_dma_alloc(STICK_PATH_DMA_BYTES);
	struct usb_device *dev = kzalloc(sizeof(*dev));
	int rc = dma && dev ? stick_path_root(t, dev) : USB_NOMEM;
	if (rc != USB_OK && (!dev || !dev->slot))
		kfree(dev); /* never given to the controller */
	for (unsigned hop = 1; rc == USB_OK && hop < t->depth; hop++) {
		struct usb_hub hub;
		struct usb_device *child = kzalloc(sizeof(*child));
		if (!child) {
			rc = USB_NOMEM;
			break;
		}
		rc = hub_open(dev, hop, dma, &hub);
		if (rc == USB_OK)
			rc = hub_port_attach(&hub, t->ports[hop], dma, child);
		if (rc == USB_OK)
			rc = stick_path_add(child, hop);
		if (rc != USB_OK) {
			kfree(child);
			break;
		}
		dev = child;
	}
	usb_dma_free(dma, STICK_PATH_DMA_BYTES);
	if (rc == USB_NOMEM)
		kprintf("usb: out of memory while enumerating the boot path\n");
	if (rc != USB_OK)
		return rc;
	*out = dev;
	return USB_OK;
}
