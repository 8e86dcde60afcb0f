/*
 * mix.c - scenario=mix, the default of `make run`: every
 * workload in turn, each for mix.ms milliseconds, so one short run gives
 * the report something in every section: profile (hot functions and the
 * profile objects), locks (contended spin locks), resources (ERESOURCE
 * waits and time-outs) and sched (threads, switches, wait reasons).
 *
 * Each workload gets mix.ms as its duration (so locks.ms and friends do
 * not apply under mix), and the ERESOURCE excessive-wait interval is set
 * to a tenth of it (ex_resource_set_timeout), so that time-outs happen
 * within the run.  The run fails if any workload's checks fail, and says
 * which.  Each workload is a phase (phase.h): KprofPhase records with
 * index i + 1 mark its start and end in the trace.
 */
#include "kernel/console/console.h"
#include "kernel/ex/resource.h"
#include "kernel/workloads/phase.h"
#include "kernel/workloads/scenario.h"

/* What every workload of the mix is given. */
struct mix_params {
	uint32_t ms;
	uint32_t locks_hold_ns, locks_think_ns;
};

static enum kprof_exit_status profile(const struct mix_params *p)
{
	return scenario_profile(p->ms, true);
}

static enum kprof_exit_status locks(const struct mix_params *p)
{
	return scenario_locks(p->ms, p->locks_hold_ns, p->locks_think_ns);
}

static enum kprof_exit_status resources(const struct mix_params *p)
{
	return scenario_resources(p->ms);
}

static enum kprof_exit_status sched(const struct mix_params *p)
{
	return scenario_sched(p->ms);
}

struct workload {
	const char *name;
	enum kprof_exit_status (*run)(const struct mix_params *p);
};

static const struct workload workloads[] = {
	{ "profile", profile },
	{ "locks", locks },
	{ "resources", resources },
	{ "sched", sched },
};

enum kprof_exit_status scenario_mix(uint32_t ms, uint32_t locks_hold_ns, uint32_t locks_think_ns)
{
	const struct mix_params p = { .ms = ms, .locks_hold_ns = locks_hold_ns, .locks_think_ns = locks_think_ns };
	unsigned failed = 0, n = sizeof(workloads) / sizeof(workloads[0]);

	ex_resource_set_timeout(ms / 10 ? ms / 10 : 1);
	kprintf("scenario mix: %u workloads, %u ms each: profile, locks, resources, sched\n", n, ms);
	for (unsigned i = 0; i < n; i++) {
		kprintf("mix: [%u/%u] %s\n", i + 1, n, workloads[i].name);
		workload_phase(i + 1, workloads[i].name, false);
		enum kprof_exit_status status = workloads[i].run(&p);
		workload_phase(i + 1, workloads[i].name, true);
		if (status != KPROF_EXIT_SUCCESS) {
			kprintf("mix: %s: SOME CHECKS FAILED\n", workloads[i].name);
			failed++;
		}
	}
	kprintf("scenario mix: %s\n", failed ? "SOME CHECKS FAILED" : "done");
	return failed ? KPROF_EXIT_FAILURE : KPROF_EXIT_SUCCESS;
}
