/*
 * model.h - one model of the run, built once from the records and read by
 * the report, the pictures and the Perfetto trace, so that they cannot
 * tell different stories about the same log.
 *
 * What it holds:
 *   - the schedule (schedule.c): per CPU, which thread ran from when to
 *     when, end to end over the whole trace, from the CSwitch records;
 *   - the threads (threads.c): names from KprofThread records, CPU time
 *     (the sum of their runs), switches in and out, priorities, waits and
 *     the reasons they left the CPU;
 *   - per CPU, spin-lock waits, samples and ReadyThread records
 *     (events.c), and the span of its records;
 *   - every Resource record, in time order, and the KprofSpinlockConfig
 *     settings (model.c); the SpinLock records are counted, not kept (the
 *     report reads them from the log: report/locks/lock_stats.c);
 *   - the names of locks and resources from KprofObjectName records
 *     (objnames.c);
 *   - per CPU, stall intervals from KprofClockLate records (stall.c): time
 *     the CPU could not run (steal time on a VM), taken out of busy, idle
 *     and thread CPU time;
 *   - per thread, scheduling latency (ready to running) and time blocked
 *     per wait reason (latency.c).
 * A reader that reads none of the runs, spin-lock waits or ReadyThread
 * records builds it keeping less (kp_model_build_keeping): what is made
 * of them (busy, idle, CPU times, latencies) is there all the same.
 *
 * The trace runs from `begin` (the run header's start_tsc, when tracing
 * started on every CPU, or an earlier record) to `end` (the last record of
 * any CPU).  Every CPU with CSwitch records is accounted for over exactly
 * that span: its busy, idle, stalled and no-trace cycles add up to
 * end - begin, and so do its threads' runs (asserted: invariants.c).
 */
#ifndef KPROF_TOOL_MODEL_H
#define KPROF_TOOL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "include/kprof/wmi.h"
#include "tools/kprof/read/log.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/util/hash.h"

#define KP_WAIT_REASONS 256        /* OldThreadWaitReason is a byte        */

/* A thread ran on a CPU from start to end (TSC).  40 bytes: a big run
 * has one for every two or three records. */
struct kp_run {
	uint64_t start, end;
	uint64_t no_trace;     /* cycles of it inside the CPU's holes: not   */
	                       /* the thread's CPU time, nor busy nor idle   */
	uint64_t stalled;      /* cycles of it in the CPU's stalls (outside  */
	                       /* holes): not its CPU time either            */
	uint32_t tid;
	int8_t priority;       /* NewThreadPriority of the switch to it      */
	uint8_t end_state;     /* OldThreadState of the switch that ended it */
	uint8_t end_reason;    /* OldThreadWaitReason of that switch         */
	bool from_start : 1;   /* ran before the CPU's first switch          */
	bool to_end : 1;       /* still running at the end of the trace      */
	bool gap : 1;          /* the next switch's OldThreadId is another   */
	                       /* thread: switches were lost in between      */
};
_Static_assert(sizeof(struct kp_run) == 40, "a run is 40 bytes");

/* What a wait's SpinLock record says besides its times and spins: the
 * lock, the release site, the thread and the mode.  Waits share it (a big
 * log has millions of waits and a few thousand of these), so the model
 * keeps each once (m->wait_sites) and a wait its index. */
struct kp_wait_site {
	uint64_t lock, caller;
	uint32_t tid;
	uint8_t mode;          /* AcquireMode                                */
};

/* A spin-lock wait: from the first try (AcquireTime - WaitTimeInCycles)
 * to AcquireTime.  24 bytes: the timeline keeps every one. */
struct kp_wait {
	uint64_t start, end;
	uint32_t site;         /* its kp_wait_site: kp_wait_site_of          */
	uint32_t spins;
};
_Static_assert(sizeof(struct kp_wait) == 24, "a wait is 24 bytes");

/* A SampledProfile or PmcInterrupt record. */
struct kp_sample {
	uint64_t ts, ip;
	uint32_t tid;
	uint16_t count;        /* SampledProfile Count; 1 for a PMC sample   */
	bool pmc;
	uint16_t source;       /* PMC: ProfileSource                         */
	bool measuring;        /* in a KprofMeasure span of its CPU: kprof's */
	                       /* own measurement's, not the workload's      */
};

/* A KprofMeasure record: kprof measured itself on this CPU from start to
 * end (TSC), with interrupts that wrote real samples (measure.c). */
