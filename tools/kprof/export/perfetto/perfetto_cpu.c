/*
 * perfetto_cpu.c - the events of the CPUs' tracks (process "CPUs"):
 *   "CPU n": an "X" per thread run, named after the thread (Perfetto
 *     colours slices by name, so a thread keeps its colour), and "i"
 *     instants for samples (the function, with --kernel, in name and
 *     args), ReadyThread records, losses ("Records lost", "Frames lost")
 *     and steps back of its clock ("Clock went back": KprofClockStep;
 *     "Stamp went back": a stamp of an older kernel, raised);
 *   "CPU n lock waits": an "X" per spin-lock wait, named after the lock
 *     (its KprofObjectName, else its address); waits nest;
 *   "CPU n stalled": an "X" per stretch the CPU could not run
 *     (KprofClockLate: the model's stalls, model/stall.c);
 *   "CPU n no trace": an "X" over each hole (model.h).
 * Each kind also has its describe (pf.h: the event without args).
 */
#include <string.h>

#include <inttypes.h>
#include <stddef.h>

#include "tools/kprof/export/perfetto/pf.h"
#include "tools/kprof/read/fields.h"
#include "tools/kprof/util/sort.h"

static void write_run(struct pf *p, const struct pf_item *it)
{
	const struct kp_run *r = it->obj;
	const struct kp_model_thread *t = kp_model_thread(p->m, r->tid);
	char label[64];

	pf_begin(p, "X", PF_CPUS_PID, CPU_TID + it->cpu);
	pf_span(p, r->start, r->end);
	pf_key_name(p, PF_NAME_KEY(PF_NAME_THREAD, r->tid), label, sizeof(label));
	pf_str_arg(p, "name", label);
	/* one category for all runs, the idle thread's too: DevTools joins a
	 * flow's two ends only when their categories match */
	fprintf(p->f, ",\"cat\":\"thread\",\"args\":{\"ThreadId\":%" PRIu32, r->tid);
	if (t && t->named) {
		fprintf(p->f, ",\"ProcessId\":%" PRIu32, t->pid);
		pf_str_arg(p, "Process", t->process);
	}
	fprintf(p->f, ",\"Priority\":%d", r->priority);
	if (!r->to_end) {
		pf_str_arg(p, "ThenState", kp_state_name(r->end_state));
		pf_str_arg(p, "ThenWaitReason", kp_wait_reason_name(r->end_reason));
	}
	if (r->from_start)
		fputs(",\"RunningAtStart\":true", p->f);
	if (r->to_end)
		fputs(",\"RunningAtEnd\":true", p->f);
	if (r->gap)
		fputs(",\"SwitchesLostAfter\":true", p->f);
	fputs("}}", p->f);
}

static void describe_run(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	const struct kp_run *r = it->obj;

	(void)p;
	*e = (struct pf_event){ .ph = 'X', .pid = PF_CPUS_PID, .tid = CPU_TID + it->cpu, .start = r->start, .end = r->end,
				.name_key = PF_NAME_KEY(PF_NAME_THREAD, r->tid) };
}

void pf_key_name(const struct pf *p, uint64_t key, char *name, size_t size)
{
	uint32_t v = (uint32_t)key;

	if (key >> 32 == PF_NAME_THREAD)
		kp_model_thread_label(p->m, v, name, size);
	else
		snprintf(name, size, "on CPU %" PRIu32, v);
}

/* "lock hot0" from the lock's KprofObjectName record (in use at ts),
 * else "lock 0x<address>". */
void pf_wait_name(const struct pf *p, uint64_t lock, uint64_t ts, char *name, size_t size)
{
	char label[40];

	if (kp_model_object_name(p->m, lock, ts))
		snprintf(name, size, "lock %s", kp_model_object_label(p->m, lock, ts, label, sizeof(label)));
	else
		snprintf(name, size, "lock 0x%016" PRIx64, lock);
}

void pf_wait_event(const struct pf *p, const struct kp_wait *w, uint32_t pid, uint32_t tid, struct pf_event *e)
{
	*e = (struct pf_event){ .ph = 'X', .pid = pid, .tid = tid, .start = w->start, .end = w->end };
	pf_wait_name(p, kp_wait_site_of(p->m, w)->lock, w->start, e->name, sizeof(e->name));
}

