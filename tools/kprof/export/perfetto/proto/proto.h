/*
 * proto.h - `kprof perfetto`'s protobuf trace (trace.perfetto-trace): the
 * same tracks, slices, instants, counters and flows as the JSON
 * (pf.h), in Perfetto's own format, a Trace of TracePackets:
 *
 *   the schedule (sched.c): the runs the JSON draws as slices on "CPU n"
 *     as Perfetto's kernel scheduling data, a CompactSched sched_switch
 *     per run and a sched_waking per ReadyThread record, after a
 *     ProcessTree of the named threads, on a sequence of their own; the
 *     trace processor makes its CPU tracks and the threads' states of
 *     them;
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
 *   TrackEvents (emit.c), a track at a time, each track's in time order:
 *     a slice as SLICE_BEGIN and SLICE_END (JSON "X"), an INSTANT ("i"),
 *     a COUNTER ("C"); a flow's ends as flow_ids and terminating_flow_ids
 *     on the slices the JSON's "s" and "f" bind to (a wake-up's start on
 *     its ReadyThread instant: the run it binds to in the JSON is a
 *     switch here).  Names are interned
 *     (InternedData event_names, iid from 1, the same on every sequence),
 *     sent on a sequence with the first of its events that uses them.
 *
 * The JSON's args are left out (but for the runs' priorities and end
 * states, in the switches): they are what makes it ~370 bytes a
 * record.  The protobuf trace is for big runs; the JSON keeps them.
 *
 * Streamed, in bounded memory: the model keeps no record for it.  Its
 * second pass hands every run and record to gather.c, which puts what
 * the trace is made of into external sorts (spill.h: a buffer of 16 MiB
 * each, the rest on disk in $TMPDIR); sweeps over them in order give the
 * schedule a CPU at a time (sched.c), nest the
 * spin-lock waits per CPU (waits.c) and lay out each thread's tracks
 * (threads.c); the workload's own events and scenario=noise's are drawn
 * as they come (user.c, noise.c); the events' sort gives each track's
 * events in order
 * (emit.c).  The JSON writer (perfetto.c) still keeps the model's
 * records: it is for small runs.
 */
#ifndef KPROF_TOOL_PERFETTO_PROTO_H
#define KPROF_TOOL_PERFETTO_PROTO_H

#include "tools/kprof/export/perfetto/pf.h"
#include "tools/kprof/export/protobuf/pb.h"
#include "tools/kprof/export/perfetto/proto/spill.h"
#include "tools/kprof/util/hash.h"

/* An event of the trace, as the writer sorts it (emit.c): by track, then
 * time, then the order at one time (emit.c), then seq.  32 bytes: a big
 * log has one or two for every record, and they go through the disk. */
enum pb_ev_type {
	EV_SLICE,              /* ts .. end                                  */
	EV_INSTANT,
	EV_COUNTER,            /* value                                      */
	EV_SAMPLE,             /* an instant named after the function at the */
	EV_PMC_SAMPLE,         /* instruction pointer value (--kernel)       */
	EV_FLOW_OUT,           /* a flow's ends (id value): on the slice     */
	EV_FLOW_IN,            /* that begins at ts on the track             */
};
struct pb_ev {
	uint64_t ts;           /* nanoseconds since the origin (pf_ns)       */
	uint64_t end;          /* a slice's end (ns), else its value         */
	uint32_t track;        /* its track's key (pb_track_key)             */
	uint32_t name;         /* its name's iid (0: none, or a sample's)    */
	uint32_t seq;          /* its place as gathered: ties broken by it   */
	uint8_t type;          /* enum pb_ev_type                            */
};
_Static_assert(sizeof(struct pb_ev) == 32, "an event is 32 bytes");

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

