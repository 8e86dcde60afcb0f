/*
 * threads.c - the Threads section of `kprof report` (and the busiest
 * threads of --summary), read from the model's schedule and thread table
 * (model/schedule.c, model/threads.c): each thread's CPU time (less no
 * trace and stalls), its time stalled, switches in, switches out
 * voluntary (it waited or ended) and involuntary (it was still ready:
 * preempted, quantum end, yield), priorities and reasons for leaving the
 * CPU.  The times are the model's, the very runs the timeline draws; each
 * time column has one unit, chosen from its largest value (units.c).
 */
#include "tools/kprof/report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/read/fields.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

#define TOP_REASONS 3

/* The header of the thread table: id, name, process, cpu, %, stalled, in,
 * vol, invol, prio. */
#define THREAD_HEADER "%6s %-16s %-16s %11s %7s %11s %6s %6s %6s %5s\n"
#define NAME_COLS 16 /* names are never cut: a longer one gets a line of its own */

/* The units of the table's two time columns. */
struct th_units {
	struct kp_unit cpu, stalled;
	bool stalls_known;            /* KprofClockLate records: else "-"           */
};

static int cmp_busiest(const void *a, const void *b)
{
	const struct kp_model_thread *x = *(const struct kp_model_thread *const *)a;
	const struct kp_model_thread *y = *(const struct kp_model_thread *const *)b;
	if (x->cycles != y->cycles)
		return x->cycles > y->cycles ? -1 : 1;
	return kp_cmp_u64(x->tid, y->tid);
}

/* The threads that were switched, busiest first; *n of them. */
static const struct kp_model_thread **busiest(const struct kp_model *m, size_t *n)
{
	const struct kp_model_thread **v = kp_xcalloc(m->nthreads, sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].in || m->threads[i].out)
			v[(*n)++] = &m->threads[i];
	kp_sort(v, *n, sizeof(*v), cmp_busiest);
	return v;
}

