/*
 * latency.c - the Scheduling latency and Waits sections of `kprof
 * report`, from the model's per-thread latency and blocked time
 * (model/latency.c), in the manner of `perf sched latency`:
 *
 *   - per thread: how often it went from ready to running, the total,
 *     average and longest delay, when the longest ended, why the thread
 *     was ready then (a ReadyThread's AdjustReason, or switched out still
 *     ready) and who readied it; longest first (ties: total, then id);
 *   - per wait reason (OldThreadWaitReason of a switch out to wait): how
 *     many waits ended in a ReadyThread, their total and average, and the
 *     thread that waited longest for that reason.
 *
 * Each time column has one unit, chosen from its largest value (units.c).
 */
#include "tools/kprof/report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/read/fields.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"
#include "tools/kprof/util/utf8.h"

#define LAT_HEADER "%6s %-16s %6s %10s %9s %9s %10s %-9s %s\n"
#define BY_COL 83 /* where "by" starts; a longer one goes right-aligned on a line of its own */

static const char *why_name(int why)
{
	static const char *const names[KP_READY_WHYS] = { "new", "unwait", "boost", "preempted" };
	return why >= 0 && why < KP_READY_WHYS ? names[why] : "?";
}

static int by_max(const void *a, const void *b)
{
	const struct kp_model_thread *x = *(const struct kp_model_thread *const *)a;
	const struct kp_model_thread *y = *(const struct kp_model_thread *const *)b;
	if (x->lat.max != y->lat.max)
		return x->lat.max > y->lat.max ? -1 : 1;
	if (x->lat.total != y->lat.total)
		return x->lat.total > y->lat.total ? -1 : 1;
	return kp_cmp_u64(x->tid, y->tid);
}

static void latency_row(FILE *f, const struct kp_report *r, const struct kp_model_thread *t, const struct kp_unit *u)
{
	const struct kp_latency *l = &t->lat;
	char name[40], tot[32], avg[32], max[32], at[32], by[256], raw[64];

	kp_report_row_lead(f, t->tid, kp_report_thread_name(t, true, name, sizeof(name)));
	snprintf(at, sizeof(at), "%.3f", kp_model_ms(r->m, l->max_at));
	if (l->max_why == KP_READY_PREEMPTED)
		snprintf(by, sizeof(by), "-");
	else
		kp_printable(by, sizeof(by), kp_model_thread_label(r->m, l->max_by, raw, sizeof(raw))); /* never raw */
	bool own_line = BY_COL + strlen(by) > KP_TEXT_WIDTH;
	fprintf(f, "%6" PRIu64 " %10s %9s %9s %10s %-*s", l->n, kp_unit_text(r->log, u[0], l->total, tot, sizeof(tot)),
		kp_unit_text(r->log, u[1], l->total / l->n, avg, sizeof(avg)),
		kp_unit_text(r->log, u[2], l->max, max, sizeof(max)), at, own_line ? 0 : 9, why_name(l->max_why));
	if (own_line)
		fprintf(f, "\n%*s\n", KP_TEXT_WIDTH, by);
	else
		fprintf(f, " %s\n", by);
}

