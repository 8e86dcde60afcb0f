/*
 * perfetto_threads.c - the threads' own tracks: each thread (not the idle
 * thread) is a process "name (tid)" with
 *   "running": an "X" per run on any CPU ("on CPU n"), and its ready time
 *     before a run ("ready", from the first ReadyThread record for it since
 *     its last run to the run's start);
 *   "waits": its spin-lock waits (from the CPUs' waits) and executive
 *     resource waits ("resource NAME": a release record's AcquireTime -
 *     WaitTime to AcquireTime).
 * Slices of one track never overlap: where the records make two overlap
 * (a spin wait inside an interrupt's spin wait, switches lost), the later
 * one goes to a second lane ("running 2", ...), never dropped or cut.
 * Each has its describe too (pf.h).  It also finds each ReadyThread record's wake-up (pf_wake) for the flows.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/perfetto/pf.h"
#include "tools/kprof/read/fields.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/kpassert.h"
#include "tools/kprof/util/sort.h"

enum seg_kind { SEG_READY, SEG_RUN, SEG_SPIN, SEG_RESOURCE };

/* A slice of one thread's tracks, before it gets its lane.  48 bytes:
 * a big log has one for every one or two records, and their sort moves
 * them about. */
struct seg {
	uint64_t start, end;
	const void *obj;
	uint64_t ready_from;    /* SEG_RUN: its first ReadyThread, else 0     */
	uint32_t tid;
	uint32_t order;         /* its place (fewer than UINT32_MAX slices)   */
	uint16_t cpu;           /* < KP_MAX_CPUS                              */
	uint16_t ready_cpu;
	uint8_t kind;           /* enum seg_kind                              */
	uint8_t lane;           /* < PF_LANES                                 */
};
_Static_assert(sizeof(struct seg) == 48, "a thread slice is 48 bytes");

struct segs {
	struct seg *v;
	size_t n, cap;
};

/* The slices' order: by thread, then start, then place (order).  The key
 * sort (sort_segs) and the ready slices' merge (merge_ready) both go by
 * it, so they agree. */
static int cmp_place(uint32_t tid_a, uint64_t start_a, size_t at_a, uint32_t tid_b, uint64_t start_b, size_t at_b)
{
	if (tid_a != tid_b)
		return tid_a < tid_b ? -1 : 1;
	if (start_a != start_b)
		return start_a < start_b ? -1 : 1;
	return (at_a > at_b) - (at_a < at_b);
}

static int cmp_seg(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;
	return cmp_place(x->tid, x->start, x->order, y->tid, y->start, y->order);
}

static void write_running(struct pf *p, const struct pf_item *it)
{
	const struct seg *s = it->obj;
	char label[64];

	pf_begin(p, "X", PF_THREAD_PID(s->tid), PF_RUN_TID(s->tid, s->lane));
	pf_span(p, s->start, s->end);
	if (s->kind == SEG_READY) {
		fprintf(p->f, ",\"name\":\"ready\",\"cat\":\"ready\",\"args\":{\"ReadiedOnCpu\":%" PRIu32 "}}",
			(uint32_t)s->cpu);
		return;
	}
	const struct kp_run *r = s->obj;
	pf_key_name(p, PF_NAME_KEY(PF_NAME_ON_CPU, s->cpu), label, sizeof(label));
	pf_str_arg(p, "name", label);
	fprintf(p->f, ",\"cat\":\"thread\",\"args\":{\"Cpu\":%" PRIu32 ",\"Priority\":%d", (uint32_t)s->cpu,
		r->priority);
	if (!r->to_end) {
		pf_str_arg(p, "ThenState", kp_state_name(r->end_state));
		pf_str_arg(p, "ThenWaitReason", kp_wait_reason_name(r->end_reason));
	}
	fputs("}}", p->f);
}

static void describe_running(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	const struct seg *s = it->obj;

	(void)p;
	*e = (struct pf_event){ .ph = 'X', .pid = PF_THREAD_PID(s->tid), .tid = PF_RUN_TID(s->tid, s->lane),
				.start = s->start, .end = s->end };
	if (s->kind == SEG_READY)
		strcpy(e->name, "ready");
	else
		e->name_key = PF_NAME_KEY(PF_NAME_ON_CPU, s->cpu);
}

