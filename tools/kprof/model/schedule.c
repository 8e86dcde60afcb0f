/*
 * schedule.c - the schedule of a CPU from its CSwitch records: which
 * thread ran from when to when.  This is the only reconstruction of the
 * schedule in the tool; the report's thread and CPU times, the latencies,
 * the timeline and the Perfetto trace all come from its runs.
 *
 * A CSwitch record at time t on a CPU says OldThreadId left the CPU and
 * NewThreadId got it at t.  So, with the CPU's switches in time order:
 *
 *   - between switch i and switch i+1, NewThreadId of switch i ran;
 *   - before the first switch, its OldThreadId ran, since the trace began
 *     (m->begin: the run header's start_tsc).  Tracing starts on every CPU
 *     at once (kernel/trace/trace.c takes start_tsc, then turns the groups
 *     on), so a switch before the first recorded one would have been
 *     recorded: the old thread was on the CPU from the start of the trace;
 *   - after the last switch, its NewThreadId runs to the end of the trace
 *     (m->end: the last record of any CPU), since it would have written a
 *     switch had it left.
 *
 * Every CPU with switches is therefore accounted for from begin to end,
 * and its runs add up to exactly end - begin.  (The report once counted a
 * CPU only from its own first record to its own last: a CPU's first record
 * is merely the first thing it happened to log - a sample, a lock - and
 * the thread before the first switch was running well before it; the
 * thread after the last switch, often idle, kept running after the CPU's
 * last record.  That undercounted exactly those two threads per CPU.)
 *
 * When switch i+1's OldThreadId is not switch i's NewThreadId, switches
 * were lost in between: the run is still NewThreadId's (the last thing
 * known), marked as a gap and counted.
 *
 * Time inside a hole (frames of the CPU lost on the link, or records its
 * kernel dropped, model.h) is counted as neither busy nor idle, nor as the
 * running thread's CPU time, but as no trace: switches in it may be the
 * ones lost.  The runs themselves still span it (the timeline draws them
 * under the hole); each run says how much of it is no trace.  Time in a
 * stall (stall.c: the CPU could not run) is likewise neither busy nor
 * idle nor the thread's CPU time but stalled; each run says how much.
 *
 * How: the model's second pass over the records (model.c), once the first
 * gave the trace's span, the holes, the stalls and the thread table.  A
 * CPU's records come in log order with stamps that never go back (the
 * cursor raises a stamp that did, read/records.h), so its switches are
 * already in time order, equal stamps in log order.  One switch is held
 * per CPU; each run is whole when it is made (its span, no trace, stall,
 * its thread's CPU time, the CPU's busy or idle) and goes to the latency
 * walk as a switch in and out (sched_order.c), and to the model's run
 * sink if it has one (the timeline's plan); it is kept in the CPU's runs
 * only when the model keeps them (kp_model_build, not
 * kp_model_build_totals).  A run starts where the CPU's last ended, the
 * first at begin and the last ends at end (asserted as they are made).
 */
#include "tools/kprof/model/model.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/kpassert.h"

void kp_schedule_init(struct kp_sched *s, struct kp_model *m, bool keep)
{
	*s = (struct kp_sched){ .m = m, .keep = keep };
	s->cpu = kp_xcalloc(m->ncpus, sizeof(*s->cpu));
}

void kp_schedule_first(struct kp_sched *s, uint32_t cpu, const WMI_CONTEXTSWAP *sw)
{
	struct kp_sched_cpu *sc = &s->cpu[cpu];

	if (!sc->seen) {
		sc->seen = true;
		sc->running = sw->OldThreadId; /* from the start to its first switch */
	}
}

/* A run made: whole, counted, kept if the model keeps runs, and its
 * switch out to the latency walk. */
