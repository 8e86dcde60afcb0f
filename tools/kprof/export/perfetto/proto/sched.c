/*
 * sched.c - the CPUs' schedule in the protobuf trace as Perfetto's own
 * kernel scheduling data, not as TrackEvents: per CPU, FtraceEventBundles
 * whose CompactSched holds a sched_switch per run, what Perfetto's
 * traced_probes writes for a Linux kernel.  The trace processor makes
 * its sched table (the "Cpu n" tracks, CPU time by thread) and each
 * thread's states from them.  A switch is about 7 bytes (its time's
 * difference, the state, the thread, its priority, its name's index, a
 * varint each, a column each); a run as a slice on "CPU n" took two
 * TrackEvent packets, about 30.
 *
 * The runs come from the model's second pass (gather.c) into a sort by
 * (CPU, run), since the passes give the CPUs' runs interleaved and the
 * trace is written only after the model is made.  Then, a CPU at a time:
 *
 *   a switch to the idle thread (tid 0) at the CPU's first run's start:
 *     the trace processor takes the first switch of a CPU only for the
 *     thread it leaves running (it has no prev_* fields), so the first
 *     run needs one before it;
 *   a switch at each run's start to its thread (next_pid: the thread id;
 *     next_prio: its priority on Linux's scale, pf_linux_prio); prev_state
 *     says what the run before ended in (its CSwitch's OldThreadState and
 *     OldThreadWaitReason as Linux's task state, pf_linux_state: R 0, S 1,
 *     D 2, X 0x10), all as the JSON's ftrace text (perfetto_sched.c) says
 *     them;
 *   a switch to the idle thread at the last run's end (the end of the
 *     trace), which closes it; prev_state 0, the thread still running;
 *   a sched_waking per ReadyThread record of the CPU (waking_pid: the
 *     thread readied; waking_target_cpu and waking_prio: where and at what
 *     priority it ran next, else its own CPU and the thread's base
 *     priority, as the JSON's sched_wakeup: the sweep of the thread knows,
 *     threads.c, which hands the waking here).  The
 *     trace processor makes the thread Runnable from it, woken by the
 *     thread running there then (the JSON's wake-up flow and "ready"
 *     slice say the same).  A CPU without runs gets none, nor does a
 *     record before its CPU's first switch: the trace processor would
 *     drop them, knowing no thread running there.
 *
 * First, who the threads are, once (a ProcessTree): each named thread but
 * the idle one as a thread (tid, name, tgid its process's id) and each of
 * their processes but the idle one as a process (pid, its image name as
 * its cmdline, cmdline_is_comm), so that Perfetto puts each thread's
 * states under its process, as the JSON's runs name them (ProcessId,
 * Process).  A thread the log never names is in no process.
 *
 * The runs of a CPU tile its time (model/schedule.c asserts it), so a run
 * starts where the one before ended and the switches give every run, the
 * idle thread's too, exactly as the JSON's "X" on "CPU n".  A thread's
 * name (next_comm) is the model's, empty for one the log never names
 * (the JSON's "thread N"); the bundle's intern table holds each once.  A
 * bundle holds 8192 switches and wakings at most: what is held is one
 * bundle.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/export/perfetto/proto/schema.h"
#include "tools/kprof/progress/progress.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/kpassert.h"
#include "tools/kprof/util/sort.h"

#define BUNDLE_EVENTS 8192

static inline int pb_run_cmp_of(const struct pb_run_fact *x, const struct pb_run_fact *y)
{
	return kp_cmp_u64(x->order, y->order);
}

int pb_run_cmp(const void *a, const void *b)
{
	return pb_run_cmp_of(a, b);
}

PB_SORT_DEFINE(pb_run_sort, struct pb_run_fact, pb_run_cmp_of)

/* A run (or a record) in a run of the sort, against the one before it
 * (mostly the same CPU's run before): its kind, its place's and start's
 * differences, its length (a record's target CPU), thread, priority and
 * end state and reason.  About 11 bytes, not 32. */
