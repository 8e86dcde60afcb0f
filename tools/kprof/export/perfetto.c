/*
 * perfetto.c - `kprof perfetto LOG [--kernel ELF] -o FILE.json`: the
 * trace in the Chrome JSON trace format, which ui.perfetto.dev (and
 * chrome://tracing) opens:
 *
 *   {"traceEvents":[...],"displayTimeUnit":"ns","otherData":{...}}
 *
 * Process "CPUs" has one thread track per CPU ("CPU 0", ...), holding a
 * complete event ("X") per thread run, named after the thread (Perfetto
 * colours slices by name, so a thread keeps its colour), and instant
 * events ("i") for samples (the function, with --kernel, in args) and
 * ReadyThread records.  A CPU with spin-lock waits has a second track
 * under it ("CPU 0 lock waits") with an "X" event per wait, named after
 * the lock (its KprofObjectName, else its address).  Where the CPU has no trace (a hole: records its kernel
 * dropped, or frames lost on the link; model.h), an instant event on its
 * track marks the loss ("Records lost" or "Frames lost", with the count,
 * cause and the span in args) and a third track ("CPU 0 no trace") holds
 * an "X" event over the hole.  Metadata events ("M") name the process and
 * tracks and keep them in CPU order.  Time stamps and durations are microseconds (with
 * nanosecond decimals) since the start of the trace, from the run
 * header's TSC rate; events are written in time order, so every track's
 * time stamps go forward, and a track's waits nest.  The runs and waits
 * are the model's (model/model.h): the same schedule the report and the
 * timeline show.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/kprof.h"
#include "tools/kprof/model/model.h"
#include "tools/kprof/read/fields.h"
#include "tools/kprof/read/symbols.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/json.h"
#include "tools/kprof/util/sort.h"

#define PID        1        /* the process "CPUs"                         */
#define CPU_TID    100000u  /* CPU n's track: CPU_TID + n (never 0)       */
#define WAIT_TID   200000u  /* its lock waits: WAIT_TID + n               */
#define HOLE_TID   300000u  /* its holes (no trace): HOLE_TID + n         */

enum ev_kind { EV_RUN, EV_WAIT, EV_SAMPLE, EV_READY, EV_HOLE };

struct ev {
	uint64_t ts;
	uint32_t cpu;
	uint8_t kind;           /* enum ev_kind                               */
	size_t i;               /* in the CPU's runs, waits, ...              */
};

struct pf {
	FILE *f;
	const struct kp_model *m;
	const struct kp_symbols *syms;
	bool first;             /* no event written yet                       */
};

/* ---------------------------------------------------------------- JSON */

static void begin_event(struct pf *p)
{
	fputs(p->first ? "\n" : ",\n", p->f);
	p->first = false;
}

static void ts_field(struct pf *p, const char *key, uint64_t ts)
{
	fprintf(p->f, ",\"%s\":%.3f", key, kp_model_us(p->m, ts));
}

static void dur_field(struct pf *p, uint64_t cycles)
{
	fprintf(p->f, ",\"dur\":%.3f", kp_model_cycles_us(p->m, cycles));
}

static void str_arg(struct pf *p, const char *key, const char *v)
{
	fprintf(p->f, ",\"%s\":", key);
	kp_json_string(p->f, v);
}

static void addr_arg(struct pf *p, const char *key, uint64_t a)
{
	fprintf(p->f, ",\"%s\":\"0x%016" PRIx64 "\"", key, a);
}

/* "function": "name+0x12", with --kernel. */
static void function_arg(struct pf *p, const char *key, uint64_t a)
{
	char buf[256];
	if (!p->syms)
		return;
	str_arg(p, key, kp_symbols_format(p->syms, a, buf, sizeof(buf)));
}

static void thread_arg(struct pf *p, const char *key, uint32_t tid)
{
	char label[64];
	str_arg(p, key, kp_model_thread_label(p->m, tid, label, sizeof(label)));
}

/* ---------------------------------------------------------------- metadata */

