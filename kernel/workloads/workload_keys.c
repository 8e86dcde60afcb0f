/*
 * workload_keys.c - the workloads' command-line keys (workload_keys.h).
 *
 * One table per workload, each at its place among every subsystem's
 * tables (docs/cmdline.md): scenario= 10, selftest= 30,
 * tracetest 70, sched 80, locks 110, resources 120, profile 150, mix 160.
 */
#include "kernel/workloads/workload_keys.h"

#include "include/kprof/scenario.h"
#include "kernel/lib/cmdline_key.h"
#include "kernel/lib/libk.h"
#include "kernel/workloads/api/descriptor.h"
#include "kernel/workloads/selftest.h"

#include <stddef.h>

#define RUN_MIN_MS 100    /* the shortest workload run */
#define RUN_MAX_MS 600000 /* the longest: ten minutes  */

static struct workload_config parsed_config;
const struct workload_config *const workload_config = &parsed_config;

static const struct workload_config defaults = {
	.scenario = SCENARIO_BOOT,
	.selftest = SELFTEST_NONE,
	.tracetest_records = 20000,
	.sched_ms = 1500,
	.locks_ms = 2000,
	.locks_hold_ns = 500,
	.locks_think_ns = 2000,
	.resources_ms = 2000,
	.profile_ms = 2000,
	.mix_ms = 1000,
};

static const char *const selftest_names[SELFTEST_COUNT + 1] = {
	[SELFTEST_NONE] = "none",
	[SELFTEST_FAULT] = "fault",
	[SELFTEST_UD] = "ud",
	[SELFTEST_PANIC] = "panic",
	[SELFTEST_STACK] = "stack",
	[SELFTEST_IRQL] = "irql",
	[SELFTEST_CHECK] = "check",
};

#define FIELD(f) .offset = offsetof(struct workload_config, f)
#define EVERY_RUN "every run"
#define RUN_MS(f) .type = CMDLINE_UINT, FIELD(f), .min = RUN_MIN_MS, .max = RUN_MAX_MS

static const struct cmdline_key scenario_keys[] = {
	{ .name = "scenario", .type = CMDLINE_ENUM, FIELD(scenario), .names_of = workload_names, .used_by = EVERY_RUN,
	  .help = "workload to run (every registered one: docs/workloads.md)" },
};

static const struct cmdline_key selftest_keys[] = {
	{ .name = "selftest", .type = CMDLINE_ENUM, FIELD(selftest), .names = selftest_names, .used_by = EVERY_RUN,
	  .help = "deliberate failure before the scenario, to check the fault path" },
};

static const struct cmdline_key tracetest_keys[] = {
	{ .name = "tracetest.records", .type = CMDLINE_UINT, FIELD(tracetest_records), .min = 1, .max = 10000000,
	  .used_by = "scenario=tracetest", .help = "thread-context records each CPU writes" },
};

static const struct cmdline_key sched_keys[] = {
	{ .name = "sched.ms", RUN_MS(sched_ms), .used_by = "scenario=sched", .help = "how long the thread mix runs, ms" },
};

static const struct cmdline_key locks_keys[] = {
	{ .name = "locks.ms", RUN_MS(locks_ms), .used_by = "scenario=locks",
	  .help = "how long the lock workload runs, ms" },
	{ .name = "locks.hold_ns", .type = CMDLINE_UINT, FIELD(locks_hold_ns), .min = 0, .max = 1000000,
	  .used_by = "scenario=locks, mix", .help = "how long a lock is held, ns" },
	{ .name = "locks.think_ns", .type = CMDLINE_UINT, FIELD(locks_think_ns), .min = 0, .max = 1000000,
	  .used_by = "scenario=locks, mix", .help = "time between acquisitions, ns" },
};

static const struct cmdline_key resources_keys[] = {
	{ .name = "resources.ms", RUN_MS(resources_ms), .used_by = "scenario=resources",
	  .help = "how long the ERESOURCE workload runs, ms" },
};

static const struct cmdline_key profile_keys[] = {
	{ .name = "profile.ms", RUN_MS(profile_ms), .used_by = "scenario=profile",
	  .help = "how long the profile workload runs, ms (up to 4x until 12000 samples)" },
};

static const struct cmdline_key mix_keys[] = {
	{ .name = "mix.ms", RUN_MS(mix_ms), .used_by = "scenario=mix", .help = "how long each workload of the mix runs, ms" },
};

#define WORKLOAD_TABLE(rows, name, place)                                                                     \
	.keys = rows, .count = ARRAY_SIZE(rows), .config = &parsed_config, .defaults = &defaults,              \
	.size = sizeof(parsed_config), .owner = name, .order = place

CMDLINE_TABLE(scenario_table, WORKLOAD_TABLE(scenario_keys, "scenario", 10));
CMDLINE_TABLE(selftest_table, WORKLOAD_TABLE(selftest_keys, "selftest", 30));
CMDLINE_TABLE(tracetest_table, WORKLOAD_TABLE(tracetest_keys, "tracetest", 70));
CMDLINE_TABLE(sched_table, WORKLOAD_TABLE(sched_keys, "sched", 80));
CMDLINE_TABLE(locks_table, WORKLOAD_TABLE(locks_keys, "locks", 110));
CMDLINE_TABLE(resources_table, WORKLOAD_TABLE(resources_keys, "resources", 120));
CMDLINE_TABLE(profile_table, WORKLOAD_TABLE(profile_keys, "profile", 150));
CMDLINE_TABLE(mix_table, WORKLOAD_TABLE(mix_keys, "mix", 160));
