/*
 * text.c - the text of `kprof compare` (compare.h): a section per kind of
 * figure with the method of its intervals, then a row per figure (A, B,
 * B - A and the interval, * when significant), each value in its unit: a
 * share as a percentage, a time in the unit its size asks for, a rate per
 * second, a field of the workload's own events as the number it is (in
 * the field's own unit, which only its name tells).
 */
#include "tools/kprof/compare/compare.h"

#include <math.h>
#include <string.h>

#include "tools/kprof/util/format.h"

static const char *const section[KP_CMP_KINDS] = {
	[KP_CMP_HOT] = "hot spots: share of the profile periods",
	[KP_CMP_CONTENTION] = "locks: contended share of the traced acquisitions (biased: sampling favours "
			      "contended ones)",
	[KP_CMP_CONTENTION_EST] = "locks: contended share estimated over all acquisitions (the report's estimate)",
	[KP_CMP_WAIT] = "locks: mean wait of the traced acquisitions that waited",
	[KP_CMP_HOLD] = "locks: mean hold of the traced acquisitions",
	[KP_CMP_LATENCY] = "scheduling latency: mean from ready to running",
	[KP_CMP_CPU] = "threads: share of the CPUs' traced time",
	[KP_CMP_NOISE] = "noise: share of each CPU's scanned time in gaps (scenario=noise)",
	[KP_CMP_TIMER_MEAN] = "timer latency: each CPU's mean lateness (scenario=noise)",
	[KP_CMP_EV_RATE] = "user events: events per second of the run (span types: slices)",
	[KP_CMP_EV_MEAN] = "user events: mean of each numeric field of the instants",
	[KP_CMP_EV_MEDIAN] = "user events: median of each numeric field of the instants",
	[KP_CMP_SPAN_MEAN] = "user events: mean length of the spans' slices",
	[KP_CMP_SPAN_MEDIAN] = "user events: median length of the spans' slices",
};

static const char *const column[KP_CMP_KINDS] = {
	[KP_CMP_HOT] = "function", [KP_CMP_CONTENTION] = "lock", [KP_CMP_CONTENTION_EST] = "lock", [KP_CMP_WAIT] = "lock", [KP_CMP_HOLD] = "lock",
	[KP_CMP_LATENCY] = "thread", [KP_CMP_CPU] = "thread", [KP_CMP_NOISE] = "cpu, pass", [KP_CMP_TIMER_MEAN] = "cpu",
	[KP_CMP_EV_RATE] = "event type",
	[KP_CMP_EV_MEAN] = "event type, field", [KP_CMP_EV_MEDIAN] = "event type, field",
	[KP_CMP_SPAN_MEAN] = "span type", [KP_CMP_SPAN_MEDIAN] = "span type",
};

const char *kp_cmp_method(const struct kp_cmp_table *t, enum kp_cmp_kind k)
{
	static const char *const median = "none within a run: a median's spread is known only over runs "
					  "(compare sets of runs)";
	static const char *const within[KP_CMP_KINDS] = {
		[KP_CMP_HOT] = "normal interval of a difference of proportions, Kish's effective n of the "
			       "Count-weighted samples",
		[KP_CMP_CONTENTION] = "normal interval of a difference of proportions of the traced acquisitions",
		[KP_CMP_CONTENTION_EST] = "normal interval of a difference of ratios of Horvitz-Thompson totals "
					  "(each share's variance by the delta method)",
		[KP_CMP_WAIT] = "normal interval of a difference of means, the traced waits' variance",
		[KP_CMP_HOLD] = "normal interval of a difference of means, the traced holds' variance",
		[KP_CMP_LATENCY] = "normal interval of a difference of means, the delays' variance",
		[KP_CMP_CPU] = "normal interval, each thread's runs a compound Poisson process (variance: "
			       "the sum of its runs' squared lengths)",
		[KP_CMP_NOISE] = "normal interval, each CPU's gaps a compound Poisson process (variance: the "
				 "kept gaps' squared lengths over the time scanned squared)",
		[KP_CMP_TIMER_MEAN] = "none within a run: the kernel keeps the lateness's sum, not its spread "
				      "(compare sets of runs)",
		[KP_CMP_EV_RATE] = "normal interval of a difference of rates, each count taken as Poisson "
				   "(variance: count / seconds^2)",
		[KP_CMP_EV_MEAN] = "normal interval of a difference of means, the values' variance",
		[KP_CMP_EV_MEDIAN] = median,
		[KP_CMP_SPAN_MEAN] = "normal interval of a difference of means, the slices' variance",
		[KP_CMP_SPAN_MEDIAN] = median,
	};
	if (t->paired && t->runs[0] > 1)
		return "paired t interval of the mean of the per-run differences (A and B are the same runs)";
	if (t->runs[0] > 1)
		return "Welch's t interval of the difference of the mean of the per-run values";
	return within[k];
}

