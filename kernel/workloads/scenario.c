/*
 * scenario.c - runs the workload scenario= chose, found in the registry
 * by its name (registry.c: the descriptors, WORKLOAD_DEFINE).
 *
 * The workloads reach the kernel only through the API of
 * kernel/workloads/api/ (docs/workloads.md; tools/check-layering.sh keeps
 * them to it); they run on the boot processor's first thread after every
 * CPU is up and tracing has started, and return how the run should end.
 * The scenario is phase 0 (phase.h): a KprofPhase record at its start and
 * its end.
 */
#include "kernel/workloads/scenario.h"

#include "kernel/console/console.h"
#include "kernel/workloads/api/descriptor.h"
#include "kernel/workloads/phase.h"

static void say(const char *line)
{
	kprintf("%s\n", line);
}

const char *scenario_name(uint32_t which)
{
	const char *const *names = workload_names();
	for (uint32_t i = 0; names[i]; i++)
		if (i == which)
			return names[i];
	return "?";
}

enum kprof_exit_status scenario_run(uint32_t which)
{
	const char *name = scenario_name(which);
	const struct workload *w = workload_find(name);
	const struct workload_run alone = { .ms = 0, .in_mix = false };

	if (workload_registry_check(say))
		return KPROF_EXIT_FAILURE;
	if (!w) {
		kprintf("scenario: %s is not built into this kernel\n", name);
		return KPROF_EXIT_FAILURE;
	}
	kprintf("scenario: %s: %s\n", w->name, w->description);
	workload_phase(0, w->name, false);
	enum kprof_exit_status status = w->run(&alone);
	workload_phase(0, w->name, true);
	return status;
}
