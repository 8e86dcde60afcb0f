/*
 * gather.c - what the protobuf trace is made of, gathered as the model's
 * second pass meets it (pb_gather_sink), so that the model keeps none of
 * the records (proto.h):
 *
 *   a run: its switch (sched.c: the runs' sort) and, not the idle
 *     thread's, its slice for the thread's tracks (the threads' sort);
 *   a sample: an instant on "CPU n", named after its function when the
 *     events are written (--kernel is opened after the model is made);
 *   a ReadyThread record: an instant on "CPU n", and itself for the
 *     threads' sort (whose sweep gives its waking to sched.c);
 *   a SpinLock record that waited: its wait, to nest with its CPU's (the
 *     waits' sort), as the model's events.c takes it;
 *   a Resource release that waited: the thread's wait (the threads' sort),
 *     as perfetto_threads.c takes it.
 *
 *   the workload's own events and scenario=noise's: user.c and noise.c
 *     draw them as they come (the sink's `other`).
 *
 * After the model, the rest goes through the JSON's own part files, whose
 * queue then holds only what the model kept (holes, stalls, clock steps):
 * each is described (pf_kind.describe) into the events' sort.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/read/frames.h"
#include "tools/kprof/read/user_types.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/kpassert.h"

/* Each sort's buffer: five of them at once, so that the writer's own
 * memory stays near 96 MiB (with the merge sort's scratch while one
 * spills). */
#define SORT_BUDGET (16u << 20)

void pb_gather_init(struct pb_writer *w)
{
	/* KPROF_SPILL_BUDGET: bytes, for tests (every sort made to spill) */
	size_t budget = kp_env_number("KPROF_SPILL_BUDGET", SORT_BUDGET, 1, SIZE_MAX);

	pb_spill_init(&w->events, sizeof(struct pb_ev), pb_ev_cmp, pb_ev_sort, &pb_ev_codec, budget);
	pb_spill_init(&w->waits, sizeof(struct pb_wait_fact), pb_wait_cmp, pb_wait_sort, NULL, budget);
	pb_spill_init(&w->threads, sizeof(struct pb_thread_fact), pb_thread_cmp, pb_thread_sort, &pb_thread_codec,
		      budget);
	pb_spill_init(&w->links, sizeof(struct pb_noise_link), pb_link_cmp, pb_link_sort, NULL, budget);
	pb_spill_init(&w->sched, sizeof(struct pb_run_fact), pb_run_cmp, pb_run_sort, &pb_run_codec, budget);
}

uint32_t pb_track_key(struct pb_writer *w, uint32_t pid, uint32_t tid)
{
	uint64_t key = (uint64_t)pid << 32 | tid, h = kp_hash_u64(key, 0);
	size_t it;

	if (w->nkeys && w->keys[w->nkeys - 1] == key) /* a track's events come in runs */
		return (uint32_t)(w->nkeys - 1);
	for (size_t at = kp_index_first(&w->key_ix, h, &it); at != KP_INDEX_NONE; at = kp_index_next(&w->key_ix, h, &it))
		if (w->keys[at] == key)
			return (uint32_t)at;
	kp_index_add(&w->key_ix, h, w->nkeys);
	KP_PUSH(w->keys, w->nkeys, w->capkeys, key);
	return (uint32_t)(w->nkeys - 1);
}

void pb_add(struct pb_writer *w, uint32_t pid, uint32_t tid, struct pb_ev e)
{
	KP_ASSERT(w->seq < UINT32_MAX, "%llu events", (unsigned long long)w->seq);
	e.track = pb_track_key(w, pid, tid);
	e.seq = (uint32_t)w->seq++;
	pb_spill_add(&w->events, &e);
}

void pb_add_slice(struct pb_writer *w, uint32_t pid, uint32_t tid, uint64_t a, uint64_t b, uint32_t name)
{
	uint64_t x = pf_ns(w->pf.m, a), y = pf_ns(w->pf.m, b);

	pb_add(w, pid, tid, (struct pb_ev){ .ts = x, .end = y < x ? x : y, .name = name, .type = EV_SLICE });
}

static void start(void *ctx, const struct kp_model *m)
{
	struct pb_writer *w = ctx;

	w->pf.m = m;
	w->runs = kp_xcalloc(m->ncpus ? m->ncpus : 1, sizeof(*w->runs));
	w->pf.noise_cpus = kp_xcalloc(m->ncpus ? m->ncpus : 1, sizeof(*w->pf.noise_cpus));
}

static void run(void *ctx, uint32_t cpu, const struct kp_run *r)
{
	struct pb_writer *w = ctx;

	if (!r)
		return;
	KP_ASSERT(cpu <= UINT16_MAX && w->runs[cpu] < (1ull << 44), "run %llu of cpu %u",
		  (unsigned long long)w->runs[cpu], cpu);
	pb_sched_run(w, cpu, r);
	if (r->tid) {
		struct pb_thread_fact t = { .t = r->start, .end = r->end, .order = (uint64_t)cpu << 44 | w->runs[cpu],
					    .tid = r->tid, .what = (uint8_t)r->priority };
		pb_spill_add(&w->threads, &t);
	}
	w->runs[cpu]++;
}

static void spinlock(struct pb_writer *w, const struct kp_record *r)
{
	WMI_SPINLOCK s;

	memcpy(&s, r->payload, sizeof(s));
	if (!kp_spinlock_waited(&s))
		return;
	struct pb_wait_fact f = { .start = s.AcquireTime - s.WaitTimeInCycles, .end = s.AcquireTime,
				  .lock = s.SpinLockAddress, .seq = w->seq++, .tid = s.ThreadId, .cpu = r->cpu };
	if (f.start < w->pf.m->begin)
		f.start = w->pf.m->begin;
	pb_spill_add(&w->waits, &f);
}

