/*
 * perfetto_noise.c - scenario=noise in trace.json (docs/noise.md):
 *   "CPU n noise" (NOISE_TID + n): an "X" per KprofNoiseGap, from its
 *     Start for its Cycles (the raw TSC the CPU read around the gap), named
 *     "noise gap" (pass 1, every CPU at once) or "noise gap, alone" (pass
 *     2), its fields as args; an "i" per KprofTimerLatency (the CPU's
 *     timer pass: p50, p99, max, mean) at the record's time;
 *   correlated gaps linked: the pass-1 gaps marked correlated, in order of
 *     their start, fall into clusters (a gap that starts before every gap
 *     of the cluster so far has ended joins it); each gap of a cluster has
 *     a flow ("noise") to the next, from the start of one slice to the
 *     start of the other, as perfetto_flows.c draws wake-ups, so a machine
 *     stop reads as one chain across the CPUs.  Flow ids follow the
 *     wake-ups'.  Two starts on one ns cannot be bound by Chrome DevTools
 *     (it keys a flow's ends by time): written all the same and counted in
 *     otherData's "noise_links_at_one_instant".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "include/kprof/wmi.h"
#include "tools/kprof/export/perfetto/pf.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

struct pf_noise_gap {
	uint64_t start, end;     /* TSC                                      */
	uint32_t cpu;
	KPROF_NOISE_GAP g;
};

struct pf_noise_timer {
	uint64_t ts;
	uint32_t cpu;
	KPROF_TIMER_LATENCY t;
};

struct pf_noise {
	struct pf_noise_gap *gaps;
	size_t ngaps, capgaps;
	struct pf_noise_timer *timers;
	size_t ntimers, captimers;
	size_t *linked;          /* the correlated gaps, by start            */
	size_t nlinked;
};

static void write_gap(struct pf *p, const struct pf_item *it)
{
	const struct pf_noise_gap *n = it->obj;
	const KPROF_NOISE_GAP *g = &n->g;

	pf_begin(p, "X", PF_CPUS_PID, NOISE_TID + n->cpu);
	pf_span(p, n->start, n->end);
	fprintf(p->f, ",\"name\":\"%s\",\"cat\":\"noise\",\"args\":{\"Event\":\"KprofNoiseGap\",\"LengthNs\":%" PRIu64
		      ",\"Cycles\":%" PRIu64 ",\"Pass\":%u,\"Window\":%" PRIu32 ",\"OtherCpus\":%u,\"Correlated\":%s",
		g->Pass == 2 ? "noise gap, alone" : "noise gap", g->LengthNs, g->Cycles, g->Pass, g->Window,
		g->OtherCpus, g->Flags & KPROF_NOISE_GAP_CORRELATED ? "true" : "false");
	if (g->Flags & KPROF_NOISE_GAP_SMI_COUNTED)
		fprintf(p->f, ",\"SmiBefore\":%" PRIu64 ",\"SmiAfter\":%" PRIu64, g->SmiBefore, g->SmiAfter);
	fprintf(p->f, ",\"Unkept\":%" PRIu32 "}}", g->Unkept);
}

static void describe_gap(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	const struct pf_noise_gap *n = it->obj;

	(void)p;
	*e = (struct pf_event){ .ph = 'X', .pid = PF_CPUS_PID, .tid = NOISE_TID + n->cpu, .start = n->start, .end = n->end };
	strcpy(e->name, n->g.Pass == 2 ? "noise gap, alone" : "noise gap");
}

static void write_timer(struct pf *p, const struct pf_item *it)
{
	const struct pf_noise_timer *n = it->obj;
	const KPROF_TIMER_LATENCY *t = &n->t;

	pf_begin(p, "i", PF_CPUS_PID, NOISE_TID + n->cpu);
	fputs(",\"s\":\"t\"", p->f);
	pf_time(p, "ts", n->ts);
	fprintf(p->f, ",\"name\":\"timer latency\",\"cat\":\"noise\",\"args\":{\"Event\":\"KprofTimerLatency\","
		      "\"IntervalUs\":%" PRIu32 ",\"Samples\":%" PRIu32 ",\"Missed\":%" PRIu32 ",\"P50Us\":%" PRIu32
		      ",\"P99Us\":%" PRIu32 ",\"MaxNs\":%" PRIu64 ",\"MeanNs\":%" PRIu64 ",\"Overflow\":%" PRIu32 "}}",
		t->IntervalUs, t->Samples, t->Missed, t->P50Us, t->P99Us, t->MaxNs, t->Samples ? t->SumNs / t->Samples : 0,
		t->Overflow);
}

static void describe_timer(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	const struct pf_noise_timer *n = it->obj;

	(void)p;
	*e = (struct pf_event){ .ph = 'i', .pid = PF_CPUS_PID, .tid = NOISE_TID + n->cpu, .start = n->ts };
	strcpy(e->name, "timer latency");
}

/* it->obj: the gap the event sits on; it->a: the flow's id; it->b: 0
 * its start, 1 its end. */
static void write_link(struct pf *p, const struct pf_item *it)
{
	const struct pf_noise_gap *n = it->obj;

	pf_begin(p, it->b ? "f" : "s", PF_CPUS_PID, NOISE_TID + n->cpu);
	if (it->b)
		fputs(",\"bp\":\"e\"", p->f);
	pf_time(p, "ts", n->start);
	fprintf(p->f, ",\"id\":%" PRIu64 ",\"name\":\"noise\",\"cat\":\"noise\"}", it->a);
}

