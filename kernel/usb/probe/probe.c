/*
 * probe.c - usb.probe=on: the xHCI driver shown at work through hci.h
 * alone.  For every xHCI function on PCI: hci_open(), then each root port
 * is reset and its device addressed; a hub (class 9) gets its ports
 * powered and reset and is walked the same way (up to 5 tiers); every
 * device prints its port path, speed and device descriptor, and a
 * Bulk-Only mass-storage interface answers INQUIRY (CBW on bulk OUT, data
 * and CSW on bulk IN: hci_configure() and hci_bulk() at work).
 *
 * It is a listing, not the USB stack (kernel/usb/core/, kernel/usb/storage/
 * are that): devices are addressed and left configured, nothing is
 * written to a disk.  Descriptor layouts are USB 2.0 chapter 9 and the
 * Mass Storage Bulk-Only Transport 1.0, private to this file.  Runs once,
 * on the boot CPU, before the scenario (kernel/init/main.c).
 */
#include "kernel/usb/probe/probe.h"

#include <arch/mmu.h>

#include "kernel/console/console.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/bytes.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/pmm.h"
#include "kernel/pci/pci.h"
#include "kernel/usb/hci.h"

#define PROBE_MAX_TIER 5

struct __attribute__((packed)) usb_device_descriptor {
	uint8_t bLength, bDescriptorType;
	uint16_t bcdUSB;
	uint8_t bDeviceClass, bDeviceSubClass, bDeviceProtocol, bMaxPacketSize0;
	uint16_t idVendor, idProduct, bcdDevice;
	uint8_t iManufacturer, iProduct, iSerialNumber, bNumConfigurations;
};
_Static_assert(sizeof(struct usb_device_descriptor) == 18, "device descriptor");

struct probe {
	struct usb_hci *hc;
	char where[16];       /* the controller's PCI location        */
	uint8_t *buf;         /* one page, physically contiguous      */
	unsigned devices;
};

static const char *speed_name(unsigned s)
{
	static const char *const names[] = { "no", "full-speed", "low-speed", "high-speed", "SuperSpeed" };
	return s < ARRAY_SIZE(names) ? names[s] : "unknown-speed";
}

static int control(struct usb_device *d, uint8_t type, uint8_t req, uint16_t value, uint16_t index, void *data,
		   uint16_t len, uint32_t *got)
{
	struct usb_setup s = { type, req, value, index, len };
	return hci_control(d, &s, data, got);
}

/* "5" or "5.1.3": the root port then each hub port. */
static void path_text(const struct usb_device *d, char *out, size_t size)
{
	size_t n = (size_t)ksnprintf(out, size, "%u", d->root_port);
	for (unsigned t = 0; t < d->depth; t++)
		n += (size_t)ksnprintf(out + n, size - n, ".%u", (d->route >> (4 * t)) & 0xF);
}

/* The interface and bulk endpoints of a Bulk-Only mass-storage function
 * in a configuration descriptor, if there is one. */
static bool find_bot(const uint8_t *c, uint32_t len, struct usb_endpoint *in, struct usb_endpoint *out)
{
	bool in_bot = false;
	struct usb_endpoint *last = NULL;

	in->address = out->address = 0;
	for (uint32_t off = 0; off + 2 <= len && c[off] >= 2; off += c[off]) {
		const uint8_t *d = c + off;
		if (off + d[0] > len)
			break;
		if (d[1] == 4 && d[0] >= 9) /* interface: class 8, SCSI, Bulk-Only */
			in_bot = d[5] == 8 && d[6] == 6 && d[7] == 0x50;
		else if (d[1] == 5 && d[0] >= 7 && in_bot && (d[3] & 3) == 2) {
			last = (d[2] & 0x80) ? in : out;
			*last = (struct usb_endpoint){ .address = d[2], .type = 2,
						       .max_packet = get_le16(d + 4), .interval = d[6] };
		} else if (d[1] == 0x30 && d[0] >= 6 && last) /* SuperSpeed endpoint companion */
			last->max_burst = d[2];
	}
	return in->address && out->address;
}

/* A Bulk-Only mass-storage function: configure it and hand it to
 * probe_storage.c. */
static void probe_storage(struct probe *p, struct usb_device *d, const char *path)
{
	uint8_t *cfg = p->buf + 1024;
	struct usb_endpoint eps[2];
	char label[40];
	uint32_t got = 0, len;
	int rc;

	if ((rc = control(d, 0x80, 6, 0x0200, 0, cfg, 9, &got)) || got < 9)
		goto fail;
	len = MIN((uint32_t)get_le16(cfg + 2), 1024u); /* wTotalLength */
	if ((rc = control(d, 0x80, 6, 0x0200, 0, cfg, (uint16_t)len, &got)))
		goto fail;
	if (!find_bot(cfg, got, &eps[0], &eps[1]))
		return; /* not Bulk-Only mass storage */
	if ((rc = control(d, 0x00, 9, cfg[5], 0, NULL, 0, NULL)) || (rc = hci_configure(d, eps, 2)))
		goto fail;
	ksnprintf(label, sizeof(label), "%s port %s", p->where, path);
	usb_probe_storage(d, eps[0].address, eps[1].address, eps[0].max_packet, p->buf + 2048, label);
	return;
fail:
	kprintf("usb.probe: %s port %s: mass storage check failed: %s\n", p->where, path, usb_status_name(rc));
}