/* A recorded name for this text: bytes outside printable ASCII as '?'. */
static void printable(char *dst, size_t size, const char *src)
{
	size_t i;
	for (i = 0; i + 1 < size && src[i]; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7F ? src[i] : '?';
	dst[i] = 0;
}

/* "name", "(no name)", "thread 12" or, for thread 0 without a record
 * (and when idle_name), "Idle". */
const char *kp_report_thread_name(const struct kp_model_thread *th, bool idle_name, char *buf, size_t size)
{
	if (th->named && th->name[0])
		printable(buf, size, th->name);
	else if (th->named)
		snprintf(buf, size, "(no name)");
	else if (!th->tid && idle_name)
		snprintf(buf, size, "Idle");
	else
		snprintf(buf, size, "thread %u", th->tid);
	return buf;
}

/* The id and name that lead a row: "    12 name             "; a name too
 * long for its column goes on a line of its own (id and name), the row
 * then leads with the id only. */
void kp_report_row_lead(FILE *f, uint32_t tid, const char *name)
{
	if (strlen(name) > NAME_COLS) {
		fprintf(f, "%6u %s\n", tid, name);
		name = "";
	}
	fprintf(f, "%6u %-*s ", tid, NAME_COLS, name);
}

static void thread_line(FILE *f, const struct kp_log *log, const struct kp_model_thread *th, uint64_t total,
			const struct th_units *u)
{
	char name[40], proc[24], t[32], p[32], st[32], prio[32];

	kp_report_thread_name(th, true, name, sizeof(name));
	if (th->named)
		printable(proc, sizeof(proc), th->process);
	else
		snprintf(proc, sizeof(proc), "%s", th->tid ? "-" : "Idle");
	if (th->have_prio && th->pmin != th->pmax)
		snprintf(prio, sizeof(prio), "%d-%d", th->pmin, th->pmax);
	else if (th->have_prio)
		snprintf(prio, sizeof(prio), "%d", th->pmin);
	else
		snprintf(prio, sizeof(prio), "-");
	kp_report_row_lead(f, th->tid, name);
	fprintf(f, "%-16s %11s %7s %11s %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %5s\n", proc,
		kp_unit_text(log, u->cpu, th->cycles, t, sizeof(t)), kp_pct(p, sizeof(p), th->cycles, total, 2),
		u->stalls_known ? kp_unit_text(log, u->stalled, th->stalled, st, sizeof(st)) : "-", th->in, th->out - th->out_ready, th->out_ready,
		prio);
}

/* The units of the first n rows' time columns, and the table's header. */
static struct th_units table_head(FILE *f, const struct kp_report *r, const struct kp_model_thread **v, size_t n)
{
	const struct kp_log *log = r->log;
	uint64_t cpu = 0, stalled = 0;
	struct th_units u;
	char a[16], b[16];

	for (size_t i = 0; i < n; i++) {
		cpu = v[i]->cycles > cpu ? v[i]->cycles : cpu;
		stalled = v[i]->stalled > stalled ? v[i]->stalled : stalled;
	}
	u.cpu = kp_unit_for(log, cpu);
	u.stalled = kp_unit_for(log, stalled ? stalled : cpu);
	u.stalls_known = r->m->stall_records != 0;
	snprintf(a, sizeof(a), "cpu %s", u.cpu.name);
	snprintf(b, sizeof(b), "stalled %s", u.stalled.name);
	fprintf(f, THREAD_HEADER, "thread", "name", "process", a, "%", b, "in", "vol", "invol", "prio");
	return u;
}

/* The traced time of all CPUs with switches: each is accounted for over
 * the whole trace (model/schedule.c). */
static uint64_t traced_total(const struct kp_model *m)
{
	return (uint64_t)m->switching_cpus * (m->end - m->begin);
}

/* The reason (0..KP_WAIT_REASONS-1) it left the CPU for most often, not
 * yet used (ties: the lower reason); -1 when none is left. */
static int next_reason(const struct kp_model_thread *th, const bool *used)
{
	int best = -1;
	for (int k = 0; k < KP_WAIT_REASONS; k++)
		if (!used[k] && th->reasons[k] && (best < 0 || th->reasons[k] > th->reasons[best]))
			best = k;
	return best;
}

/* "12 thread 12  WrDelayExecution 74, WrPreempted 18, ..., +2 more". */
static void thread_reasons(FILE *f, const struct kp_model_thread *th)
{
	bool used[KP_WAIT_REASONS] = { 0 };
	char name[40], lead[64], text[512];
	size_t len = 0;
	int shown = 0, more = 0, k;

	kp_report_thread_name(th, false, name, sizeof(name));
	if (strlen(name) > NAME_COLS) { /* whole, on its own line */
		fprintf(f, "%6u %s\n", th->tid, name);
		name[0] = 0;
	}
	snprintf(lead, sizeof(lead), "%6u %-*s ", th->tid, NAME_COLS, name);
	text[0] = 0;
	while ((k = next_reason(th, used)) >= 0) {
		used[k] = true;
		if (shown == TOP_REASONS) {
			more++;
			continue;
		}
		const char *n = kp_value_name(PERFINFO_LOG_TYPE_CONTEXTSWAP, CONTEXTSWAP_VERSION, "OldThreadWaitReason",
					      (uint64_t)k);
		len += (size_t)(n ? snprintf(text + len, sizeof(text) - len, "%s%s %u", shown ? "\t" : "", n, th->reasons[k])
				  : snprintf(text + len, sizeof(text) - len, "%sreason %d %u", shown ? "\t" : "", k,
					     th->reasons[k]));
		shown++;
	}
	if (more)
		snprintf(text + len, sizeof(text) - len, "\t+%d more", more);
	kp_wrap(f, lead, 0, (int)strlen(lead), ", ", shown ? text : "-");
}

void kp_report_threads(FILE *f, const struct kp_report *r)
{
	const struct kp_model *m = r->m;
	size_t n;

	kp_report_section(f, "Threads");
	if (!m->switches) {
		fprintf(f, "No CSwitch records%s.\n", kp_report_group_on(r->log, PERF_CONTEXT_SWITCH)
							      ? " in the trace"
							      : ": the run's trace= did not include cswitch");
		return;
	}
	kp_wrapf(f, "", 0, 0, " ",
		 "From %" PRIu64 " CSwitch records.  cpu: time on a CPU, from the switch in to the switch out (a "
		 "CPU's first thread from the start of the trace, its last one up to the last record of any CPU), "
		 "less the time its CPU was stalled (KprofClockLate) or without trace; %%: of the %u CPUs' time "
		 "over the trace; stalled: time it was on a stalled CPU (- without trace=clock); in: times "
		 "switched in; vol: switched out to wait (or end); invol: switched out still ready (preempted, "
		 "quantum end, yield); prio: priorities seen.  How long threads waited to run: Scheduling latency.",
		 m->switches, m->switching_cpus);
	fputc('\n', f);
	const struct kp_model_thread **v = busiest(m, &n);
	struct th_units u = table_head(f, r, v, n);
	for (size_t i = 0; i < n; i++)
		thread_line(f, r->log, v[i], traced_total(m), &u);
	fprintf(f, "\nWhy they left the CPU (OldThreadWaitReason, times; the %d most frequent):\n\n", TOP_REASONS);
	fprintf(f, "%6s %-16s %s\n", "thread", "name", "reasons");
	for (size_t i = 0; i < n; i++)
		if (v[i]->tid && v[i]->out)
			thread_reasons(f, v[i]);
	for (uint32_t i = 0; i < m->ncpus; i++)
		if (m->cpu[i].gaps)
			fprintf(f, "CPU %u: %" PRIu64 " switches whose old thread was not the thread switched in before "
				   "(records missing?)\n", i, m->cpu[i].gaps);
	free(v);
}

void kp_report_busiest(FILE *f, const struct kp_report *r)
{
	size_t n;

	if (!r->m->switches)
		return;
	const struct kp_model_thread **v = busiest(r->m, &n);
	fprintf(f, "\nbusiest threads:\n");
	struct th_units u = table_head(f, r, v, n < TOP_SUMMARY ? n : TOP_SUMMARY);
	for (size_t i = 0; i < n && i < TOP_SUMMARY; i++)
		thread_line(f, r->log, v[i], traced_total(r->m), &u);
	free(v);
}