static void made(struct kp_sched *s, uint32_t cpu, struct kp_run r)
{
	struct kp_model *m = s->m;
	struct kp_model_cpu *c = &m->cpu[cpu];
	struct kp_sched_cpu *sc = &s->cpu[cpu];

	if (r.end < r.start)
		r.end = r.start;
	KP_ASSERT(r.start == (sc->runs ? sc->run_end : m->begin),
		  "cpu %" PRIu32 ": run %" PRIu64 " starts at %" PRIu64 ", where %s %" PRIu64, cpu, sc->runs,
		  r.start, sc->runs ? "the run before ended at" : "the trace begins at",
		  sc->runs ? sc->run_end : m->begin);
	r.no_trace = kp_hole_overlap(c, r.start, r.end);
	r.stalled = kp_stall_overlap(c, r.start, r.end);
	uint64_t ran = r.end - r.start - r.no_trace - r.stalled;
	if (r.tid)
		c->busy += ran;
	else
		c->idle += ran;
	struct kp_model_thread *t = (struct kp_model_thread *)kp_model_thread(m, r.tid);
	KP_ASSERT(t, "cpu %" PRIu32 ": a run of thread %" PRIu32 ", which is not in the thread table", cpu, r.tid);
	t->cycles += ran;
	t->stalled += r.stalled;
	sc->runs++;
	sc->run_end = r.end;
	if (s->keep)
		KP_PUSH(c->runs, c->nruns, sc->cap, r);
	if (s->sink && s->sink->run)
		s->sink->run(s->sink->ctx, cpu, &r);
	if (r.tid && !r.to_end)
		kp_sched_order_add(&s->order, (struct kp_sched_event){ .ts = r.end, .tid = r.tid, .type = KP_SCHED_OUT,
								       .cpu = (uint8_t)cpu,
								       .state = r.gap ? 0xFF : r.end_state,
								       .reason = r.end_reason },
				   cpu);
}

void kp_schedule_switch(struct kp_sched *s, uint32_t cpu, uint64_t ts, const WMI_CONTEXTSWAP *sw)
{
	struct kp_model *m = s->m;
	struct kp_sched_cpu *sc = &s->cpu[cpu];

	kp_sched_order_at(&s->order, ts);
	KP_ASSERT(!sc->have || ts >= sc->ts, "a CPU's switches in time order (%" PRIu64 " after %" PRIu64 ")", ts,
		  sc->ts);
	if (!sc->have) {
		if (ts > m->begin) /* the thread switched out ran from the start */
			made(s, cpu, (struct kp_run){ .start = m->begin, .end = ts, .tid = sw->OldThreadId,
						      .priority = sw->OldThreadPriority, .from_start = true,
						      .end_state = sw->OldThreadState,
						      .end_reason = sw->OldThreadWaitReason });
	} else {
		struct kp_run r = { .start = sc->ts, .end = ts, .tid = sc->last.NewThreadId,
				    .priority = sc->last.NewThreadPriority, .end_state = sw->OldThreadState,
				    .end_reason = sw->OldThreadWaitReason };
		r.gap = sw->OldThreadId != r.tid;
		m->cpu[cpu].gaps += r.gap;
		made(s, cpu, r);
	}
	sc->have = true;
	sc->ts = ts;
	sc->last = *sw;
	sc->running = sw->NewThreadId;
	if (sw->NewThreadId)
		kp_sched_order_add(&s->order, (struct kp_sched_event){ .ts = ts, .tid = sw->NewThreadId,
								       .type = KP_SCHED_IN, .cpu = (uint8_t)cpu },
				   cpu);
}

void kp_schedule_ready(struct kp_sched *s, uint32_t cpu, uint64_t ts, const WMI_READY_THREAD *rd)
{
	kp_sched_order_at(&s->order, ts);
	if (rd->TThreadId)
		kp_sched_order_add(&s->order, (struct kp_sched_event){ .ts = ts, .tid = rd->TThreadId,
								       .type = KP_SCHED_READY, .cpu = (uint8_t)cpu,
								       .why = rd->AdjustReason >= 0 &&
										      rd->AdjustReason < KP_READY_PREEMPTED
									      ? rd->AdjustReason : 0 },
				   cpu);
}

uint32_t kp_schedule_running(const struct kp_sched *s, uint32_t cpu, uint64_t ts)
{
	const struct kp_sched_cpu *sc = &s->cpu[cpu];

	/* the run that covers ts (start <= ts < end): every switch at or
	 * before ts is in (a CPU without switches has none: 0); a run never
	 * reaches past the trace's end */
	return ts < s->m->end ? sc->running : 0;
}

void kp_schedule_finish(struct kp_sched *s)
{
	struct kp_model *m = s->m;

	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++) {
		struct kp_sched_cpu *sc = &s->cpu[cpu];
		if (!sc->have)
			continue;
		made(s, cpu, (struct kp_run){ .start = sc->ts, .end = m->end, .tid = sc->last.NewThreadId,
					      .priority = sc->last.NewThreadPriority, .to_end = true });
		KP_ASSERT(sc->run_end == m->end, "cpu %" PRIu32 ": the last run ends at %" PRIu64 ", the trace at %" PRIu64,
			  cpu, sc->run_end, m->end);
	}
	kp_sched_order_flush(&s->order);
	free(s->cpu);
	s->cpu = NULL;
}
