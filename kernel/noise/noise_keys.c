/*
 * noise_keys.c - scenario=noise's keys (noise.ms, noise.window_ms,
 * noise.width_ms, noise.threshold_ns, noise.timer_us) and its rule between them: the
 * interrupts-off width is shorter than the window, as hwlat's is.
 * Defaults (docs/noise.md): windows of 100 ms, 50 off, threshold 10 us,
 * one second a pass; hwlat's are 1000/500 ms and 10 us.
 */
#include "kernel/workloads/api/keys.h"

#include "kernel/noise/noise_keys.h"

static struct noise_config parsed_config;
const struct noise_config *const noise_config = &parsed_config;

static const struct noise_config defaults = { .ms = 1000, .window_ms = 100, .width_ms = 50, .threshold_ns = 10000,
					      .timer_us = 1000 };

#define FIELD(f) .offset = offsetof(struct noise_config, f)
#define USED_BY "scenario=noise"
static const struct cmdline_key keys[] = {
	{ .name = "noise.ms", .type = CMDLINE_UINT, FIELD(ms), .min = 10, .max = 600000, .used_by = USED_BY,
	  .help = "how long each pass runs, ms (at least one window)" },
	{ .name = "noise.window_ms", .type = CMDLINE_UINT, FIELD(window_ms), .min = 2, .max = 10000,
	  .used_by = USED_BY, .help = "one window, ms: width_ms with interrupts off, the rest on" },
	{ .name = "noise.width_ms", .type = CMDLINE_UINT, FIELD(width_ms), .min = 1, .max = 9999,
	  .used_by = USED_BY, .help = "the part of each window read with interrupts off, ms" },
	{ .name = "noise.threshold_ns", .type = CMDLINE_UINT, FIELD(threshold_ns), .min = 100, .max = 100000000,
	  .used_by = USED_BY, .help = "a gap between two clock reads longer than this is noise, ns" },
	{ .name = "noise.timer_us", .type = CMDLINE_UINT, FIELD(timer_us), .min = 50, .max = 1000000,
	  .used_by = USED_BY, .help = "the timer latency pass: each CPU's timer every this many us" },
};

static const char *check(const void *c, char *buf, size_t size)
{
	const struct noise_config *k = c;
	if (k->width_ms < k->window_ms)
		return NULL;
	ksnprintf(buf, size, "cmdline: noise.width_ms=%u is not below noise.window_ms=%u; accepted: "
		  "width_ms < window_ms (the rest of each window has interrupts on)", k->width_ms, k->window_ms);
	return buf;
}

WORKLOAD_KEYS(noise, keys, &parsed_config, &defaults, check);
