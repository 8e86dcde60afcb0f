/*
 * phase.h - the phases of a run: where a scenario, and each workload of
 * scenario=mix, starts and ends, as KprofPhase records
 * (include/kprof/wmi.h) and console lines, so that the pictures can mark
 * them and a reader can hold the two against each other.
 */
#ifndef KPROF_KERNEL_WORKLOADS_PHASE_H
#define KPROF_KERNEL_WORKLOADS_PHASE_H

#include <stdbool.h>
#include <stdint.h>

/* Phases whose start time the console line of their end can measure. */
#define PHASE_MAX 16

/* Phase `index` (0 the scenario, i >= 1 the mix's i-th workload) named
 * `name` starts (end false) or ends: a KprofPhase record while the trace
 * runs, and the console line "phase: [i] NAME starts" or "phase: [i] NAME
 * ends after N us" (N between the two records' TimeStamps).  Thread
 * context, one phase of an index at a time. */
void workload_phase(uint32_t index, const char *name, bool end);

#endif /* KPROF_KERNEL_WORKLOADS_PHASE_H */
