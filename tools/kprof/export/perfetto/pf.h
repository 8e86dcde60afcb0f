/*
 * pf.h - what the parts of `kprof perfetto` share (a header with no .c
 * of its own, so that the parts depend on it and not on one another): the writer's
 * state, the tracks' ids, and the JSON helpers (perfetto_json.c) that put
 * every time on one integer-nanosecond grid.
 *
 * The trace's tracks (Chrome JSON "processes" and "threads"):
 *   pid 1 "CPUs": per CPU n, tid CPU_TID+n "CPU n" (runs, samples,
 *     ReadyThread marks, losses), WAIT_TID+n "CPU n lock waits", STALL_TID+n
 *     "CPU n stalled" (KprofClockLate), HOLE_TID+n "CPU n no trace";
 *   pid PF_THREAD_PID(tid) "name (tid)" per thread: its runs and ready
 *     time ("running"), its lock and resource waits ("waits"), each in more
 *     lanes ("running 2", ...) only where the records overlap;
 *   pid 1 again, the workload's own events (perfetto_user.c): USER_TID +
 *     n * 256 "CPU n events", + id "CPU n TYPE" a span type's slices;
 *     scenario=noise's (perfetto_noise.c): NOISE_TID + n "CPU n noise".
 */
#ifndef KPROF_TOOL_PF_H
#define KPROF_TOOL_PF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "include/kprof/user_event.h"
#include "tools/kprof/model/model.h"
#include "tools/kprof/read/log.h"
#include "tools/kprof/elf/symbols.h"

#define PF_CPUS_PID 1
#define CPU_TID    100000u  /* CPU n's track: CPU_TID + n (never 0)       */
#define WAIT_TID   200000u  /* its lock waits: WAIT_TID + n               */
#define HOLE_TID   300000u  /* its holes (no trace): HOLE_TID + n         */
#define STALL_TID  400000u  /* its stalls (late clock): STALL_TID + n     */
#define USER_TID   500000u  /* its user events: USER_TID + n * 256 (+ a   */
                            /* span type's id: its slices)                */
#define NOISE_TID  40000000u /* scenario=noise's gaps and timer latency:  */
                            /* NOISE_TID + n (perfetto_noise.c)          */

/* A thread's own process, and its tracks: lane k of its runs (k from 0)
 * and of its waits. */
#define PF_LANES           8u
#define PF_THREAD_PID(tid) (1000000u + (tid))
#define PF_RUN_TID(tid, k)  (2000000u + (tid) * 2u * PF_LANES + (k))
#define PF_WAIT_TID(tid, k) (2000000u + (tid) * 2u * PF_LANES + PF_LANES + (k))

/* A ReadyThread record's wake-up: the run of the readied thread that
 * follows it (perfetto_threads.c finds it, perfetto_flows.c draws it). */
struct pf_wake {
	bool found;
	uint64_t run_start;    /* TSC                                        */
	uint32_t lane;         /* the lane of the thread's runs holding it   */
	uint32_t cpu;          /* where it runs                              */
	int8_t priority;       /* it runs at                                 */
};

/* The lane of a thread's track a slice [start, end) goes to, in start
 * order: the first whose last slice has ended, else (of the busy ones,
 * after PF_LANES) the one that ends first; end[] holds each lane's last
 * end (0: none) and is updated (perfetto_threads.c, and the protobuf
 * writer's proto/threads.c). */
static inline uint32_t pf_lane_for(uint64_t end[PF_LANES], uint64_t start, uint64_t slice_end)
{
	uint32_t lane = 0;

	for (uint32_t l = 1; l < PF_LANES && end[lane] > start; l++)
		if (end[l] < end[lane])
			lane = l;
	if (slice_end > end[lane] || !end[lane])
		end[lane] = slice_end;
	return lane;
}

/* Per thread (as m->threads): lanes its runs and its waits take. */
struct pf_lanes {
	uint8_t runs, waits;
};

struct pf;
struct pf_stacks;
struct kp_user_type;
struct pf_item;

/* An event as a writer other than the JSON one (the protobuf trace,
 * perfetto/) needs it: its kind, track, times and name, no args.  Filled
 * by an item's describe, with the names the JSON gives it. */
#define PF_SERIES_MAX 32
struct pf_event {
	char ph;               /* 'X' slice, 'i' instant, 'C' counter, 's'  */
	                       /* or 'f' a flow's start or end               */
	uint32_t pid, tid;     /* its track, as in the JSON                  */
	uint64_t start, end;   /* TSC; end only for 'X'                      */
	char name[256];        /* empty when name_key is set                 */
	uint64_t name_key;     /* 0, or the name's key (PF_NAME_KEY): the    */
	                       /* same key always makes the same name, which */
	                       /* pf_key_name makes only when asked, so that */
	                       /* a writer keeps it by its key               */
	uint64_t flow;         /* 's', 'f': the flow's id                    */
	unsigned nseries;      /* 'C': its series (field names) and values   */
	const char *series[PF_SERIES_MAX];
	int64_t value[PF_SERIES_MAX];
};

