/*
 * stick_scan.c - the boot stick found by its identity when the loader's
 * path does not lead to it (stick.h).
 *
 * The path is a hint: a USB 3 stick that failed SuperSpeed training comes
 * back on its USB 2 companion port, a Type-C port's halves sit on two
 * controllers, a firmware numbers its ports its own way, or the user set
 * usb.stick_port= to a port where nothing is.  Then every xHCI controller
 * (hci_find), every root port with a device, and every hub's connected
 * ports (up to 5 hubs deep, as the route string allows) are walked in
 * order; each device that is not a hub goes through stick_on_device(),
 * which takes it only if a LUN of it has the boot disk's capacity and
 * identity (boot/common/diskid.c).  So nothing is ever written to another
 * disk, however it is found.
 *
 * Every device met is reset, addressed anew and its descriptor read by
 * usb_enumerate() (retried within USB_ENUM_TRIES; a device that never
 * answers holds no slot after); slots of the devices that answered but are
 * left behind are not given back, as in stick_path.c, and the devices and
 * hubs stay configured for the rest of the run.  The stick found keeps
 * the path it was found on as its target, for recovery (stick.c).  Called once, by
 * usb_stick_open(), from the thread that drives USB.
 */
#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"
#include "kernel/mm/heap.h"
#include "kernel/usb/core/hub.h"
#include "kernel/usb/core/usb.h"
#include "kernel/usb/core/usb_enum.h"
#include "kernel/usb/storage/stick.h"

#define SCAN_DMA_BYTES 4096

struct scan {
	const struct usb_stick_target *t;
	struct usb_stick **out;
	void *dma;                  /* descriptors and hub status         */
	const struct usb_device *tried; /* the path's device: not the stick */
	const struct usb_device *found;
	unsigned controllers, devices;
	uint16_t seg;               /* the controller being walked        */
	uint8_t bus, dev, fn;
};

/* "5" or "5 > 1 > 3": the root port, then each hub port. */
static void scan_ports_text(const struct usb_device *d, char *buf, size_t size)
{
	size_t n = (size_t)ksnprintf(buf, size, "%u", d->root_port);
	for (unsigned tier = 0; tier < d->depth && n < size; tier++)
		n += (size_t)ksnprintf(buf + n, size - n, " > %u", (d->route >> (4 * tier)) & 0xF);
}

static int scan_device(struct scan *s, struct usb_device *d);

/* Every connected port of the hub d, in port order. */
static int scan_hub(struct scan *s, struct usb_device *d)
{
	struct usb_hub hub;
	uint16_t connected = 0;
	if (d->depth + 1u >= STICK_PATH_MAX) {
		kprintf("stick: a hub %u deep: its ports are past what a route string reaches\n", d->depth + 1);
		return USB_NODEV;
	}
	int rc = hub_open(d, d->depth + 1u, s->dma, &hub);
	if (rc == USB_OK)
		rc = hub_ports_connected(&hub, s->dma, &connected);
	if (rc != USB_OK)
		return rc == USB_NOMEM ? rc : USB_NODEV;
	for (unsigned port = 1; port <= MIN(hub.nports, 15u); port++) {
		if (!(connected & (1u << port)))
			continue;
		struct usb_device *child = kzalloc(sizeof(*child));
		if (!child)
			return USB_NOMEM;
		struct usb_device_descriptor dd;
		rc = usb_enumerate(d->hci, &hub, port, s->dma, child, &dd);
		if (rc != USB_OK) {
			kfree(child); /* holds no slot */
			if (rc == USB_NOMEM)
				return rc;
			continue;
		}
		rc = scan_device(s, child);
		if (rc == USB_OK || rc == USB_NOMEM)
			return rc;
	}
	return USB_NODEV;
}