static size_t rf_encode(const void *prev_, const void *e_, unsigned char *out)
{
	const struct pb_run_fact *prev = prev_, *e = e_;
	size_t o = 0;

	out[o++] = e->waking;
	o += pb_put_varint(out + o, pb_zigzag(e->order, prev ? prev->order : 0));
	o += pb_put_varint(out + o, pb_zigzag(e->start, prev ? prev->start : 0));
	o += pb_put_varint(out + o, e->waking ? e->end : e->end - e->start);
	o += pb_put_varint(out + o, e->tid);
	out[o++] = (unsigned char)e->priority;
	out[o++] = e->end_state;
	out[o++] = e->end_reason;
	return o;
}

static size_t rf_decode(const void *prev_, const unsigned char *in, void *e_)
{
	const struct pb_run_fact *prev = prev_;
	struct pb_run_fact *e = e_;
	uint64_t v;
	size_t o = 0;

	*e = (struct pb_run_fact){ .waking = in[o++] };
	o += pb_get_varint(in + o, &v);
	e->order = pb_unzigzag(v, prev ? prev->order : 0);
	o += pb_get_varint(in + o, &v);
	e->start = pb_unzigzag(v, prev ? prev->start : 0);
	o += pb_get_varint(in + o, &v);
	e->end = e->waking ? v : e->start + v;
	o += pb_get_varint(in + o, &v);
	e->tid = (uint32_t)v;
	e->priority = (int8_t)in[o++];
	e->end_state = in[o++];
	e->end_reason = in[o++];
	return o;
}

const struct pb_spill_codec pb_run_codec = { rf_encode, rf_decode, 48 };

void pb_sched_run(struct pb_writer *w, uint32_t cpu, const struct kp_run *r)
{
	uint64_t a = pf_ns(w->pf.m, r->start), b = pf_ns(w->pf.m, r->end);
	struct pb_run_fact f = { .start = a, .end = b < a ? a : b, .order = (uint64_t)cpu << 44 | w->runs[cpu],
				 .tid = r->tid, .priority = r->priority, .end_state = r->end_state,
				 .end_reason = r->end_reason };

	pb_spill_add(&w->sched, &f);
}

void pb_sched_ready(struct pb_writer *w, uint32_t cpu, uint64_t seq, uint64_t ts, uint32_t tid, uint32_t target,
		    int8_t priority)
{
	struct pb_run_fact f = { .start = pf_ns(w->pf.m, ts), .end = target, .order = (uint64_t)cpu << 44 | PB_WAKING | seq,
				 .tid = tid, .priority = priority, .waking = true };

	pb_spill_add(&w->sched, &f);
}

/* Linux's task state bits for what a run ended in, as the JSON's ftrace
 * text says it (pf_linux_state). */
static uint64_t task_state(const struct pb_run_fact *r)
{
	switch (pf_linux_state(r->end_state, r->end_reason)) {
	case 'S': return 1;
	case 'D': return 2;
	case 'X': return 0x10;
	default: return 0; /* R */
	}
}

/* One CPU's bundle being made: its switches' and wakings' columns,
 * packed varints, each at its CompactSched field number (col[0] and
 * col[COMPACT_INTERN_TABLE] unused). */
#define COLUMNS (COMPACT_WAKING_COMM_INDEX + 1)
struct bundle {
	uint32_t cpu;
	size_t n, wn;           /* switches, wakings                          */
	uint64_t last, wlast;   /* the last one's time (ns)                   */
	struct pb_buf col[COLUMNS];
	const char **names;     /* the intern table                           */
	size_t nnames, capnames;
	uint32_t *gen, *at;     /* per thread of the model (and one for those */
	uint32_t generation;    /* not in it): its name's index + 1 in the    */
};                              /* bundle whose generation gen says          */

static const char *comm_of(const struct kp_model_thread *t)
{
	return t && t->named ? t->name : "";
}

/* The thread's name's index in the bundle's intern table. */
static uint32_t comm_index(struct bundle *b, const struct kp_model *m, uint32_t tid)
{
	const struct kp_model_thread *t = kp_model_thread(m, tid);
	size_t k = t ? (size_t)(t - m->threads) : m->nthreads;

	if (b->gen[k] != b->generation) {
		b->gen[k] = b->generation;
		KP_PUSH(b->names, b->nnames, b->capnames, comm_of(t));
		b->at[k] = (uint32_t)b->nnames;
	}
	return b->at[k] - 1;
}

