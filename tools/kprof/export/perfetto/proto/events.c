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
 */
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/export/perfetto/proto/schema.h"
#include "tools/kprof/util/alloc.h"
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

static uint64_t begin_hash(uint32_t track, uint64_t ts)
{
	return kp_hash_u64(ts, track);
}

static void push(struct pb_writer *w, struct pb_event e)
{
	if (e.type == TYPE_SLICE_BEGIN)
		kp_index_add(&w->begin_ix, begin_hash(e.track, e.ts), w->nev);
	KP_PUSH(w->ev, w->nev, w->capev, e);
}

static void slice(struct pb_writer *w, const struct pf_event *d, uint32_t track, size_t seq)
{
	uint64_t a = pf_ns(w->pf.m, d->start), b = pf_ns(w->pf.m, d->end);
	uint32_t name = intern(w, d->name);

	if (b < a)
		b = a;
	push(w, (struct pb_event){ .ts = a, .cls = CLS_BEGIN, .sub = UINT64_MAX - (b - a), .order = seq,
				   .type = TYPE_SLICE_BEGIN, .track = track, .name = name });
	push(w, (struct pb_event){ .ts = b, .cls = b > a ? CLS_END : CLS_END_EMPTY, .sub = b > a ? UINT64_MAX - a : 0,
				   .order = SIZE_MAX - seq, .type = TYPE_SLICE_END, .track = track });
}

/* A flow's end on the slice that begins on its track at its time; an
 * instant carries it where no slice does. */
static void flow(struct pb_writer *w, const struct pf_event *d, uint32_t track, size_t seq)
{
	uint64_t ts = pf_ns(w->pf.m, d->start), h = begin_hash(track, ts);
	size_t it, at;

	for (at = kp_index_first(&w->begin_ix, h, &it); at != KP_INDEX_NONE; at = kp_index_next(&w->begin_ix, h, &it))
		if (w->ev[at].track == track && w->ev[at].ts == ts)
			break;
	if (at == KP_INDEX_NONE) {
		at = w->nev;
		push(w, (struct pb_event){ .ts = ts, .cls = CLS_BEGIN, .sub = UINT64_MAX, .order = seq, .type = TYPE_INSTANT,
					   .track = track, .name = intern(w, d->name) });
	}
	struct pb_flow f = { .id = d->flow, .terminating = d->ph == 'f', .next = w->ev[at].flows };
	KP_PUSH(w->flows, w->nflows, w->capflows, f);
	w->ev[at].flows = w->nflows;
}

static void counters(struct pb_writer *w, const struct pf_event *d, size_t seq)
{
	char name[320];

	for (unsigned i = 0; i < d->nseries; i++) {
		snprintf(name, sizeof(name), "%s %s", d->name, d->series[i]);
		push(w, (struct pb_event){ .ts = pf_ns(w->pf.m, d->start), .cls = CLS_BEGIN, .sub = UINT64_MAX, .order = seq,
					   .type = TYPE_COUNTER, .track = pb_counter_uuid(w, name), .value = d->value[i] });
	}
}

static int cmp_event(const void *a, const void *b)
{
	const struct pb_event *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->sub != y->sub)
		return x->sub < y->sub ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

void pb_events(struct pb_writer *w)
{
	struct pf_event d;

	for (size_t i = 0; i < w->pf.nitems; i++) {
		const struct pf_item *it = &w->pf.items[i];
		it->describe(&w->pf, it, &d);
		if (d.ph == 'C') {
			counters(w, &d, i);
			continue;
		}
		uint32_t track = pb_track_uuid(w, d.pid, d.tid);
		if (d.ph == 'X')
			slice(w, &d, track, i);
		else if (d.ph == 'i')
			push(w, (struct pb_event){ .ts = pf_ns(w->pf.m, d.start), .cls = CLS_BEGIN, .sub = UINT64_MAX,
						   .order = i, .type = TYPE_INSTANT, .track = track,
						   .name = intern(w, d.name) });
		else
			flow(w, &d, track, i);
	}
	kp_index_free(&w->begin_ix);
	kp_sort(w->ev, w->nev, sizeof(*w->ev), cmp_event);
}

void pb_events_free(struct pb_writer *w)
{
	for (size_t k = 0; k < w->nnames; k++)
		free(w->names[k]);
	free(w->names);
	kp_index_free(&w->name_ix);
	free(w->ev);
	free(w->flows);
}