/* What each sort holds: the events (emit.c), the spin-lock waits before
 * they nest (waits.c), the threads' runs, waits and the ReadyThread
 * records that readied them (threads.c), the noise's links (noise.c),
 * the CPUs' runs and records for the schedule (sched.c). */
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
	struct pb_keyed {      /* names by their key (pf.h: name_key: kind  */
		uint64_t key;      /* 0), the samples' by instruction pointer    */
		uint64_t kind;     /* (names.c's kinds)                         */
		uint32_t iid;
	} *keyed;
	size_t nkeyed, capkeyed;
	struct kp_index keyed_ix;
	uint64_t *keys;        /* the events' tracks: key k is (pid << 32 | */
	size_t nkeys, capkeys; /* tid) of a JSON track, (0, uuid) a counter */
	struct kp_index key_ix;
	uint64_t *last;        /* per track: its last packet's time (ns)    */
	uint32_t *sent_on;     /* per iid: the track it was last interned on */
	size_t nsent_on;
	struct pb_spill events, waits, threads, links, sched;
	uint64_t seq;          /* the next element's, in any of the sorts    */
	uint64_t *runs;        /* per CPU: its runs so far (none: no wake-up */
	                       /* flows from it, threads.c)                  */
	uint64_t flows;        /* flow ids given                             */
	uint64_t resources;    /* Resource records met                       */
	uint32_t ready_name;   /* "ReadyThread"'s iid, once interned        */
	struct pb_user *user;  /* the workload's events as they come (user.c) */
};

/* names.c: a name's iid (interned once); an event's (by its key when it
 * has one); a sample's, after the function at ip (with --kernel). */
uint32_t pb_intern(struct pb_writer *w, const char *name);
uint32_t pb_intern_event(struct pb_writer *w, const struct pf_event *d);
uint32_t pb_intern_sample(struct pb_writer *w, uint64_t ip, bool pmc);
void pb_names_free(struct pb_writer *w);

/* tracks.c: a JSON track's uuid (0: none such), a counter's (made if
 * new); the descriptors of every track, as packets. */
uint32_t pb_track_uuid(struct pb_writer *w, uint32_t pid, uint32_t tid);
uint32_t pb_counter_uuid(struct pb_writer *w, const char *name);
void pb_tracks_declare(struct pb_writer *w);
void pb_write_descriptors(struct pb_writer *w);
void pb_tracks_free(struct pb_writer *w);

/* gather.c: the sink the model's second pass feeds (its runs and
 * records, into the sorts), made before the model is; after it, the
 * holes, stalls and steps the model kept, the workload's events and
 * scenario=noise's (kept). */
void pb_gather_init(struct pb_writer *w);
extern const struct kp_run_sink pb_gather_sink;
void pb_gather_kept(struct pb_writer *w);
/* An event into the events' sort on the JSON track (pid, tid) (its
 * track and seq given here); a counter's track is (0, its uuid). */
void pb_add(struct pb_writer *w, uint32_t pid, uint32_t tid, struct pb_ev e);
uint32_t pb_track_key(struct pb_writer *w, uint32_t pid, uint32_t tid);
/* A slice from a to b (TSC) on the JSON track (pid, tid). */
void pb_add_slice(struct pb_writer *w, uint32_t pid, uint32_t tid, uint64_t a, uint64_t b, uint32_t name);

/* user.c: the workload's own events, streamed as the model's second
 * pass meets them (the sink's `other`), drawn as perfetto_user.c draws
 * them; after it, the spans never ended (finish) and the counters'
 * tracks in the JSON's order (declare, after the JSON's tracks).  A
 * counter's events are on the track (0, PB_COUNTER_KEY(type, series)),
 * its uuid known once declared (pb_user_counter_uuid). */
#define PB_COUNTER_KEY(id, k) ((uint32_t)(id) * PF_SERIES_MAX + (k))
#define PB_COUNTER_KEYS       ((KPROF_EVENT_MAX_TYPES + 1) * PF_SERIES_MAX)
void pb_user_record(struct pb_writer *w, const struct kp_record *r);
void pb_user_finish(struct pb_writer *w);
void pb_user_declare(struct pb_writer *w);
uint32_t pb_user_counter_uuid(const struct pb_writer *w, uint32_t key);
void pb_user_free(struct pb_writer *w);

/* noise.c: scenario=noise's records as they come (true when r was one):
 * its gaps and timer latency on "CPU n noise", the correlated gaps into
 * the links' sort; after the wake-up flows, the links between them. */
struct pb_noise_link {
	uint64_t start, end;   /* TSC                                        */
	uint32_t cpu, pad;
};
bool pb_noise_record(struct pb_writer *w, const struct kp_record *r);
void pb_noise_links(struct pb_writer *w);
int pb_link_cmp(const void *a, const void *b);
void pb_link_sort(void *base, size_t n);