static void resource_name(const struct pf *p, const struct seg *s, char *name, size_t size)
{
	const WMI_RESOURCE *r = s->obj;
	char label[40];

	snprintf(name, size, "resource %s", kp_model_object_label(p->m, r->Resource, s->start, label, sizeof(label)));
}

static void describe_waiting(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	const struct seg *s = it->obj;

	if (s->kind == SEG_SPIN) {
		pf_wait_event(p, s->obj, PF_THREAD_PID(s->tid), PF_WAIT_TID(s->tid, s->lane), e);
		return;
	}
	*e = (struct pf_event){ .ph = 'X', .pid = PF_THREAD_PID(s->tid), .tid = PF_WAIT_TID(s->tid, s->lane),
				.start = s->start, .end = s->end };
	resource_name(p, s, e->name, sizeof(e->name));
}

static void write_waiting(struct pf *p, const struct pf_item *it)
{
	const struct seg *s = it->obj;
	char name[64];

	pf_begin(p, "X", PF_THREAD_PID(s->tid), PF_WAIT_TID(s->tid, s->lane));
	if (s->kind == SEG_SPIN) {
		pf_wait_body(p, s->obj);
		return;
	}
	const WMI_RESOURCE *r = s->obj;
	pf_span(p, s->start, s->end);
	resource_name(p, s, name, sizeof(name));
	pf_str_arg(p, "name", name);
	fprintf(p->f, ",\"cat\":\"resource\",\"args\":{\"Resource\":\"0x%016" PRIx64 "\",\"Shared\":%s", r->Resource,
		r->Action == WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED ? "true" : "false");
	fprintf(p->f, ",\"ThenHeldCycles\":%" PRIu64 "}}", r->HoldTime);
}

static void push(struct segs *s, uint64_t start, uint64_t end, uint32_t tid, uint32_t cpu, uint8_t kind,
		 const void *obj)
{
	KP_ASSERT(cpu <= UINT16_MAX && s->n < UINT32_MAX, "thread slice %zu of cpu %" PRIu32, s->n, cpu);
	struct seg v = { .start = start, .end = end, .tid = tid, .cpu = (uint16_t)cpu, .kind = kind, .obj = obj,
			 .order = (uint32_t)s->n };
	KP_PUSH(s->v, s->n, s->cap, v);
}

/* The slices: runs and spin waits per CPU, resource waits from the
 * release records that waited. */
static void collect(struct pf *p, struct segs *s)
{
	const struct kp_model *m = p->m;

	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++) {
		const struct kp_model_cpu *c = &m->cpu[cpu];
		for (size_t i = 0; i < c->nruns; i++)
			if (c->runs[i].tid)
				push(s, c->runs[i].start, c->runs[i].end, c->runs[i].tid, cpu, SEG_RUN, &c->runs[i]);
		for (size_t i = 0; i < c->nwaits; i++) {
			uint32_t tid = kp_wait_site_of(m, &c->waits[i])->tid;
			if (tid)
				push(s, c->waits[i].start, c->waits[i].end, tid, cpu, SEG_SPIN, &c->waits[i]);
		}
	}
	for (size_t i = 0; i < m->nresources; i++) {
		const WMI_RESOURCE *r = &m->resources[i];
		uint64_t from;
		if (kp_resource_wait(m, r, &from))
			push(s, from, r->AcquireTime, r->ThreadId, 0, SEG_RESOURCE, r);
	}
}

/* The first run of thread tid starting at or after ts: index into
 * s->v (sorted by thread, then start), or s->n. */
static size_t next_run(const struct segs *s, uint32_t tid, uint64_t ts)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct seg *x = &s->v[mid];
		if (x->tid < tid || (x->tid == tid && x->start < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->n && s->v[lo].tid == tid; lo++)
		if (s->v[lo].kind == SEG_RUN)
			return lo;
	return s->n;
}

/* Each ReadyThread record's wake-up run (p->wake, its lane still to
 * come), and each run's first ReadyThread since the thread's last run. */
