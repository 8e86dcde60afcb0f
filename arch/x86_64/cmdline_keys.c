/*
 * cmdline_keys.c - the x86-64 command-line keys (see <arch/cmdline.h>).
 *
 * Same row format and registration as the kernel's tables
 * (kernel/lib/cmdline_key.h); the generic parser checks type and range,
 * and what only probing can tell (is there an HPET?) is checked where the
 * platform is probed (time_x86.c), which refuses the value the same way.
 */
#include <arch/cmdline.h>

#include <stddef.h>

#include "kernel/lib/cmdline_key.h"

static struct arch_config parsed_config;
const struct arch_config *const arch_config = &parsed_config;

static const struct arch_config defaults = { .tsc_source = TSC_SOURCE_AUTO };

const char *const x86_tsc_source_names[TSC_SOURCE_COUNT + 1] = {
	[TSC_SOURCE_AUTO] = "auto",
	[TSC_SOURCE_CPUID] = "cpuid",
	[TSC_SOURCE_HPET] = "hpet",
	[TSC_SOURCE_PMTIMER] = "pmtimer",
};

static const struct cmdline_key keys[] = {
	{ .name = "tsc_source", .type = CMDLINE_ENUM, .offset = offsetof(struct arch_config, tsc_source),
	  .names = x86_tsc_source_names, .used_by = "every run (x86-64)",
	  .help = "where the TSC rate comes from: auto is CPUID when it states the rate, else measured against the "
		  "HPET, else the ACPI PM timer",
	  .probe = "refused (exit CONFIG) when this machine lacks the source: cpuid needs CPUID leaf 0x15 or 0x16 to "
		   "state the rate, hpet a counting HPET, pmtimer an ACPI PM timer" },
};

/* After every kernel table (theirs are below 1000). */
CMDLINE_TABLE(arch_table, .keys = keys, .count = sizeof(keys) / sizeof(keys[0]), .config = &parsed_config,
	      .defaults = &defaults, .size = sizeof(parsed_config), .owner = "arch", .order = 1000);