/* waits.c: the spin-lock waits nested per CPU (their CPU's track and,
 * into the threads' sort, their thread's).  threads.c: the threads'
 * tracks, their lanes (pf.lanes), ready time and the wake-up flows. */
struct pb_wait_fact {
	uint64_t start, end, lock, seq;
	uint32_t tid, cpu;
};
struct pb_thread_fact {
	uint64_t t;            /* a slice's start, a ReadyThread's time      */
	uint64_t end;          /* a slice's end; a record's time again       */
	uint64_t order;        /* its place among the thread's slices        */
	uint32_t tid;
	uint32_t what;         /* PB_TF_VALUE and the flags below            */
};
_Static_assert(sizeof(struct pb_thread_fact) == 32, "a thread's fact is 32 bytes");
#define PB_TF_VALUE   0x0FFFFFFFu /* a wait's name's iid, a run's priority  */
                                  /* (NT, as a byte), a record's CPU      */
#define PB_TF_WAITS   (1u << 28)  /* a wait (else a run or a record)         */
#define PB_TF_READY   (1u << 29)  /* a ReadyThread record                    */
int pb_wait_cmp(const void *a, const void *b);
int pb_thread_cmp(const void *a, const void *b);
void pb_wait_sort(void *base, size_t n);
void pb_thread_sort(void *base, size_t n);
extern const struct pb_spill_codec pb_thread_codec;
void pb_waits_nest(struct pb_writer *w);
void pb_threads_lanes(struct pb_writer *w);

/* emit.c: the order of the events' sort; every event, a track at a time,
 * as packets (after the descriptors). */
int pb_ev_cmp(const void *a, const void *b);
void pb_ev_sort(void *base, size_t n);
extern const struct pb_spill_codec pb_ev_codec;
void pb_emit(struct pb_writer *w);

/* sched.c: the CPUs' runs and ReadyThread records (the model's second
 * pass, through gather.c), into the runs' sort; then the schedule as
 * Perfetto's kernel scheduling data (FtraceEventBundle CompactSched, a
 * sched_switch per run, a sched_waking per record), a CPU at a time, on
 * a sequence of its own (uuid ntracks + 1). */
struct pb_run_fact {
	uint64_t start, end;   /* ns; a record: its time, and its target CPU */
	uint64_t order;        /* its CPU << 44 | its number on the CPU; a   */
	                       /* record's: CPU << 44 | PB_WAKING | seq      */
	uint32_t tid;          /* the thread run, or readied                 */
	int8_t priority;       /* NT; a record's: the readied thread's next  */
	                       /* run's (else its base priority)             */
	uint8_t end_state;     /* OldThreadState and OldThreadWaitReason of  */
	uint8_t end_reason;    /* the switch that ended it                   */
	bool waking;           /* a ReadyThread record                       */
};
#define PB_WAKING (1ull << 43)
_Static_assert(sizeof(struct pb_run_fact) == 32, "a run's fact is 32 bytes");
int pb_run_cmp(const void *a, const void *b);
void pb_run_sort(void *base, size_t n);
extern const struct pb_spill_codec pb_run_codec;
void pb_sched_run(struct pb_writer *w, uint32_t cpu, const struct kp_run *r);
/* A ReadyThread record of cpu (its seq, TSC time, the thread readied),
 * once the sweep of the thread (threads.c) knows where it ran next:
 * target, at priority (NT), or not (its own CPU, its base priority). */
void pb_sched_ready(struct pb_writer *w, uint32_t cpu, uint64_t seq, uint64_t ts, uint32_t tid, uint32_t target,
		    int8_t priority);
void pb_sched_write(struct pb_writer *w);

/* packet.c: a packet's start and end on track's sequence, at ts (the
 * packet's fields go between, into w->out). */
size_t pb_packet_open(struct pb_writer *w, uint32_t track, uint64_t ts);
void pb_packet_close(struct pb_writer *w, size_t start);

/* write.c: the whole trace to f, from the model pb_gather_sink was given
 * to (perfetto.c makes the writer, pb_writer_new, before the model). */
struct pb_writer *pb_writer_new(void);
void pb_writer_free(struct pb_writer *w);
void pf_write_proto(FILE *f, const struct kp_log *log, const struct kp_model *m, const struct kp_symbols *syms);
extern struct pb_writer *pb_writer_now;

#endif