static void meta(struct pf *p, const char *what, uint32_t tid, const char *key, const char *name, long sort)
{
	begin_event(p);
	fprintf(p->f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu32 ",\"name\":\"%s\",\"args\":{\"%s\":", PID, tid, what,
		key);
	if (name)
		kp_json_string(p->f, name);
	else
		fprintf(p->f, "%ld", sort);
	fputs("}}", p->f);
}

static void write_metadata(struct pf *p)
{
	char name[64];

	meta(p, "process_name", CPU_TID, "name", "CPUs", 0);
	meta(p, "process_sort_index", CPU_TID, "sort_index", NULL, 0);
	for (uint32_t cpu = 0; cpu < p->m->ncpus; cpu++) {
		snprintf(name, sizeof(name), "CPU %u", cpu);
		meta(p, "thread_name", CPU_TID + cpu, "name", name, 0);
		meta(p, "thread_sort_index", CPU_TID + cpu, "sort_index", NULL, 3L * cpu);
		if (p->m->cpu[cpu].nwaits) {
			snprintf(name, sizeof(name), "CPU %u lock waits", cpu);
			meta(p, "thread_name", WAIT_TID + cpu, "name", name, 0);
			meta(p, "thread_sort_index", WAIT_TID + cpu, "sort_index", NULL, 3L * cpu + 1);
		}
		if (p->m->cpu[cpu].nholes) {
			snprintf(name, sizeof(name), "CPU %u no trace", cpu);
			meta(p, "thread_name", HOLE_TID + cpu, "name", name, 0);
			meta(p, "thread_sort_index", HOLE_TID + cpu, "sort_index", NULL, 3L * cpu + 2);
		}
	}
}

/* ---------------------------------------------------------------- events */

