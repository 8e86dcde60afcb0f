/*
 * stall.c - the model's stall intervals: per CPU, the time it could not
 * run, from its KprofClockLate records (kernel/ke/time/clock.c, hook 0xFE02).
 *
 * A KprofClockLate record says the CPU's earliest timer entry was due at
 * DueTime and the clock interrupt that handled it was done LateCycles,
 * more than 200 us, later (the kernel's own measure; the record's
 * TimeStamp comes a few cycles after): from DueTime to DueTime +
 * LateCycles the CPU took no interrupt, because its virtual CPU
 * was not running (steal time: the host ran something else) or it waited
 * with interrupts masked.  That interval is a stall.  The kernel writes
 * it only past 200 us, so shorter stalls are not in the model at all.
 *
 * The intervals are cut to the trace (begin..end) and merged where they
 * overlap, so a CPU's stalls are disjoint and sorted: their cycles
 * (outside the CPU's holes, which are no trace and counted there) are the
 * CPU's stalled time, and for any stretch of the CPU's time
 * kp_stall_overlap() (overlap.c) says how much of it was stalled.  The schedule
 * (schedule.c) takes them out of busy and idle time and out of the
 * running thread's CPU time; the report takes them out of spin-lock waits;
 * the timeline shades them and trace.json draws them on "CPU n stalled".
 */
#include "tools/kprof/model/model.h"

#include <string.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

void kp_stall_add(struct kp_model_cpu *c, const struct kp_record *r)
{
	KPROF_CLOCK_LATE k;

	memcpy(&k, r->payload, sizeof(k));
	c->stall_records++;
	if (!k.LateCycles || k.DueTime + k.LateCycles < k.DueTime)
		return; /* not late after all, or a span that cannot be */
	struct kp_stall s = { .start = k.DueTime, .end = k.DueTime + k.LateCycles, .records = 1 };
	KP_PUSH(c->stalls, c->nstalls, c->capstalls, s);
}

static int cmp_stall(const void *a, const void *b)
{
	const struct kp_stall *x = a, *y = b;
	int c = kp_cmp_u64(x->start, y->start);
	return c ? c : kp_cmp_u64(x->end, y->end);
}

void kp_stall_finish(const struct kp_model *m, struct kp_model_cpu *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nstalls; i++) { /* cut to the trace */
		struct kp_stall s = c->stalls[i];
		s.start = s.start < m->begin ? m->begin : s.start;
		s.end = s.end > m->end ? m->end : s.end;
		if (s.end > s.start)
			c->stalls[n++] = s;
	}
	c->nstalls = n;
	kp_sort_nearly(c->stalls, n, sizeof(*c->stalls), cmp_stall); /* they come by time */
	n = 0;
	for (size_t i = 0; i < c->nstalls; i++) { /* merge: disjoint, by start */
		struct kp_stall *last = n ? &c->stalls[n - 1] : NULL;
		if (last && c->stalls[i].start <= last->end) {
			if (c->stalls[i].end > last->end)
				last->end = c->stalls[i].end;
			last->records += c->stalls[i].records;
		} else {
			c->stalls[n++] = c->stalls[i];
		}
	}
	c->nstalls = n;
	c->stalled = kp_stall_overlap(c, m->begin, m->end);
}