static void put_switch(struct bundle *b, const struct kp_model *m, uint64_t ts, uint64_t state, uint32_t tid,
		       int prio)
{
	KP_ASSERT(ts >= b->last, "cpu %u: a switch at %llu after one at %llu", b->cpu, (unsigned long long)ts,
		  (unsigned long long)b->last);
	pb_varint(&b->col[COMPACT_SWITCH_TIMESTAMP], b->n ? ts - b->last : ts);
	pb_varint(&b->col[COMPACT_SWITCH_PREV_STATE], state);
	pb_varint(&b->col[COMPACT_SWITCH_NEXT_PID], (uint64_t)(int64_t)(int32_t)tid);
	pb_varint(&b->col[COMPACT_SWITCH_NEXT_PRIO], (uint64_t)(int64_t)prio);
	pb_varint(&b->col[COMPACT_SWITCH_NEXT_COMM_INDEX], comm_index(b, m, tid));
	b->last = ts;
	b->n++;
}

static void put_waking(struct bundle *b, const struct kp_model *m, uint64_t ts, uint32_t tid, uint64_t target,
		       int prio)
{
	KP_ASSERT(ts >= b->wlast, "cpu %u: a waking at %llu after one at %llu", b->cpu, (unsigned long long)ts,
		  (unsigned long long)b->wlast);
	pb_varint(&b->col[COMPACT_WAKING_TIMESTAMP], b->wn ? ts - b->wlast : ts);
	pb_varint(&b->col[COMPACT_WAKING_PID], (uint64_t)(int64_t)(int32_t)tid);
	pb_varint(&b->col[COMPACT_WAKING_TARGET_CPU], target);
	pb_varint(&b->col[COMPACT_WAKING_PRIO], (uint64_t)(int64_t)prio);
	pb_varint(&b->col[COMPACT_WAKING_COMM_INDEX], comm_index(b, m, tid));
	b->wlast = ts;
	b->wn++;
}

static void flush(struct pb_writer *w, struct bundle *b)
{
	size_t packet, bundle, compact;

	if (!b->n && !b->wn)
		return;
	packet = pb_open(&w->out);
	bundle = pb_open(&w->out);
	pb_uint(&w->out, BUNDLE_CPU, b->cpu);
	compact = pb_open(&w->out);
	for (size_t i = 0; i < b->nnames; i++)
		pb_string(&w->out, COMPACT_INTERN_TABLE, b->names[i]);
	for (unsigned f = 1; f < COLUMNS; f++) /* every column, empty ones too */
		if (f != COMPACT_INTERN_TABLE)
			pb_bytes(&w->out, f, b->col[f].d, b->col[f].n);
	pb_close(&w->out, BUNDLE_COMPACT_SCHED, compact);
	pb_close(&w->out, PACKET_FTRACE_EVENTS, bundle);
	pb_uint(&w->out, PACKET_SEQUENCE_ID, w->ntracks + 1);
	pb_packet_close(w, packet);
	for (unsigned f = 0; f < COLUMNS; f++)
		b->col[f].n = 0;
	b->n = b->wn = b->nnames = 0;
	b->generation++;
}

/* A switch, or a waking, into the CPU's bundle, which goes out when
 * full. */
static void add(struct pb_writer *w, struct bundle *b, uint64_t ts, uint64_t state, uint32_t tid, int8_t nt)
{
	if (b->n + b->wn == BUNDLE_EVENTS)
		flush(w, b);
	put_switch(b, w->pf.m, ts, state, tid, pf_linux_prio(nt, tid));
}

static void add_waking(struct pb_writer *w, struct bundle *b, const struct pb_run_fact *f)
{
	if (b->n + b->wn == BUNDLE_EVENTS)
		flush(w, b);
	put_waking(b, w->pf.m, f->start, f->tid, f->end, pf_linux_prio(f->priority, f->tid));
}

/* The named threads and their processes: the idle ones (0) are Linux's
 * swapper already.  A process's name is its first thread's. */
