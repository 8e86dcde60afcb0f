/*
 * stick_keys.c - usb.stick_port= (stick_keys.h), order 65 among every
 * subsystem's tables (docs/cmdline.md), after usb.probe=.
 */
#include "kernel/usb/storage/stick_keys.h"

#include "kernel/lib/cmdline_key.h"
#include "kernel/lib/libk.h"

#include <stddef.h>

static struct usb_stick_config parsed_config;
const struct usb_stick_config *const usb_stick_config = &parsed_config;

static const struct usb_stick_config defaults = { .port = 0 };

static const struct cmdline_key keys[] = {
	{ .name = "usb.stick_port", .type = CMDLINE_UINT, .offset = offsetof(struct usb_stick_config, port),
	  .min = 0, .max = 255, .used_by = "every run",
	  .help = "the root port the trace looks for the boot stick on, instead of the one the loader read from the "
		  "firmware's device path (0: the loader's); where the stick is not, the kernel finds it by its disk's "
		  "identity on every xHCI controller, port and hub, and says so" },
};

CMDLINE_TABLE(usb_stick_table, .keys = keys, .count = ARRAY_SIZE(keys), .config = &parsed_config,
	      .defaults = &defaults, .size = sizeof(parsed_config), .owner = "usb", .order = 65);