/* v in the unit of kind k; a time in the unit of `scale` ("1.234 ms"). */
static const char *value_text(char *buf, size_t size, double v, enum kp_cmp_kind k, double scale, bool sign)
{
	static const struct { double per_s; const char *name; } units[] = {
		{ 1, "s" }, { 1e3, "ms" }, { 1e6, "us" }, { 1e9, "ns" },
	};
	size_t u = 0;

	switch (kp_cmp_unit(k)) {
	case KP_CMP_SHARE:
		snprintf(buf, size, sign ? "%+.2f%%" : "%.2f%%", 100 * v);
		return buf;
	case KP_CMP_PER_S:
	case KP_CMP_VALUE: {
		/* four significant digits of the larger side, fixed point while it fits */
		int dec = scale >= 1000 ? 0 : scale >= 100 ? 1 : scale >= 10 ? 2 : 3;
		const char *per = kp_cmp_unit(k) == KP_CMP_PER_S ? "/s" : "";
		if (scale >= 1e7)
			snprintf(buf, size, sign ? "%+.4g%s" : "%.4g%s", v, per);
		else
			snprintf(buf, size, sign ? "%+.*f%s" : "%.*f%s", dec, v, per);
		return buf;
	}
	case KP_CMP_SECONDS:
		break;
	}
	while (u + 1 < sizeof(units) / sizeof(units[0]) && scale * units[u].per_s < 1)
		u++;
	snprintf(buf, size, sign ? "%+.3f %s" : "%.3f %s", v * units[u].per_s, units[u].name);
	return buf;
}

void kp_cmp_print_rows(FILE *f, const struct kp_cmp_table *t, const struct kp_cmp_row *rows, size_t n)
{
	int kind = -1;

	for (size_t i = 0; i < n; i++) {
		const struct kp_cmp_row *r = &rows[i];
		enum kp_cmp_kind k = r->metric->kind;
		double scale = fmax(fabs(r->iv.a), fabs(r->iv.b));
		char a[32], b[32], d[32], lo[32], hi[32], iv[80];
		if ((int)k != kind) {
			kind = (int)k;
			fprintf(f, "\n%s\n", section[kind]);
			kp_wrapf(f, "  ", 0, 2, " ", "(95%% interval: %s%s)", kp_cmp_method(t, k),
				 kp_cmp_is_share(k) ? "; its limits clipped to -100%..+100%, as far as a difference of two "
						      "shares can go" : "");
			fprintf(f, "  %-32s %11s %11s %12s  %s\n", column[kind], "A", "B", "B - A", "95% interval of B - A");
		}
		if (strlen(r->metric->name) > 32) /* whole, on a line of its own, with the mark */
			fprintf(f, "%c %s\n", r->significant ? '*' : ' ', r->metric->name);
		const char *name = strlen(r->metric->name) > 32 ? "" : r->metric->name;
		if (r->ok)
			snprintf(iv, sizeof(iv), "%s .. %s", value_text(lo, sizeof(lo), r->iv.lo, k, scale, true),
				 value_text(hi, sizeof(hi), r->iv.hi, k, scale, true));
		else if (r->constant)
			snprintf(iv, sizeof(iv), "constant in A and in B: B - A exact");
		else
			snprintf(iv, sizeof(iv), "none: %s", r->why);
		fprintf(f, "%c %-32s %11s %11s %12s  %s\n", r->significant && name[0] ? '*' : ' ', name,
			r->na ? value_text(a, sizeof(a), r->iv.a, k, scale, false) : "-",
			r->nb ? value_text(b, sizeof(b), r->iv.b, k, scale, false) : "-",
			r->na && r->nb ? value_text(d, sizeof(d), r->iv.diff, k, scale, true) : "-", iv);
	}
}
