/*
 * scenario.h - running the workload chosen with scenario= (scenario.c).
 * The workloads themselves (one file each in kernel/workloads/, or built
 * from outside the tree) are found by their descriptors
 * (api/descriptor.h), each with its own run function.
 */
#ifndef KPROF_KERNEL_SCENARIO_H
#define KPROF_KERNEL_SCENARIO_H

#include "include/kprof/exit_status.h"
#include "include/kprof/scenario.h"

#include <stdbool.h>
#include <stdint.h>

/* The name of the workload scenario= chose (its index into the registry's
 * names, workload_names()). */
const char *scenario_name(uint32_t which);

/* Run the workload scenario= chose, as phase 0, and return how the run
 * should end. */
enum kprof_exit_status scenario_run(uint32_t which);

#endif