/* What writes an event of a kind: the JSON (write), and what a writer
 * other than the JSON one needs (describe). */
struct pf_kind {
	void (*write)(struct pf *p, const struct pf_item *it);
	void (*describe)(struct pf *p, const struct pf_item *it, struct pf_event *e);
};

/* One event to write, at ts; the events are written in (ts, seq) order,
 * seq its place in the queue. */
struct pf_item {
	uint64_t ts;
	const struct pf_kind *kind;
	const void *obj;       /* the run, wait, ... it writes               */
	uint64_t a;            /* what else its writer needs                 */
	size_t seq;
	uint32_t cpu, tid;
	uint8_t lane;          /* < PF_LANES                                 */
	uint8_t b;             /* what else its writer needs: 0 or 1         */
};

/* Events of one kind, one for each element of an array (the model's runs
 * of a CPU, ...): element i is an item at seq0 + i with obj the element,
 * ts the uint64_t at ts_at in it, and cpu; nothing else set. */
struct pf_array {
	const struct pf_kind *kind;
	const char *base;
	size_t stride, n, ts_at;
	uint32_t cpu;
	size_t seq0;
};

struct pf {
	FILE *f;
	const struct kp_model *m;
	const struct kp_symbols *syms;
	struct pf_wake **wake;  /* per CPU, per ReadyThread record            */
	struct pf_lanes *lanes; /* per thread                                 */
	struct pf_stacks *stacks; /* perfetto_stacks.c                         */
	void *thread_segs;      /* perfetto_threads.c's slices                */
	struct pf_item *items;  /* the queue: events added one by one        */
	size_t nitems, capitems;
	struct pf_array *arrays; /* and by the array                          */
	size_t narrays, caparrays;
	size_t queued;          /* the queue's length (the next seq)          */
	bool first;             /* no event written yet                       */
	const struct kp_log *log; /* its user event types                    */
	struct pf_user *user;   /* perfetto_user.c's events                   */
	struct pf_user_seen *user_seen; /* the tracks they use                 */
	uint64_t flows_one_instant; /* wake-up flows whose two ends share a time */
	uint64_t flows;         /* flow ids given (wake-ups, then noise links) */
	struct pf_flow_end *flow_ends; /* perfetto_flows.c's                  */
	struct pf_noise *noise; /* perfetto_noise.c's records                 */
	uint32_t *noise_cpus;   /* per CPU: events on its "CPU n noise"       */
	uint64_t noise_links_one_instant; /* noise links whose ends share a time */
};

/* queue.c: queue an event; queue an event per element of an array (of
 * n elements of stride bytes, each's time the uint64_t at ts_at); walk
 * the queue in time order, by (ts, seq): pf_walk_next gives each event
 * once (valid until the next call), then NULL. */
void pf_add(struct pf *p, struct pf_item it);
void pf_add_array(struct pf *p, const struct pf_kind *kind, const void *base, size_t stride, size_t n, size_t ts_at,
		  uint32_t cpu);
struct pf_run {
	uint64_t ts;           /* its next event's                           */
	size_t seq;            /* its next event's                           */
	size_t at, end;        /* its next event in its source, its end      */
	const struct pf_array *array; /* its source: the array, or NULL: the  */
	                       /* items added one by one                     */
};
struct pf_walk {
	const struct pf *p;
	struct pf_run *heap;   /* the runs not yet walked, a heap            */
	size_t n;              /* in the heap                                */
	struct pf_item cur;    /* the event pf_walk_next gave last           */
};
void pf_walk_start(const struct pf *p, struct pf_walk *w);
const struct pf_item *pf_walk_next(struct pf_walk *w);
void pf_walk_free(struct pf_walk *w);

/* perfetto_cpu.c: the CPUs' tracks' events; perfetto_threads.c: the
 * threads' (and p->wake, p->lanes); perfetto_flows.c: the wake-up flows
 * (after the threads'); perfetto_tracks.c: the metadata naming and
 * ordering the tracks (after all the others). */
void pf_cpu_events(struct pf *p);
void pf_thread_events(struct pf *p);
void pf_thread_events_free(struct pf *p);
void pf_flow_events(struct pf *p);
void pf_flow_events_free(struct pf *p);
void pf_write_metadata(struct pf *p);
/* The tracks in their order, to a writer's own callbacks: a process's
 * name (on its first track's ids), then each track's. */
struct pf_track_sink {
	void (*process)(struct pf *p, uint32_t pid, uint32_t tid, const char *name, long sort);
	void (*track)(struct pf *p, uint32_t pid, uint32_t tid, const char *name, long sort);
};
void pf_tracks(struct pf *p, const struct pf_track_sink *sink);
/* collect.c: every event queued (p->items, unsorted), and what
 * pf_collect allocated freed; the samples' stacks too when the writer
 * writes them (the JSON's "sf", "Stack" and stackFrames; the protobuf
 * trace's events have no args). */
void pf_collect(struct pf *p, struct kp_log *log, bool stacks);
void pf_collect_free(struct pf *p);
/* perfetto_user.c: the workload's own events (before the metadata), the
 * names of their tracks (from the metadata, with its track writer). */
