/*
 * fake_hci.c - the fake controller behind kernel/usb/hci.h for host unit
 * tests (see fake_hci.h): root ports, slot assignment with the topology
 * checks a real xHCI and the devices would impose, the standard requests
 * every fake device answers, the request log, virtual time, and the
 * fake RAM the kernel's page allocator hands out as "direct map".
 */
#include "support/fake_hci.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arch/mmu.h>

#include "kernel/ke/time/time.h"
#include "kernel/mm/pmm.h"
#include "kernel/usb/core/usb_desc.h"

struct usb_hci {
	unsigned nports;
	struct fake_dev *root[FAKE_PORTS_MAX + 1];
	struct fake_dev *all[64]; /* every fake device, freed by fake_reset */
	unsigned ndevs;
	uint8_t next_slot;
};

static struct usb_hci fake_hc;
char fake_log[FAKE_LOG_BYTES];
unsigned fake_errors;
uint64_t fake_now_us;
unsigned fake_bulk_overreport;
unsigned fake_address_failures;
uint32_t fake_bulk_timeout_ms[FAKE_BULK_TIMEOUTS];
unsigned fake_bulk_count;

#define FAKE_RAM_BASE (1ULL << 20)
#define FAKE_RAM_BYTES (32ULL << 20)
static uint8_t *fake_ram;

void fake_log_add(const char *fmt, ...)
{
	size_t len = strlen(fake_log);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(fake_log + len, sizeof(fake_log) - len, fmt, ap);
	va_end(ap);
	len = strlen(fake_log);
	if (len + 1 < sizeof(fake_log)) {
		fake_log[len] = '\n';
		fake_log[len + 1] = '\0';
	}
	if (strncmp(fmt, "BAD", 3) == 0)
		fake_errors++;
}

bool fake_log_has_seq(const char *const *want)
{
	const char *p = fake_log;
	unsigned i = 0;
	while (want[i] && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (strlen(want[i]) == n && memcmp(p, want[i], n) == 0)
			i++;
		p += n + (nl ? 1 : 0);
	}
	if (want[i]) {
		fprintf(stderr, "fake log lacks \"%s\" (in order); the log:\n%s", want[i], fake_log);
		return false;
	}
	return true;
}