struct kp_measure {
	uint64_t start, end;
	uint32_t rounds, what;
};

struct kp_ready {
	uint64_t ts;
	uint32_t tid;          /* TThreadId                                  */
	int8_t reason, increment;
};

/* A stretch of a CPU's time with no trace: frames of it were lost on the
 * link (kp_log.gaps), between its last record before and its first after;
 * or its kernel dropped records (kp_log.drops), from the first drop (or
 * its last record before) to the KprofRecordsLost record, or from its last
 * record to the end of the trace for drops after it (tail). */
struct kp_hole {
	uint64_t start, end;
	bool kernel;                  /* dropped by the kernel, not the link  */
	bool tail;                    /* kernel: after the CPU's last record  */
	uint64_t lost;                /* records (link: 0 when not known)     */
	uint64_t cause[KPROF_LOSS_CAUSES]; /* kernel: lost by cause           */
	uint32_t seq_first, seq_last; /* link: the frames (v2: chunks) missing */
};

/* A stall: the CPU could not run from start to end (TSC), from
 * KprofClockLate records (DueTime to DueTime + LateCycles; stall.c), cut to the trace
 * and merged where they overlap. */
struct kp_stall {
	uint64_t start, end;
	uint32_t records;      /* KprofClockLate records merged into it      */
};
_Static_assert(sizeof(struct kp_stall) == 24, "a stall is 24 bytes: a big log has millions");

/* A thread's scheduling latency: from ready (a ReadyThread record, or a
 * switch out in state Ready) to its next switch in (latency.c). */
#define KP_READY_PREEMPTED 3   /* why: switched out ready (preempted,    */
#define KP_READY_WHYS 4        /* quantum end, yield); 0..2 AdjustReason */
struct kp_latency {
	uint64_t n, total, max;    /* delays (cycles): count, sum, longest   */
	double total2;             /* their squares summed (for a variance)  */
	uint64_t max_at;           /* TSC the longest ended (switched in)    */
	uint32_t max_by;           /* the thread running where it was made   */
	                           /* ready (itself when preempted)          */
	int8_t max_why;            /* 0 new, 1 unwait, 2 boost, 3 preempted  */
	uint8_t max_cpu;           /* where it was made ready                */
	uint64_t why[KP_READY_WHYS]; /* delays by why                        */
	uint64_t unreadied;        /* switched in after a wait with no       */
	                           /* ReadyThread seen (records lost?)       */
};

/* A KprofObjectName record: the object at `object` is called `name`. */
struct kp_object_name {
	uint64_t ts, object;
	uint8_t kind;          /* enum kprof_object_kind                     */
	char name[33];         /* as recorded (any bytes), NUL-ended         */
};

/* A step back of a CPU's clock: the kernel's KprofClockStep record, or a
 * record of an older kernel whose stamp went back (the cursor raised it:
 * read/records.h).  Either way the stamps there lag the clock by up to
 * `back`. */
struct kp_clock_step {
	uint64_t ts;               /* the (clamped) stamp where it happened  */
	uint64_t back;             /* cycles the clock went back             */
	bool kernel;               /* KprofClockStep, else found in the log  */
};

struct kp_model_cpu {
	bool any;                  /* it has records                         */
	uint64_t first, last;      /* its first and last record time stamps  */
	struct kp_run *runs;       /* in time order, end to end              */
	size_t nruns;
	struct kp_wait *waits;     /* by start; a wait that starts inside    */
	size_t nwaits;             /* another ends inside it (nested)        */
	uint64_t waited;           /* the waits, kept or not                 */
	struct kp_sample *samples; /* by time                                */
	size_t nsamples;
	struct kp_ready *readies;  /* by time                                */
	size_t nreadies;
	uint64_t switches;         /* CSwitch records                        */
	uint64_t gaps;             /* switches whose OldThreadId was not the */
	                           /* thread switched in before              */
	uint64_t busy, idle;       /* cycles outside / in the idle thread    */
	struct kp_hole *holes;     /* no trace (link or kernel), by start    */
	size_t nholes, capholes;
	uint64_t no_trace;         /* cycles in holes (their union, within   */
	                           /* the trace): neither busy nor idle      */
	uint64_t lost_kernel;      /* records its kernel dropped (end frame) */
	struct kp_stall *stalls;   /* disjoint, by start (stall.c)           */
	size_t nstalls, capstalls;
	uint64_t stall_records;    /* KprofClockLate records                 */
	uint64_t stalled;          /* cycles in stalls, outside holes        */
	uint64_t smi_records;      /* KprofSmiCount records (one per CPU)    */
	bool smi_counted;          /* the last one: the CPU counts SMIs      */
	uint64_t smis;             /* SMIs over the trace, when counted      */
	struct kp_measure *measures; /* by start (measure.c)                 */
	size_t nmeasures, capmeasures;
	uint64_t measure_samples;  /* its samples in them                    */
	struct kp_clock_step *steps; /* its clock's steps back, by time      */
	size_t nsteps, capsteps;
	size_t capwaits, capsamples, capreadies; /* room, while building     */
};