void pf_user_events(struct pf *p);
void pf_user_tracks(struct pf *p, void (*track)(struct pf *, uint32_t, uint32_t, const char *, long));
void pf_user_events_free(struct pf *p);
/* The tracks the workload's events use, for pf_user_tracks: each of a
 * CPU's records passed in its CPU's order (the JSON writer's
 * pf_user_events, the protobuf writer's stream: proto/user.c) names the
 * track it belongs to the first time, "CPU n TYPE" for a span's Begin,
 * else "CPU n events" (not a counter's).  Bounded: 256 a CPU. */
struct pf_user_seen {
	uint32_t ncpus;
	struct pf_user_seen_cpu {
		uint16_t n, id[KPROF_EVENT_MAX_TYPES + 1]; /* in first use's order */
		bool used[KPROF_EVENT_MAX_TYPES + 1];
	} *cpu;
};
void pf_user_seen_add(struct pf *p, const struct kp_user_type *t, const struct kp_record *r);
/* A counter event's series (its numeric fields, at most PF_SERIES_MAX):
 * names and (r not NULL) values; how many. */
unsigned pf_user_series(const struct kp_user_type *t, const struct kp_record *r, const char **series,
			int64_t *value);
/* The track of a CPU's events of type id (0: its instants). */
static inline uint32_t pf_user_tid(uint32_t cpu, uint16_t id)
{
	return USER_TID + cpu * 256u + id;
}
/* perfetto_noise.c: scenario=noise's gaps, timer latency and the links
 * of correlated gaps (after the wake-up flows: their ids follow). */
void pf_noise_events(struct pf *p);
void pf_noise_events_free(struct pf *p);
/* perfetto_sched.c: ',"systemTraceEvents":"..."': the schedule as ftrace
 * text (sched_switch, sched_wakeup). */
void pf_write_sched(struct pf *p);
/* NT priority as a Linux kernel prio; NT state and wait reason as a
 * Linux task state letter (R, S, D, X). */
int pf_linux_prio(int nt, uint32_t tid);
char pf_linux_state(uint8_t state, uint8_t reason);

/* perfetto_json.c: '{"ph":"X","pid":..,"tid":..' after the separator. */
void pf_begin(struct pf *p, const char *ph, uint32_t pid, uint32_t tid);
/* Nanoseconds since the trace's origin, rounded to the nearest; 0 before. */
uint64_t pf_ns(const struct kp_model *m, uint64_t tsc);
/* ',"key":<us>' with exact nanoseconds ("12.345"). */
void pf_time(struct pf *p, const char *key, uint64_t tsc);
/* ',"ts":..,"dur":..': both ends on the nanosecond grid, dur = end - start
 * in nanoseconds, written so that ts + dur in IEEE doubles (how JavaScript
 * importers add them) is exactly the double of the end. */
void pf_span(struct pf *p, uint64_t start, uint64_t end);
void pf_str_arg(struct pf *p, const char *key, const char *v);
void pf_addr_arg(struct pf *p, const char *key, uint64_t a);
void pf_function_arg(struct pf *p, const char *key, uint64_t a);
void pf_thread_arg(struct pf *p, const char *key, uint32_t tid);
/* perfetto_cpu.c: a spin-lock wait's span, name and args, after pf_begin. */
void pf_wait_body(struct pf *p, const struct kp_wait *w);
/* "lock hot0" (its KprofObjectName), else "lock 0x<address>"; and the
 * wait as an event on track tid of pid. */
void pf_wait_name(const struct pf *p, uint64_t lock, uint64_t ts, char *name, size_t size);
void pf_wait_event(const struct pf *p, const struct kp_wait *w, uint32_t pid, uint32_t tid, struct pf_event *e);
/* perfetto_cpu.c: the name of a key: a thread's label (the CPU tracks'
 * runs, "pong (12)") or "on CPU n" (the threads' runs); the JSON names
 * them through it too. */
enum { PF_NAME_THREAD = 1, PF_NAME_ON_CPU = 2 };
#define PF_NAME_KEY(kind, v) (((uint64_t)(kind) << 32) | (uint32_t)(v))
void pf_key_name(const struct pf *p, uint64_t key, char *name, size_t size);
/* perfetto_cpu.c: the CPU's run at ts (the last to start at or before
 * it), or NULL. */
const struct kp_run *pf_running_at(const struct kp_model_cpu *c, uint64_t ts);

/* perfetto_stacks.c: the samples' stacks from the StackWalk records;
 * the id of a sample's innermost frame (0: no stack); ',"Stack":[..]'
 * (outermost first); ',"stackFrames":{..}'. */
void pf_stacks_build(struct pf *p, struct kp_log *log);
size_t pf_stack_of(const struct pf *p, uint32_t cpu, uint64_t ts);
void pf_stack_args(struct pf *p, size_t leaf);
void pf_write_stack_frames(struct pf *p);
void pf_stacks_free(struct pf *p);


#endif
