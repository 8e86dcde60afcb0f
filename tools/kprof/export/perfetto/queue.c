/*
 * queue.c - the queue of events (pf.h) that collect.c's part files fill
 * and either writer walks: pf_add puts an event in it, pf_add_array an
 * event per element of an array the model already holds (a CPU's runs,
 * its samples, the threads' slices: most of a big log's events), so that
 * those are never copied; pf_walk_* hand the events over in time order,
 * by (ts, seq), seq an event's place in the queue.  A file of its own so
 * that the parts call down into it and never back into collect.c, which
 * calls them.
 *
 * The walk merges the queue's runs: each part file adds its events a CPU,
 * a thread or a lane at a time, in time order, so the queue is a few
 * runs whose times never go back (a few dozen events each on a big log;
 * a wake-up flow's two ends, one behind the other, make the shortest).
 * A heap of the runs, keyed by their next event's (ts, seq), gives the
 * events in the order a sort of the whole queue would, holding a run's
 * place (40 bytes) where a sort held a copy of every event.
 */
#include "tools/kprof/export/perfetto/pf.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

void pf_add(struct pf *p, struct pf_item it)
{
	it.seq = p->queued++;
	KP_PUSH(p->items, p->nitems, p->capitems, it);
}

void pf_add_array(struct pf *p, const struct pf_kind *kind, const void *base, size_t stride, size_t n, size_t ts_at,
		  uint32_t cpu)
{
	struct pf_array a = { kind, base, stride, n, ts_at, cpu, p->queued };

	if (!n)
		return;
	p->queued += n;
	KP_PUSH(p->arrays, p->narrays, p->caparrays, a);
}

static uint64_t array_ts(const struct pf_array *a, size_t i)
{
	uint64_t ts;

	memcpy(&ts, a->base + i * a->stride + a->ts_at, sizeof(ts));
	return ts;
}

/* The run's next event's (ts, seq). */
static void run_key(const struct pf *p, struct pf_run *r)
{
	if (r->array) {
		r->ts = array_ts(r->array, r->at);
		r->seq = r->array->seq0 + r->at;
	} else {
		r->ts = p->items[r->at].ts;
		r->seq = p->items[r->at].seq;
	}
}

static bool before(const void *a, const void *b, const void *ctx)
{
	const struct pf_run *x = a, *y = b;
	(void)ctx;
	return x->ts != y->ts ? x->ts < y->ts : x->seq < y->seq;
}

static void sift_down(struct pf_walk *w, size_t i)
{
	kp_heap_down(w->heap, w->n, i, sizeof(*w->heap), before, NULL);
}

static void add_run(struct pf_walk *w, size_t *cap, const struct pf_array *array, size_t at, size_t end)
{
	struct pf_run r = { .at = at, .end = end, .array = array };

	run_key(w->p, &r);
	KP_PUSH(w->heap, w->n, *cap, r);
}

void pf_walk_start(const struct pf *p, struct pf_walk *w)
{
	size_t cap = 0;

	*w = (struct pf_walk){ .p = p };
	for (size_t i = 0, j; i < p->nitems; i = j) {
		for (j = i + 1; j < p->nitems && p->items[j].ts >= p->items[j - 1].ts; j++)
			;
		add_run(w, &cap, NULL, i, j);
	}
	for (size_t k = 0; k < p->narrays; k++) {
		const struct pf_array *a = &p->arrays[k];
		uint64_t last = array_ts(a, 0);
		for (size_t i = 0, j; i < a->n; i = j) {
			for (j = i + 1; j < a->n; j++) {
				uint64_t ts = array_ts(a, j);
				if (ts < last)
					break;
				last = ts;
			}
			if (j < a->n)
				last = array_ts(a, j);
			add_run(w, &cap, a, i, j);
		}
	}
	for (size_t i = w->n / 2; i-- > 0;)
		sift_down(w, i);
}

const struct pf_item *pf_walk_next(struct pf_walk *w)
{
	if (!w->n)
		return NULL;
	struct pf_run *top = &w->heap[0];
	if (top->array)
		w->cur = (struct pf_item){ .ts = top->ts, .kind = top->array->kind, .seq = top->seq,
					   .obj = top->array->base + top->at * top->array->stride, .cpu = top->array->cpu };
	else
		w->cur = w->p->items[top->at];
	if (++top->at < top->end)
		run_key(w->p, top);
	else
		*top = w->heap[--w->n];
	sift_down(w, 0);
	return &w->cur;
}

void pf_walk_free(struct pf_walk *w)
{
	free(w->heap);
	*w = (struct pf_walk){ 0 };
}
