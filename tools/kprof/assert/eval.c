/*
 * eval.c - a rule measured on one run (rules.h), from the figures the
 * report prints (metrics/metrics.h):
 *
 *   the run     lost (every record lost: dropped by the kernel, not in
 *               the trace file, lost on the link), damaged (frames with
 *               problems), records, switches, samples (ProfileTime),
 *               duration (first record to last)
 *   lock        traced, contended traced (a count, or with % the share
 *               of the traced: sampling traces contended acquisitions
 *               more often, so this share is biased toward them),
 *               contended est (the estimate over all acquisitions, a
 *               count or with % the share of the estimated acquisitions,
 *               shown with its 95% interval: report/interval.c), spins,
 *               acquisitions (the estimate), wait total / median / pNN /
 *               max, hold median / pNN / max: the Spin locks section's
 *               figures
 *   thread      cpu (a time, or with % the share of the CPUs' time), stalled, in,
 *               vol, invol (Threads); latency count / total / avg / max
 *               (Scheduling latency); threads of one name are summed (max:
 *               the largest)
 *   samples     a function's samples (the samples column), or with % its
 *               share of the profile periods (the % column)
 *   event       count: events of a type the workload declared ("TYPE
 *               [FIELD=value]": those with that value of an enumeration)
 *   field       mean / median / pNN / min / max of a numeric field of
 *               those events (nearest rank), a number in the field's unit
 *   span        count / mean / median / pNN / min / max of the lengths of
 *               a span type's slices (metrics/events.c pairs them as the
 *               report does; an End before its Begin is no slice), times
 *   cpu         busy, idle, stalled, no-trace shares and switches (CPUs);
 *               without a number, all CPUs with CSwitch records together
 *
 * A rule that cannot be measured on the run is an ERROR with the reason:
 * a name not in it (with the near matches), a lock that never waited for
 * a wait statistic, losses not known, no TSC rate for a time, no symbols
 * for a function.
 */
#include "tools/kprof/assert/rules.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/noise/noise.h"
#include "tools/kprof/metrics/metrics.h"
#include "tools/kprof/read/user_types.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

enum {
	M_LOST, M_DAMAGED, M_RECORDS, M_SWITCHES, M_SAMPLES, M_DURATION,
	L_TRACED, L_CONTENDED, L_CONTENDED_EST, L_SPINS, L_ACQ, L_WAIT_TOTAL, L_WAIT_MEDIAN, L_WAIT_P99, L_WAIT_MAX, L_HOLD_MEDIAN,
	L_HOLD_P99, L_HOLD_MAX,
	T_CPU, T_STALLED, T_IN, T_VOL, T_INVOL, T_LAT_COUNT, T_LAT_TOTAL, T_LAT_AVG, T_LAT_MAX,
	F_SAMPLES, E_COUNT, C_BUSY, C_IDLE, C_STALLED, C_NO_TRACE, C_SWITCHES,
	V_MEAN, V_MEDIAN, V_P99, V_MIN, V_MAX,
	S_COUNT, S_MEAN, S_MEDIAN, S_P99, S_MIN, S_MAX,
	N_MAX, N_TOTAL, N_GAPS, N_CORRELATED, N_PER_SECOND, N_SCANNED,
	TM_P99, TM_MAX, TM_MEAN, TM_WAKEUPS, TM_MISSED,
};

