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
#include "tools/kprof/util/alloc.h"

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

/* The reader of the seen interval (walk.c): each CPU's ProfileTime
 * samples in time order, the cycles per period between one and the next
 * into the order statistics (exact, in bounded memory: the log read again
 * when it has more than they keep); the median, 0 without two samples. */
struct seen_reader {
	struct kp_report_stats st;
	struct seen_prev {
		uint64_t ts;          /* per CPU: its last sample's stamp      */
		bool have;            /* ... once it has had one               */
	} *prev;
	uint32_t ncpus;
	bool counting;
	uint64_t *seen;
};

static void seen_take(void *ctx, const struct kp_record *r, uint16_t kind)
{
	struct seen_reader *x = ctx;
	struct kp_sample s;

	if (kind != PERFINFO_LOG_TYPE_SAMPLED_PROFILE || r->cpu >= x->ncpus)
		return;
	kp_sample_of(r, &s);
	struct seen_prev *prev = &x->prev[r->cpu];
	if (prev->have && s.count && s.ts > prev->ts)
		(x->counting ? kp_quantiles_count : kp_quantiles_add)(x->st.q, x->st.space, 0, (s.ts - prev->ts) / s.count, 1);
	*prev = (struct seen_prev){ s.ts, true };
}

static void seen_begin(void *ctx, const struct kp_report_stats *st, bool first)
{
	struct seen_reader *x = ctx;

	x->st = *st;
	x->counting = first;
	memset(x->prev, 0, x->ncpus * sizeof(*x->prev));
}

static void seen_finish(void *ctx)
{
	struct seen_reader *x = ctx;
	struct kp_quantile_result r;

	kp_quantiles_get(x->st.q, x->st.space, 0, &r);
	*x->seen = r.median;
	free(x->prev);
	free(x);
}

void kp_seen_interval_reader(const struct kp_report *rp, uint64_t *seen, struct kp_report_reader *out)
{
	struct seen_reader *x = kp_xcalloc(1, sizeof(*x));

	*x = (struct seen_reader){ .ncpus = rp->log->ncpus, .seen = seen,
				   .prev = kp_xcalloc(rp->log->ncpus + 1, sizeof(*x->prev)) };
	*out = (struct kp_report_reader){ x, seen_begin, seen_take, seen_finish };
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
	if ((seen = r->cache->seen)) /* gathered (walk.c); 0 without a TSC rate or two samples */
		snprintf(line + len, sizeof(line) - len, "; seen between samples: %s per period (median)",
			 kp_report_time(r->log, seen, t, sizeof(t)));
	kp_wrap(f, "clock", 10, 10, " ", line);
}
