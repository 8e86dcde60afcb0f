/*
 * threads.c - the threads' tracks in the protobuf trace, made in one
 * sweep over each thread's facts (proto.h) sorted by (thread, group,
 * time, ReadyThread records first, place), with what perfetto_threads.c
 * makes of the whole model for the JSON:
 *
 *   group 0: its runs ("on CPU n" on "running": its CPU from its place,
 *     its priority in what, for the wakings) and the ReadyThread
 *     records that readied it.  A record belongs to the thread's first
 *     run that starts at or after it; the run's ready time is a slice
 *     "ready" from the first of its records (or the end of the thread's
 *     runs before, if later) to its start; each of its records whose CPU
 *     was running something (a CPU with runs runs a thread from the
 *     trace's beginning, model/schedule.c) is a wake-up flow from the
 *     record's "ReadyThread" instant on "CPU n" to this run's start (the
 *     JSON's starts at the run the CPU was running then, at its start:
 *     that run is no TrackEvent here but a switch of the schedule,
 *     sched.c, and a flow needs an event to sit on); and each of them
 *     is the schedule's waking (sched.c) with where and at what priority
 *     the thread then ran, or, for those no run of it follows, its base
 *     priority on the record's own CPU (perfetto_sched.c's rules);
 *   group 1: its spin-lock waits (waits.c) and resource waits (gather.c)
 *     on "waits".
 *
 * A slice goes to the first lane of its group whose last slice has ended
 * (perfetto_threads.c's rule: of the lanes still busy, the one that ends
 * first, after eight), so no two slices of a track overlap; pf.lanes
 * counts the lanes for the track list.  A run's ready time goes into the
 * sweep just before the run: no other slice of the thread's group 0
 * starts between the two, so it gets the lane it would get in its place.
 * What is held is one thread's records waiting for its next run.
 */
#include <stdlib.h>

#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/progress/progress.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

static inline int pb_thread_cmp_of(const struct pb_thread_fact *x, const struct pb_thread_fact *y)
{
	int c;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if ((x->what ^ y->what) & PB_TF_WAITS)
		return x->what & PB_TF_WAITS ? 1 : -1;
	if ((c = kp_cmp_u64(x->t, y->t)))
		return c;
	if ((x->what ^ y->what) & PB_TF_READY) /* a record before the run that starts at its time */
		return x->what & PB_TF_READY ? -1 : 1;
	return kp_cmp_u64(x->order, y->order);
}

int pb_thread_cmp(const void *a, const void *b)
{
	return pb_thread_cmp_of(a, b);
}

PB_SORT_DEFINE(pb_thread_sort, struct pb_thread_fact, pb_thread_cmp_of)

/* A thread's fact in a run of the threads' sort, against the one before
 * it (the same thread and group, mostly, a little later): what it is,
 * the thread's and the time's differences, its end from its
 * time, its place's difference.  About 12 bytes, not 32. */
static size_t tf_encode(const void *prev_, const void *e_, unsigned char *out)
{
	const struct pb_thread_fact *prev = prev_, *e = e_;
	bool same = prev && prev->tid == e->tid && !((prev->what ^ e->what) & PB_TF_WAITS);
	size_t o = 0;

	o += pb_put_varint(out + o, e->what);
	o += pb_put_varint(out + o, prev ? e->tid - prev->tid : e->tid);
	o += pb_put_varint(out + o, same ? e->t - prev->t : e->t);
	o += pb_put_varint(out + o, pb_zigzag(e->end, e->t));
	o += pb_put_varint(out + o, pb_zigzag(e->order, prev ? prev->order : 0));
	return o;
}

static size_t tf_decode(const void *prev_, const unsigned char *in, void *e_)
{
	const struct pb_thread_fact *prev = prev_;
	struct pb_thread_fact *e = e_;
	uint64_t v;
	size_t o = 0;

	o += pb_get_varint(in + o, &v);
	e->what = (uint32_t)v;
	o += pb_get_varint(in + o, &v);
	e->tid = (uint32_t)(prev ? prev->tid + v : v);
	bool same = prev && prev->tid == e->tid && !((prev->what ^ e->what) & PB_TF_WAITS);
	o += pb_get_varint(in + o, &v);
	e->t = same ? prev->t + v : v;
	o += pb_get_varint(in + o, &v);
	e->end = pb_unzigzag(v, e->t);
	o += pb_get_varint(in + o, &v);
	e->order = pb_unzigzag(v, prev ? prev->order : 0);
	return o;
}

const struct pb_spill_codec pb_thread_codec = { tf_encode, tf_decode, 64 };

struct sweep {
	uint32_t tid;
	bool group;             /* the waits (else the runs)                   */
	uint64_t end[PF_LANES]; /* each lane's last slice's end (0: none)      */
	uint64_t last_end;      /* the thread's runs so far end here           */
	bool readied;           /* a record waits for the next run:            */
	uint64_t from;          /* the first one's time (nonzero)              */
	struct wake {           /* those whose CPU was running a thread        */
		uint64_t at;    /* the record's time                           */
		uint64_t seq;   /* its place among its CPU's records           */
		uint16_t cpu;
	} *wakes;
	size_t nwakes, capwakes;
	struct pf_lanes *lanes; /* the thread's, or NULL (not in the table)    */
};

