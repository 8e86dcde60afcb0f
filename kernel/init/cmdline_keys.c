/*
 * cmdline_keys.c - every command-line key of the generic kernel.
 *
 * One row per key: its type, where it lands in struct kconfig, its range or
 * names, which runs read it, a one-line description, and what is checked
 * again once the hardware is probed.  Defaults are in config_defaults()
 * below.  The architecture's keys are in its own table (<arch/cmdline.h>),
 * the rules between keys in cmdline_rules.c; docs/cmdline.md is generated
 * from all three (make docs), and a unit test fails when it is stale.
 * Ranges that other code also enforces come from that code's constants.
 */
#include "kernel/init/cmdline.h"

#include "include/kprof/wire.h"
#include "include/kprof/wmi.h"
#include "kernel/lib/libk.h"
#include "kernel/locks/spinlock_params.h"
#include "kernel/profile/source.h"
#include "kernel/trace/trace.h"

#include <stddef.h>

#define SUBBUF_MIN_KB 4      /* one page                    */
#define SUBBUF_MAX_KB 1024   /* 1 MiB                       */
#define RUN_MIN_MS    100    /* the shortest workload run   */
#define RUN_MAX_MS    600000 /* the longest: ten minutes    */

/* NULL-terminated: the last slot stays empty. */
static const char *const scenario_names[SCENARIO_COUNT + 1] = { KPROF_SCENARIO_NAMES };

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

static const char *const trace_mode_names[] = {
	[KPROF_TRACE_STREAM] = "stream",
	[KPROF_TRACE_DUMP] = "dump",
	NULL,
};

static const char *const off_on_names[] = {
	"off",
	"on",
	NULL,
};

static const char *const trace_fit_names[TRACE_FIT_COUNT + 1] = {
	[TRACE_FIT_AUTO] = "auto",
	[TRACE_FIT_REFUSE] = "refuse",
	[TRACE_FIT_SHRINK] = "shrink",
};

static const char *const trace_out_names[TRACE_OUT_COUNT + 1] = {
	[TRACE_OUT_AUTO] = "auto",
	[TRACE_OUT_SERIAL] = "serial",
	[TRACE_OUT_USB] = "usb",
	[TRACE_OUT_BOTH] = "both",
};

#define FIELD(f) .offset = offsetof(struct kconfig, f)
#define EVERY_RUN "every run"