struct kp_model_thread {
	uint32_t tid, pid;
	int8_t base_priority;
	bool named;                /* from a KprofThread record              */
	char name[33], process[17];/* as recorded (any bytes), NUL-ended     */
	uint64_t cycles;           /* its runs on all CPUs, less no trace    */
	                           /* and stalls                             */
	uint64_t stalled;          /* its runs' cycles in stalls             */
	uint64_t in, out;          /* times switched in and out              */
	uint64_t out_ready;        /* of the outs, in state Ready (preempted,*/
	                           /* quantum end, yield): involuntary       */
	bool have_prio;            /* pmin, pmax: priorities seen in its     */
	int pmin, pmax;            /* switches                               */
	uint32_t max_wait;         /* longest NewThreadWaitTime, clock ticks */
	uint32_t reasons[KP_WAIT_REASONS]; /* OldThreadWaitReason when it left */
	struct kp_latency lat;     /* ready to running (latency.c)           */
	uint64_t blocked[KP_WAIT_REASONS]; /* cycles from a switch out in    */
	uint32_t nblocked[KP_WAIT_REASONS]; /* state Waiting to its ready,   */
	                           /* by OldThreadWaitReason (latency.c)     */
};

struct kp_model {
	uint32_t ncpus;
	struct kp_model_cpu *cpu;
	struct kp_model_thread *threads; /* by tid: every thread named or    */
	size_t nthreads;                 /* in a CSwitch record              */
	uint32_t *thread_ids;            /* their ids, in the same order: a  */
	                                 /* thread's row is a few KiB, so    */
	                                 /* the look-up searches these       */
	uint64_t spinlock_records;       /* SpinLock records (the report     */
	                                 /* reads them from the log itself:  */
	                                 /* report/locks/lock_stats.c)       */
	KPROF_SPINLOCK_CONFIG *spinlock_configs; /* in time order            */
	size_t nspinlock_configs;
	WMI_RESOURCE *resources;         /* in time order                    */
	uint64_t *resource_ts;           /* their TimeStamps                 */
	size_t nresources;
	struct kp_object_name *object_names; /* in time order                */
	size_t nobject_names;
	struct kp_wait_site *wait_sites; /* what the kept waits share        */
	size_t nwait_sites, capwait_sites;
	struct kp_index wait_site_ix;
	bool any;                  /* any record at all                      */
	uint64_t begin, end;       /* span of the trace (TSC), see the top   */
	uint64_t origin;           /* time 0: begin                          */
	double hz;                 /* TSC rate; 0 without a run header       */
	bool have_header;          /* a run header (hz 0: one that gave 0 Hz) */
	uint32_t switching_cpus;   /* CPUs with CSwitch records              */
	uint64_t switches, waits, samples, sample_periods, readies;
	uint64_t thread_records;   /* KprofThread records                    */
	uint64_t stall_records;    /* KprofClockLate records, all CPUs       */
	uint64_t smi_records;      /* KprofSmiCount records, all CPUs        */
	uint64_t noise_records;    /* KprofNoiseGap and KprofTimerLatency    */
	                           /* records (scenario=noise's: not read)   */
	uint64_t measure_samples;  /* samples in KprofMeasure spans, all CPUs */
	unsigned not_kept;         /* KP_KEEP_* a model built keeping less    */
	                           /* left out (their arrays NULL, counts 0;  */
	                           /* m->waits, readies, samples count them) */
};

/* The hook of a record of a kind the model reads whose payload is long
 * enough to be read, else 0: the rule every reader of those kinds keeps. */
uint16_t kp_model_kind(const struct kp_record *r);

/* Build the model of the whole log (never fails: a log without a run
 * header has no TSC rate, see kp_model_need_clock). */
