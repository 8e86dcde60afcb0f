/*
 * resource_keys.c - resource.timeout_ms= (resource_keys.h), order 130
 * among every subsystem's tables (docs/cmdline.md).
 */
#include "kernel/ex/resource_keys.h"

#include "kernel/lib/cmdline_key.h"
#include "kernel/lib/libk.h"

#include <stddef.h>

#define TIMEOUT_MAX_MS 600000 /* ten minutes, the longest workload run */

static struct resource_config parsed_config;
const struct resource_config *const resource_config = &parsed_config;

static const struct resource_config defaults = { .timeout_ms = 4000 };

static const struct cmdline_key keys[] = {
	{ .name = "resource.timeout_ms", .type = CMDLINE_UINT, .offset = offsetof(struct resource_config, timeout_ms),
	  .min = 1, .max = TIMEOUT_MAX_MS, .used_by = "every run (scenario=mix uses mix.ms/10)",
	  .help = "ERESOURCE waits: after this long an excessive wait is recorded, ms" },
};

CMDLINE_TABLE(resource_table, .keys = keys, .count = ARRAY_SIZE(keys), .config = &parsed_config,
	      .defaults = &defaults, .size = sizeof(parsed_config), .owner = "ex", .order = 130);