/* A hub is walked; anything else is tried as the stick. */
static int scan_device(struct scan *s, struct usb_device *d)
{
	struct usb_device_descriptor dd;
	int rc = usb_read_device_descriptor(d, s->dma, &dd);
	if (rc != USB_OK)
		return rc == USB_NOMEM ? rc : USB_NODEV;
	s->devices++;
	if (dd.bDeviceClass == USB_CLASS_HUB)
		return scan_hub(s, d);
	if (s->tried && d->hci == s->tried->hci && d->root_port == s->tried->root_port &&
	    d->route == s->tried->route && d->depth == s->tried->depth)
		return USB_NODEV; /* the loader's device, already refused */
	/* The target as found here, so that recovery's port reset and
	 * controller reset follow this device's path, not the loader's. */
	struct usb_stick_target here = *s->t;
	here.pci_segment = s->seg, here.pci_bus = s->bus, here.pci_dev = s->dev, here.pci_fn = s->fn;
	here.root_port_override = 0;
	here.depth = (uint8_t)(d->depth + 1);
	here.ports[0] = d->root_port;
	for (unsigned tier = 0; tier < d->depth && tier + 1 < STICK_PATH_MAX; tier++)
		here.ports[tier + 1] = (uint8_t)((d->route >> (4 * tier)) & 0xF);
	rc = stick_on_device(d, &here, s->out);
	if (rc == USB_OK)
		s->found = d;
	return rc == USB_OK || rc == USB_NOMEM ? rc : USB_NODEV;
}

/* Every root port of one controller. */
static int scan_controller(struct scan *s, struct usb_hci *hc)
{
	for (unsigned port = 1; port <= hci_port_count(hc); port++) {
		struct usb_device_descriptor dd;
		struct usb_device *d = kzalloc(sizeof(*d));
		if (!d)
			return USB_NOMEM;
		int rc = usb_enumerate(hc, NULL, port, s->dma, d, &dd);
		if (rc != USB_OK) {
			kfree(d); /* nothing there, or a device that never came up: holds no slot */
			if (rc == USB_NOMEM)
				return rc;
			continue;
		}
		rc = scan_device(s, d);
		if (rc == USB_OK || rc == USB_NOMEM)
			return rc;
	}
	return USB_NODEV;
}

/* "the loader's port 5 > 1", or with usb.stick_port= "port 3
 * (usb.stick_port=3; the loader's port 1)". */
static void scan_hint_text(const struct usb_stick_target *t, char *buf, size_t size)
{
	char ports[40];
	size_t n = 0;
	for (unsigned i = 0; i < t->depth && i < STICK_PATH_MAX && n < sizeof(ports); i++)
		n += (size_t)ksnprintf(ports + n, sizeof(ports) - n, i ? " > %u" : "%u", t->ports[i]);
	if (!t->depth)
		ksnprintf(ports, sizeof(ports), "none");
	if (t->root_port_override)
		ksnprintf(buf, size, "port %u (usb.stick_port=%u; the loader's port %s)", t->root_port_override,
			  t->root_port_override, ports);
	else
		ksnprintf(buf, size, "the loader's port %s", ports);
}

int stick_scan(const struct usb_stick_target *t, const struct usb_device *tried, struct usb_stick **out)
{
	struct scan s = { .t = t, .out = out, .tried = tried };
	char hint[96], id[128];
	uint16_t seg;
	uint8_t bus, dev, fn;
	int rc = USB_NODEV;

	scan_hint_text(t, hint, sizeof(hint));
	diskid_format(&t->id, id, sizeof(id));
	kprintf("stick: looking for the disk with the boot disk's %s on every xHCI controller\n", id);
	if (!(s.dma = usb_dma_alloc(SCAN_DMA_BYTES)))
		return USB_NOMEM;
	for (unsigned i = 0; rc != USB_OK && rc != USB_NOMEM && hci_find(i, &seg, &bus, &dev, &fn); i++) {
		struct usb_hci *hc = NULL;
		s.controllers++;
		s.seg = seg, s.bus = bus, s.dev = dev, s.fn = fn;
		if (hci_open(seg, bus, dev, fn, &hc) != USB_OK)
			continue;
		rc = scan_controller(&s, hc);
		if (rc == USB_OK) {
			char where[40];
			scan_ports_text(s.found, where, sizeof(where));
			kprintf("stick: not at %s; found by its identity at port %s (controller %04x:%02x:%02x.%u)\n", hint,
				where, seg, bus, dev, fn);
		}
	}
	usb_dma_free(s.dma, SCAN_DMA_BYTES);
	if (rc == USB_NOMEM)
		kprintf("stick: out of memory while looking for the boot disk\n");
	else if (rc != USB_OK)
		kprintf("stick: no disk with the boot disk's %s on %u xHCI controller%s (%u device%s): nothing "
			"written\n", id, s.controllers, s.controllers == 1 ? "" : "s", s.devices,
			s.devices == 1 ? "" : "s");
	return rc == USB_OK || rc == USB_NOMEM ? rc : USB_NODEV;
}
