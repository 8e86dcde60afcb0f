/*
 * cmdline_keys.c - every command-line key the kernel accepts.
 *
 * One row per key: its type, where it lands in struct kconfig, its range or
 * names, and a help line (README.md's table is kept to match).  Defaults are
 * in config_defaults() below.
 */
#include "kernel/init/cmdline.h"

#include "include/kprof/wmi.h"
#include "kernel/lib/libk.h"

#include <stddef.h>

static const char *const scenario_names[SCENARIO_COUNT + 1] = {
	[SCENARIO_BOOT] = "boot",
	[SCENARIO_TRACETEST] = "tracetest",
	[SCENARIO_SCHED] = "sched",
	[SCENARIO_LOCKS] = "locks",
	[SCENARIO_RESOURCES] = "resources",
	[SCENARIO_PROFILE] = "profile",
	[SCENARIO_MIX] = "mix",
};

static const char *const pmc_source_names[] = { KPROFILE_SOURCE_SHORT_NAMES, NULL };

static const char *const selftest_names[SELFTEST_COUNT + 1] = {
	[SELFTEST_NONE] = "none",
	[SELFTEST_FAULT] = "fault",
	[SELFTEST_UD] = "ud",
	[SELFTEST_PANIC] = "panic",
	[SELFTEST_STACK] = "stack",
	[SELFTEST_IRQL] = "irql",
};

static const char *const timer_names[TIMER_MODE_COUNT + 1] = {
	[TIMER_AUTO] = "auto",
	[TIMER_DEADLINE] = "deadline",
	[TIMER_ONESHOT] = "oneshot",
	[TIMER_PERIODIC] = "periodic",
};

static const char *const rawlock_names[RAWLOCK_MODE_COUNT + 1] = {
	[RAWLOCK_AUTO] = "auto",
	[RAWLOCK_TICKET] = "ticket",
	[RAWLOCK_TAS] = "tas",
};

static const char *const tsc_source_names[TSC_SOURCE_COUNT + 1] = {
	[TSC_SOURCE_AUTO] = "auto",
	[TSC_SOURCE_CPUID] = "cpuid",
	[TSC_SOURCE_HPET] = "hpet",
	[TSC_SOURCE_PMTIMER] = "pmtimer",
};

static const char *const trace_names[TRACE_ITEM_COUNT + 1] = {
	[TRACE_ITEM_CSWITCH] = "cswitch",
	[TRACE_ITEM_SPINLOCK] = "spinlock",
	[TRACE_ITEM_RESOURCE] = "resource",
	[TRACE_ITEM_PROFILE] = "profile",
	[TRACE_ITEM_PMC] = "pmc",
	[TRACE_ITEM_STACK] = "stack",
	[TRACE_ITEM_TRACETEST] = "tracetest",
	[TRACE_ITEM_CLOCK] = "clock",
	[TRACE_ITEM_NONE] = "none",
	[TRACE_ITEM_ALL] = "all",
};

static const char *const trace_mode_names[] = { "stream", "dump", NULL };

