/*
 * ctf_lttng.c - `kprof ctf --lttng`: the events that turn kprof's records
 * into LTTng's kernel conventions (lttng-modules' event names and fields),
 * so that Trace Compass's kernel analysis (Control Flow, Resources) and
 * other LTTng readers follow the threads.  ctf.c gives the trace's design;
 * docs/trace-and-tool.md the mapping, summed up here:
 *
 *   CSwitch      -> sched_switch (prev_comm, prev_tid, prev_prio,
 *                   prev_state, next_comm, next_tid, next_prio)
 *   ReadyThread  -> sched_wakeup (comm, tid, prio, target_cpu)
 *   KprofThread  -> lttng_statedump_process_state (tid, pid, ppid, name,
 *                   type, mode, submode, status, cpu, file_table_address)
 *                   when it is part of the
 *                   rundown (written by a CPU before its first CSwitch),
 *                   between lttng_statedump_start and _end on that CPU;
 *                   sched_process_fork (parent_comm, parent_tid,
 *                   parent_pid, parent_ns_inum, child_comm, child_tid,
 *                   vtids, child_pid, child_ns_inum) for a thread created
 *                   later, its parent the thread running on the CPU that
 *                   wrote it; no namespaces: vtids is [child_tid], the
 *                   inums and the file table 0
 *   the others   -> their own table events (SpinLock, Resource, ...)
 *
 * comm is the thread's name (KprofThread.ThreadName cut to LTTng's 16
 * bytes, NUL included; "tid-N" for a thread without a record); pid its
 * ProcessId.  Priorities: LTTng writes p->prio - 100, so a normal Linux
 * task is 0..39 (20 = nice 0) and a real-time one below 0.  NT's variable
 * priorities 1..15 (8 = normal) map to 28 - p (nice 8 - p), the idle
 * thread's 0 to 28, real-time 16..31 to 14 - p (-2..-17): higher NT
 * priority, lower LTTng value, as in Linux.  prev_state, Linux's task
 * state bits as Trace Compass reads them: Ready, Running, Standby,
 * DeferredReady (preempted) -> 0 (TASK_RUNNING); Waiting, Transition,
 * WaitingForProcessOutSwap -> TASK_INTERRUPTIBLE (1) for a UserMode wait,
 * TASK_UNINTERRUPTIBLE (2) for a KernelMode one; Terminated -> TASK_DEAD
 * (64); anything else 0.  sched_wakeup's prio is the thread's
 * BasePriority (ReadyThread carries none) and target_cpu, the run queue
 * Trace Compass puts the thread on, the CPU of the thread's next switch-in
 * at or after the record (NT does not record the CPU it will run on), or
 * the CPU that wrote the record if it never runs again.
 */
#include "tools/kprof/export/ctf/ctf_shared.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/kprof/wmi.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

#define COMM_LEN 16                     /* Linux's TASK_COMM_LEN            */

enum {                                  /* Linux task states (prev_state)   */
	TASK_RUNNING = 0,
	TASK_INTERRUPTIBLE = 1,
	TASK_UNINTERRUPTIBLE = 2,
	TASK_DEAD = 64,
};

/* lttng-modules' statedump enums, with the values its state dump writes
 * (lttng-modules:src/lttng-statedump-impl.c): mode unknown, submode none; status WAIT_CPU
 * for every TASK_RUNNING task ("the viewer will sort out if the task was
 * really running"), WAIT for a waiting one. */
enum {
	LTTNG_KERNEL_THREAD = 1,        /* lttng_thread_type                */
	LTTNG_MODE_UNKNOWN = 5,         /* lttng_execution_mode             */
	LTTNG_SUBMODE_NONE = 0,         /* lttng_execution_submode          */
	LTTNG_WAIT_CPU = 2,             /* lttng_process_status             */
	LTTNG_WAIT = 5,
};

enum { KERNEL_MODE_WAIT = 0, NT_TERMINATED = 4, NT_WAITING = 5, NT_TRANSITION = 6, NT_OUT_SWAP = 9 };

/* ------------------------------------------------------------ classes */

/* comm (char[16], UTF-8), pid_t/int, long, unsigned int, a pointer in
 * hex, and fork's vtids (a u8 length, then pid_t: one namespace level). */
enum lfield_kind { L_COMM, L_S32, L_S64, L_U32, L_X64, L_VTIDS };