void pf_wait_body(struct pf *p, const struct kp_wait *w)
{
	const struct kp_wait_site *site = kp_wait_site_of(p->m, w);
	const struct kp_object_name *on = kp_model_object_name(p->m, site->lock, w->start);
	char name[64], label[40];

	pf_span(p, w->start, w->end);
	pf_wait_name(p, site->lock, w->start, name, sizeof(name));
	if (on)
		kp_model_object_label(p->m, site->lock, w->start, label, sizeof(label));
	pf_str_arg(p, "name", name);
	fputs(",\"cat\":\"spinlock\",\"args\":{", p->f);
	fprintf(p->f, "\"SpinLockAddress\":\"0x%016" PRIx64 "\"", site->lock);
	if (on) {
		pf_str_arg(p, "LockName", label);
		pf_str_arg(p, "LockKind", kp_object_kind_name(on->kind));
	}
	pf_str_arg(p, "AcquireMode", kp_acquire_mode_name(site->mode));
	fprintf(p->f, ",\"SpinCount\":%" PRIu32 ",\"ThreadId\":%" PRIu32, w->spins, site->tid);
	pf_thread_arg(p, "Thread", site->tid);
	pf_addr_arg(p, "CallerAddress", site->caller);
	pf_function_arg(p, "Caller", site->caller);
	fputs("}}", p->f);
}

static void write_wait(struct pf *p, const struct pf_item *it)
{
	pf_begin(p, "X", PF_CPUS_PID, WAIT_TID + it->cpu);
	pf_wait_body(p, it->obj);
}

static void describe_wait(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	pf_wait_event(p, it->obj, PF_CPUS_PID, WAIT_TID + it->cpu, e);
}

static const char *sample_name(const struct pf *p, const struct kp_sample *k, char *fn, size_t size)
{
	return p->syms ? kp_symbols_format(p->syms, k->ip, fn, size) : k->pmc ? "PmcInterrupt" : "SampledProfile";
}

/* Named after the sampled function with --kernel ("SampledProfile" and
 * the address otherwise), so Perfetto's instants read as a profile. */
static void write_sample(struct pf *p, const struct pf_item *it)
{
	const struct kp_sample *k = it->obj;
	char src[32], fn[256];

	size_t stack = pf_stack_of(p, it->cpu, k->ts);

	pf_begin(p, "i", PF_CPUS_PID, CPU_TID + it->cpu);
	fputs(",\"s\":\"t\"", p->f);
	pf_time(p, "ts", k->ts);
	if (stack)
		fprintf(p->f, ",\"sf\":\"%zu\"", stack);
	pf_str_arg(p, "name", sample_name(p, k, fn, sizeof(fn)));
	fprintf(p->f, ",\"cat\":\"%s\",\"args\":{\"Event\":\"%s\"", k->pmc ? "pmc" : "profile",
		k->pmc ? "PmcInterrupt" : "SampledProfile");
	fprintf(p->f, ",\"InstructionPointer\":\"0x%016" PRIx64 "\"", k->ip);
	pf_function_arg(p, "function", k->ip);
	fprintf(p->f, ",\"ThreadId\":%" PRIu32, k->tid);
	pf_thread_arg(p, "Thread", k->tid);
	if (k->pmc)
		pf_str_arg(p, "ProfileSource", kp_source_name(k->source, src, sizeof(src)));
	else
		fprintf(p->f, ",\"Count\":%u", k->count);
	if (stack)
		pf_stack_args(p, stack);
	fputs("}}", p->f);
}

/* An instant on CPU n's track. */
static void instant(struct pf_event *e, const struct pf_item *it, uint64_t ts, const char *name)
{
	*e = (struct pf_event){ .ph = 'i', .pid = PF_CPUS_PID, .tid = CPU_TID + it->cpu, .start = ts };
	snprintf(e->name, sizeof(e->name), "%s", name);
}

static void describe_sample(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	const struct kp_sample *k = it->obj;
	char fn[256];

	instant(e, it, k->ts, sample_name(p, k, fn, sizeof(fn)));
}

static void describe_ready(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	(void)p;
	instant(e, it, ((const struct kp_ready *)it->obj)->ts, "ReadyThread");
}

static void write_ready(struct pf *p, const struct pf_item *it)
{
	const struct kp_ready *r = it->obj;

	pf_begin(p, "i", PF_CPUS_PID, CPU_TID + it->cpu);
	fputs(",\"s\":\"t\"", p->f);
	pf_time(p, "ts", r->ts);
	fprintf(p->f, ",\"name\":\"ReadyThread\",\"cat\":\"thread\",\"args\":{\"TThreadId\":%" PRIu32, r->tid);
	pf_thread_arg(p, "Thread", r->tid);
	pf_str_arg(p, "AdjustReason", kp_adjust_reason_name((uint8_t)r->reason));
	fprintf(p->f, ",\"AdjustIncrement\":%d}}", r->increment);
}

static const char *hole_name(const struct kp_hole *h)
{
	return h->kernel ? "Records lost" : "Frames lost";
}

static void describe_hole(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	const struct kp_hole *h = it->obj;

	(void)p;
	instant(e, it, h->start, hole_name(h));
	if (it->a) {
		e->ph = 'X';
		e->tid = HOLE_TID + it->cpu;
		e->end = h->end;
	}
}

/* A hole: the loss marked on the CPU's track (it->a 0), its span on its
 * own track (it->a 1). */
