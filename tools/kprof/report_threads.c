/*
 * report_threads.c - the threads and CPUs sections of `kprof report`,
 * from CSwitch records (named by KprofThread records): each thread's CPU
 * time, switches, priorities and reasons for leaving the CPU; each CPU's
 * busy and idle shares.
 */
#include "tools/kprof/report.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "include/kprof/exit_status.h"
#include "tools/kprof/fields.h"
#include "tools/kprof/output.h"
#include "tools/kprof/report_internal.h"

/* ------------------------------------------------------------ 6. threads */



static size_t slot_of(const struct threads *t, uint32_t id)
{
	size_t i = (id * 2654435761u) & (t->nslots - 1);
	while (t->slots[i] && t->v[t->slots[i] - 1].id != id)
		i = (i + 1) & (t->nslots - 1);
	return i;
}

static void rehash(struct threads *t)
{
	free(t->slots);
	t->nslots = t->nslots ? t->nslots * 2 : 256;
	t->slots = kp_xcalloc(t->nslots, sizeof(*t->slots));
	for (size_t i = 0; i < t->n; i++)
		t->slots[slot_of(t, t->v[i].id)] = i + 1;
}

static struct thread *thread_get(struct threads *t, uint32_t id)
{
	if (!t->nslots || 2 * (t->n + 1) > t->nslots)
		rehash(t);
	size_t s = slot_of(t, id);
	if (t->slots[s])
		return &t->v[t->slots[s] - 1];
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->v = kp_xrealloc(t->v, t->cap, sizeof(*t->v));
	}
	t->v[t->n] = (struct thread){ .id = id };
	t->slots[s] = ++t->n;
	return &t->v[t->n - 1];
}

static void thread_prio(struct thread *th, int prio)
{
	if (!th->have_prio || prio < th->pmin)
		th->pmin = prio;
	if (!th->have_prio || prio > th->pmax)
		th->pmax = prio;
	th->have_prio = true;
}



static void credit(struct sched *s, uint32_t cpu, uint32_t id, uint64_t from, uint64_t to)
{
	uint64_t d = to > from ? to - from : 0;
	thread_get(&s->threads, id)->cycles += d;
	if (id == 0)
		s->cpus[cpu].idle += d;
}

static void on_cswitch(struct sched *s, const struct kp_record *r)
{
	struct cpu_run *c = &s->cpus[r->cpu];
	uint64_t ts = r->h.TimeStamp;
	WMI_CONTEXTSWAP cs;

	memcpy(&cs, r->payload, sizeof(cs));
	if (!c->any_switch)
		credit(s, r->cpu, cs.OldThreadId, s->spans[r->cpu].first, ts);
	else {
		credit(s, r->cpu, c->cur, c->since, ts);
		c->mismatches += c->cur != cs.OldThreadId;
	}
	c->any_switch = true;
	c->cur = cs.NewThreadId;
	c->since = ts;
	c->switches++;
	s->switches++;

	struct thread *nt = thread_get(&s->threads, cs.NewThreadId);
	nt->in++;
	thread_prio(nt, cs.NewThreadPriority);
	if (cs.NewThreadWaitTime > nt->max_wait)
		nt->max_wait = cs.NewThreadWaitTime;
	struct thread *ot = thread_get(&s->threads, cs.OldThreadId);
	ot->out++;
	thread_prio(ot, cs.OldThreadPriority);
	ot->reasons[cs.OldThreadWaitReason]++;
}