void kp_report_latency(FILE *f, const struct kp_report *r)
{
	const struct kp_model *m = r->m;
	const struct kp_model_thread **v = kp_xcalloc(m->nthreads ? m->nthreads : 1, sizeof(*v));
	uint64_t tot = 0, avg = 0, max = 0, unreadied = 0, whys[KP_READY_WHYS] = { 0 };
	size_t n = 0;
	char h[3][24];

	kp_report_section(f, "Scheduling latency");
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct kp_model_thread *t = &m->threads[i];
		unreadied += t->lat.unreadied;
		for (int k = 0; k < KP_READY_WHYS; k++)
			whys[k] += t->lat.why[k];
		if (!t->lat.n)
			continue;
		v[n++] = t;
		tot = t->lat.total > tot ? t->lat.total : tot;
		avg = t->lat.total / t->lat.n > avg ? t->lat.total / t->lat.n : avg;
		max = t->lat.max > max ? t->lat.max : max;
	}
	if (!n) {
		fprintf(f, "No thread went from ready to running in the trace (it needs CSwitch records, and\n"
			   "ReadyThread records for threads that waited: trace=cswitch,dispatcher).\n");
		free(v);
		return;
	}
	kp_sort(v, n, sizeof(*v), by_max);
	fprintf(f, "Ready to running, per thread (as perf sched latency): from a ReadyThread record, or from a\n"
		   "switch out still ready (preempted, quantum end, yield), to the thread's next switch in.\n"
		   "n: times; max at: when the longest ended (ms since the start of the trace); why: the\n"
		   "longest's AdjustReason (new, unwait, boost) or preempted; by: the thread running on the\n"
		   "CPU that wrote its ReadyThread.  Stalls are not taken out: a thread waited through them.\n"
		   "Longest first.\n\n");
	struct kp_unit u[3] = { kp_unit_for(r->log, tot), kp_unit_for(r->log, avg), kp_unit_for(r->log, max) };
	snprintf(h[0], sizeof(h[0]), "total %s", u[0].name);
	snprintf(h[1], sizeof(h[1]), "avg %s", u[1].name);
	snprintf(h[2], sizeof(h[2]), "max %s", u[2].name);
	fprintf(f, LAT_HEADER, "thread", "name", "n", h[0], h[1], h[2], "max at ms", "why", "by");
	for (size_t i = 0; i < n; i++)
		latency_row(f, r, v[i], u);
	fprintf(f, "\nreadies: %" PRIu64 " new, %" PRIu64 " unwait, %" PRIu64 " boost, %" PRIu64 " preempted",
		whys[0], whys[1], whys[2], whys[3]);
	if (unreadied)
		fprintf(f, "; %" PRIu64 " switches in after a wait with no ReadyThread (not timed)", unreadied);
	fputc('\n', f);
	free(v);
}

/* Per wait reason over all threads: waits, total, the thread that waited
 * longest for it. */
struct reason_row {
	int reason;
	uint64_t n, total, top_total;
	uint32_t top_tid;
};

static int by_total(const void *a, const void *b)
{
	const struct reason_row *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->reason - y->reason;
}

void kp_report_blocked(FILE *f, const struct kp_report *r)
{
	const struct kp_model *m = r->m;
	struct reason_row rows[KP_WAIT_REASONS] = { 0 };
	uint64_t tot = 0, avg = 0;
	size_t n = 0;
	char a[24], b[24], t[32], av[32], name[64], shown[256], rn[32];

	kp_report_section(f, "Waits");
	for (int k = 0; k < KP_WAIT_REASONS; k++) {
		struct reason_row *row = &rows[n];
		*row = (struct reason_row){ .reason = k };
		for (size_t i = 0; i < m->nthreads; i++) {
			const struct kp_model_thread *th = &m->threads[i];
			row->n += th->nblocked[k];
			row->total += th->blocked[k];
			if (th->blocked[k] > row->top_total)
				row->top_total = th->blocked[k], row->top_tid = th->tid;
		}
		if (!row->n)
			continue;
		tot = row->total > tot ? row->total : tot;
		avg = row->total / row->n > avg ? row->total / row->n : avg;
		n++;
	}
	if (!n) {
		fprintf(f, "No wait ended in a ReadyThread record (it needs CSwitch and ReadyThread records).\n");
		return;
	}
	kp_sort(rows, n, sizeof(*rows), by_total);
	fprintf(f, "Time blocked, per wait reason (OldThreadWaitReason of the switch out to wait), from the\n"
		   "switch out to the ReadyThread that ended the wait (then ready: Scheduling latency); all\n"
		   "threads; longest total first.  longest: the thread with the most time blocked for it.\n\n");
	struct kp_unit ut = kp_unit_for(r->log, tot), ua = kp_unit_for(r->log, avg);
	snprintf(a, sizeof(a), "total %s", ut.name);
	snprintf(b, sizeof(b), "avg %s", ua.name);
	fprintf(f, "%-22s %7s %12s %11s  %s\n", "reason", "waits", a, b, "longest");
	for (size_t i = 0; i < n; i++) {
		const char *nm = kp_value_name(PERFINFO_LOG_TYPE_CONTEXTSWAP, CONTEXTSWAP_VERSION, "OldThreadWaitReason",
					       (uint64_t)rows[i].reason);
		if (!nm)
			snprintf(rn, sizeof(rn), "reason %d", rows[i].reason), nm = rn;
		fprintf(f, "%-22s %7" PRIu64 " %12s %11s  %s\n", nm, rows[i].n,
			kp_unit_text(r->log, ut, rows[i].total, t, sizeof(t)),
			kp_unit_text(r->log, ua, rows[i].total / rows[i].n, av, sizeof(av)),
			kp_printable(shown, sizeof(shown), kp_model_thread_label(m, rows[i].top_tid, name, sizeof(name))));
	}
}