static void write_hole(struct pf *p, const struct pf_item *it)
{
	const struct kp_hole *h = it->obj;
	const char *name = hole_name(h);

	if (it->a) {
		pf_begin(p, "X", PF_CPUS_PID, HOLE_TID + it->cpu);
		pf_span(p, h->start, h->end);
	} else {
		pf_begin(p, "i", PF_CPUS_PID, CPU_TID + it->cpu);
		fputs(",\"s\":\"t\"", p->f);
		pf_time(p, "ts", h->start);
	}
	fprintf(p->f, ",\"name\":\"%s\",\"cat\":\"loss\",\"args\":{\"Source\":\"%s\"", name, h->kernel ? "kernel" : "link");
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
	pf_time(p, "NoTraceFrom", h->start);
	pf_time(p, "NoTraceTo", h->end);
	fputs("}}", p->f);
}

static void write_stall(struct pf *p, const struct pf_item *it)
{
	const struct kp_stall *s = it->obj;

	pf_begin(p, "X", PF_CPUS_PID, STALL_TID + it->cpu);
	pf_span(p, s->start, s->end);
	fprintf(p->f, ",\"name\":\"stalled\",\"cat\":\"stall\",\"args\":{\"KprofClockLate\":%" PRIu32 "}}", s->records);
}

/* A step back of the CPU's clock: an instant on its track. */
static void write_step(struct pf *p, const struct pf_item *it)
{
	const struct kp_clock_step *s = it->obj;

	pf_begin(p, "i", PF_CPUS_PID, CPU_TID + it->cpu);
	fputs(",\"s\":\"t\"", p->f);
	pf_time(p, "ts", s->ts);
	fprintf(p->f, ",\"name\":\"%s\",\"cat\":\"clock\",\"args\":{\"BackCycles\":%" PRIu64 ",\"Source\":\"%s\"}}",
		s->kernel ? "Clock went back" : "Stamp went back", s->back,
		s->kernel ? "KprofClockStep (the kernel clamped)" : "the log (the decoder clamped)");
}

static void describe_step(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	const struct kp_clock_step *s = it->obj;

	(void)p;
	*e = (struct pf_event){ .ph = 'i', .pid = PF_CPUS_PID, .tid = CPU_TID + it->cpu, .start = s->ts };
	strcpy(e->name, s->kernel ? "Clock went back" : "Stamp went back");
}

static void describe_stall(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	const struct kp_stall *s = it->obj;

	(void)p;
	*e = (struct pf_event){ .ph = 'X', .pid = PF_CPUS_PID, .tid = STALL_TID + it->cpu, .start = s->start, .end = s->end };
	strcpy(e->name, "stalled");
}

/* The run on the CPU at ts: the last that starts at or before it. */
const struct kp_run *pf_running_at(const struct kp_model_cpu *c, uint64_t ts)
{
	size_t lo = kp_bound_u64(c->runs, c->nruns, sizeof(*c->runs), offsetof(struct kp_run, start), ts, true);

	return lo ? &c->runs[lo - 1] : NULL;
}

static const struct pf_kind run_kind = { write_run, describe_run };
static const struct pf_kind wait_kind = { write_wait, describe_wait };
static const struct pf_kind sample_kind = { write_sample, describe_sample };
static const struct pf_kind ready_kind = { write_ready, describe_ready };
static const struct pf_kind hole_kind = { write_hole, describe_hole };
static const struct pf_kind stall_kind = { write_stall, describe_stall };
static const struct pf_kind step_kind = { write_step, describe_step };

void pf_cpu_events(struct pf *p)
{
	for (uint32_t cpu = 0; cpu < p->m->ncpus; cpu++) {
		const struct kp_model_cpu *c = &p->m->cpu[cpu];
		pf_add_array(p, &run_kind, c->runs, sizeof(*c->runs), c->nruns, offsetof(struct kp_run, start), cpu);
		pf_add_array(p, &wait_kind, c->waits, sizeof(*c->waits), c->nwaits, offsetof(struct kp_wait, start), cpu);
		pf_add_array(p, &sample_kind, c->samples, sizeof(*c->samples), c->nsamples, offsetof(struct kp_sample, ts),
			     cpu);
		pf_add_array(p, &ready_kind, c->readies, sizeof(*c->readies), c->nreadies, offsetof(struct kp_ready, ts),
			     cpu);
		for (size_t i = 0; i < c->nholes; i++)
			for (int span = 0; span < 2; span++)
				pf_add(p, (struct pf_item){ .ts = c->holes[i].start, .kind = &hole_kind, .obj = &c->holes[i],
							    .cpu = cpu, .a = span });
		pf_add_array(p, &stall_kind, c->stalls, sizeof(*c->stalls), c->nstalls, offsetof(struct kp_stall, start),
			     cpu);
		pf_add_array(p, &step_kind, c->steps, sizeof(*c->steps), c->nsteps, offsetof(struct kp_clock_step, ts), cpu);
	}
}
