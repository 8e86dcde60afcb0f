/*
 * invariants.c - what model.h promises about a built model, checked
 * (KP_ASSERT, util/kpassert.h): a model that breaks one is a bug in the
 * tool, and every report, picture and export drawn from it would tell a
 * wrong story, so the tool stops with the values instead.
 *
 * For every CPU with CSwitch records (schedule.c):
 *   - its runs are end to end over the trace: the first starts at begin,
 *     each ends where the next starts, the last ends at end (in a model
 *     that keeps no run, schedule.c asserts it as it makes them);
 *   - busy + idle + stalled + no trace == end - begin (cycles);
 * and over the whole model (threads.c):
 *   - the threads' CPU time adds up to the CPUs' busy + idle time, and
 *     their stalled time to the switching CPUs' stalled time.
 * kp_model_build ends with kp_model_check; tests/tools/
 * test_model_invariants breaks each of these and sees the abort.
 */
#include "tools/kprof/model/model.h"

#include <inttypes.h>

#include "tools/kprof/util/kpassert.h"

/* A CPU's kept runs, end to end over the trace. */
static void check_runs(const struct kp_model *m, uint32_t i)
{
	const struct kp_model_cpu *c = &m->cpu[i];

	KP_ASSERT(c->nruns && c->runs[0].start == m->begin && c->runs[c->nruns - 1].end == m->end,
		  "cpu %" PRIu32 ": %zu runs from %" PRIu64 " to %" PRIu64 ", trace from %" PRIu64 " to %" PRIu64, i,
		  c->nruns, c->nruns ? c->runs[0].start : 0, c->nruns ? c->runs[c->nruns - 1].end : 0, m->begin,
		  m->end);
	for (size_t k = 1; k < c->nruns; k++)
		KP_ASSERT(c->runs[k].start == c->runs[k - 1].end,
			  "cpu %" PRIu32 ": run %zu ends at %" PRIu64 ", run %zu starts at %" PRIu64, i, k - 1,
			  c->runs[k - 1].end, k, c->runs[k].start);
}

static void check_cpu(const struct kp_model *m, uint32_t i)
{
	const struct kp_model_cpu *c = &m->cpu[i];
	uint64_t span = m->end - m->begin;

	if (!(m->not_kept & KP_KEEP_RUNS)) /* else schedule.c asserts them as it makes them */
		check_runs(m, i);
	KP_ASSERT(c->busy + c->idle + c->stalled + c->no_trace == span,
		  "cpu %" PRIu32 ": busy %" PRIu64 " + idle %" PRIu64 " + stalled %" PRIu64 " + no trace %" PRIu64
		  " = %" PRIu64 ", span end - begin = %" PRIu64 " - %" PRIu64 " = %" PRIu64,
		  i, c->busy, c->idle, c->stalled, c->no_trace, c->busy + c->idle + c->stalled + c->no_trace, m->end,
		  m->begin, span);
}

void kp_model_check(const struct kp_model *m)
{
	uint64_t cpu_time = 0, cpu_stalled = 0, thread_time = 0, thread_stalled = 0;

	for (uint32_t i = 0; i < m->ncpus; i++) {
		if (!m->cpu[i].switches)
			continue; /* no schedule: nothing is promised */
		check_cpu(m, i);
		cpu_time += m->cpu[i].busy + m->cpu[i].idle;
		cpu_stalled += m->cpu[i].stalled;
	}
	for (size_t t = 0; t < m->nthreads; t++) {
		thread_time += m->threads[t].cycles;
		thread_stalled += m->threads[t].stalled;
	}
	KP_ASSERT(thread_time == cpu_time && thread_stalled == cpu_stalled,
		  "threads' CPU time %" PRIu64 ", CPUs' busy + idle %" PRIu64 "; threads' stalled %" PRIu64
		  ", CPUs' stalled %" PRIu64, thread_time, cpu_time, thread_stalled, cpu_stalled);
}