static void write_run(struct pf *p, uint32_t cpu, const struct kp_run *r)
{
	char label[64];
	const struct kp_model_thread *t = kp_model_thread(p->m, r->tid);

	begin_event(p);
	fprintf(p->f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%" PRIu32, PID, CPU_TID + cpu);
	ts_field(p, "ts", r->start);
	dur_field(p, r->end - r->start);
	str_arg(p, "name", kp_model_thread_label(p->m, r->tid, label, sizeof(label)));
	fprintf(p->f, ",\"cat\":\"%s\",\"args\":{\"ThreadId\":%" PRIu32, r->tid ? "thread" : "idle", r->tid);
	if (t && t->named) {
		fprintf(p->f, ",\"ProcessId\":%" PRIu32, t->pid);
		str_arg(p, "Process", t->process);
	}
	fprintf(p->f, ",\"Priority\":%d", r->priority);
	if (!r->to_end) {
		str_arg(p, "ThenState", kp_state_name(r->end_state));
		str_arg(p, "ThenWaitReason", kp_wait_reason_name(r->end_reason));
	}
	if (r->from_start)
		fputs(",\"RunningAtStart\":true", p->f);
	if (r->to_end)
		fputs(",\"RunningAtEnd\":true", p->f);
	if (r->gap)
		fputs(",\"SwitchesLostAfter\":true", p->f);
	fputs("}}", p->f);
}

/* A wait is named after its lock: "lock hot0" from its KprofObjectName
 * record, else "lock 0x<address>" (logs without the record). */
static void write_wait(struct pf *p, uint32_t cpu, const struct kp_wait *w)
{
	const struct kp_object_name *on = kp_model_object_name(p->m, w->lock, w->start);
	char name[64], label[40];

	begin_event(p);
	fprintf(p->f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%" PRIu32, PID, WAIT_TID + cpu);
	ts_field(p, "ts", w->start);
	dur_field(p, w->end - w->start);
	if (on)
		snprintf(name, sizeof(name), "lock %s", kp_model_object_label(p->m, w->lock, w->start, label, sizeof(label)));
	else
		snprintf(name, sizeof(name), "lock 0x%016" PRIx64, w->lock);
	str_arg(p, "name", name);
	fputs(",\"cat\":\"spinlock\",\"args\":{", p->f);
	fprintf(p->f, "\"SpinLockAddress\":\"0x%016" PRIx64 "\"", w->lock);
	if (on) {
		str_arg(p, "LockName", label);
		str_arg(p, "LockKind", kp_object_kind_name(on->kind));
	}
	str_arg(p, "AcquireMode", kp_acquire_mode_name(w->mode));
	fprintf(p->f, ",\"SpinCount\":%" PRIu32 ",\"ThreadId\":%" PRIu32, w->spins, w->tid);
	thread_arg(p, "Thread", w->tid);
	addr_arg(p, "CallerAddress", w->caller);
	function_arg(p, "Caller", w->caller);
	fputs("}}", p->f);
}

static void write_sample(struct pf *p, uint32_t cpu, const struct kp_sample *k)
{
	char src[32];

	begin_event(p);
	fprintf(p->f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%" PRIu32, PID, CPU_TID + cpu);
	ts_field(p, "ts", k->ts);
	fprintf(p->f, ",\"name\":\"%s\",\"cat\":\"%s\",\"args\":{", k->pmc ? "PmcInterrupt" : "SampledProfile",
		k->pmc ? "pmc" : "profile");
	fprintf(p->f, "\"InstructionPointer\":\"0x%016" PRIx64 "\"", k->ip);
	function_arg(p, "function", k->ip);
	fprintf(p->f, ",\"ThreadId\":%" PRIu32, k->tid);
	thread_arg(p, "Thread", k->tid);
	if (k->pmc)
		str_arg(p, "ProfileSource", kp_source_name(k->source, src, sizeof(src)));
	else
		fprintf(p->f, ",\"Count\":%u", k->count);
	fputs("}}", p->f);
}

static void write_ready(struct pf *p, uint32_t cpu, const struct kp_ready *r)
{
	begin_event(p);
	fprintf(p->f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%" PRIu32, PID, CPU_TID + cpu);
	ts_field(p, "ts", r->ts);
	fprintf(p->f, ",\"name\":\"ReadyThread\",\"cat\":\"thread\",\"args\":{\"TThreadId\":%" PRIu32, r->tid);
	thread_arg(p, "Thread", r->tid);
	str_arg(p, "AdjustReason", kp_adjust_reason_name((uint8_t)r->reason));
	fprintf(p->f, ",\"AdjustIncrement\":%d}}", r->increment);
}

/* A hole: the loss marked on the CPU's track, its span on its own. */
static void write_hole(struct pf *p, uint32_t cpu, const struct kp_hole *h)
{
	const char *name = h->kernel ? "Records lost" : "Frames lost";

	for (int span = 0; span < 2; span++) {
		begin_event(p);
		if (span)
			fprintf(p->f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%" PRIu32, PID, HOLE_TID + cpu);
		else
			fprintf(p->f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%" PRIu32, PID, CPU_TID + cpu);
		ts_field(p, "ts", h->start);
		if (span)
			dur_field(p, h->end - h->start);
		fprintf(p->f, ",\"name\":\"%s\",\"cat\":\"loss\",\"args\":{\"Source\":\"%s\"", name,
			h->kernel ? "kernel" : "link");
		if (h->kernel || h->lost)
			fprintf(p->f, ",\"Lost\":%" PRIu64, h->lost);
		/* by cause, named as KprofRecordsLost's fields (after FirstLossTime) */
		const struct kp_event *ev = kp_event_find(KPROF_LOG_TYPE_RECORDS_LOST, RECORDS_LOST_VERSION);
		for (int k = 0; ev && k < KPROF_LOSS_CAUSES && 1u + k < ev->nfields; k++)
			if (h->cause[k])
				fprintf(p->f, ",\"%s\":%" PRIu64, ev->fields[1 + k].name, h->cause[k]);
		if (!h->kernel)
			fprintf(p->f, ",\"FramesMissing\":\"%u..%u\"", h->seq_first, h->seq_last);
		if (h->tail)
			fputs(",\"AfterLastRecord\":true", p->f);
		ts_field(p, "NoTraceFrom", h->start);
		ts_field(p, "NoTraceTo", h->end);
		fputs("}}", p->f);
	}
}

static void write_event(struct pf *p, const struct ev *e)
{
	const struct kp_model_cpu *c = &p->m->cpu[e->cpu];

	switch (e->kind) {
	case EV_RUN: write_run(p, e->cpu, &c->runs[e->i]); break;
	case EV_WAIT: write_wait(p, e->cpu, &c->waits[e->i]); break;
	case EV_SAMPLE: write_sample(p, e->cpu, &c->samples[e->i]); break;
	case EV_HOLE: write_hole(p, e->cpu, &c->holes[e->i]); break;
	default: write_ready(p, e->cpu, &c->readies[e->i]); break;
	}
}

/* ---------------------------------------------------------------- order */

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Every event of every CPU, in time order (each CPU's runs and waits are
 * already in order, so equal time stamps keep their order too). */
static struct ev *all_events(const struct kp_model *m, size_t *n)
{
	size_t total = 0, k = 0;

	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++) {
		const struct kp_model_cpu *c = &m->cpu[cpu];
		total += c->nruns + c->nwaits + c->nsamples + c->nreadies + c->nholes;
	}
	struct ev *e = kp_xcalloc(total, sizeof(*e));
	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++) {
		const struct kp_model_cpu *c = &m->cpu[cpu];
		for (size_t i = 0; i < c->nruns; i++)
			e[k++] = (struct ev){ c->runs[i].start, cpu, EV_RUN, i };
		for (size_t i = 0; i < c->nwaits; i++)
			e[k++] = (struct ev){ c->waits[i].start, cpu, EV_WAIT, i };
		for (size_t i = 0; i < c->nsamples; i++)
			e[k++] = (struct ev){ c->samples[i].ts, cpu, EV_SAMPLE, i };
		for (size_t i = 0; i < c->nreadies; i++)
			e[k++] = (struct ev){ c->readies[i].ts, cpu, EV_READY, i };
		for (size_t i = 0; i < c->nholes; i++)
			e[k++] = (struct ev){ c->holes[i].start, cpu, EV_HOLE, i };
	}
	kp_sort(e, total, sizeof(*e), cmp_ev);
	*n = total;
	return e;
}

/* ---------------------------------------------------------------- file */

static void write_other_data(struct pf *p, const struct kp_log *log)
{
	fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{", p->f);
	fprintf(p->f, "\"generator\":\"kprof perfetto\",\"cpus\":%u,\"tsc_hz\":%" PRIu64
		      ",\"time_origin_tsc\":%" PRIu64,
		p->m->ncpus, log->header.tsc_hz, p->m->origin);
	str_arg(p, "build_id", log->build_id);
	if (kp_symbols_warning(p->syms))
		str_arg(p, "kernel_warning", kp_symbols_warning(p->syms));
	str_arg(p, "cmdline", log->cmdline);
	fprintf(p->f, ",\"context_switches\":%" PRIu64 ",\"samples\":%" PRIu64 ",\"spinlock_waits\":%" PRIu64
		      ",\"ready_threads\":%" PRIu64 "}}\n",
		p->m->switches, p->m->samples, p->m->waits, p->m->readies);
}

static void write_trace(struct pf *p, const struct kp_log *log)
{
	size_t n;
	struct ev *e = all_events(p->m, &n);

	fputs("{\"traceEvents\":[", p->f);
	p->first = true;
	write_metadata(p);
	for (size_t i = 0; i < n; i++)
		write_event(p, &e[i]);
	write_other_data(p, log);
	free(e);
}

static void write_perfetto(FILE *f, const struct kp_log *log, const struct kp_model *m,
			   const struct kp_symbols *syms)
{
	struct pf p = { .f = f, .m = m, .syms = syms };
	write_trace(&p, log);
}

static const char *lacks(const struct kp_model *m)
{
	return m->switches || m->samples || m->waits
		       ? NULL
		       : "no CSwitch, SpinLock wait or sample records: run with trace=cswitch (and spinlock, profile)";
}

int kp_cmd_perfetto(struct kp_log *log, const struct kp_options *o)
{
	return kp_write_model(log, o, lacks, write_perfetto);
}
