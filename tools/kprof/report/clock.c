/*
 * clock.c - the report header's "clock" line: the clock tick and the
 * profile interval the run used, so that every count of ticks or samples
 * can be read as time.  The kernel does not send them in the run header,
 * so they come from the command line (tick_hz=, profile.interval=), else
 * the kernel's defaults (docs/cmdline.md: 100 Hz; 10000 units of 100 ns),
 * and the line says which.  When the trace has SampledProfile records the
 * interval actually seen is given too: the median, over every CPU's
 * consecutive samples, of their distance divided by the later sample's
 * Count (the periods it stands for), which shows a late or stretched
 * profile clock (a VM's) for what it is.
 */
#include "tools/kprof/report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/report/quantiles.h"

#define DEFAULT_TICK_HZ 100
#define DEFAULT_PROFILE_INTERVAL 10000 /* 100 ns units: 1 ms */

/* The value of `key=` (a whole word) in the command line; false without. */
static bool cmdline_value(const char *cmdline, const char *key, uint64_t *v)
{
	size_t n = strlen(key);

	for (const char *p = cmdline; (p = strstr(p, key)); p += n) {
		if ((p == cmdline || p[-1] == ' ') && p[n] == '=') {
			char *end;
			unsigned long long x = strtoull(p + n + 1, &end, 10);
			if (end != p + n + 1 && (*end == ' ' || !*end)) {
				*v = x;
				return true;
			}
		}
	}
	return false;
}

/* Each CPU's ProfileTime samples from the log, in time order: the cycles
 * per period between one and the next, to q (counting, or adding in a
 * reading). */
static void intervals(struct kp_log *log, struct kp_quantiles *q, bool count)
{
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor cur;
		struct kp_record r;
		struct kp_sample s, prev;
		bool have = false;

		kp_cursor_init(&cur, log, cpu);
		while (kp_cursor_next(&cur, &r)) {
			if (kp_model_kind(&r) != PERFINFO_LOG_TYPE_SAMPLED_PROFILE)
				continue;
			kp_sample_of(&r, &s);
			if (have && s.count && s.ts > prev.ts)
				(count ? kp_quantiles_count : kp_quantiles_add)(q, 0, (s.ts - prev.ts) / s.count, 1);
			prev = s, have = true;
		}
	}
}

/* Median cycles per profile period between consecutive ProfileTime
 * samples of a CPU; 0 without two of them.  Exact, in bounded memory
 * (quantiles.h: the log read again when it has more than it keeps). */
static uint64_t seen_interval(struct kp_log *log)
{
	struct kp_quantiles *q = kp_quantiles_new();
	struct kp_quantile_result r;

	intervals(log, q, true);
	while (kp_quantiles_replay(q))
		intervals(log, q, false);
	kp_quantiles_get(q, 0, &r);
	kp_quantiles_free(q);
	return r.median;
}

void kp_report_clock(FILE *f, const struct kp_report *r)
{
	const char *cmdline = r->log->have_header ? r->log->cmdline : "";
	uint64_t tick = DEFAULT_TICK_HZ, interval = DEFAULT_PROFILE_INTERVAL, seen;
	bool tick_set = cmdline_value(cmdline, "tick_hz", &tick) && tick;
	bool interval_set = cmdline_value(cmdline, "profile.interval", &interval) && interval;
	char line[400], t[32];
	size_t len;

	if (!tick_set)
		tick = DEFAULT_TICK_HZ;
	if (!interval_set)
		interval = DEFAULT_PROFILE_INTERVAL;
	len = (size_t)snprintf(line, sizeof(line),
			       "tick %" PRIu64 " Hz (%" PRIu64 ".%03" PRIu64 " ms; %s), profile interval %" PRIu64
			       " x 100 ns = %" PRIu64 ".%03" PRIu64 " ms (%s)",
			       tick, 1000 / tick, 1000000 / tick % 1000, tick_set ? "tick_hz=" : "the default",
			       interval, interval / 10000, interval / 10 % 1000,
			       interval_set ? "profile.interval=" : "the default");
	if (r->cache && r->cache->have_seen) {
		seen = r->cache->seen;
	} else {
		seen = r->m->hz > 0 ? seen_interval(r->log) : 0;
		if (r->cache)
			r->cache->seen = seen, r->cache->have_seen = true;
	}
	if (seen)
		snprintf(line + len, sizeof(line) - len, "; seen between samples: %s per period (median)",
			 kp_report_time(r->log, seen, t, sizeof(t)));
	kp_wrap(f, "clock", 10, 10, " ", line);
}
