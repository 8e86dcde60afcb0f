/*
 * scenario.h - the workloads selected with scenario= (kernel/workloads/),
 * and the registry that runs them (scenario.c).
 */
#ifndef KPROF_KERNEL_SCENARIO_H
#define KPROF_KERNEL_SCENARIO_H

#include "include/kprof/exit_status.h"
#include "include/kprof/scenario.h"

#include <stdbool.h>
#include <stdint.h>

/* The scenarios, one file each.  Each gets its parameters from the
 * caller: the registry (scenario.c) passes the workload's own keys
 * (workload_keys.h), scenario=mix its own (mix.c); none reads or writes
 * the configuration itself. */
enum kprof_exit_status scenario_boot(uint32_t tick_hz);
enum kprof_exit_status scenario_tracetest(uint32_t records);
enum kprof_exit_status scenario_sched(uint32_t ms);
enum kprof_exit_status scenario_locks(uint32_t ms, uint32_t hold_ns, uint32_t think_ns);
/* Waits are sliced by the ERESOURCE excessive-wait interval in force
 * (ex_resource_timeout). */
enum kprof_exit_status scenario_resources(uint32_t ms);
/* quick: without stretching the run for the accuracy goal (the mix). */
enum kprof_exit_status scenario_profile(uint32_t ms, bool quick);
enum kprof_exit_status scenario_mix(uint32_t ms, uint32_t locks_hold_ns, uint32_t locks_think_ns);
enum kprof_exit_status scenario_events(void);

/* Run the scenario and return how the run should end. */
enum kprof_exit_status scenario_run(enum kprof_scenario which);

#endif
