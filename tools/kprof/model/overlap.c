/*
 * overlap.c - how much of a stretch of a CPU's time lies in its holes (no
 * trace) and in its stalls (model.h): what the schedule (schedule.c), the
 * stalls (stall.c), the report and the pictures all ask.  Both sets are
 * sorted by start; stalls are disjoint, holes may overlap (their union
 * counts).  A file of its own, below schedule.c and stall.c, so that
 * neither calls the other.
 */
#include "tools/kprof/model/model.h"

#include <stddef.h>

#include "tools/kprof/util/sort.h"

uint64_t kp_hole_overlap(const struct kp_model_cpu *c, uint64_t s, uint64_t e)
{
	uint64_t lost = 0, from = s; /* holes are by start: from is where the union so far ends */

	for (size_t k = 0; k < c->nholes && c->holes[k].start < e; k++) {
		uint64_t hs = c->holes[k].start > from ? c->holes[k].start : from;
		uint64_t he = c->holes[k].end < e ? c->holes[k].end : e;
		if (he > hs) {
			lost += he - hs;
			from = he;
		}
	}
	return lost;
}

/* The first stall that ends after s (stalls are disjoint and sorted, so
 * their ends are sorted too). */
static size_t first_after(const struct kp_model_cpu *c, uint64_t s)
{
	return kp_bound_u64(c->stalls, c->nstalls, sizeof(*c->stalls), offsetof(struct kp_stall, end), s, true);
}

uint64_t kp_stall_overlap(const struct kp_model_cpu *c, uint64_t s, uint64_t e)
{
	uint64_t stalled = 0;

	for (size_t k = first_after(c, s); k < c->nstalls && c->stalls[k].start < e; k++) {
		uint64_t os = c->stalls[k].start > s ? c->stalls[k].start : s;
		uint64_t oe = c->stalls[k].end < e ? c->stalls[k].end : e;
		if (oe > os)
			stalled += oe - os - kp_hole_overlap(c, os, oe);
	}
	return stalled;
}
