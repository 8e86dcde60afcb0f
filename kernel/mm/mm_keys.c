/*
 * mm_keys.c - mm.high_first= (mm_keys.h), order 62 among every
 * subsystem's tables (docs/cmdline.md).  For testing: with it, whatever a
 * device must find below 4 GiB and was not asked for there lands above.
 */
#include "kernel/mm/mm_keys.h"

#include "kernel/lib/cmdline_key.h"
#include "kernel/lib/libk.h"

#include <stddef.h>

static struct mm_config parsed_config;
const struct mm_config *const mm_config = &parsed_config;

static const struct mm_config defaults = { .high_first = 0 };

static const char *const off_on_names[] = { "off", "on", NULL };

static const struct cmdline_key keys[] = {
	{ .name = "mm.high_first", .type = CMDLINE_ENUM, .offset = offsetof(struct mm_config, high_first),
	  .names = off_on_names, .used_by = "every run",
	  .help = "the page allocator gives memory above 4 GiB first, to anything that does not ask for memory below "
		  "it (a test of the USB stack's 32-bit DMA; off: lowest free memory first)" },
};

CMDLINE_TABLE(mm_keys_table, .keys = keys, .count = ARRAY_SIZE(keys), .config = &parsed_config,
	      .defaults = &defaults, .size = sizeof(parsed_config), .owner = "mm", .order = 62);