struct proc {
	uint32_t pid, thread;
};

static int proc_cmp(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return x->pid != y->pid ? (x->pid < y->pid ? -1 : 1) : (x->thread > y->thread) - (x->thread < y->thread);
}

static void process_tree(struct pb_writer *w)
{
	const struct kp_model *m = w->pf.m;
	size_t packet = pb_open(&w->out), tree = pb_open(&w->out), at, n = 0;
	struct proc *procs = kp_xcalloc(m->nthreads + 1, sizeof(*procs));

	for (size_t i = 0; i < m->nthreads; i++) {
		const struct kp_model_thread *t = &m->threads[i];
		if (!t->named || !t->tid || !t->pid)
			continue;
		at = pb_open(&w->out);
		pb_uint(&w->out, THREAD_TID, (uint64_t)(int64_t)(int32_t)t->tid);
		pb_string(&w->out, THREAD_NAME, t->name);
		pb_uint(&w->out, THREAD_TGID, (uint64_t)(int64_t)(int32_t)t->pid);
		pb_close(&w->out, TREE_THREADS, at);
		procs[n++] = (struct proc){ t->pid, (uint32_t)i };
	}
	qsort(procs, n, sizeof(*procs), proc_cmp);
	for (size_t k = 0; k < n; k++) {
		if (k && procs[k].pid == procs[k - 1].pid)
			continue;
		at = pb_open(&w->out);
		pb_uint(&w->out, PROCESS_PID, (uint64_t)(int64_t)(int32_t)procs[k].pid);
		pb_string(&w->out, PROCESS_CMDLINE, m->threads[procs[k].thread].process);
		pb_uint(&w->out, PROCESS_CMDLINE_IS_COMM, 1);
		pb_close(&w->out, TREE_PROCESSES, at);
	}
	free(procs);
	pb_close(&w->out, PACKET_PROCESS_TREE, tree);
	pb_uint(&w->out, PACKET_TIMESTAMP, 0);
	pb_uint(&w->out, PACKET_SEQUENCE_ID, w->ntracks + 1);
	pb_packet_close(w, packet);
}

void pb_sched_write(struct pb_writer *w)
{
	const struct kp_model *m = w->pf.m;
	const struct pb_run_fact *f;
	struct pb_run_fact prev = { 0 };
	struct bundle b = { .cpu = UINT32_MAX, .generation = 1 };
	bool any = false, runs = false; /* a CPU's facts came; its runs did */
	uint64_t first = 0;             /* its first switch's time            */

	b.gen = kp_xcalloc(m->nthreads + 1, sizeof(*b.gen));
	b.at = kp_xcalloc(m->nthreads + 1, sizeof(*b.at));
	process_tree(w);
	pb_spill_sorted(&w->sched);
	kp_progress_phase("writing the schedule", "runs", w->sched.count);
	while ((f = pb_spill_next(&w->sched))) {
		uint32_t cpu = (uint32_t)(f->order >> 44);
		kp_progress_record(0);
		if (!any || cpu != b.cpu) {
			if (runs)
				add(w, &b, prev.end, 0, 0, 0);
			flush(w, &b);
			any = true;
			runs = false;
			b.cpu = cpu;
			b.last = b.wlast = 0;
		}
		if (f->waking) { /* after the CPU's runs */
			if (runs && f->start >= first)
				add_waking(w, &b, f);
			continue;
		}
		if (!runs) {
			runs = true;
			first = f->start;
			add(w, &b, f->start, 0, 0, 0);
			add(w, &b, f->start, 0, f->tid, f->priority);
		} else {
			KP_ASSERT(f->start == prev.end, "cpu %u: a run from %llu after one to %llu", cpu,
				  (unsigned long long)f->start, (unsigned long long)prev.end);
			add(w, &b, f->start, task_state(&prev), f->tid, f->priority);
		}
		prev = *f;
	}
	if (runs)
		add(w, &b, prev.end, 0, 0, 0);
	flush(w, &b);
	for (unsigned f = 0; f < COLUMNS; f++)
		pb_free(&b.col[f]);
	free(b.names);
	free(b.gen);
	free(b.at);
	pb_spill_free(&w->sched);
}
