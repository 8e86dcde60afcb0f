/*
 * write.c - the protobuf trace's packets, in the order proto.h gives:
 * per track its sequence's first packet (the clock and the defaults) and
 * its descriptor, then the events in time order, as events.c hands them
 * over.  A packet's timestamp is the nanoseconds since the one before on
 * its sequence (clock 64, incremental); an event whose name its sequence
 * has not seen yet carries it (InternedData).  A packet's start and end
 * are packet.c's.
 */
#include <stdlib.h>

#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/export/perfetto/proto/schema.h"
#include "tools/kprof/util/alloc.h"

/* The track's sequence starts: its incremental state is new, clock 64
 * counts nanoseconds from 0 (BOOTTIME 0: the trace's origin) and is the
 * default of its packets, the track the default of its events. */
static void open_sequence(struct pb_writer *w, uint32_t track)
{
	size_t packet = pb_open(&w->out), snap, clock, defaults, events;

	pb_uint(&w->out, PACKET_SEQUENCE_ID, track);
	pb_uint(&w->out, PACKET_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	snap = pb_open(&w->out);
	clock = pb_open(&w->out);
	pb_uint(&w->out, CLOCK_ID, CLOCK_SEQUENCE_BASE);
	pb_uint(&w->out, CLOCK_TIMESTAMP, 0);
	pb_uint(&w->out, CLOCK_INCREMENTAL, 1);
	pb_close(&w->out, SNAPSHOT_CLOCKS, clock);
	clock = pb_open(&w->out);
	pb_uint(&w->out, CLOCK_ID, CLOCK_BOOTTIME);
	pb_uint(&w->out, CLOCK_TIMESTAMP, 0);
	pb_close(&w->out, SNAPSHOT_CLOCKS, clock);
	pb_close(&w->out, PACKET_CLOCK_SNAPSHOT, snap);
	defaults = pb_open(&w->out);
	pb_uint(&w->out, DEFAULTS_TIMESTAMP_CLOCK_ID, CLOCK_SEQUENCE_BASE);
	events = pb_open(&w->out);
	pb_uint(&w->out, EVENT_DEFAULTS_TRACK_UUID, track);
	pb_close(&w->out, DEFAULTS_TRACK_EVENT, events);
	pb_close(&w->out, PACKET_DEFAULTS, defaults);
	pb_packet_close(w, packet);
}

/* Is name iid interned on the track's sequence yet?  (Then it is.) */
static bool sent(struct pb_writer *w, uint32_t track, uint32_t iid)
{
	uint64_t key = (uint64_t)track << 32 | iid, h = kp_hash_u64(key, 0);
	size_t it;

	for (size_t at = kp_index_first(&w->sent_ix, h, &it); at != KP_INDEX_NONE; at = kp_index_next(&w->sent_ix, h, &it))
		if (w->sent[at] == key)
			return true;
	kp_index_add(&w->sent_ix, h, w->nsent);
	KP_PUSH(w->sent, w->nsent, w->capsent, key);
	return false;
}

static void write_event(struct pb_writer *w, const struct pb_event *e)
{
	size_t packet = pb_packet_open(w, e->track, e->ts), te;

	if (e->name && !sent(w, e->track, e->name)) {
		size_t in = pb_open(&w->out), en = pb_open(&w->out);
		pb_uint(&w->out, EVENT_NAME_IID, e->name);
		pb_string(&w->out, EVENT_NAME_NAME, w->names[e->name - 1]);
		pb_close(&w->out, INTERNED_EVENT_NAMES, en);
		pb_close(&w->out, PACKET_INTERNED_DATA, in);
	}
	te = pb_open(&w->out);
	pb_uint(&w->out, EVENT_TYPE, e->type);
	if (e->name)
		pb_uint(&w->out, EVENT_NAME_IID_F, e->name);
	if (e->type == TYPE_COUNTER)
		pb_uint(&w->out, EVENT_COUNTER_VALUE, (uint64_t)e->value);
	for (size_t f = e->flows; f; f = w->flows[f - 1].next)
		pb_fixed64(&w->out, w->flows[f - 1].terminating ? EVENT_TERMINATING_FLOW_IDS : EVENT_FLOW_IDS,
			   w->flows[f - 1].id);
	pb_close(&w->out, PACKET_TRACK_EVENT, te);
	pb_packet_close(w, packet);
}

void pf_write_proto(FILE *f, const struct kp_log *log, const struct kp_model *m, const struct kp_symbols *syms)
{
	struct pb_writer *w = kp_xcalloc(1, sizeof(*w));

	w->pf = (struct pf){ .f = f, .m = m, .syms = syms, .first = true, .log = log };
	pf_collect(&w->pf, (struct kp_log *)log, false); /* read only: cursors over its records */
	pb_tracks_declare(w);
	pb_counters_declare(w);
	w->last = kp_xcalloc(w->ntracks + 1, sizeof(*w->last));
	for (uint32_t k = 1; k <= w->ntracks; k++)
		open_sequence(w, k);
	pb_write_descriptors(w);
	pb_events(w, write_event);
	fwrite(w->out.d, 1, w->out.n, f);
	pb_free(&w->out);
	free(w->last);
	free(w->sent);
	kp_index_free(&w->sent_ix);
	pb_events_free(w);
	pb_tracks_free(w);
	pf_collect_free(&w->pf);
	free(w);
}
