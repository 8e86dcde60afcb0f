/*
 * queue.c - the queue of events (pf.h) that collect.c's part files fill
 * and either writer walks: pf_add puts an event in it; pf_walk_* hand its
 * events over in time order, by (ts, seq), without moving or copying them.
 * A file of its own so that the parts call down into it and never back
 * into collect.c, which calls them.
 *
 * The walk merges the queue's runs: each part file adds its events a CPU,
 * a thread or a lane at a time, in time order, so the queue is a few
 * runs whose times never go back (a few dozen events each on a big log;
 * a wake-up flow's two ends, one behind the other, make the shortest).
 * A heap of the runs, keyed by their next event's (ts, seq), gives the
 * events in the order a sort of the whole queue would, holding a run's
 * place (24 bytes) where a sort held a copy of every event.
 */
#include "tools/kprof/export/perfetto/pf.h"

#include <stdlib.h>

#include "tools/kprof/util/alloc.h"

void pf_add(struct pf *p, struct pf_item it)
{
	KP_PUSH(p->items, p->nitems, p->capitems, it);
}

static bool before(const struct pf_run *x, const struct pf_run *y)
{
	return x->ts != y->ts ? x->ts < y->ts : x->at < y->at;
}

static void sift_down(struct pf_walk *w, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < w->n && before(&w->heap[l], &w->heap[m]))
			m = l;
		if (r < w->n && before(&w->heap[r], &w->heap[m]))
			m = r;
		if (m == i)
			return;
		struct pf_run t = w->heap[i];
		w->heap[i] = w->heap[m];
		w->heap[m] = t;
		i = m;
	}
}

void pf_walk_start(const struct pf *p, struct pf_walk *w)
{
	size_t cap = 0;

	*w = (struct pf_walk){ .items = p->items };
	for (size_t i = 0, j; i < p->nitems; i = j) {
		for (j = i + 1; j < p->nitems && p->items[j].ts >= p->items[j - 1].ts; j++)
			;
		struct pf_run r = { .ts = p->items[i].ts, .at = i, .end = j };
		KP_PUSH(w->heap, w->n, cap, r);
	}
	w->runs = w->n;
	for (size_t i = w->n / 2; i-- > 0;)
		sift_down(w, i);
}

const struct pf_item *pf_walk_next(struct pf_walk *w)
{
	if (!w->n)
		return NULL;
	struct pf_run *top = &w->heap[0];
	const struct pf_item *it = &w->items[top->at];
	if (++top->at < top->end)
		top->ts = w->items[top->at].ts;
	else
		*top = w->heap[--w->n];
	sift_down(w, 0);
	return it;
}

void pf_walk_free(struct pf_walk *w)
{
	free(w->heap);
	*w = (struct pf_walk){ 0 };
}