void kp_model_build(struct kp_model *m, struct kp_log *log);
/* The same model keeping only some of what grows with the log, for a
 * reader that needs no more (its memory is what it keeps): a CPU's runs
 * (KP_KEEP_RUNS: compare, the Perfetto trace), spin-lock waits (the
 * timeline, the Perfetto trace), ReadyThread records (the Perfetto
 * trace), samples and Resource records (the timeline, the Perfetto trace;
 * the report reads those two from the log itself).
 * What is left out has its array NULL and count 0 (m->waits, m->readies
 * and m->samples count them all the same), while everything made from
 * them is there: busy, idle, the gaps, the threads' CPU times and
 * latencies, the samples' periods and those in kprof's measurements. */
enum {
	KP_KEEP_RUNS = 1u << 0,
	KP_KEEP_WAITS = 1u << 1,
	KP_KEEP_READIES = 1u << 2,
	KP_KEEP_SAMPLES = 1u << 3,
	KP_KEEP_RESOURCES = 1u << 4,
	KP_KEEP_ALL = (1u << 5) - 1,
};
void kp_model_build_keeping(struct kp_model *m, struct kp_log *log, unsigned keep);
/* A reader of the runs as the schedule makes them, whole (the timeline's
 * plan: it need not keep them): start once before the first, with the
 * model's span, holes, stalls and thread table made; then each run, a
 * CPU's in time order (the CPUs' interleaved; run NULL: none). */
struct kp_run_sink {
	void (*start)(void *ctx, const struct kp_model *m);
	void (*run)(void *ctx, uint32_t cpu, const struct kp_run *r);
	void *ctx;
	/* NULL, or every record of a kind the model reads too (kp_model_kind,
	 * passed as kind), in time order, as the second pass meets them: a
	 * reader that draws samples or Resource records need not have the
	 * model keep them. */
	void (*record)(void *ctx, const struct kp_record *r, uint16_t kind);
	/* NULL, or every other record (of no kind the model reads: the
	 * workload's own events among them), in time order, as the second
	 * pass meets them. */
	void (*other)(void *ctx, const struct kp_record *r);
};
void kp_model_build_with(struct kp_model *m, struct kp_log *log, unsigned keep, const struct kp_run_sink *sink);
/* Keeping none of them: the summary's fidelity statement's, which reads
 * only what is made of them; and the figures test_model_invariants holds
 * equal to the whole model's. */
void kp_model_build_totals(struct kp_model *m, struct kp_log *log);
/* Only the thread table's names: each thread a KprofThread record names,
 * from its first record in time (as kp_model_build names them), and
 * thread_records; nothing else is gathered (no schedule, no per-CPU
 * events: m->cpu is allocated and empty, begin and end are 0).  For a
 * reader that needs no more than to name threads (the flame graph), so
 * that its memory does not grow with the log. */
void kp_model_build_names(struct kp_model *m, struct kp_log *log);
void kp_model_free(struct kp_model *m);

/* For the commands that place records in time: true when the run header
 * gives the TSC rate, else false with a message naming the log. */
bool kp_model_need_clock(const struct kp_model *m, const char *path);

/* A CPU's spin-lock waits nested, one at a time in start order (the
 * outer one first): kp_wait_nest gives wait [start, end)'s end, cut to the
 * end of the wait it starts inside when it ends after it (events.c's
 * rule, which the protobuf writer's sweep applies too). */
struct kp_wait_nesting {
	uint64_t stack[64];
	size_t depth;
};
uint64_t kp_wait_nest(struct kp_wait_nesting *n, uint64_t start, uint64_t end);

/* A SpinLock record's wait, [AcquireTime - WaitTimeInCycles, AcquireTime):
 * none when it did not wait, or when its wait would begin before time 0
 * (a time stamp that cannot be).  The model's waits (events.c) and
 * the protobuf writer's (tools/kprof/export/perfetto/proto/gather.c)
 * both take this rule. */
static inline bool kp_spinlock_waited(const WMI_SPINLOCK *s)
{
	return s->WaitTimeInCycles && s->WaitTimeInCycles <= s->AcquireTime;
}

/* A Resource record's wait as a thread's slice, [*from, AcquireTime): a
 * release (exclusive or shared) by a known thread whose wait began after
 * the trace's (m->begin).  The JSON writer's and the protobuf writer's
 * rule (tools/kprof/export/perfetto/perfetto_threads.c and
 * tools/kprof/export/perfetto/proto/gather.c). */
