/*
 * emit.c - the protobuf trace's TrackEvents, a track at a time (proto.h):
 * the events' sort gives each track's events in time order, and a
 * sequence needs no more than its own in order (its timestamps are
 * increments), so no track waits for another.  On a track:
 *
 *   "X" a SLICE_BEGIN at its start and a SLICE_END at its end;
 *   "i" (and a sample) an INSTANT;  "C" a COUNTER on its counter track;
 *   a flow's ends ("s", "f") as flow_ids and terminating_flow_ids on the
 *   first SLICE_BEGIN at the same time on the track (the longest: the
 *   JSON's flows sit at the start of a run), else on the first INSTANT
 *   there with the flow's name (a wake-up's start on its ReadyThread
 *   record: threads.c), else on an INSTANT of their own.
 *
 * A track's slices nest (threads.c gives overlapping ones their own
 * lanes), so in time order its ENDs close what its BEGINs opened.  At one
 * time: first the ENDs of slices that last (the one begun last first),
 * then the BEGINs, the longest first, with the instants and counters,
 * then the ENDs of the slices that last no time (in the reverse order of
 * their BEGINs).  What is held is one time's events and the slices open
 * at once on one track.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/export/perfetto/proto/schema.h"
#include "tools/kprof/progress/progress.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

enum { CLS_END, CLS_BEGIN, CLS_END_EMPTY };

/* Where an event goes among its track's events at its time: after the
 * others, a flow's end (it joins them); a slice by its length, the
 * longest first, before the instants and counters. */
static uint64_t sub(const struct pb_ev *e)
{
	return e->type == EV_SLICE ? UINT64_MAX - (e->end - e->ts) : UINT64_MAX;
}

static bool is_flow(const struct pb_ev *e)
{
	return e->type == EV_FLOW_OUT || e->type == EV_FLOW_IN;
}

