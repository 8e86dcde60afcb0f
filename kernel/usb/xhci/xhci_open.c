/*
 * xhci_open.c - hci_open(): find the xHCI function on PCI, map BAR0, and
 * bring the controller up in this order: Intel port routing, firmware
 * hand-off, halt, reset, start (xhci_start.c), Supported Protocols, port
 * power.  EDK2 leaves a halted, reset controller at ExitBootServices;
 * direct boot (PVH) leaves whatever QEMU made; both go the same way.
 *
 * A controller opened twice returns the same handle (a small table of
 * opened controllers, never freed).  hci_controller_reset() takes an
 * opened one through halt, reset and start again (the stick's recovery);
 * hci_find() lists the xHCI functions on PCI, for the stick's search by
 * identity (stick_scan.c).  Called by the one thread that drives
 * USB (hci.h).
 */
#include "kernel/usb/xhci/xhci.h"
#include "kernel/usb/xhci/xhci_keys.h"

#include <arch/mmu.h>

#include "kernel/lib/libk.h"
#include "kernel/console/console.h"
#include "kernel/lib/printf.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/kva.h"

#define XHCI_MAX_CONTROLLERS 8

static struct usb_hci *opened[XHCI_MAX_CONTROLLERS];

static struct usb_hci *find_open(struct pci_addr a)
{
	for (unsigned i = 0; i < XHCI_MAX_CONTROLLERS; i++)
		if (opened[i] && opened[i]->pci.segment == a.segment && opened[i]->pci.bus == a.bus &&
		    opened[i]->pci.dev == a.dev && opened[i]->pci.fn == a.fn)
			return opened[i];
	return NULL;
}