const struct cmdline_key cmdline_keys[] = {
	{ .name = "scenario", .type = CMDLINE_ENUM, FIELD(scenario), .names = scenario_names, .used_by = EVERY_RUN,
	  .help = "workload to run" },
	{ .name = "cpus", .type = CMDLINE_UINT, FIELD(cpus), .min = 1, .max = KPROF_MAX_CPUS, .special = "all",
	  .used_by = EVERY_RUN, .help = "how many CPUs to start (at most the enabled ones are)" },
	{ .name = "selftest", .type = CMDLINE_ENUM, FIELD(selftest), .names = selftest_names, .used_by = EVERY_RUN,
	  .help = "deliberate failure before the scenario, to check the fault path" },
	{ .name = "timer", .type = CMDLINE_ENUM, FIELD(timer), .names = timer_names, .used_by = EVERY_RUN,
	  .help = "mode of each CPU's interrupt timer: auto is deadline when the CPU has it, else oneshot",
	  .probe = "deadline on a CPU without it falls back to oneshot with a message (not refused)" },
	{ .name = "tick_hz", .type = CMDLINE_UINT, FIELD(tick_hz), .min = 10, .max = 1000, .used_by = EVERY_RUN,
	  .help = "clock interrupts per second on each CPU" },
	{ .name = "trace", .type = CMDLINE_SET, FIELD(trace), .names = trace_names, .used_by = EVERY_RUN,
	  .help = "event groups to record (none: nothing; all: every group)" },
	{ .name = "trace.mode", .type = CMDLINE_ENUM, FIELD(trace_mode), .names = trace_mode_names,
	  .used_by = EVERY_RUN, .help = "send full buffers while running, or everything at the end" },
	{ .name = "trace.buffer_kb", .type = CMDLINE_UINT, FIELD(trace_buffer_kb),
	  .min = TRACE_MIN_SUBBUFS * SUBBUF_MIN_KB, .max = 262144, .used_by = EVERY_RUN,
	  .help = "trace buffer per CPU, KiB (whole sub-buffers of it are used)",
	  .probe = "refused (exit CONFIG) when the buffers of every CPU started do not fit in free memory less a "
		   "reserve for the kernel (16 MiB + 256 KiB per CPU), unless trace.buffer_fit makes them smaller" },
	{ .name = "trace.subbuf_kb", .type = CMDLINE_UINT, FIELD(trace_subbuf_kb), .min = SUBBUF_MIN_KB,
	  .max = SUBBUF_MAX_KB, .pow2 = true, .used_by = EVERY_RUN, .help = "one sub-buffer (the unit sent), KiB" },
	{ .name = "trace.buffer_fit", .type = CMDLINE_ENUM, FIELD(trace_buffer_fit), .names = trace_fit_names,
	  .used_by = EVERY_RUN,
	  .help = "when the buffers of every CPU do not fit in free memory: refuse the run, or shrink each to the "
		  "largest size that fits, and say so (auto: shrink when trace.buffer_kb is left at its default, else "
		  "refuse)" },
	{ .name = "trace.out", .type = CMDLINE_ENUM, FIELD(trace_out), .names = trace_out_names,
	  .used_by = EVERY_RUN,
	  .help = "where the trace's frames go: the serial port, the trace file on the USB stick the kernel booted "
		  "from (\\kprof\\trace.bin), or both (auto: both when booted from a USB stick with a usable trace "
		  "file, else serial)",
	  .probe = "usb or both is refused (exit CONFIG) when the kernel was not booted from a USB stick with a "
		   "usable trace file (the loader's bootinfo says why); auto then keeps serial and says why in one line" },
	{ .name = "trace.compress", .type = CMDLINE_ENUM, FIELD(trace_compress), .names = off_on_names,
	  .used_by = EVERY_RUN,
	  .help = "send each chunk's records TSC-delta transformed and LZ4-compressed (encoding 2) when that makes "
		  "it smaller, else raw" },
	{ .name = "usb.probe", .type = CMDLINE_ENUM, FIELD(usb_probe), .names = off_on_names, .used_by = EVERY_RUN,
	  .help = "before the scenario, take every xHCI controller and list each USB device on its root ports and "
		  "hubs (port, speed, device descriptor; INQUIRY for mass storage)" },
	{ .name = "usb.stick_port", .type = CMDLINE_UINT, FIELD(usb_stick_port), .min = 0, .max = 255,
	  .used_by = EVERY_RUN,
	  .help = "the root port the trace looks for the boot stick on, instead of the one the loader read from the "
		  "firmware's device path (0: the loader's); where the stick is not, the kernel finds it by its disk's "
		  "identity on every xHCI controller, port and hub, and says so" },
	{ .name = "tracetest.records", .type = CMDLINE_UINT, FIELD(tracetest_records), .min = 1, .max = 10000000,
	  .used_by = "scenario=tracetest", .help = "thread-context records each CPU writes" },
	{ .name = "sched.ms", .type = CMDLINE_UINT, FIELD(sched_ms), .min = RUN_MIN_MS, .max = RUN_MAX_MS,
	  .used_by = "scenario=sched", .help = "how long the thread mix runs, ms" },
	{ .name = "rawlock", .type = CMDLINE_ENUM, FIELD(rawlock), .names = rawlock_names, .used_by = EVERY_RUN,
	  .help = "the kernel's own spin locks: ticket or test-and-set (auto: test-and-set under a hypervisor)" },
	{ .name = "spinlock.spin_threshold", .type = CMDLINE_UINT, FIELD(spin_threshold),
	  .min = SPINLOCK_MIN_SPIN_THRESHOLD, .max = UINT32_MAX, .min_in_rule = true, .used_by = "trace=spinlock",
	  .help = "spins from which an acquisition counts as contended (NtSetSystemInformation)" },
	{ .name = "spinlock.acquire_sample_rate", .type = CMDLINE_UINT, FIELD(acquire_sample_rate),
	  .min = SPINLOCK_MIN_ACQUIRE_SAMPLE_RATE, .max = UINT32_MAX, .min_in_rule = true, .used_by = "trace=spinlock",
	  .help = "one uncontended acquisition in N is traced (NtSetSystemInformation)" },
	{ .name = "spinlock.contention_sample_rate", .type = CMDLINE_UINT, FIELD(contention_sample_rate),
	  .min = SPINLOCK_MIN_CONTENTION_SAMPLE_RATE, .max = UINT32_MAX, .min_in_rule = true,
	  .used_by = "trace=spinlock", .help = "one contended acquisition in N is traced (NtSetSystemInformation)" },
	{ .name = "spinlock.hold_threshold", .type = CMDLINE_UINT, FIELD(hold_threshold),
	  .min = SPINLOCK_MIN_HOLD_THRESHOLD, .max = UINT32_MAX, .or_zero = true, .min_in_rule = true,
	  .used_by = "trace=spinlock",
	  .help = "holds of at least N cycles are always traced; 0: off (NtSetSystemInformation)" },
	{ .name = "locks.ms", .type = CMDLINE_UINT, FIELD(locks_ms), .min = RUN_MIN_MS, .max = RUN_MAX_MS,
	  .used_by = "scenario=locks", .help = "how long the lock workload runs, ms" },
	{ .name = "locks.hold_ns", .type = CMDLINE_UINT, FIELD(locks_hold_ns), .min = 0, .max = 1000000,
	  .used_by = "scenario=locks, mix", .help = "how long a lock is held, ns" },
	{ .name = "locks.think_ns", .type = CMDLINE_UINT, FIELD(locks_think_ns), .min = 0, .max = 1000000,
	  .used_by = "scenario=locks, mix", .help = "time between acquisitions, ns" },
	{ .name = "resources.ms", .type = CMDLINE_UINT, FIELD(resources_ms), .min = RUN_MIN_MS, .max = RUN_MAX_MS,
	  .used_by = "scenario=resources", .help = "how long the ERESOURCE workload runs, ms" },
	{ .name = "resource.timeout_ms", .type = CMDLINE_UINT, FIELD(resource_timeout_ms), .min = 1, .max = RUN_MAX_MS,
	  .used_by = "every run (scenario=mix uses mix.ms/10)",
	  .help = "ERESOURCE waits: after this long an excessive wait is recorded, ms" },
	{ .name = "profile.interval", .type = CMDLINE_UINT, FIELD(profile_interval), .min = PROFILE_TIME_MIN_INTERVAL,
	  .max = PROFILE_TIME_MAX_INTERVAL, .used_by = "trace=profile, scenario=profile, mix",
	  .help = "ProfileTime interval in 100 ns units (NtSetIntervalProfile)" },
	{ .name = "pmc.sources", .type = CMDLINE_SET, FIELD(pmc_sources), .names = pmc_source_names,
	  .used_by = "trace=pmc", .help = "counter sources for trace=pmc (KPROFILE_SOURCE names)",
	  .probe = "a source this machine cannot count (or any, without a PMU) is reported and left out when "
		   "trace=pmc starts it (not refused)" },
	{ .name = "pmc.interval", .type = CMDLINE_UINT, FIELD(pmc_interval), .min = PROFILE_PMC_MIN_INTERVAL,
	  .max = UINT32_MAX, .used_by = "trace=pmc", .help = "events between PMC interrupts (NtSetIntervalProfile)",
	  .probe = "refused (exit CONFIG) above what the counter each source gets can take "
		   "(arch_pmu_max_interval: below half its range)" },
	{ .name = "profile.ms", .type = CMDLINE_UINT, FIELD(profile_ms), .min = RUN_MIN_MS, .max = RUN_MAX_MS,
	  .used_by = "scenario=profile", .help = "how long the profile workload runs, ms (up to 4x until 12000 samples)" },
	{ .name = "mix.ms", .type = CMDLINE_UINT, FIELD(mix_ms), .min = RUN_MIN_MS, .max = RUN_MAX_MS,
	  .used_by = "scenario=mix", .help = "how long each workload of the mix runs, ms" },
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
		.trace = 1u << TRACE_ITEM_ALL,
		.trace_mode = KPROF_TRACE_STREAM,
		.trace_buffer_kb = 4096,
		.trace_subbuf_kb = 64,
		.trace_buffer_fit = TRACE_FIT_AUTO,
		.trace_compress = 1,
		.trace_out = TRACE_OUT_AUTO,
		.tracetest_records = 20000,
		.sched_ms = 1500,
		.rawlock = RAWLOCK_AUTO,
		.spin_threshold = SPINLOCK_MIN_SPIN_THRESHOLD,
		.acquire_sample_rate = SPINLOCK_MIN_ACQUIRE_SAMPLE_RATE,
		.contention_sample_rate = SPINLOCK_MIN_CONTENTION_SAMPLE_RATE,
		.hold_threshold = SPINLOCK_MIN_HOLD_THRESHOLD,
		.locks_ms = 2000,
		.locks_hold_ns = 500,
		.locks_think_ns = 2000,
		.resources_ms = 2000,
		.resource_timeout_ms = 4000,
		.profile_interval = PROFILE_TIME_DEFAULT_INTERVAL, /* 1 ms */
		.pmc_sources = 1u << ProfileTotalCycles,
		.pmc_interval = PROFILE_PMC_DEFAULT_INTERVAL,
		.profile_ms = 2000,
		.mix_ms = 1000,
		.usb_probe = 0,
		.usb_stick_port = 0,
	};
}
