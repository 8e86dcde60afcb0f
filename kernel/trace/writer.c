/*
 * writer.c - the record writer's rare cases; its hot path, the one every
 * traced event takes, is inline in trace.h.
 *
 * Group check (trace_enabled), then reserve (which takes the time stamp,
 * or uses one taken ahead: trace_record_begin_stamped), fill, commit.  No
 * locks, any IRQL.  A writer below DISPATCH_LEVEL raises to it for the
 * few instructions between reserve and commit so that it cannot be moved
 * to another CPU while it holds space in this CPU's buffer; above it,
 * nothing changes.  Here: the flusher's wake-up when a sub-buffer is
 * filled, and the clock-step record (KPROF_CLOCK_STEP) that follows a
 * record whose clock read went back (tracebuf.c clamps its stamp), saying
 * how far.
 */
#include "kernel/trace/trace.h"

#include "kernel/lib/libk.h"
#include "kernel/ke/prcb.h"

PERFINFO_GROUPMASK trace_groups;

/* The clock went back under the record just committed (tracebuf.c
 * clamped its stamp): say so right after it, on this CPU.  Its own read
 * is later than the one that stepped, so it does not step again. */
static void record_step(const struct trace_reservation *r, uint16_t hook)
{
	struct trace_record step;
	KPROF_CLOCK_STEP *p = trace_record_begin(&step, KPROF_LOG_TYPE_CLOCK_STEP, CLOCK_STEP_VERSION, sizeof(*p));

	if (!p)
		return; /* dropped, counted; the next step record has the total */
	*p = (KPROF_CLOCK_STEP){
		.BackCycles = r->back,
		.RawTsc = r->raw,
		.LastStamp = r->last,
		.Steps = (uint32_t)r->tc->steps_back,
		.ClampedHook = hook,
	};
	trace_record_commit(&step);
}

/* After the commit of a record that filled the sub-buffer before it or
 * whose clock read stepped back; still at DISPATCH_LEVEL or above. */
void trace_record_after_commit(const struct trace_reservation *r, uint16_t hook)
{
	if (r->switched)
		trace_subbuffer_filled(); /* the sub-buffer before this one is full */
	if (r->back)
		record_step(r, hook); /* on this CPU */
}