#define C KP_KIND_COUNT
#define T KP_KIND_TIME
#define S KP_KIND_SHARE
static const struct kp_measure_def metric_defs[] = {
	{ "lost", C, M_LOST }, { "damaged", C, M_DAMAGED }, { "records", C, M_RECORDS },
	{ "switches", C, M_SWITCHES }, { "samples", C, M_SAMPLES }, { "duration", T, M_DURATION }, { NULL, 0, 0 },
};
static const struct kp_measure_def lock_defs[] = {
	{ "traced", C, L_TRACED }, { "contended traced", C | S, L_CONTENDED },
	{ "contended est", C | S, L_CONTENDED_EST }, { "spins", C, L_SPINS },
	{ "acquisitions", C, L_ACQ }, { "wait total", T, L_WAIT_TOTAL }, { "wait median", T, L_WAIT_MEDIAN },
	{ "wait p99", T, L_WAIT_P99 }, { "wait max", T, L_WAIT_MAX }, { "hold median", T, L_HOLD_MEDIAN },
	{ "hold p99", T, L_HOLD_P99 }, { "hold max", T, L_HOLD_MAX }, { NULL, 0, 0 },
};
static const struct kp_measure_def thread_defs[] = {
	{ "cpu", T | S, T_CPU }, { "stalled", T, T_STALLED }, { "in", C, T_IN }, { "vol", C, T_VOL },
	{ "invol", C, T_INVOL }, { "latency count", C, T_LAT_COUNT }, { "latency total", T, T_LAT_TOTAL },
	{ "latency avg", T, T_LAT_AVG }, { "latency max", T, T_LAT_MAX }, { NULL, 0, 0 },
};
static const struct kp_measure_def samples_defs[] = { { "", C | S, F_SAMPLES }, { NULL, 0, 0 } };
static const struct kp_measure_def event_defs[] = { { "count", C, E_COUNT }, { NULL, 0, 0 } };
static const struct kp_measure_def field_defs[] = {
	{ "mean", C, V_MEAN }, { "median", C, V_MEDIAN }, { "p99", C, V_P99 }, { "min", C, V_MIN },
	{ "max", C, V_MAX }, { NULL, 0, 0 },
};
static const struct kp_measure_def span_defs[] = {
	{ "count", C, S_COUNT }, { "mean", T, S_MEAN }, { "median", T, S_MEDIAN }, { "p99", T, S_P99 },
	{ "min", T, S_MIN }, { "max", T, S_MAX }, { NULL, 0, 0 },
};
static const struct kp_measure_def cpu_defs[] = {
	{ "busy", S, C_BUSY }, { "idle", S, C_IDLE }, { "stalled", S, C_STALLED }, { "no-trace", S, C_NO_TRACE },
	{ "switches", C, C_SWITCHES }, { NULL, 0, 0 },
};
static const struct kp_measure_def noise_defs[] = {
	{ "max", T, N_MAX }, { "total", T, N_TOTAL }, { "gaps", C, N_GAPS }, { "correlated", C, N_CORRELATED },
	{ "per second", S, N_PER_SECOND }, { "scanned", T, N_SCANNED }, { NULL, 0, 0 },
};
static const struct kp_measure_def timer_defs[] = {
	{ "latency p99", T, TM_P99 }, { "latency max", T, TM_MAX },
	{ "latency mean", T, TM_MEAN }, { "wake-ups", C, TM_WAKEUPS }, { "missed", C, TM_MISSED }, { NULL, 0, 0 },
};
#undef C
#undef T
#undef S

const struct kp_measure_def *kp_rule_measures(enum kp_subject s)
{
	static const struct kp_measure_def *const defs[] = {
		[KP_SUBJ_METRIC] = metric_defs, [KP_SUBJ_LOCK] = lock_defs, [KP_SUBJ_THREAD] = thread_defs,
		[KP_SUBJ_SAMPLES] = samples_defs, [KP_SUBJ_EVENT] = event_defs, [KP_SUBJ_CPU] = cpu_defs,
		[KP_SUBJ_FIELD] = field_defs, [KP_SUBJ_SPAN] = span_defs, [KP_SUBJ_NOISE] = noise_defs,
		[KP_SUBJ_TIMER] = timer_defs,
	};
	return defs[s];
}

const char *kp_op_text(enum kp_op op)
{
	static const char *const text[] = { "<", "<=", ">", ">=", "==", "!=" };
	return text[op];
}

/* What was measured: a count, cycles, part of whole, or a field's value. */
struct figure {
	unsigned kind;
	uint64_t count, cycles, part, whole;
	bool is_value;
	double value;
	size_t values;
	bool in_ns;                   /* a time the kernel gave in ns: ns, not cycles */
	uint64_t ns;
	char note[120];               /* after the measured value: an interval     */
};