static void describe_link(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	const struct pf_noise_gap *n = it->obj;

	(void)p;
	*e = (struct pf_event){ .ph = it->b ? 'f' : 's', .pid = PF_CPUS_PID, .tid = NOISE_TID + n->cpu, .start = n->start,
				.flow = it->a };
	strcpy(e->name, "noise");
}

static void gather(struct pf *p, struct pf_noise *nz)
{
	for (uint32_t cpu = 0; cpu < p->log->ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record rec;
		kp_cursor_init(&c, (struct kp_log *)p->log, cpu);
		while (kp_cursor_next(&c, &rec)) {
			if (rec.h.HookId == KPROF_LOG_TYPE_NOISE_GAP && rec.version == NOISE_GAP_VERSION &&
			    rec.payload_size >= sizeof(KPROF_NOISE_GAP)) {
				struct pf_noise_gap g = { .cpu = cpu };
				memcpy(&g.g, rec.payload, sizeof(g.g));
				g.start = g.g.Start;
				g.end = g.g.Start + g.g.Cycles;
				KP_PUSH(nz->gaps, nz->ngaps, nz->capgaps, g);
			} else if (rec.h.HookId == KPROF_LOG_TYPE_TIMER_LATENCY && rec.version == TIMER_LATENCY_VERSION &&
				   rec.payload_size >= sizeof(KPROF_TIMER_LATENCY)) {
				struct pf_noise_timer t = { .ts = rec.h.TimeStamp, .cpu = cpu };
				memcpy(&t.t, rec.payload, sizeof(t.t));
				KP_PUSH(nz->timers, nz->ntimers, nz->captimers, t);
			}
		}
	}
}

static const struct pf_noise_gap *sort_gaps;

static int cmp_linked(const void *a, const void *b)
{
	const struct pf_noise_gap *x = &sort_gaps[*(const size_t *)a], *y = &sort_gaps[*(const size_t *)b];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static const struct pf_kind link_kind = { write_link, describe_link };
static const struct pf_kind gap_kind = { write_gap, describe_gap };
static const struct pf_kind timer_kind = { write_timer, describe_timer };

/* The correlated pass-1 gaps by start; each one linked to the next when
 * it starts before the cluster so far has ended. */
static void links(struct pf *p, struct pf_noise *nz)
{
	nz->linked = kp_xcalloc(nz->ngaps ? nz->ngaps : 1, sizeof(*nz->linked));
	for (size_t i = 0; i < nz->ngaps; i++)
		if (nz->gaps[i].g.Pass == 1 && (nz->gaps[i].g.Flags & KPROF_NOISE_GAP_CORRELATED))
			nz->linked[nz->nlinked++] = i;
	sort_gaps = nz->gaps;
	kp_sort(nz->linked, nz->nlinked, sizeof(*nz->linked), cmp_linked);
	uint64_t cluster_end = 0;
	for (size_t k = 0; k < nz->nlinked; k++) {
		const struct pf_noise_gap *g = &nz->gaps[nz->linked[k]];
		if (k && g->start < cluster_end) {
			const struct pf_noise_gap *prev = &nz->gaps[nz->linked[k - 1]];
			uint64_t id = ++p->flows;
			p->noise_links_one_instant += pf_ns(p->m, prev->start) == pf_ns(p->m, g->start);
			pf_add(p, (struct pf_item){ .ts = prev->start, .kind = &link_kind,
						    .obj = prev, .a = id, .b = 0 });
			pf_add(p, (struct pf_item){ .ts = g->start, .kind = &link_kind,
						    .obj = g, .a = id, .b = 1 });
		}
		if (!k || g->start >= cluster_end)
			cluster_end = g->end;
		else if (g->end > cluster_end)
			cluster_end = g->end;
	}
}

void pf_noise_events(struct pf *p)
{
	struct pf_noise *nz = kp_xcalloc(1, sizeof(*nz));

	p->noise = nz;
	p->noise_cpus = kp_xcalloc(p->m->ncpus ? p->m->ncpus : 1, sizeof(*p->noise_cpus));
	if (p->m->noise_records) /* else no walk of the log for none */
		gather(p, nz);
	for (size_t i = 0; i < nz->ngaps; i++) {
		if (nz->gaps[i].cpu < p->m->ncpus)
			p->noise_cpus[nz->gaps[i].cpu]++;
		pf_add(p, (struct pf_item){ .ts = nz->gaps[i].start, .kind = &gap_kind,
					    .obj = &nz->gaps[i], .cpu = nz->gaps[i].cpu });
	}
	for (size_t i = 0; i < nz->ntimers; i++) {
		if (nz->timers[i].cpu < p->m->ncpus)
			p->noise_cpus[nz->timers[i].cpu]++;
		pf_add(p, (struct pf_item){ .ts = nz->timers[i].ts, .kind = &timer_kind,
					    .obj = &nz->timers[i], .cpu = nz->timers[i].cpu });
	}
	links(p, nz);
}

void pf_noise_events_free(struct pf *p)
{
	if (p->noise) {
		free(p->noise->gaps);
		free(p->noise->timers);
		free(p->noise->linked);
		free(p->noise);
	}
	free(p->noise_cpus);
	p->noise = NULL;
	p->noise_cpus = NULL;
}
