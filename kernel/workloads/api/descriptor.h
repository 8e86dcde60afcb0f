/*
 * descriptor.h - what makes a workload: its descriptor (name, one-line
 * description, run function) registered with WORKLOAD_DEFINE(), and its
 * own command-line keys registered with WORKLOAD_KEYS().
 *
 * Both macros put a pointer in a linker section (kprof_workloads, and
 * kprof_cmdline_tables for the keys), so the registry (registry.c) and
 * the one configuration pass (kernel/init/cmdline_rules.c) find every
 * workload linked into the kernel, in the tree or built from a folder
 * outside it (make WORKLOADS=DIR): adding one edits no file of kprof.
 * Part of the API a workload may use (docs/workloads.md), included through
 * kernel/workloads/api/workload.h.  Pure: the host's unit tests and docs
 * generator compile it.
 */
#ifndef KPROF_KERNEL_WORKLOAD_DESCRIPTOR_H
#define KPROF_KERNEL_WORKLOAD_DESCRIPTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "include/kprof/exit_status.h"
#include "kernel/lib/cmdline_key.h"

/* How a workload is asked to run. */
struct workload_run {
	/* 0: as long as the workload's own keys say; otherwise this many
	 * milliseconds (scenario=mix gives every workload mix.ms). */
	uint32_t ms;
	bool in_mix; /* one of several workloads of scenario=mix: keep it short */
};

struct workload {
	const char *name;        /* what scenario= takes: [a-z0-9_], <= 31 bytes */
	const char *description; /* one line, for the accepted list and docs  */
	/* Runs on the boot processor's first thread once every CPU is up and
	 * tracing has started (PASSIVE_LEVEL); returns how the run should end
	 * (KPROF_EXIT_SUCCESS, or KPROF_EXIT_FAILURE when its checks failed). */
	enum kprof_exit_status (*run)(const struct workload_run *r);
};

/* Longest name a workload may have (it travels in the run info frame and
 * the KprofPhase record, NUL-padded to 32 bytes). */
#define WORKLOAD_NAME_MAX 31

/* Register a workload: WORKLOAD_DEFINE(ticketlock, .name = "ticketlock",
 * .description = "...", .run = run).  `ident` names the C objects only. */
#define WORKLOAD_DEFINE(ident, ...)                                                                           \
	static const struct workload ident##_workload = { __VA_ARGS__ };                                       \
	static const struct workload *const ident##_workload_entry                                            \
		__attribute__((used, section("kprof_workloads"), aligned(sizeof(void *)))) = &ident##_workload

/* Where a workload's keys go among every table (docs/cmdline.md and the
 * accepted list): after the kernel's own (10..990), before the
 * architecture's (1000); ties by owner. */
#define WORKLOAD_KEYS_ORDER 900

/* Register a workload's keys: `rows` (an array of struct cmdline_key,
 * each name "<workload>.<key>"), filling *config from *defaults first;
 * `check` (or NULL) is its own rule between them (cmdline_table.check).
 * The one configuration pass checks them with every other key. */
#define WORKLOAD_KEYS(ident, rows, config_ptr, defaults_ptr, check_fn)                                        \
	CMDLINE_TABLE(ident##_keys_table, .keys = rows, .count = sizeof(rows) / sizeof((rows)[0]),            \
		      .config = config_ptr, .defaults = defaults_ptr, .size = sizeof(*(config_ptr)),            \
		      .owner = #ident, .order = WORKLOAD_KEYS_ORDER, .check = check_fn)

/* ---- the registry (registry.c) ---- */

/* Every workload's name, NULL-terminated: first the kernel's own under
 * the numbers the wire gave them (enum kprof_scenario, so older logs and
 * the rules between keys keep their values), then every other registered
 * one by name.  scenario= stores an index into this list. */
const char *const *workload_names(void);

/* The registered workload called `name`, or NULL. */
const struct workload *workload_find(const char *name);

/* The number the run header and run info give a workload: its enum
 * kprof_scenario value for the kernel's own, KPROF_SCENARIO_NAMED for
 * any other (whose name the run info carries). */
uint32_t workload_wire_number(const char *name);

/* Problems with the registered descriptors (two with one name, a name too
 * long or not [a-z0-9_], no run function, more than the registry holds),
 * each printed through say(); returns how many. */
int workload_registry_check(void (*say)(const char *line));

#endif /* KPROF_KERNEL_WORKLOAD_DESCRIPTOR_H */