static inline bool kp_resource_wait(const struct kp_model *m, const WMI_RESOURCE *r, uint64_t *from)
{
	bool release = r->Action == WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE ||
		       r->Action == WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED;

	if (!release || !r->ThreadId || !r->WaitTime || r->AcquireTime <= r->WaitTime ||
	    r->AcquireTime - r->WaitTime < m->begin)
		return false;
	*from = r->AcquireTime - r->WaitTime;
	return true;
}

/* What wait w shares with others: its lock, release site, thread, mode. */
const struct kp_wait_site *kp_wait_site_of(const struct kp_model *m, const struct kp_wait *w);

/* The thread with this id, or NULL. */
const struct kp_model_thread *kp_model_thread(const struct kp_model *m, uint32_t tid);
/* "pong (12)", "Idle" for thread 0, else "thread 12"; returns buf. */
const char *kp_model_thread_label(const struct kp_model *m, uint32_t tid, char *buf, size_t size);

/* The name of the object at `object` in use at time ts: the latest
 * KprofObjectName record at or before ts, else the first after it (an
 * ERESOURCE's Initialize record comes before its name); NULL without one.
 * ts UINT64_MAX: the latest of all. */
const struct kp_object_name *kp_model_object_name(const struct kp_model *m, uint64_t object, uint64_t ts);
/* Its name as text (bytes outside printable ASCII as '?'), else
 * "0x<address>"; returns buf. */
const char *kp_model_object_label(const struct kp_model *m, uint64_t object, uint64_t ts, char *buf, size_t size);

/* overlap.c: cycles of [s, e) on CPU c in its stalls (outside its holes). */
uint64_t kp_stall_overlap(const struct kp_model_cpu *c, uint64_t s, uint64_t e);

/* Microseconds and milliseconds since the origin; cycles as microseconds
 * (the clock must be known). */
double kp_model_us(const struct kp_model *m, uint64_t ts);
double kp_model_ms(const struct kp_model *m, uint64_t ts);
double kp_model_cycles_us(const struct kp_model *m, uint64_t cycles);

/* ---- what the parts of the model build (model.c calls them) ---- */

/* overlap.c: cycles of [s, e) inside the union of the CPU's holes (sorted by start). */
uint64_t kp_hole_overlap(const struct kp_model_cpu *c, uint64_t s, uint64_t e);
/* threads.c: the thread table as the pass makes it: a row for every id
 * met, found by a hash of the ids (util/hash.h). */
struct kp_thread_rows {
	struct kp_model_thread *rows;
	size_t n, cap;
	struct kp_index ix;
};
/* A KprofThread record (in time order: the first names the thread) and a
 * CSwitch record (its two threads' ins, outs, priorities, waits). */
void kp_threads_name(struct kp_thread_rows *t, const KPROF_THREAD *k);
void kp_threads_switch(struct kp_thread_rows *t, const WMI_CONTEXTSWAP *c);
/* After the first pass: the rows sorted by id into m->threads (taken
 * over); the schedule adds each thread's CPU time as it makes the runs. */
void kp_threads_finish(struct kp_model *m, struct kp_thread_rows *t);
/* threads.c: a KprofThread record of either version as version 2 (a
 * version 1 name is its 16 bytes); false if its payload is too short. */
bool kp_thread_record(const struct kp_record *r, KPROF_THREAD *out);
/* events.c: a record's wait, sample or ReadyThread onto its CPU; then
 * the waits nested and everything sorted by time. */
void kp_events_add(struct kp_model *m, struct kp_model_cpu *c, const struct kp_record *r);
/* A SampledProfile or PmcInterrupt record (kp_model_kind says which) as
 * the model keeps it (not yet `measuring`). */
void kp_sample_of(const struct kp_record *r, struct kp_sample *s);
void kp_events_finish(struct kp_model *m, struct kp_model_cpu *c);
/* stall.c: a KprofClockLate record onto its CPU; then the CPU's stalls
 * cut to the trace, sorted and merged, and its stalled cycles (before the
 * schedule is built: it reads them). */
void kp_stall_add(struct kp_model_cpu *c, const struct kp_record *r);
void kp_stall_finish(const struct kp_model *m, struct kp_model_cpu *c);
/* measure.c: a KprofMeasure record onto its CPU; then its spans sorted.
 * Then, for each of the CPU's samples in time order, whether it lies in
 * one of them (*walk: 0 before the CPU's first sample; the model's second
 * pass counts and marks them, the report's hot spots leave them out). */