static bool error(struct kp_outcome *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool error(struct kp_outcome *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
	o->verdict = KP_ERROR;
	return false;
}

static bool metric(const struct kp_rule *r, const struct kp_runlog *run, struct figure *f, struct kp_outcome *o)
{
	char why[300];

	switch (r->measure->id) {
	case M_LOST:
		return kp_run_lost(run, &f->count, why, sizeof(why)) || error(o, "records lost: %s", why);
	case M_DAMAGED: f->count = run->log.nissues; return true;
	case M_RECORDS: f->count = run->totals.records; return true;
	case M_SWITCHES: f->count = run->m.switches; return true;
	case M_SAMPLES: f->count = run->hot_all.count; return true;
	case M_DURATION: {
		bool any = false;
		uint64_t first = 0, last = 0;
		for (uint32_t i = 0; i < run->m.ncpus; i++)
			if (run->m.cpu[i].any) {
				first = any && first < run->m.cpu[i].first ? first : run->m.cpu[i].first;
				last = any && last > run->m.cpu[i].last ? last : run->m.cpu[i].last;
				any = true;
			}
		f->cycles = last - first;
		return any || error(o, "no records in the log");
	}
	}
	return error(o, "internal: metric %d", r->measure->id);
}

/* A wait statistic of a lock none of whose traced acquisitions waited. */
static bool lock_stat(const struct kp_stats *s, uint64_t v, struct figure *f, const struct kp_rule *r,
		      struct kp_outcome *o)
{
	f->cycles = v;
	return s->n || error(o, "lock \"%s\": no traced acquisition waited, so it has no %s", r->name, r->measure->name);
}

/* The rule's percentile of the waits (of those that waited) or of the
 * holds of recs[0..n), nearest rank as the report's p99; v: room for n. */
static uint64_t lock_pct(const struct kp_rule *r, const struct kp_lock_rec *recs, size_t n, uint64_t *v, bool wait)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!wait || recs[i].wait)
			v[k++] = wait ? recs[i].wait : recs[i].hold;
	if (!k)
		return 0;
	kp_sort(v, k, sizeof(*v), kp_cmp_u64s);
	return v[kp_nearest_rank_of(k, r->pct_num, r->pct_scale)];
}

static bool lock(const struct kp_rule *r, const struct kp_runlog *run, struct figure *f, struct kp_outcome *o)
{
	struct kp_lock_rec *recs;
	struct kp_lock_group g = { 0 };
	char near[400];
	size_t n;
	bool ok = true;

	if (!run->nlocks)
		return error(o, "no SpinLock records in the log (spin-lock tracing is trace=spinlock)");
	if (!kp_run_lock(run, r->name, &recs, &n, near, sizeof(near)))
		return error(o, "no lock \"%s\" in the log's SpinLock records%s%s", r->name,
			     near[0] ? "; near: " : " (locks are named as the report names them: the kernel's name, "
						    "or the address 0x...)", near);
	uint64_t *v = calloc(n, sizeof(*v));
	struct kp_weighted *vw = calloc(n, sizeof(*vw));
	kp_lock_summarise(&g, recs, n, v, vw);
	switch (r->measure->id) {
	case L_TRACED: f->count = g.traced; break;
	case L_CONTENDED: f->count = g.contended, f->part = g.contended, f->whole = g.traced; break;
	case L_CONTENDED_EST: {
		double var, lo, hi, share = kp_lock_est_share((double)g.est_acq, (double)g.est_cont, g.var_acq,
							       g.var_cont, &var);
		kp_share_interval(share, var, &lo, &hi);
		f->count = g.est_cont, f->part = g.est_cont, f->whole = g.est_acq;
		if (r->kind == KP_KIND_SHARE)
			snprintf(f->note, sizeof(f->note), ", estimated over all acquisitions; 95%% interval %.2f%%..%.2f%% "
				 "(delta method, clipped to 0..100%%)", 100 * lo, 100 * hi);
		break;
	}
	case L_SPINS: f->count = g.spins; break;
	case L_ACQ: f->count = g.est_acq; break;
	case L_WAIT_TOTAL: f->cycles = g.wait_total; break;
	case L_WAIT_MEDIAN: ok = lock_stat(&g.wait, g.wait.median, f, r, o); break;
	case L_WAIT_P99: ok = lock_stat(&g.wait, lock_pct(r, recs, n, v, true), f, r, o); break;
	case L_WAIT_MAX: ok = lock_stat(&g.wait, g.wait.max, f, r, o); break;
	case L_HOLD_MEDIAN: f->cycles = g.hold.median; break;
	case L_HOLD_P99: f->cycles = lock_pct(r, recs, n, v, false); break;
	case L_HOLD_MAX: f->cycles = g.hold.max; break;
	}
	free(v);
	free(vw);
	free(recs);
	return ok;
}

