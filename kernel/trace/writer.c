/*
 * writer.c - the record writer: the hot path every traced event takes.
 *
 * Group check (trace_enabled, inline in trace.h), then reserve (which
 * takes the time stamp, or uses one taken ahead: trace_record_begin_
 * stamped), fill, commit.  No locks, any IRQL.  A writer
 * below DISPATCH_LEVEL raises to it for the few instructions between
 * reserve and commit so that it cannot be moved to another CPU while it
 * holds space in this CPU's buffer; above it, nothing changes.  A record
 * whose clock read went back (tracebuf.c clamps its stamp) is followed by
 * a clock-step record (KPROF_CLOCK_STEP) saying how far.
 */
#include "kernel/trace/trace.h"

#include "kernel/lib/libk.h"
#include "kernel/ke/prcb.h"

PERFINFO_GROUPMASK trace_groups;

static inline __attribute__((always_inline)) void *begin(struct trace_record *rec, uint16_t hook, uint8_t version,
							   uint16_t payload_size, const struct trace_stamp *given)
{
	uint32_t size = ALIGN_UP((uint32_t)sizeof(PERFINFO_TRACE_HEADER) + payload_size, PERFINFO_RECORD_ALIGN);

	rec->old_irql = ke_get_current_irql();
	rec->raised = rec->old_irql < DISPATCH_LEVEL;
	if (rec->raised)
		ke_raise_irql(DISPATCH_LEVEL); /* stay on this CPU until commit */
	struct trace_cpu *tc = ke_get_current_prcb()->TraceCpu;
	if (!tc || !tracebuf_reserve_inline(tc, size, &rec->r, tracebuf_clock, given)) {
		if (rec->raised)
			ke_lower_irql(rec->old_irql);
		return NULL;
	}
	PERFINFO_TRACE_HEADER *h = rec->r.hdr;
	h->Marker = perfinfo_marker(version);
	h->Size = (uint16_t)(sizeof(*h) + payload_size);
	h->HookId = hook;
	return h + 1;
}

void *trace_record_begin(struct trace_record *rec, uint16_t hook, uint8_t version, uint16_t payload_size)
{
	return begin(rec, hook, version, payload_size, NULL);
}

void *trace_record_begin_stamped(struct trace_record *rec, uint16_t hook, uint8_t version, uint16_t payload_size,
				 const struct trace_stamp *stamp)
{
	return begin(rec, hook, version, payload_size, stamp);
}

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

void trace_record_commit(struct trace_record *rec)
{
	uint16_t hook = rec->r.hdr->HookId; /* before the reader may take it */

	tracebuf_commit(&rec->r);
	if (rec->r.switched)
		trace_subbuffer_filled(); /* the sub-buffer before this one is full */
	if (rec->r.back)
		record_step(&rec->r, hook); /* still at DISPATCH_LEVEL or above: this CPU */
	if (rec->raised)
		ke_lower_irql(rec->old_irql);
}
