/*
 * proto.h - `kprof perfetto`'s protobuf trace (trace.perfetto-trace): the
 * same tracks, slices, instants, counters and flows as the JSON
 * (pf.h), in Perfetto's own format, a Trace of TracePackets:
 *
 *   per track, a packet sequence of its own (trusted_packet_sequence_id =
 *     the track's uuid), opened by a packet with a ClockSnapshot and the
 *     sequence's defaults: clock 64 is incremental, in nanoseconds, 0 at
 *     the trace's origin (BOOTTIME 0), and each packet's clock, so its
 *     timestamp is the nanoseconds since the packet before on its track
 *     (a byte or two, not eight); the track is each TrackEvent's default
 *     track (TrackEventDefaults), so no event names it;
 *   the track's TrackDescriptor (tracks.c): a parent track per JSON
 *     process ("CPUs", "name (tid)") and under it a track per JSON
 *     thread, in its order; a counter track per user counter type and
 *     field;
 *   TrackEvents (events.c) in time order: a slice as SLICE_BEGIN and
 *     SLICE_END (JSON "X"), an INSTANT ("i"), a COUNTER ("C"); a flow's
 *     ends as flow_ids and terminating_flow_ids on the slices the JSON's
 *     "s" and "f" bind to.  Names are interned (InternedData event_names,
 *     iid from 1, the same on every sequence), sent on a sequence with the
 *     first of its events that uses them.
 *
 * The JSON's args are left out: they are what makes it ~370 bytes a
 * record.  The protobuf trace is for big runs; the JSON keeps them.
 */
#ifndef KPROF_TOOL_PERFETTO_PROTO_H
#define KPROF_TOOL_PERFETTO_PROTO_H

#include "tools/kprof/export/perfetto/pf.h"
#include "tools/kprof/export/perfetto/proto/pb.h"
#include "tools/kprof/util/hash.h"

/* One TrackEvent, waiting for its place in time order (events.c). */
struct pb_event {
	uint64_t ts;           /* nanoseconds since the origin               */
	uint64_t sub, order;   /* the order at one ts (events.c)             */
	uint8_t cls;
	uint8_t type;          /* TYPE_*                                     */
	uint32_t track;        /* its track's uuid                           */
	uint32_t name;         /* its name's iid, 0: none                    */
	int64_t value;         /* TYPE_COUNTER                               */
	size_t flows;          /* its first flow (+ 1) in w->flows, 0: none  */
};

/* A flow's end on an event of the instant being written. */
struct pb_flow {
	uint64_t id;
	bool terminating;
	size_t next;           /* the event's next flow (+ 1), 0: none       */
};

/* A track: a JSON process (tid PB_PROCESS), a JSON thread, or a counter
 * (pid and tid 0). */
#define PB_PROCESS UINT32_MAX
struct pb_track {
	uint32_t pid, tid;
	uint32_t parent;       /* its parent's uuid, 0: none                 */
	bool counter;
	long sort;             /* its rank among its siblings                */
	char *name;
};

#define PB_TRACK_HITS 1024 /* a power of two */
struct pb_writer {
	struct pf pf;          /* first: the sinks get &w->pf                */
	struct pb_buf out;     /* packets not yet written to pf.f            */
	struct pb_track *tracks; /* uuid k + 1 is tracks[k]                  */
	size_t ntracks, captracks;
	struct kp_index track_ix;
	struct pb_track_hit {  /* the JSON tracks looked up last, by a hash   */
		uint64_t key;      /* of (pid, tid): pid << 32 | tid            */
		uint32_t uuid;
		bool used;
	} track_hits[PB_TRACK_HITS];
	char **names;          /* iid k + 1 is names[k]                      */
	size_t nnames, capnames;
	struct kp_index name_ix;
	struct pb_keyed {      /* names by their key (pf.h: name_key)        */
		uint64_t key;
		uint32_t iid;
	} *keyed;
	size_t nkeyed, capkeyed;
	struct kp_index keyed_ix;
	struct pb_event *now;  /* the events of the instant being written    */
	size_t nnow, capnow;
	struct pb_flow *flows; /* their flows                                */
	size_t nflows, capflows;
	struct pb_begun {      /* per track: its first SLICE_BEGIN in now[]  */
		uint64_t instant;  /* (which instant: its count + 1, 0: none)  */
		size_t at;
	} *begun;
	uint64_t instants;     /* instants written                           */
	struct pb_event *ends; /* the SLICE_ENDs still to come: a heap       */
	size_t nends, capends;
	uint64_t *last;        /* per track: its last packet's time (ns)    */
	uint64_t *sent;        /* (track, iid) interned on its sequence      */
	size_t nsent, capsent;
	struct kp_index sent_ix;
};

/* tracks.c: a JSON track's uuid (0: none such), a counter's (made if
 * new); the descriptors of every track, as packets. */
uint32_t pb_track_uuid(struct pb_writer *w, uint32_t pid, uint32_t tid);
uint32_t pb_counter_uuid(struct pb_writer *w, const char *name);
void pb_tracks_declare(struct pb_writer *w);
void pb_write_descriptors(struct pb_writer *w);
void pb_tracks_free(struct pb_writer *w);

/* events.c: the counter tracks of the queue's items (before the
 * descriptors are written); then every item as TrackEvents, in time order,
 * each handed to write (after the descriptors); and what they held (the
 * name table, the instant's events, the ends to come) freed. */
void pb_counters_declare(struct pb_writer *w);
void pb_events(struct pb_writer *w, void (*write)(struct pb_writer *w, const struct pb_event *e));
void pb_events_free(struct pb_writer *w);

/* packet.c: a packet's start and end on track's sequence, at ts (the
 * packet's fields go between, into w->out). */
size_t pb_packet_open(struct pb_writer *w, uint32_t track, uint64_t ts);
void pb_packet_close(struct pb_writer *w, size_t start);

/* write.c: the whole trace to f. */
void pf_write_proto(FILE *f, const struct kp_log *log, const struct kp_model *m, const struct kp_symbols *syms);

#endif