static size_t **find_wakes(struct pf *p, struct segs *s)
{
	size_t **widx = kp_xcalloc(p->m->ncpus ? p->m->ncpus : 1, sizeof(*widx));

	p->wake = kp_xcalloc(p->m->ncpus ? p->m->ncpus : 1, sizeof(*p->wake));
	for (uint32_t cpu = 0; cpu < p->m->ncpus; cpu++) {
		const struct kp_model_cpu *c = &p->m->cpu[cpu];
		p->wake[cpu] = kp_xcalloc(c->nreadies + 1, sizeof(**p->wake));
		widx[cpu] = kp_xcalloc(c->nreadies + 1, sizeof(**widx));
		for (size_t i = 0; i < c->nreadies; i++) {
			size_t k = widx[cpu][i] = next_run(s, c->readies[i].tid, c->readies[i].ts);
			if (k == s->n)
				continue;
			const struct kp_run *run = s->v[k].obj;
			p->wake[cpu][i] = (struct pf_wake){ true, s->v[k].start, 0, s->v[k].cpu, run->priority };
			if (!s->v[k].ready_from || c->readies[i].ts < s->v[k].ready_from) {
				s->v[k].ready_from = c->readies[i].ts;
				s->v[k].ready_cpu = (uint16_t)cpu;
			}
		}
	}
	return widx;
}

/* Ready slices: from a run's first ReadyThread (or the thread's run
 * before, if it was readied while still running) to the run's start. */
static void add_ready(struct segs *s)
{
	size_t n = s->n;
	uint64_t last_end = 0;
	uint32_t tid = 0;

	for (size_t k = 0; k < n; k++) {
		struct seg *r = &s->v[k];
		if (r->kind != SEG_RUN)
			continue;
		if (r->tid != tid)
			tid = r->tid, last_end = 0;
		uint64_t from = r->ready_from > last_end ? r->ready_from : last_end;
		if (r->ready_from && from < r->start) {
			push(s, from, r->start, r->tid, r->ready_cpu, SEG_READY, NULL);
			r = &s->v[k];
		}
		if (r->end > last_end)
			last_end = r->end;
	}
}

/* Lanes: a slice goes to the first lane of its thread's track whose last
 * slice has ended; p->lanes counts them. */
static void assign_lanes(struct pf *p, struct segs *s)
{
	uint64_t end[2][PF_LANES];
	uint32_t tid = 0;

	for (size_t k = 0; k < s->n; k++) {
		struct seg *v = &s->v[k];
		int w = v->kind == SEG_SPIN || v->kind == SEG_RESOURCE;
		if (k == 0 || v->tid != tid) {
			tid = v->tid;
			memset(end, 0, sizeof(end));
		}
		uint32_t lane = pf_lane_for(end[w], v->start, v->end);
		v->lane = (uint8_t)lane;
		const struct kp_model_thread *t = kp_model_thread(p->m, tid);
		struct pf_lanes *pl = t ? &p->lanes[t - p->m->threads] : NULL;
		if (pl && w && pl->waits < lane + 1)
			pl->waits = lane + 1;
		if (pl && !w && pl->runs < lane + 1)
			pl->runs = lane + 1;
	}
}

/* A slice's sort key: its thread, its start, its place before the sort. */
struct seg_key {
	uint64_t start;
	uint32_t tid, at;
};

static int cmp_key(const void *a, const void *b)
{
	const struct seg_key *x = a, *y = b;
	return cmp_place(x->tid, x->start, x->at, y->tid, y->start, y->at);
}

/* The slices in cmp_seg's order (their order is their place, from push):
 * the 16-byte keys sorted, then the slices moved to their places cycle by
 * cycle, each once (qsort moved the 64-byte slices about). */
