/*
 * profile_keys.c - profile.interval=, pmc.sources=, pmc.interval=
 * (profile_keys.h), order 140 among every subsystem's tables
 * (docs/cmdline.md).  Their ranges are the profile sources' own
 * (source.h); what only the counters can tell is checked when they are
 * applied (kernel/init/main.c) or started (profile_trace.c).
 */
#include "kernel/profile/profile_keys.h"

#include "include/kprof/wmi.h"
#include "kernel/lib/cmdline_key.h"
#include "kernel/lib/libk.h"
#include "kernel/profile/source.h"

#include <stddef.h>

static struct profile_config parsed_config;
const struct profile_config *const profile_config = &parsed_config;

static const struct profile_config defaults = {
	.interval = PROFILE_TIME_DEFAULT_INTERVAL, /* 1 ms */
	.pmc_sources = 1u << ProfileTotalCycles,
	.pmc_interval = PROFILE_PMC_DEFAULT_INTERVAL,
};

static const char *const pmc_source_names[] = { KPROFILE_SOURCE_SHORT_NAMES, NULL };

#define FIELD(f) .offset = offsetof(struct profile_config, f)

enum { KEY_INTERVAL }; /* the position in keys[] that finish() reads */

static const struct cmdline_key keys[] = {
	[KEY_INTERVAL] = { .name = "profile.interval", .type = CMDLINE_UINT, FIELD(interval), .min = PROFILE_TIME_MIN_INTERVAL,
	  .max = PROFILE_TIME_MAX_INTERVAL, .used_by = "trace=profile, scenario=profile, mix",
	  .help = "ProfileTime interval in 100 ns units (NtSetIntervalProfile); when not given, 1 ms or longer where "
		  "interrupts are slow (at most 1/10 of a CPU: kernel/profile/pace.h)" },
	{ .name = "pmc.sources", .type = CMDLINE_SET, FIELD(pmc_sources), .names = pmc_source_names,
	  .used_by = "trace=pmc", .help = "counter sources for trace=pmc (KPROFILE_SOURCE names)",
	  .probe = "a source this machine cannot count (or any, without a PMU) is reported and left out when "
		   "trace=pmc starts it (not refused)" },
	{ .name = "pmc.interval", .type = CMDLINE_UINT, FIELD(pmc_interval), .min = PROFILE_PMC_MIN_INTERVAL,
	  .max = UINT32_MAX, .used_by = "trace=pmc", .help = "events between PMC interrupts (NtSetIntervalProfile)",
	  .probe = "refused (exit CONFIG) above what the counter each source gets can take "
		   "(arch_pmu_max_interval: below half its range)" },
};

/* profile.interval: a default one may be lengthened on a machine whose
 * interrupts are slow (kernel/profile/pace.h), a given one is kept. */
static void finish(void *config, const bool *given)
{
	((struct profile_config *)config)->interval_given = given[KEY_INTERVAL];
}

CMDLINE_TABLE(profile_table, .keys = keys, .count = ARRAY_SIZE(keys), .config = &parsed_config,
	      .defaults = &defaults, .size = sizeof(parsed_config), .owner = "profile", .order = 140, .finish = finish);
