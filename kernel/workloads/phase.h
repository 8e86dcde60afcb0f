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

/* A phase that takes more than this many times its asked length says so
 * at its end, and why (phase.c).  Measured: make run's mix on 2 CPUs
 * under TCG on a 2-core host, 1.0 to 1.35 times; with 64 CPUs there,
 * profile 1.7 to 2.3 times, locks 2.1 to 6.9 (resources 11 to 34, sched
 * 109 to 229: slow indeed); under this host's KVM (software paging) 6 to
 * 84. */
#define PHASE_SLOW_RATIO 3

/* The workload running in the open phases was asked to run `ms`
 * milliseconds: added to each open phase's asked length (the mix's phase
 * 0 sums its workloads').  Thread context, the scenario's thread. */
void workload_phase_asked(uint32_t ms);

/* The workload ran `rounds` rounds of `what` (a string that lives as long
 * as the kernel, e.g. "thread switch round trips") in `cycles` TSC
 * cycles, a measurement inside the phase (its rounds bounded apart from
 * the asked length):
 * kept for the innermost open phase (up to 4), whose line names them if
 * it runs slow.  Thread context, the scenario's thread. */
void workload_phase_rounds(const char *what, uint32_t rounds, uint64_t cycles);

#endif /* KPROF_KERNEL_WORKLOADS_PHASE_H */