static void probe_device(struct probe *p, struct usb_device *d);

/* USB 2.0 11.24.2: hub class requests on the hub's ports. */
#define HUB_PORT_POWER 8
#define HUB_PORT_RESET 4
#define HUB_C_PORT_CONNECTION 16
#define HUB_C_PORT_RESET 20

static int port_status(struct probe *p, struct usb_device *hub, unsigned port, uint32_t *st)
{
	uint32_t got = 0;
	int rc = control(hub, 0xA3, 0, 0, (uint16_t)port, p->buf + 4000, 4, &got);

	memcpy(st, p->buf + 4000, 4);
	return rc ? rc : got == 4 ? USB_OK : USB_ERROR;
}

/* Reset a hub's port and wait for it to be enabled; the device's speed,
 * or USB_SPEED_NONE. */
static enum usb_speed hub_port_reset(struct probe *p, struct usb_device *hub, unsigned port)
{
	uint32_t st = 0;

	if (port_status(p, hub, port, &st) || !(st & 1))
		return USB_SPEED_NONE;
	control(hub, 0x23, 1, HUB_C_PORT_CONNECTION, (uint16_t)port, NULL, 0, NULL);
	if (control(hub, 0x23, 3, HUB_PORT_RESET, (uint16_t)port, NULL, 0, NULL))
		return USB_SPEED_NONE;
	for (unsigned ms = 0; ms < 500; ms += 10) {
		ke_stall_execution_processor(10000);
		if (port_status(p, hub, port, &st))
			return USB_SPEED_NONE;
		if (st & (1u << 20)) /* C_PORT_RESET */
			break;
	}
	control(hub, 0x23, 1, HUB_C_PORT_RESET, (uint16_t)port, NULL, 0, NULL);
	if (!(st & 2)) { /* PORT_ENABLE */
		kprintf("usb.probe: %s: hub port %u not enabled after reset (status 0x%08x)\n", p->where, port, st);
		return USB_SPEED_NONE;
	}
	ke_stall_execution_processor(10000); /* reset recovery */
	if (hub->speed == USB_SPEED_SUPER)
		return USB_SPEED_SUPER;
	return (st & (1u << 9)) ? USB_SPEED_LOW : (st & (1u << 10)) ? USB_SPEED_HIGH : USB_SPEED_FULL;
}

static void probe_hub(struct probe *p, struct usb_device *hub, const char *path)
{
	uint8_t *hd = p->buf + 512;
	uint32_t got = 0;
	bool ss = hub->speed == USB_SPEED_SUPER;
	int rc;

	if (hub->depth >= PROBE_MAX_TIER)
		return;
	if ((rc = control(hub, 0x00, 9, 1, 0, NULL, 0, NULL)) ||
	    (rc = control(hub, 0xA0, 6, ss ? 0x2A00 : 0x2900, 0, hd, 12, &got))) {
		kprintf("usb.probe: %s port %s: hub not usable: %s\n", p->where, path, usb_status_name(rc));
		return;
	}
	unsigned nports = MIN(hd[2], 15u), ttt = ss ? 0 : (hd[3] >> 5) & 3, pwr_ms = hd[5] * 2u;
	if ((rc = hci_hub_configure(hub, hd[2], false, ttt))) {
		kprintf("usb.probe: %s port %s: hub not configured: %s\n", p->where, path, usb_status_name(rc));
		return;
	}
	if (ss)
		control(hub, 0x20, 12, hub->depth, 0, NULL, 0, NULL); /* SET_HUB_DEPTH */
	kprintf("usb.probe: %s port %s: hub with %u ports\n", p->where, path, hd[2]);
	for (unsigned port = 1; port <= nports; port++)
		control(hub, 0x23, 3, HUB_PORT_POWER, (uint16_t)port, NULL, 0, NULL);
	ke_stall_execution_processor(1000ull * MAX(pwr_ms, 100u)); /* power good, then connect debounce */

	for (unsigned port = 1; port <= nports; port++) {
		enum usb_speed speed = hub_port_reset(p, hub, port);
		struct usb_device *d;

		if (speed == USB_SPEED_NONE || !(d = kzalloc(sizeof(*d))))
			continue;
		d->speed = (uint8_t)speed;
		d->root_port = hub->root_port;
		d->depth = (uint8_t)(hub->depth + 1);
		d->route = hub->route | (uint32_t)port << (4 * hub->depth);
		if ((speed == USB_SPEED_LOW || speed == USB_SPEED_FULL) && hub->speed == USB_SPEED_HIGH) {
			d->tt_slot = hub->slot;
			d->tt_port = (uint8_t)port;
		} else {
			d->tt_slot = hub->tt_slot;
			d->tt_port = hub->tt_port;
		}
		probe_device(p, d);
	}
}

