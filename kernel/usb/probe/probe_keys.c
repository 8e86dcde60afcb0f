/*
 * probe_keys.c - usb.probe= (probe_keys.h), order 60 among every
 * subsystem's tables (docs/cmdline.md).
 */
#include "kernel/usb/probe/probe_keys.h"

#include "kernel/lib/cmdline_key.h"
#include "kernel/lib/libk.h"

#include <stddef.h>

static struct usb_probe_config parsed_config;
const struct usb_probe_config *const usb_probe_config = &parsed_config;

static const struct usb_probe_config defaults = { .probe = 0 };

static const char *const off_on_names[] = { "off", "on", NULL };

static const struct cmdline_key keys[] = {
	{ .name = "usb.probe", .type = CMDLINE_ENUM, .offset = offsetof(struct usb_probe_config, probe),
	  .names = off_on_names, .used_by = "every run",
	  .help = "before the scenario, take every xHCI controller and list each USB device on its root ports and "
		  "hubs (port, speed, device descriptor; INQUIRY for mass storage)" },
};

CMDLINE_TABLE(usb_probe_table, .keys = keys, .count = ARRAY_SIZE(keys), .config = &parsed_config,
	      .defaults = &defaults, .size = sizeof(parsed_config), .owner = "usb", .order = 60);
