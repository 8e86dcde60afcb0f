/*
 * model.c - building the model of a run (model.h): two passes over every
 * record in time order (the CPUs merged by TimeStamp, each CPU's records
 * in log order).  The first makes the thread table and gathers what the
 * model keeps; each part is finished from it (the trace's span, the
 * holes, the stalls, ...).  The second makes the schedule's runs, whole
 * as they are made, and walks the threads' latencies as it goes
 * (schedule.c), none gathered; a model built keeping less keeps no run.  And
 * the lookups and time conversions the model's readers use.
 */
#include "tools/kprof/model/model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

/* What the pass collects besides what goes straight into the model. */
struct pass {
	struct kp_sched sched;       /* the schedule, made by the second pass */
	struct kp_thread_rows threads;
	size_t capconf, capres, capres_ts, capnamed;
};

/* The hook of a record of a kind the model reads whose payload is long
 * enough, else 0. */
uint16_t kp_model_kind(const struct kp_record *r)
{
	static const struct {
		uint16_t hook;
		size_t size;
	} kinds[] = {
		{ PERFINFO_LOG_TYPE_CONTEXTSWAP, sizeof(WMI_CONTEXTSWAP) },
		{ PERFINFO_LOG_TYPE_SPINLOCK, sizeof(WMI_SPINLOCK) },
		{ PERFINFO_LOG_TYPE_SAMPLED_PROFILE, sizeof(PERFINFO_SAMPLED_PROFILE_INFORMATION) },
		{ PERFINFO_LOG_TYPE_PMC_INTERRUPT, sizeof(PERFINFO_PMC_SAMPLE) },
		{ PERFINFO_LOG_TYPE_READY_THREAD, sizeof(WMI_READY_THREAD) },
		{ PERFINFO_LOG_TYPE_RESOURCE, sizeof(WMI_RESOURCE) },
		{ KPROF_LOG_TYPE_THREAD, sizeof(KPROF_THREAD_V1) }, /* either version */
		{ KPROF_LOG_TYPE_SPINLOCK_CONFIG, sizeof(KPROF_SPINLOCK_CONFIG) },
		{ KPROF_LOG_TYPE_OBJECT_NAME, sizeof(KPROF_OBJECT_NAME) },
		{ KPROF_LOG_TYPE_CLOCK_LATE, sizeof(KPROF_CLOCK_LATE) },
		{ KPROF_LOG_TYPE_MEASURE, sizeof(KPROF_MEASURE) },
		{ KPROF_LOG_TYPE_SMI_COUNT, sizeof(KPROF_SMI_COUNT) },
		{ KPROF_LOG_TYPE_CLOCK_STEP, sizeof(KPROF_CLOCK_STEP) },
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (r->h.HookId == kinds[i].hook)
			return r->payload_size >= kinds[i].size ? kinds[i].hook : 0;
	return 0;
}

static void take(struct kp_model *m, struct pass *p, const struct kp_record *r)
{
	struct kp_model_cpu *c = &m->cpu[r->cpu];

	KP_RANGE_ADD(c->any, c->first, c->last, r->h.TimeStamp);
	if (r->back) /* an older kernel's stamp that went back */
		KP_PUSH(c->steps, c->nsteps, c->capsteps,
			((struct kp_clock_step){ .ts = r->h.TimeStamp, .back = r->back }));
	switch (kp_model_kind(r)) {
	case PERFINFO_LOG_TYPE_CONTEXTSWAP: {
		WMI_CONTEXTSWAP w;
		memcpy(&w, r->payload, sizeof(w));
		kp_schedule_first(&p->sched, r->cpu, &w);
		kp_threads_switch(&p->threads, &w);
		c->switches++;
		break;
	}
	case PERFINFO_LOG_TYPE_SPINLOCK:
		m->spinlock_records++;
		kp_events_add(m, c, r);
		break;
	case PERFINFO_LOG_TYPE_SAMPLED_PROFILE:
	case PERFINFO_LOG_TYPE_PMC_INTERRUPT:
	case PERFINFO_LOG_TYPE_READY_THREAD:
		kp_events_add(m, c, r);
		break;
	case PERFINFO_LOG_TYPE_RESOURCE: {
		WMI_RESOURCE w;
		if (m->not_kept & KP_KEEP_RESOURCES)
			break;
		memcpy(&w, r->payload, sizeof(w));
		size_t at = m->nresources;
		KP_PUSH(m->resources, m->nresources, p->capres, w);
		KP_PUSH(m->resource_ts, at, p->capres_ts, r->h.TimeStamp);
		break;
	}
	case KPROF_LOG_TYPE_THREAD: {
		KPROF_THREAD n;
		if (!kp_thread_record(r, &n))
			break;
		kp_threads_name(&p->threads, &n);
		m->thread_records++;
		break;
	}
	case KPROF_LOG_TYPE_SPINLOCK_CONFIG: {
		KPROF_SPINLOCK_CONFIG k;
		memcpy(&k, r->payload, sizeof(k));
		KP_PUSH(m->spinlock_configs, m->nspinlock_configs, p->capconf, k);
		break;
	}
	case KPROF_LOG_TYPE_OBJECT_NAME:
		kp_object_name_take(m, &p->capnamed, r);
		break;
	case KPROF_LOG_TYPE_CLOCK_LATE:
		kp_stall_add(c, r);
		break;
	case KPROF_LOG_TYPE_MEASURE:
		kp_measure_add(c, r);
		break;
	case KPROF_LOG_TYPE_CLOCK_STEP: {
		KPROF_CLOCK_STEP k;
		memcpy(&k, r->payload, sizeof(k));
		KP_PUSH(c->steps, c->nsteps, c->capsteps,
			((struct kp_clock_step){ .ts = r->h.TimeStamp, .back = k.BackCycles, .kernel = true }));
		break;
	}
	case KPROF_LOG_TYPE_SMI_COUNT: {
		KPROF_SMI_COUNT k;
		memcpy(&k, r->payload, sizeof(k));
		c->smi_records++;
		c->smi_counted = (k.Flags & KPROF_SMI_COUNTED) != 0;
		/* A 32-bit counter that wrapped once is still one count. */
		c->smis = c->smi_counted ? (uint32_t)(k.EndCount - k.StartCount) : 0;
		m->smi_records++;
		break;
	}
	default:
		if (r->h.HookId == KPROF_LOG_TYPE_NOISE_GAP || r->h.HookId == KPROF_LOG_TYPE_TIMER_LATENCY)
			m->noise_records++;
		break;
	}
}

/* The span of the trace.  The end is the last record, not the run end
 * frame's end_tsc: in dump mode that comes after the whole trace went
 * out, long after anything happened. */
static void trace_span(struct kp_model *m, const struct kp_log *log)
{
	bool have = log->have_header;

	m->begin = m->end = have ? log->header.start_tsc : 0;
	for (uint32_t i = 0; i < m->ncpus; i++) {
		const struct kp_model_cpu *c = &m->cpu[i];
		if (!c->any)
			continue;
		KP_RANGE_ADD(have, m->begin, m->end, c->first);
		KP_RANGE_ADD(have, m->begin, m->end, c->last);
	}
	m->any = have;
	m->origin = m->begin;
}

static int cmp_hole(const void *a, const void *b)
{
	const struct kp_hole *x = a, *y = b;
	int c = kp_cmp_u64(x->start, y->start);
	return c ? c : kp_cmp_u64(x->end, y->end);
}

/* Each CPU's holes, by start: frames lost on the link and records its
 * kernel dropped (model.h); then its no-trace cycles within the trace. */
static void make_holes(struct kp_model *m, const struct kp_log *log)
{
	for (size_t i = 0; i < log->ngaps; i++) {
		const struct kp_gap *g = &log->gaps[i];
		if (g->cpu >= m->ncpus)
			continue; /* run-level frames: no CPU's time */
		struct kp_model_cpu *c = &m->cpu[g->cpu];
		struct kp_hole h = { .start = g->ts_before ? g->ts_before : m->begin,
				     .end = g->ts_after ? g->ts_after : m->end,
				     .seq_first = g->seq_first, .seq_last = g->seq_last };
		KP_PUSH(c->holes, c->nholes, c->capholes, h);
	}
	for (size_t i = 0; i < log->ndrops; i++) {
		const struct kp_drop *d = &log->drops[i];
		if (d->cpu >= m->ncpus)
			continue;
		struct kp_model_cpu *c = &m->cpu[d->cpu];
		uint64_t start = kp_drop_start(d);
		struct kp_hole h = { .start = start ? start : m->begin, .end = d->tail ? m->end : d->ts,
				     .kernel = true, .tail = d->tail, .lost = d->total };
		memcpy(h.cause, d->lost, sizeof(h.cause));
		if (h.end < h.start)
			h.end = h.start;
		KP_PUSH(c->holes, c->nholes, c->capholes, h);
	}
	for (uint32_t i = 0; i < m->ncpus; i++) {
		struct kp_model_cpu *c = &m->cpu[i];
		kp_sort(c->holes, c->nholes, sizeof(*c->holes), cmp_hole);
		c->no_trace = kp_hole_overlap(c, m->begin, m->end);
		if (i < log->ncpus)
			c->lost_kernel = kp_sat_add(c->lost_kernel, kp_cpu_lost(&log->cpus[i]));
	}
}

static void count_cpu(struct kp_model *m, const struct kp_model_cpu *c)
{
	m->switches += c->switches;
	m->switching_cpus += c->switches != 0;
	m->waits += c->nwaits;
	m->readies += c->nreadies;
	m->stall_records += c->stall_records;
	m->measure_samples += c->measure_samples;
}

/* An empty model of the log's CPUs, with its clock. */
static void model_init(struct kp_model *m, const struct kp_log *log)
{
	*m = (struct kp_model){ .ncpus = log->ncpus };
	m->hz = log->have_header ? (double)log->header.tsc_hz : 0;
	m->have_header = log->have_header;
	m->cpu = kp_xcalloc(m->ncpus, sizeof(*m->cpu));
}

/* A sample in the second pass: in a KprofMeasure span of its CPU or not
 * (measure.c; the spans were finished by the first), counted, and marked
 * when kept: the CPU's n-th sample is its n-th kept one (both by time). */
static void measure_sample(struct kp_model *m, const struct kp_record *r, size_t *walk, size_t *nth)
{
	struct kp_model_cpu *c = &m->cpu[r->cpu];

	if (kp_measure_in(c, &walk[r->cpu], r->h.TimeStamp)) {
		c->measure_samples++;
		if (nth[r->cpu] < c->nsamples)
			c->samples[nth[r->cpu]].measuring = true;
	}
	nth[r->cpu]++;
}

/* The second pass: the schedule's runs and the latency walk, from the
 * CSwitch and ReadyThread records (schedule.c), with the span, the holes,
 * the stalls and the thread table the first gave; and the samples in
 * kprof's own measurements.  A sink that takes records gets every one the
 * model reads. */
static void schedule_pass(struct kp_model *m, struct kp_log *log, struct kp_sched *s)
{
	size_t *walk = kp_xcalloc(m->ncpus ? m->ncpus : 1, sizeof(*walk));
	size_t *nth = kp_xcalloc(m->ncpus ? m->ncpus : 1, sizeof(*nth));
	struct kp_merge mg;
	struct kp_record r;

	s->order = (struct kp_sched_order){ .sched = s, .lat = kp_latency_new(m) };
	kp_merge_init(&mg, log);
	while (kp_merge_next(&mg, &r)) {
		uint16_t kind = kp_model_kind(&r);
		if (kind && s->sink && s->sink->record)
			s->sink->record(s->sink->ctx, &r, kind);
		else if (!kind && s->sink && s->sink->other)
			s->sink->other(s->sink->ctx, &r);
		if (kind == PERFINFO_LOG_TYPE_CONTEXTSWAP) {
			WMI_CONTEXTSWAP w;
			memcpy(&w, r.payload, sizeof(w));
			kp_schedule_switch(s, r.cpu, r.h.TimeStamp, &w);
		} else if (kind == PERFINFO_LOG_TYPE_READY_THREAD) {
			WMI_READY_THREAD w;
			memcpy(&w, r.payload, sizeof(w));
			kp_schedule_ready(s, r.cpu, r.h.TimeStamp, &w);
		} else if (kind == PERFINFO_LOG_TYPE_SAMPLED_PROFILE || kind == PERFINFO_LOG_TYPE_PMC_INTERRUPT) {
			measure_sample(m, &r, walk, nth);
		}
	}
	kp_merge_free(&mg);
	free(walk);
	free(nth);
	kp_schedule_finish(s);
	kp_latency_free(s->order.lat);
	free(s->order.v);
}

/* Two passes over the records in time order: the first takes every
 * record but the schedule's (which needs the trace's end, the holes and
 * the stalls first), the second makes the schedule. */
void kp_model_build_with(struct kp_model *m, struct kp_log *log, unsigned keep, const struct kp_run_sink *sink)
{
	struct pass p = { 0 };
	struct kp_merge mg;
	struct kp_record r;

	model_init(m, log);
	m->not_kept = KP_KEEP_ALL & ~keep;
	kp_schedule_init(&p.sched, m, keep & KP_KEEP_RUNS);
	p.sched.sink = sink;
	kp_merge_init(&mg, log);
	while (kp_merge_next(&mg, &r))
		take(m, &p, &r);
	kp_merge_free(&mg);
	trace_span(m, log);
	make_holes(m, log);
	for (uint32_t i = 0; i < m->ncpus; i++) {
		kp_stall_finish(m, &m->cpu[i]);
		kp_events_finish(m, &m->cpu[i]);
		kp_measure_finish(&m->cpu[i]);
	}
	kp_threads_finish(m, &p.threads);
	if (sink)
		sink->start(sink->ctx, m);
	schedule_pass(m, log, &p.sched);
	for (uint32_t i = 0; i < m->ncpus; i++)
		count_cpu(m, &m->cpu[i]);
	kp_model_check(m);
}

void kp_model_build_keeping(struct kp_model *m, struct kp_log *log, unsigned keep)
{
	kp_model_build_with(m, log, keep, NULL);
}

void kp_model_build(struct kp_model *m, struct kp_log *log)
{
	kp_model_build_keeping(m, log, KP_KEEP_ALL);
}

void kp_model_build_totals(struct kp_model *m, struct kp_log *log)
{
	kp_model_build_keeping(m, log, 0);
}

void kp_model_build_names(struct kp_model *m, struct kp_log *log)
{
	struct kp_thread_rows rows = { 0 };
	struct kp_merge mg;
	struct kp_record r;

	model_init(m, log);
	kp_merge_init(&mg, log);
	while (kp_merge_next(&mg, &r)) {
		KPROF_THREAD n;
		if (kp_model_kind(&r) == KPROF_LOG_TYPE_THREAD && kp_thread_record(&r, &n)) {
			kp_threads_name(&rows, &n);
			m->thread_records++;
		}
	}
	kp_merge_free(&mg);
	kp_threads_finish(m, &rows);
}

void kp_model_free(struct kp_model *m)
{
	for (uint32_t i = 0; i < m->ncpus; i++) {
		free(m->cpu[i].runs);
		free(m->cpu[i].waits);
		free(m->cpu[i].samples);
		free(m->cpu[i].readies);
		free(m->cpu[i].holes);
		free(m->cpu[i].stalls);
		free(m->cpu[i].measures);
		free(m->cpu[i].steps);
	}
	free(m->cpu);
	free(m->threads);
	free(m->thread_ids);
	free(m->spinlock_configs);
	free(m->resources);
	free(m->resource_ts);
	free(m->object_names);
	free(m->wait_sites);
	kp_index_free(&m->wait_site_ix);
	*m = (struct kp_model){ 0 };
}

bool kp_model_need_clock(const struct kp_model *m, const char *path)
{
	if (m->hz > 0)
		return true;
	fprintf(stderr, "kprof: %s: %s, so the TSC rate is unknown: cannot place the records in time\n", path,
		m->have_header ? "its run header gives a TSC rate of 0 Hz" : "no run header");
	return false;
}

/* ---------------------------------------------------------------- lookups */

const struct kp_model_thread *kp_model_thread(const struct kp_model *m, uint32_t tid)
{
	size_t lo = 0, hi = m->nthreads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->thread_ids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nthreads && m->thread_ids[lo] == tid ? &m->threads[lo] : NULL;
}

const char *kp_model_thread_label(const struct kp_model *m, uint32_t tid, char *buf, size_t size)
{
	const struct kp_model_thread *t = kp_model_thread(m, tid);

	if (t && t->named && t->name[0])
		snprintf(buf, size, "%s (%" PRIu32 ")", t->name, tid);
	else if (tid == 0)
		snprintf(buf, size, "Idle");
	else
		snprintf(buf, size, "thread %" PRIu32, tid);
	return buf;
}

double kp_model_us(const struct kp_model *m, uint64_t ts)
{
	return ts >= m->origin ? (double)(ts - m->origin) * 1e6 / m->hz : -(double)(m->origin - ts) * 1e6 / m->hz;
}

double kp_model_ms(const struct kp_model *m, uint64_t ts)
{
	return kp_model_us(m, ts) / 1000.0;
}

double kp_model_cycles_us(const struct kp_model *m, uint64_t cycles)
{
	return (double)cycles * 1e6 / m->hz;
}
