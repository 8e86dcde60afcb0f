/*
 * stick_keys.c - usb.stick_port=, usb.data_timeout_ms= and
 * usb.csw_timeout_ms= (stick_keys.h), order 65 among every subsystem's
 * tables (docs/cmdline.md), after usb.probe=.
 *
 * The time-outs' defaults are the Bulk-Only transport's own (bot.h):
 * cheap sticks stall for seconds while they collect garbage, and a flush
 * may hold a command's status back.  A boot test sets them low to see a
 * time-out, and the recovery after it, in seconds (docs/usb-stick.md).
 */
#include "kernel/usb/storage/stick_keys.h"

#include "kernel/lib/cmdline_key.h"
#include "kernel/lib/libk.h"
#include "kernel/usb/storage/bot.h"

#include <stddef.h>

#define STICK_DEFAULTS { .port = 0, .data_timeout_ms = BOT_DATA_TIMEOUT_MS, .csw_timeout_ms = BOT_CSW_TIMEOUT_MS }

/* The defaults until config_parse() copies them in again (a unit test of
 * the USB stack parses no command line). */
static struct usb_stick_config parsed_config = STICK_DEFAULTS;
const struct usb_stick_config *const usb_stick_config = &parsed_config;

static const struct usb_stick_config defaults = STICK_DEFAULTS;

static const struct cmdline_key keys[] = {
	{ .name = "usb.stick_port", .type = CMDLINE_UINT, .offset = offsetof(struct usb_stick_config, port),
	  .min = 0, .max = 255, .used_by = "every run",
	  .help = "the root port the trace looks for the boot stick on, instead of the one the loader read from the "
		  "firmware's device path (0: the loader's); where the stick is not, the kernel finds it by its disk's "
		  "identity on every xHCI controller, port and hub, and says so" },
	{ .name = "usb.data_timeout_ms", .type = CMDLINE_UINT,
	  .offset = offsetof(struct usb_stick_config, data_timeout_ms), .min = 100, .max = 600000,
	  .used_by = "runs that write the trace to a USB stick",
	  .help = "how long the stick may take to move one command's data (a write of up to 120 KiB) before the "
		  "command counts as failed and the recovery ladder starts, ms (cheap sticks stall for seconds while "
		  "they collect garbage)" },
	{ .name = "usb.csw_timeout_ms", .type = CMDLINE_UINT,
	  .offset = offsetof(struct usb_stick_config, csw_timeout_ms), .min = 100, .max = 600000,
	  .used_by = "runs that write the trace to a USB stick",
	  .help = "how long the stick may take to report a command's status (its CSW, which a stick writing to its "
		  "flash holds back) before the command counts as failed and the recovery ladder starts, ms" },
};

CMDLINE_TABLE(usb_stick_table, .keys = keys, .count = ARRAY_SIZE(keys), .config = &parsed_config,
	      .defaults = &defaults, .size = sizeof(parsed_config), .owner = "usb", .order = 65);
