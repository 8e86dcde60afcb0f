/*
 * latency.c - scheduling latency and blocked time per thread, as
 * `perf sched latency` and WPA's Ready / Waits columns give them.
 *
 * Every CPU's runs (schedule.c) and ReadyThread records, in time order
 * (sched_order.c, one event at a time, as the model's second pass makes
 * them), walk each thread through the states
 *
 *   running --switch out, OldThreadState Waiting (reason r)--> blocked
 *   running --switch out, OldThreadState Ready--------------> ready
 *   blocked --ReadyThread (AdjustReason)--------------------> ready
 *   ready   --switch in-------------------------------------> running
 *
 * so that:
 *   - latency (ready to running): from the ReadyThread record, or from a
 *     switch out in state Ready (preempted, quantum end, yield: the thread
 *     never stopped wanting the CPU), to the next switch in; its count,
 *     total and longest, when the longest ended, why the thread was made
 *     ready (AdjustReason 0 new, 1 unwait, 2 boost; or preempted) and by
 *     whom: the thread running on the CPU that wrote the ReadyThread
 *     record (the record has no readying thread of its own; WPA takes the
 *     same);
 *   - blocked time: from a switch out in state Waiting to the ReadyThread
 *     that ends the wait, per OldThreadWaitReason of that switch.
 *
 * A ReadyThread can come before the switch out of the thread it readies
 * (it is readied on another CPU while it is still on its way out): then
 * the thread is ready from the switch out on, blocked for no time.  A
 * switch in after a wait with no ReadyThread seen (records lost, or the
 * group off) is counted (unreadied), not timed.  The idle threads (id 0)
 * are left out; a run whose end is a lost switch leaves the thread's
 * state unknown until its next switch in.  Stalls are not taken out:
 * a thread ready while its CPU stalls did wait that long.
 */
#include "tools/kprof/model/model.h"

#include <stdlib.h>

#include "tools/kprof/util/alloc.h"

enum th_state { TS_UNKNOWN, TS_RUNNING, TS_BLOCKED, TS_READY, TS_EARLY };

struct th {
	uint8_t state, reason, cpu;
	int8_t why;
	uint32_t by;
	uint64_t since;
};

static void make_ready(struct th *s, uint64_t since, uint32_t by, int8_t why, uint8_t cpu)
{
	*s = (struct th){ .state = TS_READY, .since = since, .by = by, .why = why, .cpu = cpu };
}

static void switch_out(struct kp_model_thread *t, struct th *s, const struct kp_sched_event *e)
{
	if (e->state == Ready) {
		make_ready(s, e->ts, t->tid, KP_READY_PREEMPTED, e->cpu);
	} else if (e->state == Waiting && s->state == TS_EARLY) {
		t->nblocked[e->reason]++; /* readied before it was out: no time blocked */
		make_ready(s, e->ts, s->by, s->why, s->cpu);
	} else if (e->state == Waiting) {
		*s = (struct th){ .state = TS_BLOCKED, .since = e->ts, .reason = e->reason };
	} else {
		s->state = TS_UNKNOWN; /* terminated, or the switch was lost */
	}
}

static void readied(struct kp_model_thread *t, struct th *s, const struct kp_sched_event *e)
{
	switch (s->state) {
	case TS_BLOCKED:
		t->blocked[s->reason] += e->ts - s->since;
		t->nblocked[s->reason]++;
		/* fall through */
	case TS_UNKNOWN:
		make_ready(s, e->ts, e->by, e->why, e->cpu);
		break;
	case TS_RUNNING:
		*s = (struct th){ .state = TS_EARLY, .by = e->by, .why = e->why, .cpu = e->cpu };
		break;
	default:
		break; /* ready already: from the first time */
	}
}

static void switch_in(struct kp_model_thread *t, struct th *s, const struct kp_sched_event *e)
{
	struct kp_latency *l = &t->lat;

	if (s->state == TS_READY) {
		uint64_t d = e->ts - s->since;
		l->n++;
		l->total += d;
		l->total2 += (double)d * (double)d;
		l->why[s->why]++;
		if (l->n == 1 || d > l->max) {
			l->max = d;
			l->max_at = e->ts;
			l->max_by = s->by;
			l->max_why = s->why;
			l->max_cpu = s->cpu;
		}
	} else if (s->state == TS_BLOCKED) {
		l->unreadied++;
	}
	s->state = TS_RUNNING;
}

struct kp_latency_walk {
	struct kp_model *m;
	struct th *st;         /* by the thread's row in m->threads          */
};

struct kp_latency_walk *kp_latency_new(struct kp_model *m)
{
	struct kp_latency_walk *w = kp_xcalloc(1, sizeof(*w));

	w->m = m;
	w->st = kp_xcalloc(m->nthreads ? m->nthreads : 1, sizeof(*w->st));
	return w;
}

void kp_latency_take(struct kp_latency_walk *w, const struct kp_sched_event *e)
{
	struct kp_model_thread *t = (struct kp_model_thread *)kp_model_thread(w->m, e->tid);

	if (!t)
		return; /* a ReadyThread for a thread never switched nor named */
	struct th *s = &w->st[t - w->m->threads];
	switch (e->type) {
	case KP_SCHED_OUT: switch_out(t, s, e); break;
	case KP_SCHED_READY: readied(t, s, e); break;
	default: switch_in(t, s, e); break;
	}
}

void kp_latency_free(struct kp_latency_walk *w)
{
	if (!w)
		return;
	free(w->st);
	free(w);
}