static void sort_segs(struct segs *s)
{
	KP_ASSERT(s->n < UINT32_MAX, "%zu thread slices", s->n);
	struct seg_key *key = kp_xcalloc(s->n ? s->n : 1, sizeof(*key));

	for (size_t k = 0; k < s->n; k++)
		key[k] = (struct seg_key){ s->v[k].start, s->v[k].tid, (uint32_t)k };
	kp_sort(key, s->n, sizeof(*key), cmp_key);
	for (size_t i = 0; i < s->n; i++) { /* slice key[k].at goes to k */
		if (key[i].at == i)
			continue;
		struct seg first = s->v[i];
		size_t j = i;
		for (;;) {
			size_t from = key[j].at;
			key[j].at = (uint32_t)j; /* placed */
			if (from == i) {
				s->v[j] = first;
				break;
			}
			s->v[j] = s->v[from];
			j = from;
		}
	}
	free(key);
}

/* The ready slices add_ready appended after the first `sorted` slices
 * merged in: both parts are in (tid, start, order) order already (a
 * thread's ready slice ends at its run's start and begins after its run
 * before ends), so a merge from the back gives what a sort would. */
static void merge_ready(struct segs *s, size_t sorted)
{
	size_t nr = s->n - sorted, i = sorted, j = nr, k = s->n;
	struct seg *tail = kp_xcalloc(nr ? nr : 1, sizeof(*tail));

	if (nr) /* s->v is NULL while there is no slice */
		memcpy(tail, s->v + sorted, nr * sizeof(*tail));
	while (j) {
		if (i && cmp_seg(&s->v[i - 1], &tail[j - 1]) > 0)
			s->v[--k] = s->v[--i];
		else
			s->v[--k] = tail[--j];
	}
	free(tail);
}

/* A slice: on its thread's waits track (a spin or resource wait), or on
 * its running track (a run, its ready time). */
static bool on_waits(const struct pf_item *it)
{
	const struct seg *s = it->obj;

	return s->kind == SEG_SPIN || s->kind == SEG_RESOURCE;
}

static void write_seg(struct pf *p, const struct pf_item *it)
{
	if (on_waits(it))
		write_waiting(p, it);
	else
		write_running(p, it);
}

static void describe_seg(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	if (on_waits(it))
		describe_waiting(p, it, e);
	else
		describe_running(p, it, e);
}

static const struct pf_kind seg_kind = { write_seg, describe_seg };

void pf_thread_events(struct pf *p)
{
	struct segs *s = kp_xcalloc(1, sizeof(*s));

	p->lanes = kp_xcalloc(p->m->nthreads + 1, sizeof(*p->lanes));
	collect(p, s);
	sort_segs(s);
	size_t **widx = find_wakes(p, s);
	size_t sorted = s->n;
	add_ready(s);
	/* the ready slices merge in; remember where each wake's run went */
	for (size_t k = 0; k < s->n; k++)
		s->v[k].order = (uint32_t)k;
	for (uint32_t cpu = 0; cpu < p->m->ncpus; cpu++)
		for (size_t i = 0; i < p->m->cpu[cpu].nreadies; i++)
			if (p->wake[cpu][i].found)
				p->wake[cpu][i].lane = (uint32_t)widx[cpu][i]; /* its order, for now */
	merge_ready(s, sorted);
	assign_lanes(p, s);
	size_t *lane_of = kp_xcalloc(s->n + 1, sizeof(*lane_of));
	for (size_t k = 0; k < s->n; k++)
		lane_of[s->v[k].order] = s->v[k].lane;
	for (uint32_t cpu = 0; cpu < p->m->ncpus; cpu++) {
		for (size_t i = 0; i < p->m->cpu[cpu].nreadies; i++)
			if (p->wake[cpu][i].found)
				p->wake[cpu][i].lane = (uint32_t)lane_of[p->wake[cpu][i].lane];
		free(widx[cpu]);
	}
	free(widx);
	free(lane_of);
	pf_add_array(p, &seg_kind, s->v, sizeof(*s->v), s->n, offsetof(struct seg, start), 0);
	p->thread_segs = s;
}

void pf_thread_events_free(struct pf *p)
{
	struct segs *s = p->thread_segs;
	if (s)
		free(s->v);
	free(s);
	for (uint32_t cpu = 0; p->wake && cpu < p->m->ncpus; cpu++)
		free(p->wake[cpu]);
	free(p->wake);
	free(p->lanes);
}