static bool thread(const struct kp_rule *r, const struct kp_runlog *run, struct figure *f, struct kp_outcome *o)
{
	const struct kp_model_thread **t = calloc(run->m.nthreads ? run->m.nthreads : 1, sizeof(*t));
	char near[400], who[160];
	size_t n = kp_run_threads(run, r->name, r->by_id, r->id, t, near, sizeof(near));
	uint64_t lat_n = 0;

	if (r->by_id)
		snprintf(who, sizeof(who), "thread %u", r->id);
	else
		snprintf(who, sizeof(who), "thread \"%s\"", r->name);
	if (!n) {
		free(t);
		return error(o, "no %s in the log%s%s", who, near[0] ? (r->by_id ? ": " : "; near: ") : "", near);
	}
	f->whole = (uint64_t)run->m.switching_cpus * (run->m.end - run->m.begin);
	for (size_t i = 0; i < n; i++) {
		const struct kp_latency *l = &t[i]->lat;
		f->part += t[i]->cycles;
		switch (r->measure->id) {
		case T_CPU: f->cycles += t[i]->cycles; break;
		case T_STALLED: f->cycles += t[i]->stalled; break;
		case T_IN: f->count += t[i]->in; break;
		case T_VOL: f->count += t[i]->out - t[i]->out_ready; break;
		case T_INVOL: f->count += t[i]->out_ready; break;
		case T_LAT_COUNT: f->count += l->n; break;
		case T_LAT_TOTAL: case T_LAT_AVG: f->cycles += l->total; break;
		case T_LAT_MAX: f->cycles = l->n && l->max > f->cycles ? l->max : f->cycles; break;
		}
		lat_n += l->n;
	}
	free(t);
	if (r->measure->id == T_STALLED && !run->m.stall_records)
		return error(o, "%s: stalls are not known: the run did not trace=clock", who);
	if (r->measure->id >= T_LAT_TOTAL && r->measure->id <= T_LAT_MAX && !lat_n)
		return error(o, "%s never went from ready to running in the trace, so it has no %s", who,
			     r->measure->name);
	if (r->measure->id == T_LAT_AVG)
		f->cycles /= lat_n;
	return true;
}

static bool samples(const struct kp_rule *r, const struct kp_runlog *run, struct figure *f, struct kp_outcome *o)
{
	struct kp_hot_row row;
	char near[400];

	if (!run->syms)
		return error(o, "samples \"%s\" needs the kernel's symbols: give --kernel ELF", r->name);
	if (!kp_run_function(run, r->name, &row, near, sizeof(near)))
		return error(o, "no function \"%s\" in the kernel's symbols%s%s", r->name, near[0] ? "; near: " : "", near);
	if (!run->hot_all.count)
		return error(o, "no ProfileTime samples in the log (trace=profile)");
	f->count = row.count;
	f->part = row.weight;
	f->whole = run->hot_all.weight;
	return true;
}

/* An event type the workload declared (read/user_types.c), or its events
 * with one value of an enumeration field (metrics/events.c): its events
 * decoded, every phase. */
static bool event(const struct kp_rule *r, const struct kp_runlog *run, struct figure *f, struct kp_outcome *o)
{
	struct kp_event_sel sel;
	char why[sizeof(o->why)];

	if (!kp_run_event_sel(run, r->name, &sel, why, sizeof(why)))
		return error(o, "%s", why);
	f->count = kp_run_event_count(run, &sel);
	return true;
}