/* ep0 after a STALL: ask for a descriptor type no device has (0x42);
 * hci_control() must come back with USB_STALL and ep0 working again
 * (Reset Endpoint, Set TR Dequeue Pointer), which GET_STATUS shows. */
static void stall_check(struct probe *p, struct usb_device *d, const char *path)
{
	uint32_t got = 0;
	int rc = control(d, 0x80, 6, 0x4200, 0, p->buf + 256, 8, &got);

	if (rc != USB_STALL) {
		kprintf("usb.probe: %s port %s: GET_DESCRIPTOR type 0x42: %s, not a stall\n", p->where, path,
			usb_status_name(rc));
		return;
	}
	rc = control(d, 0x80, 0, 0, 0, p->buf + 256, 2, &got);
	kprintf("usb.probe: %s port %s: ep0 stalled on GET_DESCRIPTOR type 0x42; after recovery GET_STATUS: %s, %u bytes\n",
		p->where, path, usb_status_name(rc), got);
}

static void probe_device(struct probe *p, struct usb_device *d)
{
	struct usb_device_descriptor *dd = (struct usb_device_descriptor *)p->buf;
	char path[24];
	uint32_t got = 0;
	int rc;

	path_text(d, path, sizeof(path));
	if ((rc = hci_device_add(p->hc, d))) {
		kprintf("usb.probe: %s port %s: %s device not addressed: %s\n", p->where, path, speed_name(d->speed),
			usb_status_name(rc));
		return;
	}
	memset(dd, 0, sizeof(*dd));
	if ((rc = control(d, 0x80, 6, 0x0100, 0, dd, sizeof(*dd), &got)) || got < sizeof(*dd)) {
		kprintf("usb.probe: %s port %s: GET_DESCRIPTOR (device) failed: %s (%u bytes)\n", p->where, path,
			usb_status_name(rc), got);
		return;
	}
	p->devices++;
	kprintf("usb.probe: %s port %s: %s device %04x:%04x class %02x/%02x/%02x, USB %x.%02x, ep0 %u bytes, slot %u\n",
		p->where, path, speed_name(d->speed), dd->idVendor, dd->idProduct, dd->bDeviceClass,
		dd->bDeviceSubClass, dd->bDeviceProtocol, dd->bcdUSB >> 8, dd->bcdUSB & 0xFF, d->ep0_mps, d->slot);
	stall_check(p, d, path);
	if (dd->bDeviceClass == 9)
		probe_hub(p, d, path);
	else if (dd->bDeviceClass == 0)
		probe_storage(p, d, path);
}

static void probe_controller(struct probe *p, const struct pci_func *f)
{
	unsigned ports;

	ksnprintf(p->where, sizeof(p->where), "%02x:%02x.%x", f->addr.bus, f->addr.dev, f->addr.fn);
	if (hci_open(f->addr.segment, f->addr.bus, f->addr.dev, f->addr.fn, &p->hc))
		return;
	ports = hci_port_count(p->hc);
	for (unsigned port = 1; port <= ports; port++) {
		enum usb_speed speed;
		struct usb_device *d;
		int rc = hci_port_reset(p->hc, port, &speed);

		if (rc == USB_NODEV)
			continue;
		if (rc) {
			kprintf("usb.probe: %s port %u: reset failed: %s\n", p->where, port, usb_status_name(rc));
			continue;
		}
		if (!(d = kzalloc(sizeof(*d))))
			return;
		d->speed = (uint8_t)speed;
		d->root_port = (uint8_t)port;
		probe_device(p, d);
	}
}

unsigned usb_probe_run(void)
{
	static const char *const access[] = { "none", "ECAM (ACPI MCFG)", "legacy configuration ports" };
	struct probe p = { 0 };
	struct pci_func f;
	unsigned controllers = 0;
	uint64_t phys = pmm_alloc_pages_below(1, USB_DMA_LIMIT);

	if (!phys) {
		kprintf("usb.probe: no memory\n");
		return 0;
	}
	p.buf = phys_to_virt(phys);
	enum pci_access how = pci_init();
	kprintf("usb.probe: PCI configuration space through %s, %u functions\n", access[how],
		pci_enumerate(NULL, NULL));
	while (pci_find_class(0x0C, 0x03, 0x30, controllers, &f)) {
		controllers++;
		probe_controller(&p, &f);
	}
	kprintf("usb.probe: %u xHCI controller%s, %u device%s\n", controllers, controllers == 1 ? "" : "s",
		p.devices, p.devices == 1 ? "" : "s");
	pmm_free_pages(phys, 1);
	return p.devices;
}
