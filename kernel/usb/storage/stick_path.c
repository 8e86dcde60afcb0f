/*
 * stick_path.c - from the controller to the boot stick along the port chain
 * the loader found in the UEFI device path (struct usb_stick_target).
 *
 * hci_open() on the PCI function, usb_enumerate() of root port ports[0]
 * (or usb.stick_port='s, root_port_override); then for each hub hop i
 * (1 .. depth-1): hub_open() on the device just added and usb_enumerate()
 * of its port ports[i].  usb_enumerate resets the port, addresses the
 * device and reads its device descriptor, retrying within USB_ENUM_TRIES.
 * The device at the end is returned addressed, not configured (stick.c
 * binds its interface).  Devices are kzalloc'ed and never freed: the
 * controller keeps their slots for the rest of the run, and the hubs must
 * stay configured for the stick behind them to work.  Called by
 * usb_stick_open() and by the stick's recovery (stick.c).
 */
#include "kernel/usb/storage/stick.h"

#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/mm/heap.h"
#include "kernel/usb/core/hub.h"
#include "kernel/usb/core/usb.h"
#include "kernel/usb/core/usb_enum.h"

#define STICK_PATH_DMA_BYTES 4096

static void stick_path_failed(unsigned hop, unsigned port, int rc)
{
	if (hop == 0)
		kprintf("usb: root port %u of the boot path: device not brought up (%s)\n", port, usb_status_name(rc));
	else
		kprintf("usb: hop %u of the boot path (hub port %u): device not brought up (%s)\n", hop, port,
			usb_status_name(rc));
}

static int stick_path_root(const struct usb_stick_target *t, void *dma, struct usb_device *dev)
{
	struct usb_hci *hc = NULL;
	struct usb_device_descriptor dd;
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
	rc = usb_enumerate(hc, NULL, port, dma, dev, &dd);
	if (rc != USB_OK)
		stick_path_failed(0, port, rc);
	return rc;
}

int stick_path_open(const struct usb_stick_target *t, struct usb_device **out)
{
	if (t->depth == 0 || t->depth > STICK_PATH_MAX) {
		kprintf("usb: boot path of %u hops is not usable (1 to %u)\n", t->depth, STICK_PATH_MAX);
		return USB_BADARG;
	}
	void *dma = usb_dma_alloc(STICK_PATH_DMA_BYTES);
	struct usb_device *dev = kzalloc(sizeof(*dev));
	int rc = dma && dev ? stick_path_root(t, dma, dev) : USB_NOMEM;
	if (rc != USB_OK && (!dev || !dev->slot))
		kfree(dev); /* never given to the controller */
	for (unsigned hop = 1; rc == USB_OK && hop < t->depth; hop++) {
		struct usb_hub hub;
		struct usb_device_descriptor dd;
		struct usb_device *child = kzalloc(sizeof(*child));
		if (!child) {
			rc = USB_NOMEM;
			break;
		}
		rc = hub_open(dev, hop, dma, &hub);
		if (rc == USB_OK) {
			rc = usb_enumerate(dev->hci, &hub, t->ports[hop], dma, child, &dd);
			if (rc != USB_OK)
				stick_path_failed(hop, t->ports[hop], rc);
		}
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