struct lfield {
	const char *name;
	enum lfield_kind kind;
};

struct lclass {
	const char *name;
	const struct lfield *fields;
	unsigned nfields;
};

static const struct lfield switch_fields[] = {
	{ "prev_comm", L_COMM }, { "prev_tid", L_S32 }, { "prev_prio", L_S32 }, { "prev_state", L_S64 },
	{ "next_comm", L_COMM }, { "next_tid", L_S32 }, { "next_prio", L_S32 },
};
static const struct lfield wakeup_fields[] = {
	{ "comm", L_COMM }, { "tid", L_S32 }, { "prio", L_S32 }, { "target_cpu", L_S32 },
};
static const struct lfield fork_fields[] = {
	{ "parent_comm", L_COMM }, { "parent_tid", L_S32 }, { "parent_pid", L_S32 }, { "parent_ns_inum", L_U32 },
	{ "child_comm", L_COMM },  { "child_tid", L_S32 },  { "vtids", L_VTIDS },     { "child_pid", L_S32 },
	{ "child_ns_inum", L_U32 },
};
static const struct lfield process_state_fields[] = {
	{ "tid", L_S32 },    { "pid", L_S32 },     { "ppid", L_S32 },   { "name", L_COMM },
	{ "type", L_S32 },   { "mode", L_S32 },    { "submode", L_S32 }, { "status", L_S32 },
	{ "cpu", L_U32 },    { "file_table_address", L_X64 },
};

enum { C_SWITCH, C_WAKEUP, C_FORK, C_DUMP_START, C_DUMP_END, C_PROCESS_STATE, NCLASSES };

#define N(a) (sizeof(a) / sizeof((a)[0]))
static const struct lclass classes[NCLASSES] = {
	[C_SWITCH] = { "sched_switch", switch_fields, N(switch_fields) },
	[C_WAKEUP] = { "sched_wakeup", wakeup_fields, N(wakeup_fields) },
	[C_FORK] = { "sched_process_fork", fork_fields, N(fork_fields) },
	[C_DUMP_START] = { "lttng_statedump_start", NULL, 0 },
	[C_DUMP_END] = { "lttng_statedump_end", NULL, 0 },
	[C_PROCESS_STATE] = { "lttng_statedump_process_state", process_state_fields, N(process_state_fields) },
};

/* After the table's classes and Unknown. */
static uint32_t class_id(unsigned c)
{
	return unknown_id() + 1 + c;
}

/* A field as lttng-modules declares it. */
static void put_lfield(FILE *f, const struct lfield *l)
{
	static const char *const fmt = "\t\tinteger { size = %d; align = 8; signed = %d; encoding = %s; base = %d; } ";

	switch (l->kind) {
	case L_COMM:
		fprintf(f, fmt, 8, 1, "UTF8", 10);
		fprintf(f, "_%s[%d];\n", l->name, COMM_LEN);
		break;
	case L_VTIDS:
		fprintf(f, fmt, 8, 0, "none", 10);
		fprintf(f, "__%s_length;\n", l->name);
		fprintf(f, fmt, 32, 1, "none", 10);
		fprintf(f, "_%s[ __%s_length ];\n", l->name, l->name);
		break;
	default:
		fprintf(f, fmt, l->kind == L_S64 || l->kind == L_X64 ? 64 : 32, l->kind == L_S32 || l->kind == L_S64,
			"none", l->kind == L_X64 ? 16 : 10);
		fprintf(f, "_%s;\n", l->name);
	}
}

void ctf_lttng_classes(FILE *f)
{
	for (unsigned c = 0; c < NCLASSES; c++) {
		fprintf(f, "\nevent {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n\tfields := struct {\n",
			classes[c].name, class_id(c));
		for (unsigned i = 0; i < classes[c].nfields; i++)
			put_lfield(f, &classes[c].fields[i]);
		fputs("\t};\n};\n", f);
	}
}

/* One event of class c: vals[i] for integer fields, comms[i] for names. */
static uint32_t encode(struct bitbuf *b, unsigned c, const int64_t *vals, const char *const *comms)
{
	bb_reset(b);
	for (unsigned i = 0; i < classes[c].nfields; i++) {
		const struct lfield *l = &classes[c].fields[i];
		if (l->kind == L_COMM) {
			uint8_t comm[COMM_LEN] = { 0 };
			memcpy(comm, comms[i], strnlen(comms[i], COMM_LEN - 1));
			bb_bytes(b, comm, COMM_LEN);
		} else if (l->kind == L_VTIDS) {
			bb_put(b, 1, 8);
			bb_put(b, (uint64_t)vals[i], 32);
		} else {
			bb_put(b, (uint64_t)vals[i], l->kind == L_S64 || l->kind == L_X64 ? 64 : 32);
		}
	}
	return class_id(c);
}

