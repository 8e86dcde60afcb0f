/*
 * probe.h - usb.probe=on: list every USB device the xHCI driver reaches
 * (kernel/usb/probe/probe.c).
 */
#ifndef KPROF_KERNEL_USB_PROBE_H
#define KPROF_KERNEL_USB_PROBE_H

#include <stdint.h>

/* Open every xHCI controller on PCI, reset each root port, address what
 * is there (through hubs), and print one line per device; a mass-storage
 * device also answers a SCSI INQUIRY over Bulk-Only Transport.  Returns
 * the number of devices found.  Run by the boot CPU before the scenario. */
unsigned usb_probe_run(void);

struct usb_device;

/* probe_storage.c: a configured Bulk-Only mass-storage device: INQUIRY,
 * READ CAPACITY, and reads in long chained transfers checked against a
 * single-block read.  scratch: 2 KiB of physically contiguous memory;
 * label names the device in messages. */
void usb_probe_storage(struct usb_device *d, uint8_t in_ep, uint8_t out_ep, uint16_t mps, uint8_t *scratch,
		       const char *label);

#endif /* KPROF_KERNEL_USB_PROBE_H */
