/*
 * ticketlock_keys.c - the example's command-line keys and its own rule
 * between them (WORKLOAD_KEYS), in a file of their own so that
 * `make docs WORKLOADS=examples/ticketlock` can document them beside
 * the kernel's (a cmdline.md in the build folder).
 */
#include "kernel/workloads/api/keys.h"

#include "ticketlock_keys.h"

static struct ticketlock_config parsed_config;
const struct ticketlock_config *const ticketlock_config = &parsed_config;

static const struct ticketlock_config defaults = { .ms = 500, .threads = 0, .hold_ns = 200, .think_ns = 1000 };

#define FIELD(f) .offset = offsetof(struct ticketlock_config, f)
#define USED_BY "scenario=ticketlock"
static const struct cmdline_key keys[] = {
	{ .name = "ticketlock.ms", .type = CMDLINE_UINT, FIELD(ms), .min = 50, .max = 600000, .used_by = USED_BY,
	  .help = "how long each lock's phase runs, ms" },
	{ .name = "ticketlock.threads", .type = CMDLINE_UINT, FIELD(threads), .min = 1,
	  .max = TICKETLOCK_MAX_THREADS, .special = "cpus", .used_by = USED_BY,
	  .help = "contending threads, pinned round-robin (cpus: one per CPU)" },
	{ .name = "ticketlock.hold_ns", .type = CMDLINE_UINT, FIELD(hold_ns), .min = 0, .max = 1000000,
	  .used_by = USED_BY, .help = "how long a lock is held, ns" },
	{ .name = "ticketlock.think_ns", .type = CMDLINE_UINT, FIELD(think_ns), .min = 0, .max = 1000000,
	  .used_by = USED_BY, .help = "time between acquisitions, ns" },
};

/* Its own rule: each thread gets at least 100 turns in a phase. */
static const char *check(const void *c, char *buf, size_t size)
{
	const struct ticketlock_config *k = c;
	uint64_t turn = (uint64_t)k->hold_ns + k->think_ns, room = (uint64_t)k->ms * 1000000;
	if (turn * 100 <= room)
		return NULL;
	ksnprintf(buf, size, "cmdline: ticketlock.hold_ns=%u + ticketlock.think_ns=%u leave fewer than 100 "
		  "acquisitions per thread in ticketlock.ms=%u; accepted: hold_ns + think_ns <= ms * 10000",
		  k->hold_ns, k->think_ns, k->ms);
	return buf;
}

WORKLOAD_KEYS(ticketlock, keys, &parsed_config, &defaults, check);
