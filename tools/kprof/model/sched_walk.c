/*
 * sched_walk.c - every CPU's switches in and out (its runs, schedule.c)
 * and ReadyThread records, walked in time order without gathering them
 * (model.h: kp_sched_walk_*), for latency.c.
 *
 * The order, which latency.c's state machine relies on: by time stamp;
 * at one time stamp a switch out before a ReadyThread before a switch in
 * (a thread switched out and readied at one instant was readied after
 * it went out; one readied and switched in at one instant waited no
 * time); then CPU by CPU, a CPU's runs before its ReadyThread records,
 * each in the order they come.  That is the order the events would take
 * gathered CPU by CPU and sorted (which is what latency.c did, holding
 * all of them: about 40 bytes for each of two or three events a record).
 *
 * How: two streams a CPU, its runs' ends and its ReadyThread records,
 * each already in that order, merged through a heap of their heads.  A
 * CPU's runs are end to end in time, so its switches come in time order,
 * except at one time stamp, where a run of no length puts a switch in
 * before its switch out: the stream gathers the events of one time stamp
 * (a few) and orders them before it gives the first.  Idle-thread runs
 * (id 0) give nothing; a run from the trace's start no switch in, one to
 * its end no switch out.
 */
#include "tools/kprof/model/model.h"

#include <stddef.h>
#include <stdlib.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

struct stream {
	const struct kp_model_cpu *c;
	uint32_t cpu;
	bool readies;          /* the CPU's ReadyThread records, else its runs */
	size_t next;           /* the next run or record to read             */
	bool at_out;           /* runs: the next run's switch in is given    */
	struct kp_sched_event *grp; /* runs: the events of one time stamp    */
	size_t ngrp, capgrp, at;
	struct kp_sched_event head;
};

struct kp_sched_walk {
	struct stream *s;
	size_t n;
	size_t *heap;          /* stream indexes, the least head first        */
	size_t nheap;
};

/* The next switch of a CPU's runs as they come (not yet ordered at one
 * time stamp); false at the end. */
static bool raw_switch(struct stream *s, struct kp_sched_event *e)
{
	const struct kp_model_cpu *c = s->c;

	for (; s->next < c->nruns; s->next++, s->at_out = false) {
		const struct kp_run *r = &c->runs[s->next];
		if (!r->tid)
			continue;
		if (!s->at_out) {
			s->at_out = true;
			if (!r->from_start) {
				*e = (struct kp_sched_event){ .ts = r->start, .tid = r->tid, .type = KP_SCHED_IN,
							      .cpu = (uint8_t)s->cpu };
				return true;
			}
		}
		if (!r->to_end) {
			*e = (struct kp_sched_event){ .ts = r->end, .tid = r->tid, .type = KP_SCHED_OUT,
						      .cpu = (uint8_t)s->cpu, .state = r->gap ? 0xFF : r->end_state,
						      .reason = r->end_reason };
			s->next++, s->at_out = false;
			return true;
		}
	}
	return false;
}

/* The thread running on c at ts (runs are end to end, in time order). */
static uint32_t running_at(const struct kp_model_cpu *c, uint64_t ts)
{
	size_t lo = kp_bound_u64(c->runs, c->nruns, sizeof(*c->runs), offsetof(struct kp_run, end), ts, true);

	return lo < c->nruns && c->runs[lo].start <= ts ? c->runs[lo].tid : 0;
}

/* The stream's next event into its head; false at its end. */
static bool advance(struct stream *s)
{
	if (s->readies) {
		for (; s->next < s->c->nreadies; s->next++) {
			const struct kp_ready *r = &s->c->readies[s->next];
			if (!r->tid)
				continue;
			s->head = (struct kp_sched_event){ .ts = r->ts, .tid = r->tid, .type = KP_SCHED_READY,
							   .cpu = (uint8_t)s->cpu, .by = running_at(s->c, r->ts),
							   .why = r->reason >= 0 && r->reason < KP_READY_PREEMPTED
									  ? r->reason : 0 };
			s->next++;
			return true;
		}
		return false;
	}
	if (s->at >= s->ngrp) { /* gather the next time stamp's switches */
		struct kp_sched_event e;
		s->ngrp = s->at = 0;
		if (!raw_switch(s, &e))
			return false;
		KP_PUSH(s->grp, s->ngrp, s->capgrp, e);
		size_t keep = s->next;
		bool keep_out = s->at_out;
		while (raw_switch(s, &e)) {
			if (e.ts != s->grp[0].ts) { /* the next time stamp's: read again next time */
				s->next = keep, s->at_out = keep_out;
				break;
			}
			KP_PUSH(s->grp, s->ngrp, s->capgrp, e);
			keep = s->next, keep_out = s->at_out;
		}
		/* In order of type, and as they came within one type: a switch
		 * out at most before a switch in, so an insertion sort. */
		for (size_t i = 1; i < s->ngrp; i++)
			for (size_t j = i; j > 0 && s->grp[j - 1].type > s->grp[j].type; j--) {
				struct kp_sched_event t = s->grp[j];
				s->grp[j] = s->grp[j - 1], s->grp[j - 1] = t;
			}
	}
	s->head = s->grp[s->at++];
	return true;
}

/* Is stream a's head before stream b's (a != b: a stream is in the heap
 * once)?  Time, type, then CPU by CPU: a CPU's runs, stream 2n, before its
 * ReadyThread records, 2n + 1.  Within a stream its order is kept by the
 * stream itself, one head at a time. */
static bool before(const void *pa, const void *pb, const void *ctx)
{
	const struct kp_sched_walk *w = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct stream *x = &w->s[a], *y = &w->s[b];

	if (x->head.ts != y->head.ts)
		return x->head.ts < y->head.ts;
	if (x->head.type != y->head.type)
		return x->head.type < y->head.type;
	return a < b;
}

static void sift_down(struct kp_sched_walk *w, size_t i)
{
	kp_heap_down(w->heap, w->nheap, i, sizeof(*w->heap), before, w);
}

struct kp_sched_walk *kp_sched_walk_new(const struct kp_model *m)
{
	struct kp_sched_walk *w = kp_xcalloc(1, sizeof(*w));

	w->n = 2 * (size_t)m->ncpus;
	w->s = kp_xcalloc(w->n ? w->n : 1, sizeof(*w->s));
	w->heap = kp_xcalloc(w->n ? w->n : 1, sizeof(*w->heap));
	for (size_t i = 0; i < w->n; i++) {
		w->s[i] = (struct stream){ .c = &m->cpu[i / 2], .cpu = (uint32_t)(i / 2), .readies = i % 2 };
		if (advance(&w->s[i]))
			w->heap[w->nheap++] = i;
	}
	for (size_t i = w->nheap / 2; i-- > 0;)
		sift_down(w, i);
	return w;
}

bool kp_sched_walk_next(struct kp_sched_walk *w, struct kp_sched_event *e)
{
	if (!w->nheap)
		return false;
	struct stream *s = &w->s[w->heap[0]];
	*e = s->head;
	if (!advance(s))
		w->heap[0] = w->heap[--w->nheap];
	sift_down(w, 0);
	return true;
}

void kp_sched_walk_free(struct kp_sched_walk *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->s[i].grp);
	free(w->s);
	free(w->heap);
	free(w);
}
