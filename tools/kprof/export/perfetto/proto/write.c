/*
 * write.c - the protobuf trace's packets, in the order proto.h gives:
 * per track its sequence's first packet (the clock and the defaults) and
 * its descriptor, then the CPUs' schedule (sched.c), then the events a
 * track at a time (emit.c), once the sweeps over the sorts the model's
 * second pass filled have made them (waits.c, threads.c) and the rest is
 * gathered (gather.c).  A packet's
 * timestamp is the nanoseconds since the one before on its sequence
 * (clock 64, incremental).  A packet's start and end are packet.c's.
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

struct pb_writer *pb_writer_now;

struct pb_writer *pb_writer_new(void)
{
	struct pb_writer *w = kp_xcalloc(1, sizeof(*w));

	w->pf.first = true;
	pb_gather_init(w);
	return w;
}

void pb_writer_free(struct pb_writer *w)
{
	if (!w)
		return;
	pb_spill_free(&w->events);
	pb_spill_free(&w->waits);
	pb_spill_free(&w->threads);
	pb_spill_free(&w->links);
	pb_spill_free(&w->sched);
	pb_free(&w->out);
	free(w->last);
	free(w->runs);
	free(w->keys);
	kp_index_free(&w->key_ix);
	pb_names_free(w);
	pb_tracks_free(w);
	pb_user_free(w);
	pf_user_events_free(&w->pf); /* what the stream made for the tracks, when */
	pf_noise_events_free(&w->pf); /* the trace was not written (idempotent) */
	free(w);
}

void pf_write_proto(FILE *f, const struct kp_log *log, const struct kp_model *m, const struct kp_symbols *syms)
{
	struct pb_writer *w = pb_writer_now;

	w->pf.f = f;
	w->pf.m = m;
	w->pf.syms = syms;
	w->pf.log = log;
	pb_user_finish(w);
	pb_waits_nest(w);
	pb_threads_lanes(w);
	pb_gather_kept(w);
	w->last = kp_xcalloc(w->ntracks + 1, sizeof(*w->last));
	for (uint32_t k = 1; k <= w->ntracks; k++)
		open_sequence(w, k);
	pb_write_descriptors(w);
	pb_sched_write(w);
	pb_emit(w);
	fwrite(w->out.d, 1, w->out.n, f);
	w->out.n = 0;
	pf_collect_free(&w->pf); /* while the model is there */
}