/* A numeric field of those events: a statistic of its values (nearest
 * rank, as the report's). */
static bool field(const struct kp_rule *r, const struct kp_runlog *run, struct figure *f, struct kp_outcome *o)
{
	struct kp_event_sel sel;
	char why[sizeof(o->why)];
	double *v, sum = 0;
	size_t n;

	if (!kp_run_event_sel(run, r->name, &sel, why, sizeof(why)) ||
	    !(n = kp_run_event_values(run, &sel, r->field, &v, why, sizeof(why))))
		return error(o, "%s", why);
	kp_sort(v, n, sizeof(*v), kp_cmp_doubles);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	f->is_value = true;
	f->values = n;
	switch (r->measure->id) {
	case V_MEAN: f->value = sum / (double)n; break;
	case V_MEDIAN: f->value = v[kp_nearest_rank(n, 50)]; break;
	case V_P99: f->value = v[kp_nearest_rank_of(n, r->pct_num, r->pct_scale)]; break;
	case V_MIN: f->value = v[0]; break;
	case V_MAX: f->value = v[n - 1]; break;
	}
	free(v);
	return true;
}

/* The lengths of a span type's slices (with [FIELD=value]: those whose
 * Begin has it): a statistic of them, in cycles. */
static bool span(const struct kp_rule *r, const struct kp_runlog *run, struct figure *f, struct kp_outcome *o)
{
	struct kp_event_sel sel;
	char why[sizeof(o->why)];
	uint64_t *v, sum = 0, backwards;
	size_t n;

	if (!kp_run_event_sel(run, r->name, &sel, why, sizeof(why)))
		return error(o, "%s", why);
	if (sel.type->kind != KprofEventKindSpan)
		return error(o, "event type \"%s\" is not a span type: it has no slices (event \"%s\" count measures "
			     "its events)", sel.type->name, r->name);
	n = kp_run_span_lengths(run, &sel, &v, &backwards);
	if (backwards)
		snprintf(f->note, sizeof(f->note), "; %" PRIu64 " End%s before %s Begin left out (damaged)", backwards,
			 backwards == 1 ? "" : "s", backwards == 1 ? "its" : "their");
	if (r->measure->id == S_COUNT) {
		f->count = n;
		free(v);
		return true;
	}
	if (!n) {
		free(v);
		return error(o, "span \"%s\": no slices (a Begin closed by an End on its CPU) in the log, so no %s",
			     r->name, r->measure->name);
	}
	kp_sort(v, n, sizeof(*v), kp_cmp_u64s);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	switch (r->measure->id) {
	case S_MEAN: f->cycles = sum / n; break;
	case S_MEDIAN: f->cycles = v[kp_nearest_rank(n, 50)]; break;
	case S_P99: f->cycles = v[kp_nearest_rank_of(n, r->pct_num, r->pct_scale)]; break;
	case S_MIN: f->cycles = v[0]; break;
	case S_MAX: f->cycles = v[n - 1]; break;
	}
	free(v);
	return true;
}

static bool cpu(const struct kp_rule *r, const struct kp_runlog *run, struct figure *f, struct kp_outcome *o)
{
	const struct kp_model *m = &run->m;
	uint64_t span = m->end - m->begin;
	bool any = false;

	if (r->by_id && r->id >= m->ncpus)
		return error(o, "no cpu %u: the log has CPUs 0 to %u", r->id, m->ncpus ? m->ncpus - 1 : 0);
	if (r->measure->id == C_STALLED && !m->stall_records && !kp_report_group_on(&run->log, PERF_KPROF_CLOCK))
		return error(o, "stalls are not known: the run did not trace=clock");
	for (uint32_t i = 0; i < m->ncpus; i++) {
		const struct kp_model_cpu *c = &m->cpu[i];
		if ((r->by_id && i != r->id) || !c->switches)
			continue;
		any = true;
		f->whole += span;
		f->count += c->switches;
		f->part += r->measure->id == C_BUSY ? c->busy : r->measure->id == C_IDLE ? c->idle
			 : r->measure->id == C_STALLED ? c->stalled : c->no_trace;
	}
	return any || error(o, "%s CSwitch records, so %s busy and idle time are not known (trace=cswitch)",
			    r->by_id ? "the CPU has no" : "no CPU has", r->by_id ? "its" : "their");
}