uint32_t ctf_lttng_statedump_mark(struct bitbuf *b, bool end)
{
	return encode(b, end ? C_DUMP_END : C_DUMP_START, NULL, NULL);
}

/* ------------------------------------------------------------ threads */

struct lthread {
	uint32_t tid, pid;
	int8_t base;
	uint64_t ts;                    /* of the record that named it      */
	char comm[COMM_LEN];
};

struct ctf_lttng {
	struct lthread *t;              /* by tid                           */
	size_t n;
	struct ctf_wakeups wake;        /* each ReadyThread's target_cpu    */
};

static bool is_thread(const struct kp_record *r)
{
	return r->h.HookId == KPROF_LOG_TYPE_THREAD && record_event(r);
}

static bool is_switch(const struct kp_record *r)
{
	return r->h.HookId == PERFINFO_LOG_TYPE_CONTEXTSWAP && record_event(r);
}

/* A KprofThread record (either version) as a thread. */
static struct lthread thread_of(const struct kp_record *r)
{
	struct lthread t = { .ts = r->h.TimeStamp };
	const char *name;

	if (r->version == 1) {
		KPROF_THREAD_V1 k;
		memcpy(&k, r->payload, sizeof(k));
		t.tid = k.ThreadId, t.pid = k.ProcessId, t.base = k.BasePriority;
		name = (const char *)r->payload + offsetof(KPROF_THREAD_V1, ThreadName);
	} else {
		KPROF_THREAD k;
		memcpy(&k, r->payload, sizeof(k));
		t.tid = k.ThreadId, t.pid = k.ProcessId, t.base = k.BasePriority;
		name = (const char *)r->payload + offsetof(KPROF_THREAD, ThreadName);
	}
	memcpy(t.comm, name, strnlen(name, COMM_LEN - 1));
	return t;
}

static int by_tid(const void *a, const void *b)
{
	const struct lthread *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Every thread the log names (a ThreadId named twice keeps its latest
 * name), and each ReadyThread's target_cpu (ctf_wakeup.c). */
struct ctf_lttng *ctf_lttng_new(struct kp_log *log)
{
	struct ctf_lttng *l = kp_xrealloc(NULL, 1, sizeof(*l));
	size_t cap = 0, out = 0;

	*l = (struct ctf_lttng){ 0 };
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record r;
		kp_cursor_init(&c, log, cpu);
		while (kp_cursor_next(&c, &r))
			if (is_thread(&r)) {
				l->t = kp_grow(l->t, &cap, l->n + 1, sizeof(*l->t));
				l->t[l->n++] = thread_of(&r);
			}
	}
	if (l->n)
		qsort(l->t, l->n, sizeof(*l->t), by_tid);
	ctf_wakeups_find(&l->wake, log);
	for (size_t i = 0; i < l->n; i++) {
		if (out && l->t[out - 1].tid == l->t[i].tid)
			out--;
		l->t[out++] = l->t[i];
	}
	l->n = out;
	return l;
}

void ctf_lttng_free(struct ctf_lttng *l)
{
	if (l) {
		free(l->t);
		ctf_wakeups_free(&l->wake);
	}
	free(l);
}

