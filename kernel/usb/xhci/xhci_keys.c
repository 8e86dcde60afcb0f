/*
 * xhci_keys.c - usb.dma32= and usb.dmalog= (xhci_keys.h), order 61
 * among every subsystem's tables (docs/cmdline.md).  Both are for testing
 * the 32-bit DMA path on controllers that can reach all memory.
 */
#include "kernel/usb/xhci/xhci_keys.h"

#include "kernel/lib/cmdline_key.h"
#include "kernel/lib/libk.h"

#include <stddef.h>

static struct xhci_config parsed_config;
const struct xhci_config *const xhci_config = &parsed_config;

static const struct xhci_config defaults = { .dma32 = 0, .dmalog = 0 };

static const char *const off_on_names[] = { "off", "on", NULL };

static const struct cmdline_key keys[] = {
	{ .name = "usb.dma32", .type = CMDLINE_ENUM, .offset = offsetof(struct xhci_config, dma32),
	  .names = off_on_names, .used_by = "runs that open an xHCI controller",
	  .help = "treat every xHCI controller as able to reach only the first 4 GiB (HCCPARAMS1.AC64 not trusted, "
		  "as for the controllers in docs/xhci.md's quirk table)" },
	{ .name = "usb.dmalog", .type = CMDLINE_ENUM, .offset = offsetof(struct xhci_config, dmalog),
	  .names = off_on_names, .used_by = "runs that open an xHCI controller",
	  .help = "print every memory region given to an xHCI controller (rings, contexts, scratchpads, transfer "
		  "buffers), one line each: \"xhci: DMA pages|buffer 0x<first>-0x<last>\"" },
};

CMDLINE_TABLE(xhci_keys_table, .keys = keys, .count = ARRAY_SIZE(keys), .config = &parsed_config,
	      .defaults = &defaults, .size = sizeof(parsed_config), .owner = "usb", .order = 61);
