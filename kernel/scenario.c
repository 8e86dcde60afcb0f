/*
 * scenario.c - dispatch to the workload chosen with scenario=.
 */
#include "kernel/scenario.h"

#include "kernel/console.h"

enum kprof_exit_status scenario_run(enum kprof_scenario which)
{
	switch (which) {
	case SCENARIO_BOOT:
		/* Bring-up only: everything worth seeing is in the boot log. */
		kprintf("scenario boot: machine is up\n");
		return KPROF_EXIT_SUCCESS;
	case SCENARIO_COUNT:
		break;
	}
	kprintf("scenario: %u is not implemented\n", (unsigned)which);
	return KPROF_EXIT_FAILURE;
}
