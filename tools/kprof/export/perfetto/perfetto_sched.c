/*
 * perfetto_sched.c - the schedule as ftrace text, the trace's
 * "systemTraceEvents" string, as `perf script`, trace-cmd and
 * /sys/kernel/tracing/trace print it, so the Perfetto UI (and
 * chrome://tracing) draw their own CPU scheduling and thread state tracks
 * as for a Linux trace:
 *
 *   <idle>-0     [000] d..3 0.000012345: sched_switch: prev_comm=swapper/0 prev_pid=0
 *     prev_prio=120 prev_state=R ==> next_comm=pong next_pid=12 next_prio=112
 *   pong-12      [001] d..4 0.000023456: sched_wakeup: comm=ping pid=13 prio=112 target_cpu=000
 *
 * (one line each).  A sched_switch per CSwitch (each run after a CPU's
 * first), a sched_wakeup per ReadyThread record, written by the thread
 * running on the CPU that wrote it; target_cpu is where the readied
 * thread runs next.  Times are seconds since the start of the trace with
 * nanoseconds, on the grid of the JSON events.  pid is the NT thread id
 * (0: the idle thread, "swapper/N" as on Linux); comm is the thread's
 * name with characters other than letters, digits and "_./:#+-" as "_".
 *
 * NT priorities (0..31, higher runs first) become kernel prio values
 * (lower runs first): the variable class 1..15 is CFS's 120 - (p - 8),
 * so priority 8 (normal) is 120 (nice 0) and 1..15 spans 127..113; the
 * real-time class 16..31 is 98 - (p - 16) * 98 / 15 (RT 98..0); the idle
 * thread is 120.  prev_state comes from OldThreadState and
 * OldThreadWaitReason: Ready, Standby, DeferredReady (preempted or
 * yielded) are R; Terminated is X; Waiting is S (interruptible sleep) for
 * a delay, a user request, suspension, a queue or an alert, and D
 * (uninterruptible) for the kernel's executive, resource, mutex, push
 * lock, page and pool waits and any other reason.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/perfetto/pf.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

enum { ST_READY = 1, ST_RUNNING = 2, ST_STANDBY = 3, ST_TERMINATED = 4, ST_WAITING = 5, ST_DEFERRED = 7 };

int pf_linux_prio(int nt, uint32_t tid)
{
	if (!tid || nt <= 0)
		return 120;
	if (nt >= 16)
		return 98 - (nt > 31 ? 15 : nt - 16) * 98 / 15;
	return 120 - (nt - 8);
}

char pf_linux_state(uint8_t state, uint8_t reason)
{
	/* OldThreadWaitReason values of a sleep a signal could end (fields.c) */
	static const uint8_t sleeps[] = { 4 /* DelayExecution */,  5 /* Suspended */,    6 /* UserRequest */,
					  11 /* WrDelayExecution */, 12 /* WrSuspended */, 13 /* WrUserRequest */,
					  15 /* WrQueue */,          37 /* WrAlertByThreadId */ };
	switch (state) {
	case ST_TERMINATED: return 'X';
	case ST_WAITING:
		for (size_t i = 0; i < sizeof(sleeps); i++)
			if (reason == sleeps[i])
				return 'S';
		return 'D';
	default: return 'R';
	}
}

/* comm: the name, made safe for ftrace's "key=value" text. */
static void comm(const struct pf *p, uint32_t tid, uint32_t cpu, char *buf, size_t size)
{
	const struct kp_model_thread *t = kp_model_thread(p->m, tid);

	if (!tid)
		snprintf(buf, size, "swapper/%" PRIu32, cpu);
	else if (t && t->named && t->name[0])
		snprintf(buf, size, "%s", t->name);
	else
		snprintf(buf, size, "thread%" PRIu32, tid);
	for (char *c = buf; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      (*c && strchr("_./:#+-", *c))))
			*c = '_';
}

/* "   name-12     [001] d..3 1.000000123: " */
static void line_head(struct pf *p, uint32_t tid, uint32_t cpu, uint64_t ts, const char *flags)
{
	char c[40];
	uint64_t ns = pf_ns(p->m, ts);

	if (tid)
		comm(p, tid, cpu, c, sizeof(c));
	else
		snprintf(c, sizeof(c), "<idle>");
	fprintf(p->f, "%16s-%-7" PRIu32 " [%03" PRIu32 "] %s %" PRIu64 ".%09" PRIu64 ": ", c, tid, cpu, flags,
		ns / 1000000000u, ns % 1000000000u);
}

static void sched_switch(struct pf *p, uint32_t cpu, const struct kp_run *prev, const struct kp_run *next)
{
	char a[40], b[40];

	comm(p, prev->tid, cpu, a, sizeof(a));
	comm(p, next->tid, cpu, b, sizeof(b));
	line_head(p, prev->tid, cpu, next->start, "d..3");
	fprintf(p->f,
		"sched_switch: prev_comm=%s prev_pid=%" PRIu32 " prev_prio=%d prev_state=%c ==> next_comm=%s next_pid=%" PRIu32
		" next_prio=%d\\n",
		a, prev->tid, pf_linux_prio(prev->priority, prev->tid), pf_linux_state(prev->end_state, prev->end_reason), b,
		next->tid, pf_linux_prio(next->priority, next->tid));
}

static void sched_wakeup(struct pf *p, uint32_t cpu, size_t i)
{
	const struct kp_model_cpu *c = &p->m->cpu[cpu];
	const struct kp_ready *r = &c->readies[i];
	const struct pf_wake *w = &p->wake[cpu][i];
	const struct kp_run *by = pf_running_at(c, r->ts);
	const struct kp_model_thread *t = kp_model_thread(p->m, r->tid);
	char name[40];

	comm(p, r->tid, cpu, name, sizeof(name));
	line_head(p, by ? by->tid : 0, cpu, r->ts, "d..4");
	fprintf(p->f, "sched_wakeup: comm=%s pid=%" PRIu32 " prio=%d target_cpu=%03" PRIu32 "\\n", name, r->tid,
		pf_linux_prio(w->found ? w->priority : t ? t->base_priority : 0, r->tid), w->found ? w->cpu : cpu);
}

struct line {
	uint64_t ts;
	uint32_t cpu;
	bool wakeup;
	size_t i;
};

static int cmp_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->wakeup != y->wakeup)
		return x->wakeup ? 1 : -1;
	return (x->i > y->i) - (x->i < y->i);
}

void pf_write_sched(struct pf *p)
{
	struct line *v = NULL;
	size_t n = 0, cap = 0;

	for (uint32_t cpu = 0; cpu < p->m->ncpus; cpu++) {
		const struct kp_model_cpu *c = &p->m->cpu[cpu];
		for (size_t i = 1; i < c->nruns; i++)
			KP_PUSH(v, n, cap, ((struct line){ c->runs[i].start, cpu, false, i }));
		for (size_t i = 0; i < c->nreadies; i++)
			KP_PUSH(v, n, cap, ((struct line){ c->readies[i].ts, cpu, true, i }));
	}
	kp_sort(v, n, sizeof(*v), cmp_line);
	fputs(",\n\"systemTraceEvents\":\"# tracer: nop\\n#\\n", p->f);
	for (size_t k = 0; k < n; k++) {
		const struct kp_model_cpu *c = &p->m->cpu[v[k].cpu];
		if (v[k].wakeup)
			sched_wakeup(p, v[k].cpu, v[k].i);
		else
			sched_switch(p, v[k].cpu, &c->runs[v[k].i - 1], &c->runs[v[k].i]);
	}
	fputs("\"", p->f);
	free(v);
}
