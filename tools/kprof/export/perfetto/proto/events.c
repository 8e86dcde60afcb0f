/*
 * events.c - the protobuf trace's TrackEvents, from the items the JSON
 * writer queues (pf.h), each described without its args:
 *
 *   "X" a SLICE_BEGIN at its start and a SLICE_END at its end;
 *   "i" an INSTANT;  "C" a COUNTER per series, on the counter track
 *   "NAME SERIES" (the name Perfetto's JSON importer gives it);
 *   "s", "f" flow_ids / terminating_flow_ids on the SLICE_BEGIN of the
 *   same track and time (the JSON's flows sit at the start of a run).
 *
 * A track's slices nest (perfetto_threads.c gives overlapping ones their
 * own lanes), so in time order its ENDs close what its BEGINs opened.  At
 * one time: first the ENDs of slices that last (the one begun last
 * first), then the BEGINs, the longest first, with the instants and
 * counters, then the ENDs of the slices that last no time (in the reverse
 * order of their BEGINs).  Every time is pf_ns's, the JSON's nanoseconds.
 *
 * Streamed: the queue is walked in time order (pf_walk_*, queue.c) an
 * instant (a nanosecond) at a time.  An instant's items are described in
 * the order they were queued (so that a flow finds the slice begun before
 * it, as the JSON's importer does), its events sorted and written; the
 * ENDs of slices that last wait in a heap until their time comes.  What
 * is held besides the queue is one instant's events and the slices open
 * at once, not an event per record.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/export/perfetto/proto/schema.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/kpassert.h"
#include "tools/kprof/util/sort.h"

enum { CLS_END, CLS_BEGIN, CLS_END_EMPTY };

static uint32_t intern(struct pb_writer *w, const char *name)
{
	uint64_t h = kp_hash_str(name, 0);
	size_t it;

	for (size_t at = kp_index_first(&w->name_ix, h, &it); at != KP_INDEX_NONE; at = kp_index_next(&w->name_ix, h, &it))
		if (!strcmp(w->names[at], name))
			return (uint32_t)at + 1;
	kp_index_add(&w->name_ix, h, w->nnames);
	KP_PUSH(w->names, w->nnames, w->capnames, kp_xstrdup(name));
	return (uint32_t)w->nnames;
}

/* An event's name's iid: by its key when it has one (made once, the
 * first time the key comes: a thread's label, "on CPU n"). */
static uint32_t intern_event(struct pb_writer *w, const struct pf_event *d)
{
	uint64_t h;
	size_t it;
	char name[sizeof(d->name)];

	if (!d->name_key)
		return intern(w, d->name);
	h = kp_hash_u64(d->name_key, 0);
	for (size_t at = kp_index_first(&w->keyed_ix, h, &it); at != KP_INDEX_NONE;
	     at = kp_index_next(&w->keyed_ix, h, &it))
		if (w->keyed[at].key == d->name_key)
			return w->keyed[at].iid;
	pf_key_name(&w->pf, d->name_key, name, sizeof(name));
	uint32_t iid = intern(w, name);
	kp_index_add(&w->keyed_ix, h, w->nkeyed);
	KP_PUSH(w->keyed, w->nkeyed, w->capkeyed, ((struct pb_keyed){ d->name_key, iid }));
	return iid;
}

static int cmp_event(const struct pb_event *x, const struct pb_event *y)
{
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->sub != y->sub)
		return x->sub < y->sub ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int cmp_event_q(const void *a, const void *b)
{
	return cmp_event(a, b);
}

/* An instant's events in order: an insertion sort for the few an instant
 * usually holds (qsort's set-up cost more than the sort), qsort for many
 * (a log whose records share a time). */
static void sort_events(struct pb_event *v, size_t n)
{
	if (n > 32) {
		kp_sort(v, n, sizeof(*v), cmp_event_q);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct pb_event e = v[i];
		size_t j = i;
		for (; j && cmp_event(&v[j - 1], &e) > 0; j--)
			v[j] = v[j - 1];
		v[j] = e;
	}
}

/* The heap of ENDs to come (w->ends[0] the first in time order). */
static bool end_before(const void *a, const void *b, const void *ctx)
{
	(void)ctx;
	return cmp_event(a, b) < 0;
}

static void end_push(struct pb_writer *w, struct pb_event e)
{
	KP_PUSH(w->ends, w->nends, w->capends, e);
	kp_heap_up(w->ends, w->nends - 1, sizeof(*w->ends), end_before, NULL);
}

static struct pb_event end_pop(struct pb_writer *w)
{
	struct pb_event top = w->ends[0];

	w->ends[0] = w->ends[--w->nends];
	kp_heap_down(w->ends, w->nends, 0, sizeof(*w->ends), end_before, NULL);
	return top;
}

static void push(struct pb_writer *w, struct pb_event e)
{
	if (e.type == TYPE_SLICE_BEGIN && w->begun[e.track].instant != w->instants) {
		w->begun[e.track].instant = w->instants;
		w->begun[e.track].at = w->nnow;
	}
	KP_PUSH(w->now, w->nnow, w->capnow, e);
}

static void slice(struct pb_writer *w, const struct pf_event *d, uint64_t a, uint32_t track, size_t seq)
{
	uint64_t b = pf_ns(w->pf.m, d->end);
	uint32_t name = intern_event(w, d);

	if (b < a)
		b = a;
	push(w, (struct pb_event){ .ts = a, .cls = CLS_BEGIN, .sub = UINT64_MAX - (b - a), .order = seq,
				   .type = TYPE_SLICE_BEGIN, .track = track, .name = name });
	struct pb_event end = { .ts = b, .cls = b > a ? CLS_END : CLS_END_EMPTY, .sub = b > a ? UINT64_MAX - a : 0,
				.order = SIZE_MAX - seq, .type = TYPE_SLICE_END, .track = track };
	if (b > a)
		end_push(w, end);
	else
		push(w, end);
}