/* scenario=noise's gaps (noise/noise.h: the report's Noise section), from
 * each CPU's KprofNoiseScan records of both passes: every gap, kept or
 * not; all CPUs or `noise N`. */
static bool noise(const struct kp_rule *r, const struct kp_runlog *run, struct figure *f, struct kp_outcome *o)
{
	struct kp_noise_cpu *cpus[KP_NOISE_PASSES];
	uint32_t n = run->log.ncpus;
	bool any = false, gaps_only = false;

	if (r->by_id && r->id >= n)
		return error(o, "no cpu %u: the log has CPUs 0 to %u", r->id, n ? n - 1 : 0);
	kp_noise_gather((struct kp_log *)&run->log, cpus);
	for (uint32_t p = 0; p < KP_NOISE_PASSES; p++)
		for (uint32_t i = 0; i < n; i++) {
			const struct kp_noise_cpu *c = &cpus[p][i];
			if (r->by_id && i != r->id)
				continue;
			if (!c->scanned) {
				gaps_only |= c->any;
				continue;
			}
			const KPROF_NOISE_SCAN *k = &c->scan;
			any = true;
			switch (r->measure->id) {
			case N_MAX: f->cycles = k->MaxCycles > f->cycles ? k->MaxCycles : f->cycles; break;
			case N_TOTAL: f->cycles += k->GapCycles; break;
			case N_GAPS: f->count += k->Gaps; break;
			case N_CORRELATED: f->count += k->Correlated; break;
			case N_PER_SECOND: f->part += k->GapCycles; f->whole += k->ScannedCycles; break;
			case N_SCANNED: f->cycles += k->ScannedCycles; break;
			}
		}
	kp_noise_free(cpus);
	if (!any && gaps_only)
		return error(o, "noise: the log has gaps but no KprofNoiseScan records (a kernel before them): the "
			     "figures count every gap only with them");
	return any || error(o, "noise: %s no KprofNoiseScan records: run scenario=noise", r->by_id ? "the CPU has"
													   : "the log has");
}

/* scenario=noise's timer pass (KprofTimerLatency, one a CPU: the report's
 * timer latency table): p50 and p99 as the kernel counted them (1 us
 * buckets, the floor), max and mean exact; all CPUs (the worst CPU's
 * percentile and max, the mean over every wake-up) or `timer N`. */
static bool timer(const struct kp_rule *r, const struct kp_runlog *run, struct figure *f, struct kp_outcome *o)
{
	struct kp_noise_cpu *cpus[KP_NOISE_PASSES];
	uint32_t n = run->log.ncpus;
	uint64_t sum = 0, samples = 0;
	bool any = false;

	if (r->by_id && r->id >= n)
		return error(o, "no cpu %u: the log has CPUs 0 to %u", r->id, n ? n - 1 : 0);
	bool p50 = r->measure->id == TM_P99 && r->pct_num == 50 * r->pct_scale;
	if (r->measure->id == TM_P99 && !p50 && r->pct_num != 99 * r->pct_scale)
		return error(o, "timer latency: the kernel counts p50 and p99 only (KprofTimerLatency), not %s",
			     r->measure_text + strlen("latency "));
	kp_noise_gather((struct kp_log *)&run->log, cpus);
	f->in_ns = true;
	for (uint32_t i = 0; i < n; i++) {
		const KPROF_TIMER_LATENCY *t = &cpus[0][i].timer;
		if (!cpus[0][i].timed || (r->by_id && i != r->id))
			continue;
		any = true;
		uint64_t v = 0;
		switch (r->measure->id) {
		case TM_P99: v = (uint64_t)(p50 ? t->P50Us : t->P99Us) * 1000; break;
		case TM_MAX: v = t->MaxNs; break;
		case TM_WAKEUPS: f->count += t->Samples; break;
		case TM_MISSED: f->count += t->Missed; break;
		}
		if (v > f->ns)
			f->ns = v;
		sum += t->SumNs;
		samples += t->Samples;
		if (r->measure->id == TM_P99 && (p50 ? t->P50Us : t->P99Us) >= 1000)
			snprintf(f->note, sizeof(f->note), ", at least: 1000 us is the kernel's last bucket");
	}
	kp_noise_free(cpus);
	if (!any)
		return error(o, "timer: %s no KprofTimerLatency record: run scenario=noise", r->by_id ? "the CPU has"
												     : "the log has");
	if (r->measure->id == TM_MEAN) {
		if (!samples)
			return error(o, "timer: no wake-ups, so no mean");
		f->ns = sum / samples;
	}
	return true;
}

