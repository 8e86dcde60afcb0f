/*
 * xhci_keys.h - the xHCI driver's debug keys (xhci_keys.c): usb.dma32=
 * and usb.dmalog=; read-only after config_parse() through the const view
 * xhci_config.
 */
#ifndef KPROF_KERNEL_USB_XHCI_KEYS_H
#define KPROF_KERNEL_USB_XHCI_KEYS_H

#include <stdint.h>

struct xhci_config {
	uint32_t dma32;  /* usb.dma32=on: every controller as if AC64 were 0 */
	uint32_t dmalog; /* usb.dmalog=on: print every DMA region (xhci_mem.c) */
};

extern const struct xhci_config *const xhci_config;

#endif /* KPROF_KERNEL_USB_XHCI_KEYS_H */
