/*
 * model_invariants.c - harness for tests/tools/test_model_invariants:
 * the model's asserted invariants (tools/kprof/model/invariants.c).
 *
 *   model_invariants made CASE     check a model made here by hand:
 *                                  "ok" keeps every invariant, each other
 *                                  CASE breaks one (spoil_made below)
 *   model_invariants log PATH      build the model of a real log; prints
 *                                  how often kp_model_build checked it
 *   model_invariants broken PATH   the same, with the model's first
 *                                  switching CPU's busy time off by one
 *                                  just before kp_model_build checks it
 *   model_invariants totals PATH   build the log's model both ways, whole
 *                                  and of totals only (no run, wait or
 *                                  ready kept), and compare every figure
 *                                  made from the runs, the waits and the
 *                                  readies; prints the first that differs
 *
 * Linked with -Wl,--wrap=kp_model_check, so the call in kp_model_build
 * lands in __wrap_kp_model_check below, which counts it (and for
 * "broken" spoils the model) before the real check.  A broken invariant
 * ends the program in abort() with the tool's message on stderr.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/model/model.h"
#include "tools/kprof/read/log.h"

void __real_kp_model_check(const struct kp_model *m);

static int checks;
static int spoil;

void __wrap_kp_model_check(const struct kp_model *m)
{
	checks++;
	for (uint32_t i = 0; spoil && i < m->ncpus; i++)
		if (m->cpu[i].switches) {
			((struct kp_model *)m)->cpu[i].busy += 1;
			break;
		}
	__real_kp_model_check(m);
}

/* One CPU over [1000, 2000): thread 5 runs [1000, 1400), the idle thread
 * [1400, 2000) with 50 cycles stalled and 50 in a hole: busy 400, idle
 * 500.  Thread 5 has 400 cycles, thread 0 500 and 50 stalled. */
static struct kp_run runs[2];
static struct kp_model_thread threads[2];
static struct kp_model_cpu cpu;
static struct kp_model model;

static void make(void)
{
	runs[0] = (struct kp_run){ .start = 1000, .end = 1400, .tid = 5 };
	runs[1] = (struct kp_run){ .start = 1400, .end = 2000, .tid = 0, .stalled = 50, .no_trace = 50 };
	cpu = (struct kp_model_cpu){ .any = true, .runs = runs, .nruns = 2, .switches = 1, .busy = 400, .idle = 500,
				     .stalled = 50, .no_trace = 50 };
	threads[0] = (struct kp_model_thread){ .tid = 0, .cycles = 500, .stalled = 50 };
	threads[1] = (struct kp_model_thread){ .tid = 5, .cycles = 400 };
	model = (struct kp_model){ .ncpus = 1, .cpu = &cpu, .threads = threads, .nthreads = 2, .any = true,
				   .begin = 1000, .end = 2000 };
}

/* Break the made model as CASE says; false for an unknown CASE. */
static bool spoil_made(const char *name)
{
	if (!strcmp(name, "ok"))
		return true;
	else if (!strcmp(name, "busy"))
		cpu.busy += 1;                /* the span equation */
	else if (!strcmp(name, "no_trace"))
		cpu.no_trace = 0;
	else if (!strcmp(name, "first_run"))
		runs[0].start = 1001;         /* runs over exactly the trace */
	else if (!strcmp(name, "last_run"))
		runs[1].end = 1999;
	else if (!strcmp(name, "runs_apart"))
		runs[1].start = 1401;         /* end to end */
	else if (!strcmp(name, "no_runs"))
		cpu.nruns = 0;                /* switches but no schedule */
	else if (!strcmp(name, "thread_time"))
		threads[1].cycles = 407;      /* threads against CPUs */
	else if (!strcmp(name, "thread_stalled"))
		threads[0].stalled = 0;
	else
		return false;
	return true;
}

/* ---- totals: the model of totals only against the whole one ---- */

static int differ;

static void same_u64(const char *what, unsigned long long a, unsigned long long b, unsigned long long who)
{
	if (a != b && !differ++)
		printf("%s of %llu: whole %llu, totals only %llu\n", what, who, a, b);
}

