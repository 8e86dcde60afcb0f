/*
 * scenario.c - the registry of workloads: which function runs each value
 * of scenario= (enum kprof_scenario, include/kprof/scenario.h).
 *
 * The workloads live in this folder, one file each, and reach the kernel
 * only through its public headers (tools/check-layering.sh enforces it);
 * they run on the boot processor's first thread after every CPU is up and
 * tracing has started, and return how the run should end.  The scenario
 * is phase 0 (phase.h): a KprofPhase record at its start and its end.
 */
#include "kernel/workloads/scenario.h"

#include "kernel/console/console.h"
#include "kernel/workloads/phase.h"

typedef enum kprof_exit_status (*scenario_fn)(void);

static const scenario_fn scenarios[SCENARIO_COUNT] = {
	[SCENARIO_BOOT] = scenario_boot,
	[SCENARIO_TRACETEST] = scenario_tracetest,
	[SCENARIO_SCHED] = scenario_sched,
	[SCENARIO_LOCKS] = scenario_locks,
	[SCENARIO_RESOURCES] = scenario_resources,
	[SCENARIO_PROFILE] = scenario_profile,
	[SCENARIO_MIX] = scenario_mix,
	[SCENARIO_EVENTS] = scenario_events,
};

enum kprof_exit_status scenario_run(enum kprof_scenario which)
{
	if (which < SCENARIO_COUNT && scenarios[which]) {
		workload_phase(0, kprof_scenario_name(which), false);
		enum kprof_exit_status status = scenarios[which]();
		workload_phase(0, kprof_scenario_name(which), true);
		return status;
	}
	kprintf("scenario: %u is not implemented\n", (unsigned)which);
	return KPROF_EXIT_FAILURE;
}