const struct cmdline_key cmdline_keys[] = {
	{ .name = "scenario", .type = CMDLINE_ENUM, .offset = offsetof(struct kconfig, scenario),
	  .names = scenario_names, .help = "workload to run" },
	{ .name = "cpus", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, cpus),
	  .min = 1, .max = KPROF_MAX_CPUS, .special = "all", .help = "how many CPUs to start" },
	{ .name = "selftest", .type = CMDLINE_ENUM, .offset = offsetof(struct kconfig, selftest),
	  .names = selftest_names, .help = "deliberate failure to check the fault path" },
	{ .name = "timer", .type = CMDLINE_ENUM, .offset = offsetof(struct kconfig, timer),
	  .names = timer_names, .help = "mode of the per-CPU interrupt timer" },
	{ .name = "tick_hz", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, tick_hz),
	  .min = 10, .max = 1000, .help = "clock interrupts per second on each CPU" },
	{ .name = "tsc_source", .type = CMDLINE_ENUM, .offset = offsetof(struct kconfig, tsc_source),
	  .names = tsc_source_names, .help = "where the TSC rate comes from" },
	{ .name = "trace", .type = CMDLINE_SET, .offset = offsetof(struct kconfig, trace),
	  .names = trace_names, .help = "event groups to record" },
	{ .name = "trace.mode", .type = CMDLINE_ENUM, .offset = offsetof(struct kconfig, trace_mode),
	  .names = trace_mode_names, .help = "send full buffers while running, or everything at the end" },
	{ .name = "trace.buffer_kb", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, trace_buffer_kb),
	  .min = 8, .max = 262144, .help = "trace buffer per CPU, KiB" },
	{ .name = "trace.subbuf_kb", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, trace_subbuf_kb),
	  .min = 4, .max = 1024, .pow2 = true, .help = "one sub-buffer (the unit sent), KiB" },
	{ .name = "tracetest.records", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, tracetest_records),
	  .min = 1, .max = 10000000, .help = "scenario=tracetest: thread-context records per CPU" },
	{ .name = "sched.ms", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, sched_ms),
	  .min = 100, .max = 600000, .help = "scenario=sched: how long the thread mix runs, ms" },
	{ .name = "rawlock", .type = CMDLINE_ENUM, .offset = offsetof(struct kconfig, rawlock),
	  .names = rawlock_names, .help = "the kernel's own spin locks: ticket or test-and-set" },
	{ .name = "spinlock.spin_threshold", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, spin_threshold),
	  .min = 0, .max = UINT32_MAX, .help = "spins from which a contended acquisition may be traced (minimum 1)" },
	{ .name = "spinlock.acquire_sample_rate", .type = CMDLINE_UINT,
	  .offset = offsetof(struct kconfig, acquire_sample_rate), .min = 0, .max = UINT32_MAX,
	  .help = "one uncontended acquisition in N is traced (minimum 1000)" },
	{ .name = "spinlock.contention_sample_rate", .type = CMDLINE_UINT,
	  .offset = offsetof(struct kconfig, contention_sample_rate), .min = 0, .max = UINT32_MAX,
	  .help = "one contended acquisition in N is traced (minimum 1)" },
	{ .name = "spinlock.hold_threshold", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, hold_threshold),
	  .min = 0, .max = UINT32_MAX, .help = "holds of at least N cycles are traced (0 off, else at least 1000000)" },
	{ .name = "locks.ms", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, locks_ms),
	  .min = 100, .max = 600000, .help = "scenario=locks: how long it runs, ms" },
	{ .name = "locks.hold_ns", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, locks_hold_ns),
	  .min = 0, .max = 1000000, .help = "scenario=locks: how long a lock is held, ns" },
	{ .name = "locks.think_ns", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, locks_think_ns),
	  .min = 0, .max = 1000000, .help = "scenario=locks: time between acquisitions, ns" },
	{ .name = "resources.ms", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, resources_ms),
	  .min = 100, .max = 600000, .help = "scenario=resources: how long it runs, ms" },
	{ .name = "resource.timeout_ms", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, resource_timeout_ms),
	  .min = 1, .max = 600000, .help = "ERESOURCE waits: after this long an excessive wait is recorded, ms" },
	{ .name = "profile.interval", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, profile_interval),
	  .min = 1221, .max = 10000000, .help = "ProfileTime interval in 100 ns units (NtSetIntervalProfile)" },
	{ .name = "pmc.sources", .type = CMDLINE_SET, .offset = offsetof(struct kconfig, pmc_sources),
	  .names = pmc_source_names, .help = "counter sources for trace=pmc (KPROFILE_SOURCE names, up to 4)" },
	{ .name = "pmc.interval", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, pmc_interval),
	  .min = 1000, .max = UINT32_MAX, .help = "events between PMC interrupts" },
	{ .name = "profile.ms", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, profile_ms),
	  .min = 100, .max = 600000, .help = "scenario=profile: how long it runs, ms" },
	{ .name = "mix.ms", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, mix_ms),
	  .min = 100, .max = 600000, .help = "scenario=mix: how long each workload runs, ms" },
};

const size_t cmdline_key_count = ARRAY_SIZE(cmdline_keys);

void config_defaults(struct kconfig *cfg)
{
	*cfg = (struct kconfig){
		.scenario = SCENARIO_BOOT,
		.cpus = 0, /* all */
		.selftest = SELFTEST_NONE,
		.timer = TIMER_AUTO,
		.tick_hz = 100,
		.tsc_source = TSC_SOURCE_AUTO,
		.trace = 1u << TRACE_ITEM_ALL,
		.trace_mode = 0, /* stream */
		.trace_buffer_kb = 256,
		.trace_subbuf_kb = 64,
		.tracetest_records = 20000,
		.sched_ms = 1500,
		.rawlock = RAWLOCK_AUTO,
		.spin_threshold = 1,
		.acquire_sample_rate = 1000,
		.contention_sample_rate = 1,
		.hold_threshold = 1000000,
		.locks_ms = 2000,
		.locks_hold_ns = 500,
		.locks_think_ns = 2000,
		.resources_ms = 2000,
		.resource_timeout_ms = 4000,
		.profile_interval = 10000, /* 1 ms */
		.pmc_sources = 1u << 19,   /* TotalCycles */
		.pmc_interval = 1000000,
		.profile_ms = 2000,
		.mix_ms = 1000,
	};
}