/* The slice's lane (pf_lane_for, as the JSON's), counted for the track
 * list. */
static uint32_t lane_for(struct sweep *s, uint64_t start, uint64_t end)
{
	uint32_t lane = pf_lane_for(s->end, start, end);

	if (s->lanes && s->group && s->lanes->waits < lane + 1)
		s->lanes->waits = (uint8_t)(lane + 1);
	if (s->lanes && !s->group && s->lanes->runs < lane + 1)
		s->lanes->runs = (uint8_t)(lane + 1);
	return lane;
}

static void run(struct pb_writer *w, struct sweep *s, const struct pb_thread_fact *f)
{
	uint32_t pid = PF_THREAD_PID(f->tid);

	if (s->readied) {
		uint64_t from = s->from > s->last_end ? s->from : s->last_end;
		if (from < f->t) {
			uint32_t lane = lane_for(s, from, f->t);
			pb_add_slice(w, pid, PF_RUN_TID(f->tid, lane), from, f->t, pb_intern(w, "ready"));
		}
	}
	uint32_t lane = lane_for(s, f->t, f->end), cpu = (uint32_t)(f->order >> 44);
	struct pf_event on = { .name_key = PF_NAME_KEY(PF_NAME_ON_CPU, cpu) };
	pb_add_slice(w, pid, PF_RUN_TID(f->tid, lane), f->t, f->end, pb_intern_event(w, &on));
	uint64_t at = pf_ns(w->pf.m, f->t);
	uint32_t wakeup = s->nwakes ? pb_intern(w, "wakeup") : 0;
	for (size_t i = 0; i < s->nwakes; i++) {
		const struct wake *k = &s->wakes[i];
		uint64_t id = ++w->flows;
		pb_add(w, PF_CPUS_PID, CPU_TID + k->cpu,
		       (struct pb_ev){ .ts = pf_ns(w->pf.m, k->at), .end = id, .name = w->ready_name, .type = EV_FLOW_OUT });
		pb_add(w, pid, PF_RUN_TID(f->tid, lane),
		       (struct pb_ev){ .ts = at, .end = id, .name = wakeup, .type = EV_FLOW_IN });
		pb_sched_ready(w, k->cpu, k->seq, k->at, f->tid, cpu, (int8_t)(f->what & 0xFF));
	}
	s->readied = false;
	s->nwakes = 0;
	if (f->end > s->last_end)
		s->last_end = f->end;
}

/* The thread's records no run of it followed: their wakings, at its base
 * priority on their own CPU (perfetto_sched.c's sched_wakeup). */
static void unclaimed(struct pb_writer *w, struct sweep *s)
{
	const struct kp_model_thread *t = kp_model_thread(w->pf.m, s->tid);

	for (size_t i = 0; i < s->nwakes; i++)
		pb_sched_ready(w, s->wakes[i].cpu, s->wakes[i].seq, s->wakes[i].at, s->tid, s->wakes[i].cpu,
			       t ? t->base_priority : 0);
	s->nwakes = 0;
}

void pb_threads_lanes(struct pb_writer *w)
{
	const struct kp_model *m = w->pf.m;
	const struct pb_thread_fact *f;
	struct sweep s = { .tid = UINT32_MAX };

	w->pf.lanes = kp_xcalloc(m->nthreads + 1, sizeof(*w->pf.lanes));
	pb_spill_sorted(&w->threads);
	kp_progress_phase("laying out the threads", "facts", w->threads.count);
	while ((f = pb_spill_next(&w->threads))) {
		kp_progress_record(0);
		bool waits = f->what & PB_TF_WAITS;
		if (f->tid != s.tid || waits != s.group) {
			unclaimed(w, &s);
			const struct kp_model_thread *t = kp_model_thread(m, f->tid);
			s = (struct sweep){ .tid = f->tid, .group = waits, .wakes = s.wakes, .capwakes = s.capwakes,
					    .lanes = t ? &w->pf.lanes[t - m->threads] : NULL };
		}
		if (waits) {
			uint32_t lane = lane_for(&s, f->t, f->end);
			pb_add_slice(w, PF_THREAD_PID(f->tid), PF_WAIT_TID(f->tid, lane), f->t, f->end,
				     f->what & PB_TF_VALUE);
		} else if (f->what & PB_TF_READY) {
			if (f->t && (!s.readied || f->t < s.from)) {
				s.readied = true;
				s.from = f->t;
			}
			uint32_t cpu = f->what & PB_TF_VALUE;
			if (cpu < m->ncpus && w->runs[cpu] && f->t >= m->begin) /* its CPU was running a thread */
				KP_PUSH(s.wakes, s.nwakes, s.capwakes,
					((struct wake){ f->t, f->order & (PB_WAKING - 1), (uint16_t)cpu }));
		} else {
			run(w, &s, f);
		}
	}
	unclaimed(w, &s);
	free(s.wakes);
	pb_spill_free(&w->threads);
}
