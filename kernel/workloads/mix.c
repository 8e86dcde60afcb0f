/*
 * mix.c - scenario=mix, the default of `make run`: every
 * workload in turn, each for mix.ms milliseconds, so one short run gives
 * the report something in every section: profile (hot functions and the
 * profile objects), locks (contended spin locks), resources (ERESOURCE
 * waits and time-outs) and sched (threads, switches, wait reasons).
 *
 * Each workload reads its duration from kconfig; mix sets them to mix.ms
 * (so locks.ms and friends do not apply under mix) and the ERESOURCE
 * excessive-wait interval to a tenth of it, so that time-outs happen
 * within the run.  The run fails if any workload's checks fail, and says
 * which.  Each workload is a phase (phase.h): KprofPhase records with
 * index i + 1 mark its start and end in the trace.
 */
#include "kernel/console/console.h"
#include "kernel/workloads/phase.h"
#include "kernel/workloads/scenario.h"

#include "kernel/init/config.h"

struct workload {
	const char *name;
	enum kprof_exit_status (*run)(void);
};

static const struct workload workloads[] = {
	{ "profile", scenario_profile_quick },
	{ "locks", scenario_locks },
	{ "resources", scenario_resources },
	{ "sched", scenario_sched },
};

enum kprof_exit_status scenario_mix(void)
{
	unsigned failed = 0, n = sizeof(workloads) / sizeof(workloads[0]);

	kconfig.profile_ms = kconfig.locks_ms = kconfig.resources_ms = kconfig.sched_ms = kconfig.mix_ms;
	kconfig.resource_timeout_ms = kconfig.mix_ms / 10 ? kconfig.mix_ms / 10 : 1;
	kprintf("scenario mix: %u workloads, %u ms each: profile, locks, resources, sched\n", n, kconfig.mix_ms);
	for (unsigned i = 0; i < n; i++) {
		kprintf("mix: [%u/%u] %s\n", i + 1, n, workloads[i].name);
		workload_phase(i + 1, workloads[i].name, false);
		enum kprof_exit_status status = workloads[i].run();
		workload_phase(i + 1, workloads[i].name, true);
		if (status != KPROF_EXIT_SUCCESS) {
			kprintf("mix: %s: SOME CHECKS FAILED\n", workloads[i].name);
			failed++;
		}
	}
	kprintf("scenario mix: %s\n", failed ? "SOME CHECKS FAILED" : "done");
	return failed ? KPROF_EXIT_FAILURE : KPROF_EXIT_SUCCESS;
}