static bool compare(double v, enum kp_op op, double bound)
{
	switch (op) {
	case KP_OP_LT: return v < bound;
	case KP_OP_LE: return v <= bound;
	case KP_OP_GT: return v > bound;
	case KP_OP_GE: return v >= bound;
	case KP_OP_EQ: return v == bound;
	case KP_OP_NE: return v != bound;
	}
	return false;
}

void kp_rule_eval(const struct kp_rule *r, const struct kp_runlog *run, struct kp_outcome *o)
{
	struct figure f = { 0 };
	bool ok = false;
	double v = 0;

	*o = (struct kp_outcome){ .verdict = KP_ERROR };
	switch (r->subject) {
	case KP_SUBJ_METRIC: ok = metric(r, run, &f, o); break;
	case KP_SUBJ_LOCK: ok = lock(r, run, &f, o); break;
	case KP_SUBJ_THREAD: ok = thread(r, run, &f, o); break;
	case KP_SUBJ_SAMPLES: ok = samples(r, run, &f, o); break;
	case KP_SUBJ_CPU: ok = cpu(r, run, &f, o); break;
	case KP_SUBJ_EVENT: ok = event(r, run, &f, o); break;
	case KP_SUBJ_FIELD: ok = field(r, run, &f, o); break;
	case KP_SUBJ_SPAN: ok = span(r, run, &f, o); break;
	case KP_SUBJ_NOISE: ok = noise(r, run, &f, o); break;
	case KP_SUBJ_TIMER: ok = timer(r, run, &f, o); break;
	}
	if (!ok)
		return;
	if (f.is_value) {
		v = f.value;
		snprintf(o->measured, sizeof(o->measured), "%.10g (of %zu values)", v, f.values);
	} else if (r->kind == KP_KIND_TIME && f.in_ns) {
		v = (double)f.ns / 1e9;
		snprintf(o->measured, sizeof(o->measured), "%.3f us (%" PRIu64 " ns%s)", (double)f.ns / 1e3, f.ns, f.note);
	} else if (r->kind == KP_KIND_TIME) {
		char t[48];
		if (run->m.hz <= 0) {
			error(o, "the log has no run header, so no TSC rate to turn cycles into time");
			return;
		}
		v = (double)f.cycles / run->m.hz;
		snprintf(o->measured, sizeof(o->measured), "%s (%" PRIu64 " cycles%s)",
			 kp_report_time(&run->log, f.cycles, t, sizeof(t)), f.cycles, f.note);
	} else if (r->kind == KP_KIND_SHARE) {
		if (!f.whole) {
			error(o, "a share of nothing: the whole it is a share of is 0");
			return;
		}
		v = 100.0 * (double)f.part / (double)f.whole;
		snprintf(o->measured, sizeof(o->measured), "%.2f%% (%" PRIu64 " of %" PRIu64 "%s)", v, f.part, f.whole,
			 f.note);
	} else {
		v = (double)f.count;
		snprintf(o->measured, sizeof(o->measured), "%" PRIu64 "%s%s", f.count, f.note[0] ? " (" : "",
			 f.note[0] ? f.note + 2 : "");
		if (f.note[0])
			strncat(o->measured, ")", sizeof(o->measured) - strlen(o->measured) - 1);
	}
	o->verdict = compare(v, r->op, r->bound) ? KP_PASS : KP_FAIL;
}