static void ready(struct pb_writer *w, const struct kp_record *r)
{
	WMI_READY_THREAD p;

	memcpy(&p, r->payload, sizeof(p));
	if (!w->ready_name)
		w->ready_name = pb_intern(w, "ReadyThread");
	pb_add(w, PF_CPUS_PID, CPU_TID + r->cpu,
	       (struct pb_ev){ .ts = pf_ns(w->pf.m, r->h.TimeStamp), .name = w->ready_name, .type = EV_INSTANT });
	KP_ASSERT(w->seq < PB_WAKING && r->cpu <= UINT16_MAX, "record %llu of cpu %u", (unsigned long long)w->seq,
		  r->cpu);
	struct pb_thread_fact t = { .t = r->h.TimeStamp, .end = r->h.TimeStamp, .order = (uint64_t)r->cpu << 44 | w->seq++,
				    .tid = p.TThreadId, .what = r->cpu | PB_TF_READY };
	pb_spill_add(&w->threads, &t);
}

/* A release that waited: the thread's wait, "resource NAME". */
static void resource(struct pb_writer *w, const struct kp_record *r)
{
	const struct kp_model *m = w->pf.m;
	WMI_RESOURCE x;
	char name[64], label[40];

	memcpy(&x, r->payload, sizeof(x));
	uint64_t order = 1ull << 63 | w->resources++; /* after every CPU's waits */
	uint64_t from;
	if (!kp_resource_wait(m, &x, &from))
		return;
	snprintf(name, sizeof(name), "resource %s", kp_model_object_label(m, x.Resource, from, label, sizeof(label)));
	struct pb_thread_fact t = { .t = from, .end = x.AcquireTime, .order = order, .tid = x.ThreadId,
				    .what = pb_intern(w, name) | PB_TF_WAITS };
	pb_spill_add(&w->threads, &t);
}

static void record(void *ctx, const struct kp_record *r, uint16_t kind)
{
	struct pb_writer *w = ctx;

	switch (kind) {
	case PERFINFO_LOG_TYPE_SPINLOCK: spinlock(w, r); break;
	case PERFINFO_LOG_TYPE_READY_THREAD: ready(w, r); break;
	case PERFINFO_LOG_TYPE_RESOURCE: resource(w, r); break;
	case PERFINFO_LOG_TYPE_SAMPLED_PROFILE:
	case PERFINFO_LOG_TYPE_PMC_INTERRUPT: {
		struct kp_sample k;
		kp_sample_of(r, &k);
		pb_add(w, PF_CPUS_PID, CPU_TID + r->cpu,
		       (struct pb_ev){ .ts = pf_ns(w->pf.m, k.ts), .end = k.ip, .type = k.pmc ? EV_PMC_SAMPLE : EV_SAMPLE });
		break;
	}
	default: break;
	}
}

/* A record of no kind the model reads: scenario=noise's, the workload's. */
static void other(void *ctx, const struct kp_record *r)
{
	struct pb_writer *w = ctx;
	const struct kp_user_types *u = w->pf.log->user_types;

	if (!pb_noise_record(w, r) && u && u->n)
		pb_user_record(w, r);
}

const struct kp_run_sink pb_gather_sink = { .start = start, .run = run, .record = record, .other = other };

/* An event the JSON's part files queued, described into the events'
 * sort: a slice, an instant, a flow's end. */
static void describe(struct pb_writer *w, const struct pf_item *it)
{
	struct pf_event d;

	it->kind->describe(&w->pf, it, &d);
	uint64_t ts = pf_ns(w->pf.m, d.start);
	KP_ASSERT(d.ph != 'C', "a counter from the kept parts"); /* only the workload's: user.c */
	switch (d.ph) {
	case 'X': pb_add_slice(w, d.pid, d.tid, d.start, d.end, pb_intern_event(w, &d)); break;
	case 'i':
		pb_add(w, d.pid, d.tid, (struct pb_ev){ .ts = ts, .name = pb_intern_event(w, &d), .type = EV_INSTANT });
		break;
	default: /* 's', 'f' */
		pb_add(w, d.pid, d.tid,
		       (struct pb_ev){ .ts = ts, .end = d.flow, .name = pb_intern_event(w, &d),
				       .type = d.ph == 'f' ? EV_FLOW_IN : EV_FLOW_OUT });
		break;
	}
}

void pb_gather_kept(struct pb_writer *w)
{
	struct pf *p = &w->pf;

	pf_cpu_events(p); /* the model kept no run, wait, sample or ReadyThread */
	p->flows = w->flows; /* the noise links' ids follow the wake-ups' */
	pb_noise_links(w);
	pb_tracks_declare(w);
	pb_user_declare(w); /* the workload's events came with the records */
	for (size_t i = 0; i < p->nitems; i++)
		describe(w, &p->items[i]);
	for (size_t k = 0; k < p->narrays; k++) {
		const struct pf_array *a = &p->arrays[k];
		for (size_t i = 0; i < a->n; i++) {
			struct pf_item it = { .kind = a->kind, .obj = a->base + i * a->stride, .cpu = a->cpu };
			memcpy(&it.ts, (const char *)it.obj + a->ts_at, sizeof(it.ts));
			describe(w, &it);
		}
	}
}