unsigned fake_log_count(const char *needle)
{
	unsigned n = 0;
	for (const char *p = fake_log; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void fake_register(struct fake_dev *d)
{
	if (fake_hc.ndevs < sizeof(fake_hc.all) / sizeof(fake_hc.all[0]))
		fake_hc.all[fake_hc.ndevs++] = d;
}

void fake_reset(unsigned nports)
{
	for (unsigned i = 0; i < fake_hc.ndevs; i++) {
		struct fake_dev *d = fake_hc.all[i];
		if (d->kind == FAKE_DISK)
			fake_disk_free(d);
		free(d->hub);
		free(d);
	}
	memset(&fake_hc, 0, sizeof(fake_hc));
	fake_hc.nports = nports;
	fake_log[0] = '\0';
	fake_errors = 0;
	fake_now_us = 0;
	fake_bulk_overreport = 0;
	fake_address_failures = 0;
	fake_bulk_count = 0;
	if (!fake_ram) {
		static struct bootinfo bi;
		bi.mmap[0] = (struct bootinfo_mmap_entry){ FAKE_RAM_BASE, FAKE_RAM_BYTES, BOOTINFO_MEM_USABLE, 0 };
		bi.mmap_count = 1;
		fake_ram = aligned_alloc(PAGE_SIZE, FAKE_RAM_BYTES);
		arch_hhdm_offset = (uint64_t)(uintptr_t)fake_ram - FAKE_RAM_BASE;
		if (pmm_init(&bi) != 0)
			abort();
	}
}

/* Every fake device comes through here (fake_hub_new, fake_disk_new). */
struct fake_dev *fake_dev_alloc(enum fake_kind kind, const char *name, enum usb_speed speed)
{
	struct fake_dev *d = calloc(1, sizeof(*d));
	d->kind = kind;
	d->name = name;
	d->speed = speed;
	fake_register(d);
	return d;
}

void fake_attach_root(unsigned port, struct fake_dev *d)
{
	fake_hc.root[port] = d;
}

/* A transfer buffer must be in the direct map of the fake RAM. */
static void fake_check_dma(const char *what, const void *buf, uint32_t len)
{
	const uint8_t *b = buf;
	if (len && (b < fake_ram || b + len > fake_ram + FAKE_RAM_BYTES))
		fake_log_add("BAD %s buffer %p (%u bytes) is not direct-map memory", what, buf, len);
}

void ke_stall_execution_processor(uint64_t us)
{
	fake_now_us += us;
}

/* One controller, at 0000:00:03.0. */
bool hci_find(unsigned index, uint16_t *segment, uint8_t *bus, uint8_t *dev, uint8_t *fn)
{
	if (index)
		return false;
	*segment = 0, *bus = 0, *dev = 3, *fn = 0;
	return true;
}

int hci_open(uint16_t segment, uint8_t bus, uint8_t dev, uint8_t fn, struct usb_hci **out)
{
	fake_log_add("hc OPEN %04x:%02x:%02x.%u", segment, bus, dev, fn);
	if (segment != 0 || bus != 0 || dev != 3 || fn != 0)
		return USB_NODEV;
	*out = &fake_hc;
	return USB_OK;
}

unsigned hci_port_count(struct usb_hci *hc)
{
	return hc->nports;
}

/* A bus reset returns a device to the default state; a hub's downstream
 * ports lose power and everything behind them goes with it. */
static void fake_bus_reset(struct fake_dev *d)
{
	d->slot = 0;
	d->config = 0;
	memset(d->ep_configured, 0, sizeof(d->ep_configured));
	memset(d->ep_host_halted, 0, sizeof(d->ep_host_halted));
	memset(d->ep_dev_halted, 0, sizeof(d->ep_dev_halted));
	memset(d->ep_host_resets, 0, sizeof(d->ep_host_resets));
	memset(d->ep_dev_resets, 0, sizeof(d->ep_dev_resets));
	if (d->disk) {
		d->disk->state = 0;
		d->disk->hung = false;
	}
	if (d->hub) {
		struct fake_hub *h = d->hub;
		h->configured_in_hc = false;
		h->depth_set = -1;
		memset(h->status, 0, sizeof(h->status));
		memset(h->change, 0, sizeof(h->change));
		memset(h->last_report, 0, sizeof(h->last_report));
		for (unsigned p = 1; p <= FAKE_PORTS_MAX; p++)
			if (h->port_dev[p])
				fake_bus_reset(h->port_dev[p]);
	}
}

int hci_controller_reset(struct usb_hci *hc)
{
	fake_log_add("hc CONTROLLER_RESET");
	for (unsigned p = 1; p <= hc->nports; p++)
		if (hc->root[p])
			fake_bus_reset(hc->root[p]);
	for (unsigned i = 0; i < hc->ndevs; i++) {
		hc->all[i]->slot = 0;
		if (hc->all[i]->disk)
			hc->all[i]->disk->hung_until_hc_reset = false;
	}
	return USB_OK;
}

/* A hung disk answers nothing: every transfer times out. */
static bool fake_hung(const struct fake_dev *fd)
{
	if (!fd->disk || !(fd->disk->hung || fd->disk->hung_until_hc_reset))
		return false;
	fake_log_add("s%u TIMEOUT", fd->slot);
	return true;
}

int hci_port_reset(struct usb_hci *hc, unsigned port, enum usb_speed *speed)
{
	fake_log_add("hc PORT_RESET %u", port);
	if (port == 0 || port > hc->nports) {
		fake_log_add("BAD root port %u", port);
		return USB_BADARG;
	}
	if (!hc->root[port])
		return USB_NODEV;
	fake_bus_reset(hc->root[port]);
	*speed = hc->root[port]->speed;
	return USB_OK;
}

/* Follow the route string from the root port as a controller would. */
static struct fake_dev *fake_resolve(const struct usb_device *dev, uint8_t *tt_slot, uint8_t *tt_port)
{
	struct fake_dev *cur = fake_hc.root[dev->root_port];
	*tt_slot = *tt_port = 0;
	for (unsigned t = 0; cur && t < dev->depth; t++) {
		struct fake_hub *h = cur->hub;
		unsigned p = (dev->route >> (4 * t)) & 15;
		if (cur->kind != FAKE_HUB || !cur->config || !h->configured_in_hc) {
			fake_log_add("BAD tier %u of route 0x%05x: %s is not a configured hub", t + 1, dev->route, cur->name);
			return NULL;
		}
		if (p == 0 || p > h->nports || !(h->status[p] & USB_PORT_STAT_ENABLE)) {
			fake_log_add("BAD tier %u of route 0x%05x: %s port %u is not enabled", t + 1, dev->route, cur->name, p);
			return NULL;
		}
		if (cur->speed == USB_SPEED_HIGH) {
			*tt_slot = cur->slot;
			*tt_port = (uint8_t)p;
		}
		cur = h->port_dev[p];
	}
	if (dev->depth < 5 && (dev->route >> (4 * dev->depth)) != 0) {
		fake_log_add("BAD route 0x%05x has ports beyond depth %u", dev->route, dev->depth);
		return NULL;
	}
	return cur;
}

int hci_device_add(struct usb_hci *hc, struct usb_device *dev)
{
	uint8_t tt_slot, tt_port;
	struct fake_dev *fd = fake_resolve(dev, &tt_slot, &tt_port);
	bool lsfs = dev->speed == USB_SPEED_LOW || dev->speed == USB_SPEED_FULL;
	if (!lsfs)
		tt_slot = tt_port = 0;
	if (!fd) {
		fake_log_add("hc ADDRESS route 0x%05x: nothing there", dev->route);
		return USB_NODEV;
	}
	if (fake_address_failures) {
		fake_address_failures--;
		fake_log_add("hc ADDRESS %s route 0x%05x: no answer to SET_ADDRESS", fd->name, dev->route);
		return USB_ERROR;
	}
	if (fd->slot || dev->hci != hc || dev->speed != fd->speed || dev->tt_slot != tt_slot || dev->tt_port != tt_port)
		fake_log_add("BAD addressing %s: slot %u, speed %u (is %u), TT %u/%u (should be %u/%u)", fd->name,
			     fd->slot, dev->speed, fd->speed, dev->tt_slot, dev->tt_port, tt_slot, tt_port);
	fd->slot = dev->slot = ++hc->next_slot;
	fd->host = dev;
	dev->hcpriv = fd;
	dev->ep0_mps = fd->speed == USB_SPEED_SUPER ? (uint16_t)(1u << fd->dev_desc[7]) : fd->dev_desc[7];
	fake_log_add("hc ADDRESS s%u %s rp %u route 0x%05x depth %u speed %u tt %u/%u", dev->slot, fd->name,
		     dev->root_port, dev->route, dev->depth, dev->speed, dev->tt_slot, dev->tt_port);
	return USB_OK;
}

void hci_device_remove(struct usb_device *dev)
{
	struct fake_dev *fd = dev->hcpriv;
	if (!dev->slot)
		return;
	fake_log_add("hc REMOVE s%u %s", dev->slot, fd->name);
	if (fd->host == dev)
		fd->slot = 0;
	dev->slot = 0;
	dev->hcpriv = NULL;
}

static int fake_std_control(struct fake_dev *fd, const struct usb_setup *s, uint8_t *data, uint32_t *actual)
{
	unsigned slot = fd->slot;
	if (s->bRequest == USB_REQ_GET_DESCRIPTOR && s->bmRequestType == 0x80) {
		uint8_t type = s->wValue >> 8;
		const uint8_t *src = type == USB_DT_DEVICE ? fd->dev_desc : fd->cfg_desc;
		uint32_t have = type == USB_DT_DEVICE ? sizeof(fd->dev_desc) : fd->cfg_len;
		fake_log_add("s%u GET_DESCRIPTOR %s %u", slot, type == USB_DT_DEVICE ? "DEVICE" : "CONFIG", s->wLength);
		if (type == USB_DT_DEVICE && fd->desc_timeouts) {
			fd->desc_timeouts--;
			fake_now_us += 2000000;
			fake_log_add("s%u TIMEOUT", slot);
			return USB_TIMEOUT;
		}
		if (type != USB_DT_DEVICE && type != USB_DT_CONFIG)
			return USB_STALL;
		*actual = s->wLength < have ? s->wLength : have;
		memcpy(data, src, *actual);
		return USB_OK;
	}
	if (s->bRequest == USB_REQ_SET_CONFIGURATION && s->bmRequestType == 0x00) {
		fake_log_add("s%u SET_CONFIGURATION %u", slot, s->wValue);
		fd->config = (uint8_t)s->wValue;
		if (fd->disk)
			fd->disk->configured_at_us = fake_now_us;
		return USB_OK;
	}
	if (s->bRequest == USB_REQ_CLEAR_FEATURE && s->bmRequestType == 0x02 &&
	    s->wValue == USB_FEATURE_ENDPOINT_HALT) {
		unsigned n = s->wIndex & 15, in = (s->wIndex >> 7) & 1;
		fake_log_add("s%u CLEAR_FEATURE ENDPOINT_HALT 0x%02x", slot, s->wIndex);
		fd->ep_dev_halted[n][in] = false;
		fd->ep_dev_resets[n][in]++;
		return USB_OK;
	}
	fake_log_add("s%u standard request %02x/%02x not handled", slot, s->bmRequestType, s->bRequest);
	return USB_STALL;
}

int hci_control(struct usb_device *dev, const struct usb_setup *setup, void *data, uint32_t *actual)
{
	struct fake_dev *fd = dev->hcpriv;
	uint32_t moved = 0;
	if (!fd || !dev->slot) {
		fake_log_add("BAD control transfer to an unaddressed device");
		return USB_ERROR;
	}
	if (setup->wLength && !data)
		fake_log_add("BAD control transfer of %u bytes without a buffer", setup->wLength);
	fake_check_dma("control", data, setup->wLength);
	if (fake_hung(fd))
		return USB_TIMEOUT;
	int rc;
	if ((setup->bmRequestType & 0x60) == 0)
		rc = fake_std_control(fd, setup, data, &moved);
	else if (fd->kind == FAKE_HUB)
		rc = fake_hub_control(fd, setup, data, &moved);
	else
		rc = fake_disk_control(fd, setup, data, &moved);
	if (actual)
		*actual = moved;
	return rc;
}

int hci_hub_configure(struct usb_device *dev, unsigned nports, bool multi_tt, unsigned tt_think_time)
{
	struct fake_dev *fd = dev->hcpriv;
	fake_log_add("hc HUB s%u ports %u mtt %u ttt %u", dev->slot, nports, multi_tt, tt_think_time);
	if (fd->kind != FAKE_HUB || nports != fd->hub->nports || tt_think_time != fd->hub->tt_think)
		fake_log_add("BAD hub configuration of %s", fd->name);
	fd->hub->configured_in_hc = true;
	return USB_OK;
}

int hci_configure(struct usb_device *dev, const struct usb_endpoint *eps, unsigned n)
{
	struct fake_dev *fd = dev->hcpriv;
	char line[128];
	int len = snprintf(line, sizeof(line), "hc CONFIGURE s%u", dev->slot);
	if (!fd->config)
		fake_log_add("BAD endpoints configured before SET_CONFIGURATION");
	for (unsigned i = 0; i < n; i++) {
		len += snprintf(line + len, sizeof(line) - len, " 0x%02x/%u/%u", eps[i].address, eps[i].max_packet,
				eps[i].max_burst);
		fd->ep_configured[eps[i].address & 15][eps[i].address >> 7] = true;
	}
	fake_log_add("%s", line);
	return USB_OK;
}

int hci_bulk(struct usb_device *dev, uint8_t ep, void *buf, uint32_t len, uint32_t *actual, uint32_t timeout_ms)
{
	struct fake_dev *fd = dev->hcpriv;
	unsigned n = ep & 15, in = ep >> 7;
	*actual = 0;
	fake_check_dma("bulk", buf, len);
	if (fake_bulk_count < FAKE_BULK_TIMEOUTS)
		fake_bulk_timeout_ms[fake_bulk_count] = timeout_ms;
	fake_bulk_count++;
	if (fake_hung(fd))
		return USB_TIMEOUT;
	if (!fd->ep_configured[n][in]) {
		fake_log_add("BAD bulk on endpoint 0x%02x that was not configured", ep);
		return USB_ERROR;
	}
	if (fd->ep_host_halted[n][in]) {
		fake_log_add("BAD bulk on endpoint 0x%02x halted in the controller", ep);
		return USB_ERROR;
	}
	if (fd->ep_host_resets[n][in] != fd->ep_dev_resets[n][in]) {
		fake_log_add("BAD data toggle of endpoint 0x%02x reset on one side only", ep);
		return USB_ERROR;
	}
	int rc = fake_disk_bulk(fd, ep, buf, len, actual);
	if (fake_bulk_overreport && --fake_bulk_overreport == 0)
		*actual = len + 1;
	if (rc == USB_STALL) {
		fd->ep_host_halted[n][in] = true;
		fd->ep_dev_halted[n][in] = true;
	}
	return rc;
}

int hci_clear_halt(struct usb_device *dev, uint8_t ep)
{
	struct fake_dev *fd = dev->hcpriv;
	unsigned n = ep & 15, in = ep >> 7;
	fake_log_add("hc CLEAR_HALT s%u 0x%02x", dev->slot, ep);
	fd->ep_host_halted[n][in] = false;
	fd->ep_host_resets[n][in]++;
	return USB_OK;
}
