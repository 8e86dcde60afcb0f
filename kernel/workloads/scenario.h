/*
 * scenario.h - the workloads selected with scenario= (kernel/workloads/),
 * and the registry that runs them (scenario.c).
 */
#ifndef KPROF_KERNEL_SCENARIO_H
#define KPROF_KERNEL_SCENARIO_H

#include "include/kprof/exit_status.h"
#include "include/kprof/scenario.h"

/* The scenarios, one file each. */
enum kprof_exit_status scenario_boot(void);
enum kprof_exit_status scenario_tracetest(void);
enum kprof_exit_status scenario_sched(void);
enum kprof_exit_status scenario_locks(void);
enum kprof_exit_status scenario_resources(void);
enum kprof_exit_status scenario_profile(void);
/* The profile workload without stretching the run for the accuracy goal. */
enum kprof_exit_status scenario_profile_quick(void);
enum kprof_exit_status scenario_mix(void);
enum kprof_exit_status scenario_events(void);

/* Run the scenario and return how the run should end. */
enum kprof_exit_status scenario_run(enum kprof_scenario which);

#endif
