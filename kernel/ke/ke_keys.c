/*
 * ke_keys.c - the kernel core's command-line keys (ke_keys.h): how many
 * CPUs start, the clock interrupt, the discipline of the raw spin locks.
 *
 * Three tables, because their keys sit apart in docs/cmdline.md (order
 * 20, 40 and 90 among every subsystem's tables).
 */
#include "kernel/ke/ke_keys.h"

#include "kernel/ke/cpus.h"
#include "kernel/lib/cmdline_key.h"
#include "kernel/lib/libk.h"

#include <stddef.h>

static struct ke_config parsed_config;
const struct ke_config *const ke_config = &parsed_config;

static const struct ke_config defaults = {
	.cpus = 0, /* all */
	.timer = TIMER_AUTO,
	.tick_hz = 100,
	.rawlock = RAWLOCK_AUTO,
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

#define FIELD(f) .offset = offsetof(struct ke_config, f)
#define EVERY_RUN "every run"

static const struct cmdline_key cpu_keys[] = {
	{ .name = "cpus", .type = CMDLINE_UINT, FIELD(cpus), .min = 1, .max = KPROF_MAX_CPUS, .special = "all",
	  .used_by = EVERY_RUN, .help = "how many CPUs to start (at most the enabled ones are)" },
};

static const struct cmdline_key clock_keys[] = {
	{ .name = "timer", .type = CMDLINE_ENUM, FIELD(timer), .names = timer_names, .used_by = EVERY_RUN,
	  .help = "mode of each CPU's interrupt timer: auto is deadline when the CPU has it, else oneshot",
	  .probe = "deadline on a CPU without it falls back to oneshot with a message (not refused)" },
	{ .name = "tick_hz", .type = CMDLINE_UINT, FIELD(tick_hz), .min = 10, .max = 1000, .used_by = EVERY_RUN,
	  .help = "clock interrupts per second on each CPU" },
	{ .name = "clock.fault_ppm", .type = CMDLINE_UINT, FIELD(clock_fault_ppm), .min = 0, .max = 100000,
	  .used_by = EVERY_RUN,
	  .help = "a fault for tests: the TSC watchdog sees every TSC run this many ppm fast, finds it unstable and "
		  "corrects the stamps (0: none)" },
};

static const struct cmdline_key rawlock_keys[] = {
	{ .name = "rawlock", .type = CMDLINE_ENUM, FIELD(rawlock), .names = rawlock_names, .used_by = EVERY_RUN,
	  .help = "the kernel's own spin locks: ticket or test-and-set (auto: test-and-set under a hypervisor)" },
};

#define KE_TABLE(rows, place)                                                                                 \
	.keys = rows, .count = ARRAY_SIZE(rows), .config = &parsed_config, .defaults = &defaults,              \
	.size = sizeof(parsed_config), .owner = "ke", .order = place

CMDLINE_TABLE(ke_cpu_table, KE_TABLE(cpu_keys, 20));
CMDLINE_TABLE(ke_clock_table, KE_TABLE(clock_keys, 40));
CMDLINE_TABLE(ke_rawlock_table, KE_TABLE(rawlock_keys, 90));
