/*
 * handoff.c - usb_handoff_all(): the PCI walk that takes every USB host
 * controller from the firmware at boot (handoff.h), and its console
 * lines, one per controller:
 *   usb: 0000:00:1d.0 EHCI 8086:1e26: taken from the firmware (legacy SMIs off; halted)
 *   usb: ... xHCI ...: firmware did not let go within 1000 ms: taken anyway (legacy SMIs off)
 *   usb: ... UHCI ...: left to the firmware (no hand-off for UHCI: its legacy SMIs may still run)
 * Boot CPU, once, before the trace.
 */
#include "kernel/usb/handoff/handoff.h"

#include "kernel/console/console.h"
#include "kernel/lib/printf.h"

#define CLASS_SERIAL_BUS 0x0C
#define SUBCLASS_USB     0x03

struct walk {
	unsigned seen;
};

static const char *kind_name(uint8_t prog_if)
{
	switch (prog_if) {
	case 0x00: return "UHCI";
	case 0x10: return "OHCI";
	case 0x20: return "EHCI";
	case 0x30: return "xHCI";
	default: return NULL;
	}
}

static void say(const struct pci_func *f, const char *kind, int rc, enum usb_handoff how, const char *note)
{
	char state[112];

	if (rc == USB_NODEV)
		ksnprintf(state, sizeof(state), "BAR0 is not an assigned memory BAR: left alone");
	else if (rc)
		ksnprintf(state, sizeof(state), "registers could not be mapped: left to the firmware");
	else if (how == USB_HANDOFF_NO_CAPABILITY)
		ksnprintf(state, sizeof(state), "no legacy support capability (nothing to take)%s", note);
	else if (how == USB_HANDOFF_OS_OWNED)
		ksnprintf(state, sizeof(state), "not the firmware's (legacy SMIs off%s)", note);
	else if (how == USB_HANDOFF_TAKEN)
		ksnprintf(state, sizeof(state), "taken from the firmware (legacy SMIs off%s)", note);
	else
		ksnprintf(state, sizeof(state), "firmware did not let go within %u ms: taken anyway (legacy SMIs off%s)",
			  HCI_HANDOFF_MS, note);
	kprintf("usb: %04x:%02x:%02x.%x %s %04x:%04x: %s\n", f->addr.segment, f->addr.bus, f->addr.dev, f->addr.fn,
		kind, f->vendor, f->device, state);
}

static bool visit(const struct pci_func *f, void *ctx)
{
	struct walk *w = ctx;
	const char *kind;
	enum usb_handoff how = USB_HANDOFF_NO_CAPABILITY;
	bool halted = true;
	char note[32];
	int rc;

	if (f->class_code != CLASS_SERIAL_BUS || f->subclass != SUBCLASS_USB || !(kind = kind_name(f->prog_if)))
		return false;
	w->seen++;
	switch (f->prog_if) {
	case 0x30:
		rc = hci_take_from_firmware(f->addr.segment, f->addr.bus, f->addr.dev, f->addr.fn, &how);
		say(f, kind, rc, how, "");
		break;
	case 0x20:
		rc = ehci_take_from_firmware(f, &how, &halted);
		ksnprintf(note, sizeof(note), halted ? "; halted" : "; did not halt within %u ms", EHCI_HALT_MS);
		say(f, kind, rc, how, note);
		break;
	default:
		kprintf("usb: %04x:%02x:%02x.%x %s %04x:%04x: left to the firmware (no hand-off for %s: its legacy "
			"SMIs may still run)\n", f->addr.segment, f->addr.bus, f->addr.dev, f->addr.fn, kind, f->vendor,
			f->device, kind);
		break;
	}
	return false;
}

unsigned usb_handoff_all(void)
{
	struct walk w = { 0 };

	if (pci_access_method() == PCI_ACCESS_NONE && pci_init() == PCI_ACCESS_NONE) {
		kprintf("usb: no PCI configuration access: USB controllers left to the firmware\n");
		return 0;
	}
	pci_enumerate(visit, &w);
	if (!w.seen)
		kprintf("usb: no USB host controller on PCI\n");
	return w.seen;
}
