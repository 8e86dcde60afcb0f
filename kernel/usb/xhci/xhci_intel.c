/*
 * xhci_intel.c - Intel chipset port routing.  On Intel PCHs with both an
 * EHCI and an xHCI controller (7 and 8 series, e.g. Panther Point, Lynx
 * Point) the shared ports start routed to EHCI and their SuperSpeed
 * terminations off; firmware switches them only if it wants to.  The
 * xHCI function's configuration registers USB3_PSSEN / XUSB2PR enable
 * SuperSpeed and route USB 2 to xHCI, for the ports their mask registers
 * USB3PRM / XUSB2PRM allow.  Called once from hci_open(), before the
 * controller is reset.
 */
#include "kernel/usb/xhci/xhci.h"

#include "kernel/console/console.h"
#include "kernel/lib/printf.h"

#define PCI_VENDOR_INTEL 0x8086

struct ehci_search {
	bool found;
};

static bool intel_ehci(const struct pci_func *f, void *ctx)
{
	struct ehci_search *s = ctx;

	/* Serial bus controller, USB, EHCI. */
	if (f->vendor == PCI_VENDOR_INTEL && f->class_code == 0x0C && f->subclass == 0x03 && f->prog_if == 0x20) {
		s->found = true;
		return true;
	}
	return false;
}

void xhci_intel_route_ports(struct usb_hci *hc)
{
	struct ehci_search s = { false };
	uint32_t ss, usb2;

	if (hc->vendor != PCI_VENDOR_INTEL)
		return;
	pci_enumerate(intel_ehci, &s);
	if (!s.found)
		return; /* no EHCI companion: every port is the xHCI's already */
	ss = pci_read32(hc->pci, INTEL_USB3PRM);
	pci_write32(hc->pci, INTEL_USB3_PSSEN, ss);
	usb2 = pci_read32(hc->pci, INTEL_XUSB2PRM);
	pci_write32(hc->pci, INTEL_XUSB2PR, usb2);
	kprintf("xhci: Intel port routing: SuperSpeed on ports 0x%x, USB 2 ports 0x%x switched from EHCI "
		"(now 0x%x, 0x%x)\n", ss, usb2, pci_read32(hc->pci, INTEL_USB3_PSSEN), pci_read32(hc->pci, INTEL_XUSB2PR));
}