void kp_measure_add(struct kp_model_cpu *c, const struct kp_record *r);
void kp_measure_finish(struct kp_model_cpu *c);
bool kp_measure_in(const struct kp_model_cpu *c, size_t *walk, uint64_t ts);
/* The latency walk's events: every CPU's switches in and out (its runs'
 * ends; idle-thread runs give none, a run from the trace's start no switch
 * in, one to its end no switch out) and ReadyThread records. */
enum { KP_SCHED_OUT, KP_SCHED_READY, KP_SCHED_IN }; /* at one time, this order */
struct kp_sched_event {
	uint64_t ts;
	uint32_t tid, by;      /* READY: the thread running where it came    */
	uint8_t type, cpu;
	uint8_t state, reason; /* OUT: OldThreadState and -WaitReason; state */
	int8_t why;            /* 0xFF: the switch is lost.  READY: its why  */
};
/* latency.c: every thread's latency and blocked time, from the events in
 * sched_order.c's order, one at a time (after kp_threads_finish). */
struct kp_latency_walk;
struct kp_latency_walk *kp_latency_new(struct kp_model *m);
void kp_latency_take(struct kp_latency_walk *w, const struct kp_sched_event *e);
void kp_latency_free(struct kp_latency_walk *w);
/* sched_order.c: the events of one time stamp, gathered as the second
 * pass makes them (every event comes at its record's stamp, and the
 * stamps never go back), ordered (its top comment) and handed to the
 * latency walk when the stamp moves on; a READY's `by` is found then,
 * when every switch at that stamp is in. */
struct kp_sched;
struct kp_sched_order {
	struct kp_sched_item *v;
	size_t n, cap;
	uint64_t ts;
	const struct kp_sched *sched;  /* for kp_schedule_running             */
	struct kp_latency_walk *lat;
};
void kp_sched_order_at(struct kp_sched_order *o, uint64_t ts); /* a record at ts: the earlier stamp's out */
void kp_sched_order_add(struct kp_sched_order *o, struct kp_sched_event e, uint32_t cpu);
void kp_sched_order_flush(struct kp_sched_order *o);
/* schedule.c: the CPUs' runs, made in the model's second pass as it meets
 * the CSwitch records (in time order), each CPU's switch before held;
 * the ReadyThread records go by to the latency walk.  Before it, the
 * first pass gives each CPU's first switch (kp_schedule_first: the thread
 * that ran from the start). */
struct kp_sched_cpu {
	bool seen, have;       /* a switch met: in the first pass, the second */
	uint64_t ts;           /* the switch before (second pass)             */
	WMI_CONTEXTSWAP last;
	uint32_t running;      /* the thread on the CPU after it              */
	uint64_t runs, run_end;/* runs made, where the last ended             */
	size_t cap;            /* room for the runs, when kept                */
};
struct kp_sched {
	struct kp_model *m;
	struct kp_sched_cpu *cpu;
	bool keep;             /* the runs kept in m->cpu[].runs              */
	const struct kp_run_sink *sink; /* or NULL                            */
	struct kp_sched_order order;
};
void kp_schedule_init(struct kp_sched *s, struct kp_model *m, bool keep);
void kp_schedule_first(struct kp_sched *s, uint32_t cpu, const WMI_CONTEXTSWAP *sw);
/* The second pass (the trace's span, the holes sorted by start, the
 * stalls and the thread table known): */
void kp_schedule_switch(struct kp_sched *s, uint32_t cpu, uint64_t ts, const WMI_CONTEXTSWAP *sw);
void kp_schedule_ready(struct kp_sched *s, uint32_t cpu, uint64_t ts, const WMI_READY_THREAD *rd);
/* The thread running on cpu at ts, every switch at or before ts met. */
uint32_t kp_schedule_running(const struct kp_sched *s, uint32_t cpu, uint64_t ts);
/* After it: the last runs, to the trace's end; the last events out. */
void kp_schedule_finish(struct kp_sched *s);
/* objnames.c: a KprofObjectName record into m->object_names. */
void kp_object_name_take(struct kp_model *m, size_t *cap, const struct kp_record *r);
/* invariants.c: what this header promises of a built model (the span
 * equation, runs end to end, threads' time against the CPUs'), checked:
 * a model that breaks one ends the tool with the values (util/kpassert.h).
 * kp_model_build ends with it. */
void kp_model_check(const struct kp_model *m);

#endif
