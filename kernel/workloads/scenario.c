/*
 * scenario.c - dispatch to the workload chosen with scenario=.
 */
#include "kernel/workloads/scenario.h"

#include "kernel/console/console.h"

enum kprof_exit_status scenario_run(enum kprof_scenario which)
{
	switch (which) {
	case SCENARIO_BOOT:
		return scenario_boot();
	case SCENARIO_TRACETEST:
		return scenario_tracetest();
	case SCENARIO_SCHED:
		return scenario_sched();
	case SCENARIO_LOCKS:
		return scenario_locks();
	case SCENARIO_RESOURCES:
		return scenario_resources();
	case SCENARIO_PROFILE:
		return scenario_profile();
	case SCENARIO_MIX:
		return scenario_mix();
	case SCENARIO_COUNT:
		break;
	}
	kprintf("scenario: %u is not implemented\n", (unsigned)which);
	return KPROF_EXIT_FAILURE;
}