static void same_figures(const struct kp_model *w, const struct kp_model *t)
{
	same_u64("CPUs", w->ncpus, t->ncpus, 0);
	same_u64("threads", w->nthreads, t->nthreads, 0);
	same_u64("spin-lock waits", w->waits, t->waits, 0);
	same_u64("readies", w->readies, t->readies, 0);
	same_u64("switches", w->switches, t->switches, 0);
	same_u64("samples", w->samples, t->samples, 0);
	same_u64("sample periods", w->sample_periods, t->sample_periods, 0);
	same_u64("samples in kprof's measurements", w->measure_samples, t->measure_samples, 0);
	same_u64("SpinLock records", w->spinlock_records, t->spinlock_records, 0);
	same_u64("kept Resource records (totals: none)", 0, t->nresources, 0);
	same_u64("begin", w->begin, t->begin, 0);
	same_u64("end", w->end, t->end, 0);
	for (uint32_t i = 0; !differ && i < w->ncpus && i < t->ncpus; i++) {
		const struct kp_model_cpu *a = &w->cpu[i], *b = &t->cpu[i];
		same_u64("busy, cpu", a->busy, b->busy, i);
		same_u64("idle, cpu", a->idle, b->idle, i);
		same_u64("gaps, cpu", a->gaps, b->gaps, i);
		same_u64("stalled, cpu", a->stalled, b->stalled, i);
		same_u64("no trace, cpu", a->no_trace, b->no_trace, i);
		same_u64("switches, cpu", a->switches, b->switches, i);
		same_u64("kept runs (totals: none), cpu", 0, b->nruns + b->nwaits + b->nreadies + b->nsamples, i);
		same_u64("samples in kprof's measurements, cpu", a->measure_samples, b->measure_samples, i);
		uint64_t marked = 0;
		for (size_t k = 0; k < a->nsamples; k++)
			marked += a->samples[k].measuring;
		same_u64("kept samples marked as in kprof's measurements (whole), cpu", a->measure_samples, marked, i);
	}
	for (size_t k = 0; !differ && k < w->nthreads && k < t->nthreads; k++) {
		const struct kp_model_thread *a = &w->threads[k], *b = &t->threads[k];
		const struct kp_latency *x = &a->lat, *y = &b->lat;
		same_u64("thread id, row", a->tid, b->tid, k);
		same_u64("CPU time, thread", a->cycles, b->cycles, a->tid);
		same_u64("stalled, thread", a->stalled, b->stalled, a->tid);
		same_u64("ins, thread", a->in, b->in, a->tid);
		same_u64("outs, thread", a->out, b->out, a->tid);
		same_u64("latencies, thread", x->n, y->n, a->tid);
		same_u64("latency total, thread", x->total, y->total, a->tid);
		same_u64("latency total squared, thread", x->total2 != y->total2, 0, a->tid);
		same_u64("longest latency, thread", x->max, y->max, a->tid);
		same_u64("longest latency's end, thread", x->max_at, y->max_at, a->tid);
		same_u64("longest latency's readier, thread", x->max_by, y->max_by, a->tid);
		same_u64("longest latency's why, thread", (unsigned long long)x->max_why, (unsigned long long)y->max_why,
			 a->tid);
		same_u64("longest latency's CPU, thread", x->max_cpu, y->max_cpu, a->tid);
		same_u64("unreadied, thread", x->unreadied, y->unreadied, a->tid);
		for (int r = 0; r < KP_READY_WHYS; r++)
			same_u64("latencies by why, thread", x->why[r], y->why[r], a->tid);
		for (int r = 0; r < KP_WAIT_REASONS; r++) {
			same_u64("blocked cycles by reason, thread", a->blocked[r], b->blocked[r], a->tid);
			same_u64("blocked by reason, thread", a->nblocked[r], b->nblocked[r], a->tid);
		}
	}
}

static uint64_t latencies(const struct kp_model *m)
{
	uint64_t n = 0;

	for (size_t k = 0; k < m->nthreads; k++)
		n += m->threads[k].lat.n;
	return n;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "made")) {
		make();
		if (!spoil_made(argv[2])) {
			fprintf(stderr, "model_invariants: no case %s\n", argv[2]);
			return 2;
		}
		kp_model_check(&model);
		printf("model %s: consistent\n", argv[2]);
		return 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "log") || !strcmp(argv[1], "broken"))) {
		struct kp_log log;
		struct kp_model m;
		if (kp_log_read(argv[2], &log)) {
			perror(argv[2]);
			return 2;
		}
		spoil = !strcmp(argv[1], "broken");
		kp_model_build(&m, &log);
		printf("model of %s: %u switching CPUs, checked %d time(s)\n", argv[2], m.switching_cpus, checks);
		kp_model_free(&m);
		kp_log_free(&log);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "totals")) {
		struct kp_log log;
		struct kp_model whole, totals;
		if (kp_log_read(argv[2], &log)) {
			perror(argv[2]);
			return 2;
		}
		kp_model_build(&whole, &log);
		kp_model_build_totals(&totals, &log);
		same_figures(&whole, &totals);
		if (!differ)
			printf("model of %s: the same figures whole and of totals only (%zu threads, %" PRIu64
			       " latencies)\n", argv[2], totals.nthreads, latencies(&totals));
		kp_model_free(&whole);
		kp_model_free(&totals);
		kp_log_free(&log);
		return differ ? 1 : 0;
	}
	fprintf(stderr, "usage: model_invariants made CASE | log PATH | broken PATH | totals PATH\n");
	return 2;
}
