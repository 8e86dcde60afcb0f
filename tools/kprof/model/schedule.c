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
 * known), marked as a gap and counted.  Records are sorted by time
 * (stably, so equal time stamps keep log order): a buffer out of order
 * does not make a run of negative length.
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

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

static int cmp_switch(const void *a, const void *b)
{
	const struct kp_switch *x = a, *y = b;
	int c = kp_cmp_u64(x->ts, y->ts);
	return c ? c : kp_cmp_u64(x->order, y->order);
}

static void push_run(struct kp_model_cpu *c, size_t *cap, struct kp_run r)
{
	if (r.end < r.start)
		r.end = r.start;
	KP_PUSH(c->runs, c->nruns, *cap, r);
}

void kp_schedule_build(struct kp_model *m, struct kp_model_cpu *c, struct kp_switch *sw, size_t n)
{
	size_t cap = 0;

	kp_sort(sw, n, sizeof(*sw), cmp_switch);
	if (n && sw[0].ts > m->begin)
		push_run(c, &cap, (struct kp_run){ .start = m->begin, .end = sw[0].ts, .tid = sw[0].c.OldThreadId,
						   .priority = sw[0].c.OldThreadPriority, .from_start = true,
						   .end_state = sw[0].c.OldThreadState,
						   .end_reason = sw[0].c.OldThreadWaitReason });
	for (size_t i = 0; i < n; i++) {
		struct kp_run r = { .start = sw[i].ts, .tid = sw[i].c.NewThreadId,
				    .priority = sw[i].c.NewThreadPriority };
		if (i + 1 < n) {
			r.end = sw[i + 1].ts;
			r.gap = sw[i + 1].c.OldThreadId != r.tid;
			r.end_state = sw[i + 1].c.OldThreadState;
			r.end_reason = sw[i + 1].c.OldThreadWaitReason;
			c->gaps += r.gap;
		} else {
			r.end = m->end;
			r.to_end = true;
		}
		push_run(c, &cap, r);
	}
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
