/*
 * mix.c - scenario=mix, the default of `make run`: every
 * workload in turn, each for mix.ms milliseconds, so one short run gives
 * the report something in every section: profile (hot functions and the
 * profile objects), locks (contended spin locks), resources (ERESOURCE
 * waits and time-outs) and sched (threads, switches, wait reasons).
 *
 * Each workload is found by its name in the registry and run through its
 * descriptor with mix.ms as its duration (so locks.ms and friends do not
 * apply under mix; locks.hold_ns and think_ns do), and the ERESOURCE excessive-wait interval is set
 * to a tenth of it (ex_resource_set_timeout), so that time-outs happen
 * within the run.  The run fails if any workload's checks fail, and says
 * which.  Each workload is a phase (phase.h): KprofPhase records with
 * index i + 1 mark its start and end in the trace.
 */
#include "kernel/console/console.h"
#include "kernel/ex/resource.h"
#include "kernel/workloads/api/descriptor.h"
#include "kernel/workloads/phase.h"
#include "kernel/workloads/scenario.h"
#include "kernel/workloads/workload_keys.h"

/* The workloads of the mix, by name: each is found in the registry and
 * run through its own descriptor. */
static const char *const mixed[] = { "profile", "locks", "resources", "sched" };

static enum kprof_exit_status scenario_mix(uint32_t ms)
{
	const struct workload_run r = { .ms = ms, .in_mix = true };
	unsigned failed = 0, n = sizeof(mixed) / sizeof(mixed[0]);

	ex_resource_set_timeout(ms / 10 ? ms / 10 : 1);
	kprintf("scenario mix: %u workloads, %u ms each: profile, locks, resources, sched\n", n, ms);
	for (unsigned i = 0; i < n; i++) {
		const struct workload *w = workload_find(mixed[i]);
		kprintf("mix: [%u/%u] %s\n", i + 1, n, mixed[i]);
		if (!w) {
			kprintf("mix: %s: not built into this kernel: SOME CHECKS FAILED\n", mixed[i]);
			failed++;
			continue;
		}
		workload_phase(i + 1, w->name, false);
		enum kprof_exit_status status = w->run(&r);
		workload_phase(i + 1, w->name, true);
		if (status != KPROF_EXIT_SUCCESS) {
			kprintf("mix: %s: SOME CHECKS FAILED\n", w->name);
			failed++;
		}
	}
	kprintf("scenario mix: %s\n", failed ? "SOME CHECKS FAILED" : "done");
	return failed ? KPROF_EXIT_FAILURE : KPROF_EXIT_SUCCESS;
}

static enum kprof_exit_status run(const struct workload_run *r)
{
	return scenario_mix(workload_config->mix_ms);
}

WORKLOAD_DEFINE(mix, .name = "mix", .description = "every workload in turn (make run's default)", .run = run);
