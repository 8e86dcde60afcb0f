/*
 * schedule.c - the schedule of a CPU from its CSwitch records: which
 * thread ran from when to when.  This is the only reconstruction of the
 * schedule in the tool; the report's thread and CPU times, the timeline
 * and the Perfetto trace all read its runs.
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
 * The runs are made as the model's pass meets the switches, one switch
 * held per CPU, none gathered (a 4 GiB log has about 40 million): a CPU's
 * records come in log order with stamps that never go back (the cursor
 * raises a stamp that did, read/records.h), so they are already in time
 * order, equal stamps in log order.  The trace's begin and end are known
 * only after the pass: the CPU's first run (from the start) and last (to
 * the end) are finished then (kp_schedule_finish).
 *
 * Time inside a hole (frames of the CPU lost on the link, or records its
 * kernel dropped, model.h) is counted as neither busy nor idle, nor as the
 * running thread's CPU time, but as no trace: switches in it may be the
 * ones lost.  The runs themselves still span it (the timeline draws them
 * under the hole); each run says how much of it is no trace.  Time in a
 * stall (stall.c: the CPU could not run) is likewise neither busy nor
 * idle nor the thread's CPU time but stalled; each run says how much.
 */
#include "tools/kprof/model/model.h"

#include <inttypes.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/kpassert.h"

static void push_run(struct kp_model_cpu *c, struct kp_sched_cpu *s, struct kp_run r)
{
	if (r.end < r.start)
		r.end = r.start;
	KP_PUSH(c->runs, c->nruns, s->cap, r);
}

void kp_schedule_switch(struct kp_model_cpu *c, struct kp_sched_cpu *s, uint64_t ts, const WMI_CONTEXTSWAP *sw)
{
	KP_ASSERT(!s->have || ts >= s->ts, "a CPU's switches in time order (%" PRIu64 " after %" PRIu64 ")", ts,
		  s->ts);
	if (!s->have) /* its start: the trace's begin, once known */
		push_run(c, s, (struct kp_run){ .start = ts, .end = ts, .tid = sw->OldThreadId,
					      .priority = sw->OldThreadPriority, .from_start = true,
					      .end_state = sw->OldThreadState,
					      .end_reason = sw->OldThreadWaitReason });
	else {
		struct kp_run r = { .start = s->ts, .end = ts, .tid = s->last.NewThreadId,
				    .priority = s->last.NewThreadPriority, .end_state = sw->OldThreadState,
				    .end_reason = sw->OldThreadWaitReason };
		r.gap = sw->OldThreadId != r.tid;
		c->gaps += r.gap;
		push_run(c, s, r);
	}
	s->have = true;
	s->ts = ts;
	s->last = *sw;
}

void kp_schedule_finish(struct kp_model *m, struct kp_model_cpu *c, struct kp_sched_cpu *s)
{
	if (!s->have)
		return;
	if (c->runs[0].end > m->begin) /* the thread before the first switch */
		c->runs[0].start = m->begin;
	else /* the first switch is at the begin: nothing ran before it */
		memmove(c->runs, c->runs + 1, --c->nruns * sizeof(*c->runs));
	push_run(c, s, (struct kp_run){ .start = s->ts, .end = m->end, .tid = s->last.NewThreadId,
				      .priority = s->last.NewThreadPriority, .to_end = true });
	for (size_t i = 0; i < c->nruns; i++) {
		struct kp_run *r = &c->runs[i];
		r->no_trace = kp_hole_overlap(c, r->start, r->end);
		r->stalled = kp_stall_overlap(c, r->start, r->end);
		if (r->tid)
			c->busy += r->end - r->start - r->no_trace - r->stalled;
		else
			c->idle += r->end - r->start - r->no_trace - r->stalled;
	}
}
