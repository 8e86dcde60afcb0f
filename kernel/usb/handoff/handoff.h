/*
 * handoff.h - every USB host controller taken from the firmware at boot,
 * before the trace starts (docs/xhci.md, "Every controller at boot").
 *
 * The firmware's USB stack (keyboard emulation, its own driver) runs in
 * SMM on every controller it owns until an operating system asks for it;
 * each SMI takes the CPU from the profile unseen.  usb_handoff_all()
 * walks PCI and, for each USB controller: xHCI, the USB Legacy Support
 * hand-off (the xHCI driver's, through hci.h); EHCI, the same hand-off
 * through the EECP capability in PCI configuration space, its SMIs off
 * and the controller halted (ehci_handoff.c); UHCI and OHCI are reported
 * only.  One console line per controller.  Boot CPU, once, before the
 * trace; every wait bounded.
 *
 * Outside the USB stack's layers (it uses kernel/usb/hci.h alone).
 */
#ifndef KPROF_KERNEL_USB_HANDOFF_H
#define KPROF_KERNEL_USB_HANDOFF_H

#include <stdint.h>

#include "kernel/pci/pci.h"
#include "kernel/usb/hci.h"

#define EHCI_HALT_MS    20   /* USBSTS.HCHalted after Run/Stop = 0 (spec: 16 microframes) */

/* Walk PCI; returns the USB controllers seen (all kinds). */
unsigned usb_handoff_all(void);

/* The EHCI controller f: hand-off, SMIs off, halted.  *halted false if
 * it did not halt in EHCI_HALT_MS.  USB_NODEV if BAR0 is not an assigned
 * memory BAR (nothing touched). */
int ehci_take_from_firmware(const struct pci_func *f, enum usb_handoff *how, bool *halted);

/* handoff_hw.c: the controller's registers and time (host tests put a
 * model in its place). */
uint32_t handoff_read32(const volatile void *reg);
void handoff_write32(volatile void *reg, uint32_t v);
uint64_t handoff_time_us(void);
void handoff_delay_us(uint64_t us);

#endif /* KPROF_KERNEL_USB_HANDOFF_H */