/* A flow's end on the slice that begins on its track at its time; an
 * instant carries it where no slice does. */
static void flow(struct pb_writer *w, const struct pf_event *d, uint64_t ts, uint32_t track, size_t seq)
{
	size_t at;

	if (w->begun[track].instant == w->instants) {
		at = w->begun[track].at;
	} else {
		at = w->nnow;
		KP_PUSH(w->now, w->nnow, w->capnow,
			((struct pb_event){ .ts = ts, .cls = CLS_BEGIN, .sub = UINT64_MAX, .order = seq,
					    .type = TYPE_INSTANT, .track = track, .name = intern_event(w, d) }));
	}
	struct pb_flow f = { .id = d->flow, .terminating = d->ph == 'f', .next = w->now[at].flows };
	KP_PUSH(w->flows, w->nflows, w->capflows, f);
	w->now[at].flows = w->nflows;
}

static void counters(struct pb_writer *w, const struct pf_event *d, uint64_t ts, size_t seq)
{
	char name[320];

	for (unsigned i = 0; i < d->nseries; i++) {
		snprintf(name, sizeof(name), "%s %s", d->name, d->series[i]);
		push(w, (struct pb_event){ .ts = ts, .cls = CLS_BEGIN, .sub = UINT64_MAX, .order = seq,
					   .type = TYPE_COUNTER, .track = pb_counter_uuid(w, name), .value = d->value[i] });
	}
}

/* Counters come from the workload's own events alone (perfetto_user.c),
 * their tracks made in the order the queue first names them. */
void pb_counters_declare(struct pb_writer *w)
{
	struct pf_event d;
	char name[320];

	for (size_t i = w->pf.user_first; i < w->pf.user_end; i++) {
		w->pf.items[i].kind->describe(&w->pf, &w->pf.items[i], &d);
		for (unsigned k = 0; d.ph == 'C' && k < d.nseries; k++) {
			snprintf(name, sizeof(name), "%s %s", d.name, d.series[k]);
			pb_counter_uuid(w, name);
		}
	}
}

static void event(struct pb_writer *w, const struct pf_item *it, uint64_t instant_ns)
{
	struct pf_event d;
	size_t seq = it->seq;

	it->kind->describe(&w->pf, it, &d);
	/* its events' time is the instant's, which its queued ts gave */
	KP_ASSERT(d.start == it->ts, "item %zu described at %llu, queued at %llu", seq, (unsigned long long)d.start,
		  (unsigned long long)it->ts);
	if (d.ph == 'C') {
		counters(w, &d, instant_ns, seq);
		return;
	}
	uint32_t track = pb_track_uuid(w, d.pid, d.tid);
	if (d.ph == 'X')
		slice(w, &d, instant_ns, track, seq);
	else if (d.ph == 'i')
		push(w, (struct pb_event){ .ts = instant_ns, .cls = CLS_BEGIN, .sub = UINT64_MAX, .order = seq,
					   .type = TYPE_INSTANT, .track = track, .name = intern_event(w, &d) });
	else
		flow(w, &d, instant_ns, track, seq);
}

static int cmp_seq(const void *a, const void *b)
{
	const struct pf_item *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The events of the instant at t ns (its items in group[], put in queue
 * order unless they are), after the ENDs that come before them. */
static void instant(struct pb_writer *w, struct pf_item *group, size_t n, bool in_order, uint64_t t,
		    void (*write)(struct pb_writer *w, const struct pb_event *e))
{
	if (!in_order) /* items at one ns but not one TSC */
		kp_sort(group, n, sizeof(*group), cmp_seq);
	w->instants++;
	w->nnow = w->nflows = 0;
	for (size_t k = 0; k < n; k++)
		event(w, &group[k], t);
	sort_events(w->now, w->nnow);
	while (w->nends && w->ends[0].ts <= t) {
		struct pb_event e = end_pop(w);
		write(w, &e);
	}
	for (size_t k = 0; k < w->nnow; k++)
		write(w, &w->now[k]);
}

void pb_events(struct pb_writer *w, void (*write)(struct pb_writer *w, const struct pb_event *e))
{
	struct pf_walk walk;
	struct pf_item *group = NULL; /* the instant's items, copied */
	const struct pf_item *it;
	size_t n = 0, cap = 0;
	uint64_t t = 0;
	bool in_order = true; /* group[] in queue order */

	w->begun = kp_xcalloc(w->ntracks + 1, sizeof(*w->begun));
	pf_walk_start(&w->pf, &walk);
	while ((it = pf_walk_next(&walk))) {
		uint64_t ns = pf_ns(w->pf.m, it->ts);
		if (n && ns != t) {
			instant(w, group, n, in_order, t, write);
			n = 0;
		}
		in_order = !n || (it->seq > group[n - 1].seq && in_order);
		t = ns;
		KP_PUSH(group, n, cap, *it);
	}
	if (n)
		instant(w, group, n, in_order, t, write);
	while (w->nends) {
		struct pb_event e = end_pop(w);
		write(w, &e);
	}
	free(group);
	pf_walk_free(&walk);
}

void pb_events_free(struct pb_writer *w)
{
	for (size_t k = 0; k < w->nnames; k++)
		free(w->names[k]);
	free(w->names);
	kp_index_free(&w->name_ix);
	free(w->keyed);
	kp_index_free(&w->keyed_ix);
	free(w->now);
	free(w->flows);
	free(w->ends);
	free(w->begun);
}
