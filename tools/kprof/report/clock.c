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

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

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

/* Median cycles per profile period between consecutive ProfileTime
 * samples of a CPU; 0 without two of them. */
static uint64_t seen_interval(const struct kp_model *m)
{
	uint64_t *v = kp_xcalloc(m->samples ? m->samples : 1, sizeof(*v)), med = 0;
	size_t n = 0;

	for (uint32_t i = 0; i < m->ncpus; i++) {
		const struct kp_model_cpu *c = &m->cpu[i];
		const struct kp_sample *prev = NULL;
		for (size_t k = 0; k < c->nsamples; k++) {
			const struct kp_sample *s = &c->samples[k];
			if (s->pmc)
				continue;
			if (prev && s->count && s->ts > prev->ts)
				v[n++] = (s->ts - prev->ts) / s->count;
			prev = s;
		}
	}
	if (n) {
		qsort(v, n, sizeof(*v), kp_cmp_u64s);
		med = v[(n - 1) / 2];
	}
	free(v);
	return med;
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
	if ((seen = r->m->hz > 0 ? seen_interval(r->m) : 0))
		snprintf(line + len, sizeof(line) - len, "; seen between samples: %s per period (median)",
			 kp_report_time(r->log, seen, t, sizeof(t)));
	kp_wrap(f, "clock", 10, 10, " ", line);
}
