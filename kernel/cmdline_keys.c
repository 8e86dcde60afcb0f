/*
 * cmdline_keys.c - every command-line key the kernel accepts.
 *
 * One row per key: its type, where it lands in struct kconfig, its range or
 * names, and a help line (README.md's table is kept to match).  Defaults are
 * in config_defaults() below.
 */
#include "kernel/cmdline.h"

#include "kernel/libk.h"

#include <stddef.h>

static const char *const scenario_names[SCENARIO_COUNT + 1] = {
	[SCENARIO_BOOT] = "boot",
};

static const char *const selftest_names[SELFTEST_COUNT + 1] = {
	[SELFTEST_NONE] = "none",
	[SELFTEST_FAULT] = "fault",
	[SELFTEST_UD] = "ud",
	[SELFTEST_PANIC] = "panic",
	[SELFTEST_STACK] = "stack",
};

const struct cmdline_key cmdline_keys[] = {
	{ .name = "scenario", .type = CMDLINE_ENUM, .offset = offsetof(struct kconfig, scenario),
	  .names = scenario_names, .help = "workload to run" },
	{ .name = "cpus", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, cpus),
	  .min = 1, .max = KPROF_MAX_CPUS, .special = "all", .help = "how many CPUs to start" },
	{ .name = "selftest", .type = CMDLINE_ENUM, .offset = offsetof(struct kconfig, selftest),
	  .names = selftest_names, .help = "deliberate failure to check the fault path" },
};

const size_t cmdline_key_count = ARRAY_SIZE(cmdline_keys);

void config_defaults(struct kconfig *cfg)
{
	*cfg = (struct kconfig){
		.scenario = SCENARIO_BOOT,
		.cpus = 0, /* all */
		.selftest = SELFTEST_NONE,
	};
}