static int map_registers(struct usb_hci *hc, const char *where)
{
	struct pci_bar bar;

	if (pci_bar_read(hc->pci, 0, &bar) || bar.io || !bar.size || !bar.base) {
		kprintf("xhci: %s: BAR0 is not an assigned memory BAR\n", where);
		return USB_ERROR;
	}
	pci_enable(hc->pci, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	hc->cap = kva_map_phys(bar.base, bar.size, MAP_UNCACHED | MAP_WRITE);
	if (!hc->cap)
		return USB_NOMEM;
	hc->op = hc->cap + (xhci_read32(hc->cap + XHCI_CAPLENGTH) & 0xFF);
	hc->version = (uint16_t)(xhci_read32(hc->cap + XHCI_CAPLENGTH) >> 16);
	hc->hcsparams1 = xhci_read32(hc->cap + XHCI_HCSPARAMS1);
	hc->hcsparams2 = xhci_read32(hc->cap + XHCI_HCSPARAMS2);
	hc->hccparams1 = xhci_read32(hc->cap + XHCI_HCCPARAMS1);
	hc->rt = hc->cap + (xhci_read32(hc->cap + XHCI_RTSOFF) & ~0x1Fu);
	hc->db = (volatile uint32_t *)(hc->cap + (xhci_read32(hc->cap + XHCI_DBOFF) & ~0x3u));
	hc->csz = (hc->hccparams1 & HCCPARAMS1_CSZ) ? 64 : 32;
	hc->max_slots = MIN(HCSPARAMS1_MAX_SLOTS(hc->hcsparams1), (unsigned)XHCI_MAX_SLOTS);
	hc->max_ports = MIN(HCSPARAMS1_MAX_PORTS(hc->hcsparams1), (unsigned)XHCI_MAX_PORTS);
	const char *chip;
	hc->quirks = xhci_quirks_lookup(hc->vendor, hc->device, &chip) | (xhci_config->dma32 ? XHCI_QUIRK_FORCED_32 : 0);
	hc->dma_limit = xhci_quirks_dma_limit(hc->hccparams1, hc->quirks);
	hc->dma_log = xhci_config->dmalog != 0;
	kprintf("xhci: %s: %04x:%04x, xHCI %x.%02x, BAR0 0x%llx (%llu KiB), %u slots, %u ports, %u-byte contexts, "
		"%u scratchpad pages%s\n", where, hc->vendor, hc->device, hc->version >> 8, hc->version & 0xFF,
		(unsigned long long)bar.base, (unsigned long long)(bar.size >> 10), hc->max_slots, hc->max_ports,
		hc->csz, HCSPARAMS2_MAX_SCRATCHPAD(hc->hcsparams2),
		hc->dma_limit > XHCI_DMA_LIMIT_32 ? ", 64-bit addressing" : "");
	if ((hc->hccparams1 & HCCPARAMS1_AC64) && hc->dma_limit == XHCI_DMA_LIMIT_32)
		kprintf("xhci: %s: AC64 not trusted (%s): DMA kept below 4 GiB\n", where,
			chip ? chip : "usb.dma32=on");
	if (xhci_td_size_096(hc->version))
		kprintf("xhci: %s: xHCI 0.96 or older: TD Size in 1 KiB units\n", where);
	return USB_OK;
}

bool hci_find(unsigned index, uint16_t *segment, uint8_t *bus, uint8_t *dev, uint8_t *fn)
{
	struct pci_func f;

	if (pci_access_method() == PCI_ACCESS_NONE && pci_init() == PCI_ACCESS_NONE)
		return false;
	if (!pci_find_class(0x0C, 0x03, 0x30, index, &f))
		return false;
	*segment = f.addr.segment;
	*bus = f.addr.bus;
	*dev = f.addr.dev;
	*fn = f.addr.fn;
	return true;
}

int hci_open(uint16_t segment, uint8_t bus, uint8_t dev, uint8_t fn, struct usb_hci **out)
{
	struct pci_addr a = { .segment = segment, .bus = bus, .dev = dev, .fn = fn };
	struct pci_func f;
	struct usb_hci *hc;
	char where[24];
	int rc;

	*out = NULL;
	if ((hc = find_open(a))) {
		*out = hc;
		return USB_OK;
	}
	ksnprintf(where, sizeof(where), "%04x:%02x:%02x.%x", segment, bus, dev, fn);
	if (pci_access_method() == PCI_ACCESS_NONE && pci_init() == PCI_ACCESS_NONE) {
		kprintf("xhci: %s: no PCI configuration access (no MCFG, no legacy mechanism)\n", where);
		return USB_NODEV;
	}
	if (!pci_find_location(a, &f)) {
		kprintf("xhci: %s: no PCI function there\n", where);
		return USB_NODEV;
	}
	if (f.class_code != 0x0C || f.subclass != 0x03 || f.prog_if != 0x30) {
		kprintf("xhci: %s: class %02x:%02x:%02x is not an xHCI controller\n", where, f.class_code, f.subclass,
			f.prog_if);
		return USB_NODEV;
	}
	hc = kzalloc(sizeof(*hc));
	if (!hc)
		return USB_NOMEM;
	hc->pci = a;
	hc->vendor = f.vendor;
	hc->device = f.device;
	if ((rc = map_registers(hc, where)))
		goto fail;
	xhci_intel_route_ports(hc);
	xhci_bios_handoff(hc); /* a firmware that never lets go was overridden (message printed) */
	if ((rc = xhci_halt(hc)) || (rc = xhci_reset(hc)) || (rc = xhci_start(hc)))
		goto fail;
	xhci_read_protocols(hc);
	xhci_power_ports(hc);
	for (unsigned i = 0; i < XHCI_MAX_CONTROLLERS; i++) {
		if (!opened[i]) {
			opened[i] = hc;
			break;
		}
	}
	*out = hc;
	return USB_OK;
fail:
	kprintf("xhci: %s: not usable (%s)\n", where, usb_status_name(rc));
	kfree(hc);
	return rc;
}

int hci_controller_reset(struct usb_hci *hc)
{
	int rc;

	kprintf("xhci: %04x:%02x:%02x.%x: resetting the controller\n", hc->pci.segment, hc->pci.bus, hc->pci.dev,
		hc->pci.fn);
	hc->running = false;
	if ((rc = xhci_halt(hc)) || (rc = xhci_reset(hc)))
		return rc;
	memset(hc->slot, 0, sizeof(hc->slot)); /* the reset forgot every slot */
	if ((rc = xhci_start(hc)))
		return rc;
	xhci_power_ports(hc);
	return USB_OK;
}