static const struct lthread *find(const struct ctf_lttng *l, uint32_t tid)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) { /* the first with t[].tid >= tid */
		size_t mid = (lo + hi) / 2;
		if (l->t[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n && l->t[lo].tid == tid ? &l->t[lo] : NULL;
}

/* The thread's comm, "tid-N" when the log does not name it. */
static const char *comm_of(const struct ctf_lttng *l, uint32_t tid, char buf[COMM_LEN])
{
	const struct lthread *t = find(l, tid);

	if (t)
		return t->comm;
	snprintf(buf, COMM_LEN, "tid-%u", tid);
	return buf;
}

static int64_t pid_of(const struct ctf_lttng *l, uint32_t tid)
{
	const struct lthread *t = find(l, tid);
	return t ? t->pid : 0;
}

/* ------------------------------------------------------------ mapping */

static int64_t lttng_prio(int nt)
{
	return nt < 16 ? 28 - nt : 14 - nt;
}

static int64_t lttng_state(uint8_t nt_state, uint8_t flags)
{
	switch (nt_state) {
	case NT_WAITING:
	case NT_TRANSITION:
	case NT_OUT_SWAP:
		return flags & CSWITCH_FLAG_WAIT_MODE_USER ? TASK_INTERRUPTIBLE : TASK_UNINTERRUPTIBLE;
	case NT_TERMINATED:
		return TASK_DEAD;
	default:
		return TASK_RUNNING;
	}
}

bool ctf_lttng_replaces(const struct kp_event *e)
{
	return e->hook == PERFINFO_LOG_TYPE_CONTEXTSWAP || e->hook == PERFINFO_LOG_TYPE_READY_THREAD ||
	       e->hook == KPROF_LOG_TYPE_THREAD;
}

void ctf_lttng_cpu_init(struct ctf_lttng_cpu *c, const struct ctf_lttng *l, uint32_t cpu, struct kp_log *log)
{
	struct kp_cpu_cursor cur;
	struct kp_record r;

	*c = (struct ctf_lttng_cpu){ .l = l, .cpu = cpu };
	kp_cursor_init(&cur, log, cpu);
	for (size_t i = 0; kp_cursor_next(&cur, &r); i++) {
		if (is_switch(&r)) {
			WMI_CONTEXTSWAP w;
			memcpy(&w, r.payload, sizeof(w));
			c->running = c->current = w.OldThreadId;
			break;
		}
		if (is_thread(&r)) {
			if (!c->have_rundown)
				c->rundown_first = i;
			c->have_rundown = true;
			c->rundown_last = i;
		}
	}
}

bool ctf_lttng_encode(struct ctf_lttng_cpu *c, const struct kp_record *r, size_t i, struct bitbuf *b, uint32_t *id)
{
	const struct ctf_lttng *l = c->l;
	char b1[COMM_LEN], b2[COMM_LEN];

	if (is_switch(r)) {
		WMI_CONTEXTSWAP w;
		memcpy(&w, r->payload, sizeof(w));
		const int64_t vals[] = { 0, w.OldThreadId, lttng_prio(w.OldThreadPriority),
					 lttng_state(w.OldThreadState, w.Flags), 0, w.NewThreadId,
					 lttng_prio(w.NewThreadPriority) };
		const char *comms[] = { comm_of(l, w.OldThreadId, b1), 0, 0, 0, comm_of(l, w.NewThreadId, b2) };
		*id = encode(b, C_SWITCH, vals, comms);
		c->current = w.NewThreadId;
		return true;
	}
	if (r->h.HookId == PERFINFO_LOG_TYPE_READY_THREAD && record_event(r)) {
		WMI_READY_THREAD w;
		memcpy(&w, r->payload, sizeof(w));
		const struct lthread *t = find(l, w.TThreadId);
		const int64_t vals[] = { 0, w.TThreadId, lttng_prio(t ? t->base : 0),
					 ctf_wakeup_cpu(&l->wake, c->cpu, c->readies++) };
		const char *comms[] = { comm_of(l, w.TThreadId, b1) };
		*id = encode(b, C_WAKEUP, vals, comms);
		return true;
	}
	if (is_thread(r)) {
		struct lthread t = thread_of(r);
		if (c->have_rundown && i >= c->rundown_first && i <= c->rundown_last) {
			const int64_t vals[] = { t.tid, t.pid, 0, 0, LTTNG_KERNEL_THREAD, LTTNG_MODE_UNKNOWN,
						 LTTNG_SUBMODE_NONE, t.tid == c->running ? LTTNG_WAIT_CPU : LTTNG_WAIT,
						 c->cpu, 0 };
			const char *comms[] = { 0, 0, 0, t.comm };
			*id = encode(b, C_PROCESS_STATE, vals, comms);
		} else {
			const int64_t vals[] = { 0, c->current, pid_of(l, c->current), 0, 0, t.tid, t.tid, t.pid, 0 };
			const char *comms[] = { comm_of(l, c->current, b1), 0, 0, 0, t.comm };
			*id = encode(b, C_FORK, vals, comms);
		}
		return true;
	}
	return false;
}