static inline int pb_ev_cmp_of(const struct pb_ev *x, const struct pb_ev *y)
{
	int c;

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if ((c = kp_cmp_u64(x->ts, y->ts)))
		return c;
	if (is_flow(x) != is_flow(y))
		return is_flow(x) ? 1 : -1;
	if ((c = kp_cmp_u64(sub(x), sub(y))))
		return c;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

int pb_ev_cmp(const void *a, const void *b)
{
	return pb_ev_cmp_of(a, b);
}

PB_SORT_DEFINE(pb_ev_sort, struct pb_ev, pb_ev_cmp_of)

/* An event in a run of the events' sort, against the one before it (the
 * same track, mostly, a little later): its type, the track's and the
 * time's differences, a slice's length (else its value), its name and
 * its place's difference.  About 10 bytes, not 32. */
static size_t ev_encode(const void *prev_, const void *e_, unsigned char *out)
{
	const struct pb_ev *prev = prev_, *e = e_;
	bool same = prev && prev->track == e->track;
	size_t o = 0;

	out[o++] = e->type;
	o += pb_put_varint(out + o, prev ? e->track - prev->track : e->track);
	o += pb_put_varint(out + o, same ? e->ts - prev->ts : e->ts);
	o += pb_put_varint(out + o, e->type == EV_SLICE ? e->end - e->ts : e->end);
	o += pb_put_varint(out + o, e->name);
	o += pb_put_varint(out + o, pb_zigzag(e->seq, prev ? prev->seq : 0));
	return o;
}

static size_t ev_decode(const void *prev_, const unsigned char *in, void *e_)
{
	const struct pb_ev *prev = prev_;
	struct pb_ev *e = e_;
	uint64_t v;
	size_t o = 0;

	*e = (struct pb_ev){ .type = in[o++] };
	o += pb_get_varint(in + o, &v);
	e->track = (uint32_t)(prev ? prev->track + v : v);
	bool same = prev && prev->track == e->track;
	o += pb_get_varint(in + o, &v);
	e->ts = same ? prev->ts + v : v;
	o += pb_get_varint(in + o, &v);
	e->end = e->type == EV_SLICE ? e->ts + v : v;
	o += pb_get_varint(in + o, &v);
	e->name = (uint32_t)v;
	o += pb_get_varint(in + o, &v);
	e->seq = (uint32_t)pb_unzigzag(v, prev ? prev->seq : 0);
	return o;
}

const struct pb_spill_codec pb_ev_codec = { ev_encode, ev_decode, 64 };

/* An END to come, in the heap, as events.c ordered them. */
struct end {
	uint64_t ts, sub, order;
	uint8_t cls;
};

static int cmp_end(const struct end *x, const struct end *y)
{
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->sub != y->sub)
		return x->sub < y->sub ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static bool end_before(const void *a, const void *b, const void *ctx)
{
	(void)ctx;
	return cmp_end(a, b) < 0;
}

struct track {
	uint32_t uuid;
	struct end *ends;       /* a heap                                     */
	size_t nends, capends;
	struct pb_ev *held;     /* the time's events                          */
	size_t nnow, capnow;
	size_t *flows;          /* per event of the time: its first flow + 1 */
	size_t capflows;
	struct flow {
		uint64_t id;
		bool in;
		size_t next;        /* + 1, 0: none                           */
	} *fl;
	size_t nfl, capfl;
};

/* Is name iid interned on the track's sequence yet?  (Then it is.) */
static bool sent(struct pb_writer *w, uint32_t track, uint32_t iid)
{
	if (iid >= w->nsent_on) {
		size_t n = w->nnames + 1024;
		w->sent_on = kp_xrealloc(w->sent_on, n, sizeof(*w->sent_on));
		memset(w->sent_on + w->nsent_on, 0, (n - w->nsent_on) * sizeof(*w->sent_on));
		w->nsent_on = n;
	}
	if (w->sent_on[iid] == track)
		return true;
	w->sent_on[iid] = track;
	return false;
}

static void write_event(struct pb_writer *w, struct track *t, uint64_t ts, uint8_t type, uint32_t name, uint64_t value,
			size_t flows)
{
	size_t packet = pb_packet_open(w, t->uuid, ts), te;

	if (name && !sent(w, t->uuid, name)) {
		size_t in = pb_open(&w->out), en = pb_open(&w->out);
		pb_uint(&w->out, EVENT_NAME_IID, name);
		pb_string(&w->out, EVENT_NAME_NAME, w->names[name - 1]);
		pb_close(&w->out, INTERNED_EVENT_NAMES, en);
		pb_close(&w->out, PACKET_INTERNED_DATA, in);
	}
	te = pb_open(&w->out);
	pb_uint(&w->out, EVENT_TYPE, type);
	if (name)
		pb_uint(&w->out, EVENT_NAME_IID_F, name);
	if (type == TYPE_COUNTER)
		pb_uint(&w->out, EVENT_COUNTER_VALUE, value);
	for (size_t f = flows; f; f = t->fl[f - 1].next)
		pb_fixed64(&w->out, t->fl[f - 1].in ? EVENT_TERMINATING_FLOW_IDS : EVENT_FLOW_IDS, t->fl[f - 1].id);
	pb_close(&w->out, PACKET_TRACK_EVENT, te);
	pb_packet_close(w, packet);
}

static void pop_ends(struct pb_writer *w, struct track *t, uint64_t ts, bool empty_too)
{
	while (t->nends && (t->ends[0].ts < ts || (t->ends[0].ts == ts && (empty_too || t->ends[0].cls == CLS_END)))) {
		uint64_t at = t->ends[0].ts;
		t->ends[0] = t->ends[--t->nends];
		kp_heap_down(t->ends, t->nends, 0, sizeof(*t->ends), end_before, NULL);
		write_event(w, t, at, TYPE_SLICE_END, 0, 0, 0);
	}
}

static void push_end(struct track *t, struct end e)
{
	KP_PUSH(t->ends, t->nends, t->capends, e);
	kp_heap_up(t->ends, t->nends - 1, sizeof(*t->ends), end_before, NULL);
}

static uint32_t name_of(struct pb_writer *w, const struct pb_ev *e)
{
	if (e->type == EV_SAMPLE || e->type == EV_PMC_SAMPLE)
		return pb_intern_sample(w, e->end, e->type == EV_PMC_SAMPLE);
	return e->name;
}

/* The events of one time on the track (t->held, in the sort's order:
 * the flows last), after the ENDs that come before them. */
static void one_time(struct pb_writer *w, struct track *t)
{
	size_t n = t->nnow, events = 0, begin = SIZE_MAX;
	uint64_t ts = t->held[0].ts;

	t->flows = kp_grow(t->flows, &t->capflows, n, sizeof(*t->flows));
	t->nfl = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pb_ev *e = &t->held[i];
		t->flows[i] = 0;
		if (!is_flow(e)) {
			events = i + 1;
			if (e->type == EV_SLICE && begin == SIZE_MAX)
				begin = i;
			continue;
		}
		size_t at = begin;
		for (size_t k = 0; at == SIZE_MAX && k < events; k++) /* else an instant of its name */
			if (t->held[k].type == EV_INSTANT && t->held[k].name == e->name)
				at = k;
		if (at == SIZE_MAX) /* else an instant of its own */
			at = i;
		struct flow f = { e->end, e->type == EV_FLOW_IN, t->flows[at] };
		KP_PUSH(t->fl, t->nfl, t->capfl, f);
		t->flows[at] = t->nfl;
	}
	pop_ends(w, t, ts, false);
	for (size_t i = 0; i < n; i++) {
		const struct pb_ev *e = &t->held[i];
		if (i >= events && !t->flows[i])
			continue;
		uint8_t type = e->type == EV_SLICE ? TYPE_SLICE_BEGIN : e->type == EV_COUNTER ? TYPE_COUNTER : TYPE_INSTANT;
		write_event(w, t, ts, type, name_of(w, e), e->end, t->flows[i]);
		if (e->type == EV_SLICE)
			push_end(t, e->end > e->ts ? (struct end){ e->end, UINT64_MAX - e->ts, UINT64_MAX - e->seq, CLS_END }
						   : (struct end){ e->end, 0, UINT64_MAX - e->seq, CLS_END_EMPTY });
	}
	pop_ends(w, t, ts, true); /* the slices that last no time */
	t->nnow = 0;
}

