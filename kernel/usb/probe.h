/*
 * probe.h - usb.probe=on: list every USB device the xHCI driver reaches
 * (kernel/usb/probe.c).
 */
#ifndef KPROF_KERNEL_USB_PROBE_H
#define KPROF_KERNEL_USB_PROBE_H

/* Open every xHCI controller on PCI, reset each root port, address what
 * is there (through hubs), and print one line per device; a mass-storage
 * device also answers a SCSI INQUIRY over Bulk-Only Transport.  Returns
 * the number of devices found.  Run by the boot CPU before the scenario. */
unsigned usb_probe_run(void);

#endif /* KPROF_KERNEL_USB_PROBE_H */
