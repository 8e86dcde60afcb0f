/*
 * pingpong.c - the smallest example workload built from outside the tree
 * (make run WORKLOADS="examples/ticketlock examples/pingpong"
 * SCENARIO=pingpong): two threads on different CPUs hand a turn back and
 * forth through two synchronization events, pingpong.rounds times, and
 * the console gives the round trip (a wake-up on each CPU), as
 * KprofPhase-bounded waits and context switches in the trace.
 *
 * Checked: every round completes (the waits do not time out).
 *
 * Uses only the workload API (kernel/workloads/api/workload.h).
 */
#include "kernel/workloads/api/workload.h"

struct pingpong_config {
	uint32_t rounds;
};

static struct pingpong_config config;
static const struct pingpong_config defaults = { .rounds = 2000 };

static const struct cmdline_key keys[] = {
	{ .name = "pingpong.rounds", .type = CMDLINE_UINT, .offset = offsetof(struct pingpong_config, rounds),
	  .min = 1, .max = 1000000, .used_by = "scenario=pingpong", .help = "round trips between the two threads" },
};

WORKLOAD_KEYS(pingpong, keys, &config, &defaults, NULL);

#define TIMEOUT_US 1000000 /* a round that takes a second is lost */

static KEVENT ping, pong;
static uint32_t missed;

static void ponger(void *context)
{
	uint32_t rounds = *(const uint32_t *)context;
	for (uint32_t i = 0; i < rounds; i++) {
		if (ke_wait_for_single_object(&ping, Executive, KernelMode, TIMEOUT_US) != STATUS_SUCCESS)
			missed++;
		ke_set_event(&pong, IO_NO_INCREMENT, false);
	}
}

static enum kprof_exit_status run(const struct workload_run *r)
{
	uint32_t rounds = r->in_mix ? 100 : config.rounds;
	struct workload_samples trip;
	KAFFINITY_EX other;

	missed = 0;
	ke_initialize_event(&ping, SynchronizationEvent, false);
	ke_initialize_event(&pong, SynchronizationEvent, false);
	affinity_clear_all(&other);
	affinity_add(&other, ke_number_processors > 1 ? 1 : 0);
	workload_samples_init(&trip, rounds);
	KTHREAD *t = ps_create_system_thread(NULL, ponger, &rounds, 12, &other, "pong");
	for (uint32_t i = 0; t && i < rounds; i++) {
		uint64_t start = workload_cycles();
		ke_set_event(&ping, IO_NO_INCREMENT, false);
		if (ke_wait_for_single_object(&pong, Executive, KernelMode, TIMEOUT_US) != STATUS_SUCCESS)
			missed++;
		workload_samples_add(&trip, workload_cycles_to_ns(workload_cycles() - start));
	}
	if (t)
		ke_wait_for_single_object(t, Executive, KernelMode, KE_WAIT_FOREVER);
	struct workload_summary sum = workload_samples_summary(&trip);
	workload_print_summary("pingpong: round trip", "ns", &sum);
	workload_samples_free(&trip);
	bool ok = t && !missed;
	kprintf("pingpong: %s (%u rounds, %u missed)\n", ok ? "done" : "SOME CHECKS FAILED", rounds, missed);
	return ok ? KPROF_EXIT_SUCCESS : KPROF_EXIT_FAILURE;
}

WORKLOAD_DEFINE(pingpong, .name = "pingpong", .description = "two threads hand a turn back and forth by events",
		.run = run);
