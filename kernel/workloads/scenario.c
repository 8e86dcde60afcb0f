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
#include "kernel/ke/ke_keys.h"
#include "kernel/workloads/phase.h"
#include "kernel/workloads/workload_keys.h"

typedef enum kprof_exit_status (*scenario_fn)(const struct workload_config *c);

/* Each workload with its own keys as parameters. */
static enum kprof_exit_status boot(const struct workload_config *c)
{
	return scenario_boot(ke_config->tick_hz);
}

static enum kprof_exit_status tracetest(const struct workload_config *c)
{
	return scenario_tracetest(c->tracetest_records);
}

static enum kprof_exit_status sched(const struct workload_config *c)
{
	return scenario_sched(c->sched_ms);
}

static enum kprof_exit_status locks(const struct workload_config *c)
{
	return scenario_locks(c->locks_ms, c->locks_hold_ns, c->locks_think_ns);
}

static enum kprof_exit_status resources(const struct workload_config *c)
{
	return scenario_resources(c->resources_ms);
}

static enum kprof_exit_status profile(const struct workload_config *c)
{
	return scenario_profile(c->profile_ms, false);
}

static enum kprof_exit_status mix(const struct workload_config *c)
{
	return scenario_mix(c->mix_ms, c->locks_hold_ns, c->locks_think_ns);
}

static enum kprof_exit_status events(const struct workload_config *c)
{
	return scenario_events();
}

static const scenario_fn scenarios[SCENARIO_COUNT] = {
	[SCENARIO_BOOT] = boot,
	[SCENARIO_TRACETEST] = tracetest,
	[SCENARIO_SCHED] = sched,
	[SCENARIO_LOCKS] = locks,
	[SCENARIO_RESOURCES] = resources,
	[SCENARIO_PROFILE] = profile,
	[SCENARIO_MIX] = mix,
	[SCENARIO_EVENTS] = events,
};

enum kprof_exit_status scenario_run(enum kprof_scenario which)
{
	if (which < SCENARIO_COUNT && scenarios[which]) {
		workload_phase(0, kprof_scenario_name(which), false);
		enum kprof_exit_status status = scenarios[which](workload_config);
		workload_phase(0, kprof_scenario_name(which), true);
		return status;
	}
	kprintf("scenario: %u is not implemented\n", (unsigned)which);
	return KPROF_EXIT_FAILURE;
}
