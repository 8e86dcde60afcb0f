/*
 * xhci_takeover.c - hci_take_from_firmware(): the USB Legacy Support
 * hand-off (xhci_reset.c) of any xHCI controller, done at boot for every
 * controller on PCI (kernel/usb/handoff/), not only the stick's, so that
 * the firmware's USB stack stops taking SMIs before the trace starts.
 *
 * Only BAR0's capability registers and the extended capability list are
 * touched: the controller keeps running (hci_open() halts and resets the
 * one it drives).  BAR0 stays mapped (the kernel's mappings are never
 * freed; one mapping per controller at boot).  Boot CPU, before the
 * trace; one thread (hci.h).
 */
#include "kernel/usb/xhci/xhci.h"

#include <arch/mmu.h>

#include "kernel/mm/kva.h"

int hci_take_from_firmware(uint16_t segment, uint8_t bus, uint8_t dev, uint8_t fn, enum usb_handoff *how)
{
	struct pci_addr a = { .segment = segment, .bus = bus, .dev = dev, .fn = fn };
	struct usb_hci hc = { .pci = a };
	struct pci_func f;
	struct pci_bar bar;

	if (!pci_find_location(a, &f) || f.class_code != 0x0C || f.subclass != 0x03 || f.prog_if != 0x30)
		return USB_NODEV;
	if (pci_bar_read(a, 0, &bar) || bar.io || !bar.size || !bar.base)
		return USB_NODEV;
	pci_enable(a, PCI_COMMAND_MEMORY);
	hc.cap = kva_map_phys(bar.base, bar.size, MAP_UNCACHED | MAP_WRITE);
	if (!hc.cap)
		return USB_NOMEM;
	hc.hccparams1 = xhci_read32(hc.cap + XHCI_HCCPARAMS1);
	*how = xhci_legacy_take(&hc);
	return USB_OK;
}
