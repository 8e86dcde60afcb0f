/*
 * workload_keys.h - the workloads' keys (scenario=, selftest= and each
 * workload's own: tracetest.records=, sched.ms=, locks.*=, resources.ms=,
 * profile.ms=, mix.ms=) and the struct they fill (workload_keys.c).
 *
 * Read-only after config_parse() through the const view workload_config.
 * A workload reads its keys only when it runs as the scenario: the
 * registry (scenario.c) hands each one its duration and the like as
 * parameters, and scenario=mix hands them its own (mix.c).
 */
#ifndef KPROF_KERNEL_WORKLOAD_KEYS_H
#define KPROF_KERNEL_WORKLOAD_KEYS_H

#include <stdint.h>

struct workload_config {
	uint32_t scenario;          /* enum kprof_scenario                     */
	uint32_t selftest;          /* enum kprof_selftest (selftest.h)        */
	uint32_t tracetest_records; /* scenario=tracetest: records per CPU     */
	uint32_t sched_ms;          /* scenario=sched: how long the mix runs   */
	uint32_t locks_ms;          /* scenario=locks: how long it runs        */
	uint32_t locks_hold_ns;     /* scenario=locks and mix: a typical hold  */
	uint32_t locks_think_ns;    /* ... time between acquisitions          */
	uint32_t resources_ms;      /* scenario=resources: how long it runs    */
	uint32_t profile_ms;        /* scenario=profile: how long it runs      */
	uint32_t mix_ms;            /* scenario=mix: how long each workload runs */
};

extern const struct workload_config *const workload_config;

#endif /* KPROF_KERNEL_WORKLOAD_KEYS_H */
