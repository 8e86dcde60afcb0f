/*
 * scenario.h - the numbers the wire gives the kernel's own workloads
 * (struct kprof_run_header.scenario, kprof_run_info.scenario), shared by
 * the kernel and the host tool.
 *
 * Workloads are registered by their descriptors (kernel/workloads/api/
 * descriptor.h), not here: this list only keeps the numbers older logs
 * carry.  Any other workload is KPROF_SCENARIO_NAMED on the wire, and the
 * run info frame carries every workload's name (wire v3), which the tool
 * prefers.  Never renumber.
 */
#ifndef KPROF_SCENARIO_H
#define KPROF_SCENARIO_H

#include <stdint.h>

enum kprof_scenario {
	SCENARIO_BOOT,     /* bring the machine up, print what was found, end */
	SCENARIO_TRACETEST,/* every CPU writes a known pattern of records     */
	SCENARIO_SCHED,    /* threads, waits and priorities                   */
	SCENARIO_LOCKS,    /* spin locks of every kind under contention       */
	SCENARIO_RESOURCES,/* ERESOURCE readers and writers                   */
	SCENARIO_PROFILE,  /* profile objects and known shares of time        */
	SCENARIO_MIX,      /* every workload in turn (make run's default)      */
	SCENARIO_EVENTS,   /* a workload's own event types and events          */
	SCENARIO_COUNT
};

/* On the wire: a workload without a number of its own (one built from
 * outside the tree): the run info frame names it. */
#define KPROF_SCENARIO_NAMED 0xffffffffu

/* The names the command line's scenario= key takes, as designated
 * initialisers for an array indexed by enum kprof_scenario (the kernel's
 * key table and kprof_scenario_name both use it). */
#define KPROF_SCENARIO_NAMES                     \
	[SCENARIO_BOOT] = "boot",                \
	[SCENARIO_TRACETEST] = "tracetest",      \
	[SCENARIO_SCHED] = "sched",              \
	[SCENARIO_LOCKS] = "locks",              \
	[SCENARIO_RESOURCES] = "resources",      \
	[SCENARIO_PROFILE] = "profile",          \
	[SCENARIO_MIX] = "mix",                  \
	[SCENARIO_EVENTS] = "events"

/* The scenario= name of a workload, or NULL when the value is not a known
 * workload (a run header from a newer kernel). */
static inline const char *kprof_scenario_name(uint32_t scenario)
{
	static const char *const names[SCENARIO_COUNT] = { KPROF_SCENARIO_NAMES };
	return scenario < SCENARIO_COUNT ? names[scenario] : 0;
}

#endif /* KPROF_SCENARIO_H */