void pb_emit(struct pb_writer *w)
{
	struct track t = { 0 };
	const struct pb_ev *e;
	uint32_t track = 0;
	bool any = false;
	uint64_t skipped = 0;

	pb_spill_sorted(&w->events);
	kp_progress_phase("writing", "events", w->events.count);
	while ((e = pb_spill_next(&w->events))) {
		kp_progress_record(0);
		if (!any || e->track != track) {
			if (t.nnow)
				one_time(w, &t);
			pop_ends(w, &t, UINT64_MAX, true);
			track = e->track;
			any = true;
			uint32_t pid = (uint32_t)(w->keys[track] >> 32), tid = (uint32_t)w->keys[track];
			t.uuid = pid ? pb_track_uuid(w, pid, tid) : pb_user_counter_uuid(w, tid);
		}
		if (!t.uuid) {
			skipped++;
			continue;
		}
		if (t.nnow && t.held[0].ts != e->ts)
			one_time(w, &t);
		KP_PUSH(t.held, t.nnow, t.capnow, *e);
	}
	if (t.nnow)
		one_time(w, &t);
	pop_ends(w, &t, UINT64_MAX, true);
	if (skipped)
		fprintf(stderr, "kprof: perfetto: %llu events on tracks of threads the log never names left out\n",
			(unsigned long long)skipped);
	free(t.ends);
	free(t.held);
	free(t.flows);
	free(t.fl);
	pb_spill_free(&w->events);
}