static void copy_name(char *dst, const uint8_t *src)
{
	size_t i;
	for (i = 0; i < 16 && src[i]; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7F ? (char)src[i] : '?';
	dst[i] = 0;
}

static void on_thread(struct sched *s, const struct kp_record *r)
{
	KPROF_THREAD kt;
	memcpy(&kt, r->payload, sizeof(kt));
	struct thread *th = thread_get(&s->threads, kt.ThreadId);
	if (th->named)
		return; /* the first record names it */
	th->named = true;
	copy_name(th->name, (const uint8_t *)kt.ThreadName);
	copy_name(th->process, (const uint8_t *)kt.ProcessName);
}

void kp_rp_sched_collect(struct kp_log *log, struct sched *s)
{
	struct kp_merge m;
	struct kp_record r;

	kp_merge_init(&m, log);
	while (kp_merge_next(&m, &r)) {
		if (r.h.HookId == PERFINFO_LOG_TYPE_CONTEXTSWAP && r.payload_size >= sizeof(WMI_CONTEXTSWAP))
			on_cswitch(s, &r);
		else if (r.h.HookId == KPROF_LOG_TYPE_THREAD && r.payload_size >= sizeof(KPROF_THREAD))
			on_thread(s, &r);
	}
	kp_merge_free(&m);
	for (uint32_t i = 0; i < log->ncpus; i++)
		if (s->cpus[i].any_switch)
			credit(s, i, s->cpus[i].cur, s->cpus[i].since, s->spans[i].last);
}

/* id, name, process, cpu ms, %, in, prio (then out and wait). */
#define THREAD_COLUMNS "%6u %-16s %-16.16s %10s %7s %6" PRIu64 " %5s "

int kp_rp_cmp_thread(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;
	if (x->cycles != y->cycles)
		return x->cycles > y->cycles ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

#define TOP_REASONS 3

/* The reason (0..REASONS-1) it left the CPU for most often, not yet
 * used (ties: the lower reason); -1 when none is left. */
static int next_reason(const struct thread *th, const bool *used)
{
	int best = -1;
	for (int k = 0; k < REASONS; k++)
		if (!used[k] && th->reasons[k] && (best < 0 || th->reasons[k] > th->reasons[best]))
			best = k;
	return best;
}

/* Its top wait reasons with their counts, kp_rp_wrapped at the width onto lines
 * that start at column `indent`. */
static void reasons_text(FILE *f, const struct thread *th, int indent)
{
	bool used[REASONS] = { 0 };
	int col = indent, shown = 0, more = 0, k;
	char item[64];

	while ((k = next_reason(th, used)) >= 0) {
		used[k] = true;
		if (shown == TOP_REASONS) {
			more++;
			continue;
		}
		const char *n = kp_rp_value_name(PERFINFO_LOG_TYPE_CONTEXTSWAP, CONTEXTSWAP_VERSION, "OldThreadWaitReason",
					   (uint64_t)k);
		int len = n ? snprintf(item, sizeof(item), "%s %u", n, th->reasons[k])
			    : snprintf(item, sizeof(item), "reason %d %u", k, th->reasons[k]);
		if (shown && col + 2 + len > KP_REPORT_WIDTH - 1) {
			fprintf(f, ",\n%*s", indent, "");
			col = indent;
		} else if (shown) {
			col += fprintf(f, ", ");
		}
		col += fprintf(f, "%s", item);
		shown++;
	}
	if (more && col + 12 > KP_REPORT_WIDTH)
		fprintf(f, ",\n%*s+%d more", indent, "", more);
	else if (more)
		fprintf(f, ", +%d more", more);
	if (!shown)
		fputs("-", f);
}

void kp_rp_thread_line(FILE *f, struct kp_log *log, const struct thread *th, uint64_t total)
{
	char name[24], proc[24], t[32], p[32], prio[32];

	if (th->named) {
		snprintf(name, sizeof(name), "%s", th->name[0] ? th->name : "(no name)");
		snprintf(proc, sizeof(proc), "%s", th->process);
	} else {
		snprintf(name, sizeof(name), th->id ? "thread %u" : "Idle", th->id);
		snprintf(proc, sizeof(proc), "%s", th->id ? "-" : "Idle");
	}
	if (th->have_prio && th->pmin != th->pmax)
		snprintf(prio, sizeof(prio), "%d-%d", th->pmin, th->pmax);
	else if (th->have_prio)
		snprintf(prio, sizeof(prio), "%d", th->pmin);
	else
		snprintf(prio, sizeof(prio), "-");
	fprintf(f, THREAD_COLUMNS "%6" PRIu64 " %4u\n", th->id, name, proc, kp_rp_ms(log, th->cycles, t, sizeof(t)),
		kp_rp_pct(th->cycles, total, p, sizeof(p)), th->in, prio, th->out, th->max_wait);
}

static void thread_reasons(FILE *f, const struct thread *th)
{
	char name[24];

	if (th->named)
		snprintf(name, sizeof(name), "%s", th->name[0] ? th->name : "(no name)");
	else
		snprintf(name, sizeof(name), "thread %u", th->id);
	reasons_text(f, th, fprintf(f, "%6u %-16s ", th->id, name));
	fputc('\n', f);
}

void kp_rp_threads(FILE *f, struct kp_log *log, struct sched *s)
{
	uint64_t total = 0;
	uint32_t ncpus = 0;

	kp_report_section(f, "Threads");
	if (!s->switches) {
		fprintf(f, "No CSwitch records%s.\n",
			kp_rp_group_on(log, PERF_CONTEXT_SWITCH) ? " in the trace" : ": the run's trace= did not include cswitch");
		return;
	}
	for (uint32_t i = 0; i < log->ncpus; i++)
		if (s->cpus[i].any_switch) {
			total += s->spans[i].last - s->spans[i].first;
			ncpus++;
		}
	fprintf(f, "From %" PRIu64 " CSwitch records.  cpu ms: time on a CPU, from the switch in to the switch\n"
		   "out (a CPU's first thread from the CPU's first record on, its last one up to the last record);\n"
		   "%%: of the %u CPUs' traced time; in, out: times switched in and out; prio: priorities seen;\n"
		   "wait: longest NewThreadWaitTime (clock ticks since it last left a CPU).\n\n",
		s->switches, ncpus);
	qsort(s->threads.v, s->threads.n, sizeof(*s->threads.v), kp_rp_cmp_thread);
	fprintf(f, "%6s %-16s %-16s %10s %7s %6s %5s %6s %4s\n", "thread", "name", "process", "cpu ms", "%", "in",
		"prio", "out", "wait");
	for (size_t i = 0; i < s->threads.n; i++)
		if (s->threads.v[i].in || s->threads.v[i].out)
			kp_rp_thread_line(f, log, &s->threads.v[i], total);
	fprintf(f, "\nWhy they left the CPU (OldThreadWaitReason, times; the %d most frequent):\n\n", TOP_REASONS);
	fprintf(f, "%6s %-16s %s\n", "thread", "name", "reasons");
	for (size_t i = 0; i < s->threads.n; i++)
		if (s->threads.v[i].id && s->threads.v[i].out)
			thread_reasons(f, &s->threads.v[i]);
	for (uint32_t i = 0; i < log->ncpus; i++)
		if (s->cpus[i].mismatches)
			fprintf(f, "CPU %u: %" PRIu64 " switches whose old thread was not the thread switched in before "
				   "(records missing?)\n", i, s->cpus[i].mismatches);
}

/* ------------------------------------------------------------ 7. CPUs */

void kp_rp_cpus(FILE *f, struct kp_log *log, const struct sched *s)
{
	char a[32], b[32], c[32];

	kp_report_section(f, "CPUs");
	fprintf(f, "Each CPU from its first record to its last; idle: the idle thread (ThreadId 0) on the CPU.\n\n");
	if (!log->ncpus) {
		fprintf(f, "No CPU sent any frame.\n");
		return;
	}
	fprintf(f, "%5s %16s %14s %8s %8s %10s\n", "cpu", "traced cycles", "traced us", "busy", "idle", "switches");
	for (uint32_t i = 0; i < log->ncpus; i++) {
		const struct span *sp = &s->spans[i];
		const struct cpu_run *cr = &s->cpus[i];
		uint64_t len = sp->last - sp->first;
		if (!sp->any) {
			fprintf(f, "%5u  no records\n", i);
			continue;
		}
		fprintf(f, "%5u %16" PRIu64 " %14s ", i, len, kp_report_us(log, len, a, sizeof(a)));
		if (!cr->any_switch)
			fprintf(f, "%8s %8s %10s  (no CSwitch records: busy and idle unknown)\n", "?", "?", "0");
		else
			fprintf(f, "%8s %8s %10" PRIu64 "\n", kp_rp_pct(len - cr->idle, len, b, sizeof(b)),
				kp_rp_pct(cr->idle, len, c, sizeof(c)), cr->switches);
	}
}

/* ------------------------------------------------------------ the command */

void kp_rp_sched_free(struct sched *s)
{
	free(s->threads.v);
	free(s->threads.slots);
	free(s->cpus);
}
