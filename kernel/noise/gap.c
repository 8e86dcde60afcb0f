/*
 * gap.c - the gap detector of scenario=noise (gap.h): one tight loop of
 * clock reads, each step above the threshold kept as a gap, and the join
 * that marks gaps seen by several CPUs at once.
 *
 * Invariants: the NOISE_GAPS_MAX longest gaps are kept, in time order at
 * the end, and never overlap on one scan; total and max count every gap,
 * kept or not; the SMI count is read only after a gap.
 *
 * A gap's bookkeeping (the SMI read, keeping it) takes the clock's time
 * too, and something may take the CPU during it.  So it is short and
 * bounded: the kept gaps are a min-heap by length while the scan runs
 * (keeping one is O(log NOISE_GAPS_MAX), not a search of them all: under
 * TCG that search took tens of microseconds a gap, and a 300 ms stop of
 * the whole machine fell into it in a quarter of the runs, unseen).  And
 * no step goes unchecked: the bookkeeping lies inside the next step, the
 * one from the gap's last read to the loop's next, and that step is held
 * against the bookkeeping limit (NOISE_BOOKKEEPING_FACTOR times the
 * threshold): above it, the CPU was taken during the bookkeeping and the
 * gap lasts to that read, its own bookkeeping then checked the same way;
 * below it, the step is the bookkeeping's own cost, no gap.  So a slow
 * bookkeeping starts no chain of gaps, and a stop anywhere is in a gap.
 * (Before, a gap lengthened so had its bookkeeping unchecked: a 300 ms
 * stop that fell there went unseen, 1 noise-stop run in 10 under TCG.)
 * Pure: no kernel header.
 */
#include "kernel/noise/gap.h"

#include <stddef.h>

static void swap_gaps(struct noise_gap *a, struct noise_gap *b)
{
	struct noise_gap t = *a;
	*a = *b;
	*b = t;
}

/* gap[i]'s length may have grown: move it down the min-heap of
 * gap[0..kept) to its place; its final index. */
static uint32_t sift_down(struct noise_scan *s, uint32_t i)
{
	for (;;) {
		uint32_t least = i, l = 2 * i + 1, r = l + 1;
		if (l < s->kept && s->gap[l].cycles < s->gap[least].cycles)
			least = l;
		if (r < s->kept && s->gap[r].cycles < s->gap[least].cycles)
			least = r;
		if (least == i)
			return i;
		swap_gaps(&s->gap[i], &s->gap[least]);
		i = least;
	}
}

static uint32_t sift_up(struct noise_scan *s, uint32_t i)
{
	while (i > 0 && s->gap[(i - 1) / 2].cycles > s->gap[i].cycles) {
		swap_gaps(&s->gap[i], &s->gap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	return i;
}

/* Keep g among the NOISE_GAPS_MAX longest (gap[] a min-heap by length):
 * added while there is room, else in place of the shortest kept when
 * longer.  Its index in gap[], or NOISE_GAPS_MAX when not kept. */
static uint32_t keep(struct noise_scan *s, const struct noise_gap *g)
{
	if (s->kept < NOISE_GAPS_MAX) {
		s->gap[s->kept] = *g;
		return sift_up(s, s->kept++);
	}
	if (g->cycles <= s->gap[0].cycles)
		return NOISE_GAPS_MAX;
	s->gap[0] = *g;
	return sift_down(s, 0);
}

static void sort_by_start(struct noise_scan *s)
{
	for (uint32_t i = 1; i < s->kept; i++) {
		struct noise_gap g = s->gap[i];
		uint32_t j = i;
		for (; j > 0 && s->gap[j - 1].start > g.start; j--)
			s->gap[j] = s->gap[j - 1];
		s->gap[j] = g;
	}
}

void noise_scan_run(struct noise_scan *s)
{
	uint64_t smi = s->smi ? s->smi(s->ctx) : 0;
	uint64_t prev = s->begin;
	uint64_t limit = s->threshold * NOISE_BOOKKEEPING_FACTOR;
	struct noise_gap open = { 0 }; /* the last gap, while the next step may lengthen it */
	uint32_t at = NOISE_GAPS_MAX;  /* its index in gap[], or NOISE_GAPS_MAX: not kept */
	bool after_gap = false;        /* this step includes that gap's bookkeeping */

	s->total = s->max = 0;
	s->count = s->kept = 0;
	for (;;) {
		uint64_t t = s->now(s->ctx);
		uint64_t step = t > prev ? t - prev : 0; /* behind `begin` (another CPU's read): no step */
		bool grew = false;
		if (after_gap && step > limit) {
			/* the CPU was taken during the last gap's bookkeeping:
			 * that gap lasts to this read */
			open.cycles += step;
			if (s->smi) /* an SMI then is this gap's */
				open.smi_after = s->smi(s->ctx);
			if (at < NOISE_GAPS_MAX) {
				s->gap[at].cycles = open.cycles;
				s->gap[at].smi_after = open.smi_after;
				at = sift_down(s, at);
			} else {
				at = keep(s, &open);
			}
			grew = true;
		} else if (!after_gap && step > s->threshold) {
			open = (struct noise_gap){ .start = prev, .cycles = step, .smi_before = smi };
			open.smi_after = s->smi ? s->smi(s->ctx) : 0;
			at = keep(s, &open);
			s->count++;
			grew = true;
		} /* else a step after a bookkeeping, at most the limit: its own cost */
		after_gap = grew;
		if (grew) {
			s->total += step;
			if (open.cycles > s->max)
				s->max = open.cycles;
			smi = open.smi_after;
		}
		prev = t;
		if (t >= s->end)
			break;
	}
	s->last = prev;
	sort_by_start(s);
}

bool noise_gaps_overlap(const struct noise_gap *a, const struct noise_gap *b)
{
	return a->start < b->start + b->cycles && b->start < a->start + a->cycles;
}

/* One sweep a pair of scans: both hold their kept gaps in time order, and
 * one scan's gaps never overlap each other, so they end in that order too.
 * For each gap of `mine` the first of `other`'s that ends after it starts
 * only moves forward, and it is the only one that can overlap it.  The
 * pairwise loop this replaces compared every gap with every gap (131,072
 * tests a window for two CPUs of 256 gaps): on a hypervisor whose memory
 * accesses are slow (this build host's KVM with software paging) that took
 * 5 to 11 s a window. */
static void correlate_pair(struct noise_scan *mine, const struct noise_scan *other)
{
	uint32_t h = 0;

	for (uint32_t g = 0; g < mine->kept; g++) {
		struct noise_gap *a = &mine->gap[g];
		while (h < other->kept && other->gap[h].start + other->gap[h].cycles <= a->start)
			h++;
		if (h < other->kept && noise_gaps_overlap(a, &other->gap[h]))
			a->overlaps++; /* one CPU counts once */
	}
}

void noise_correlate(struct noise_scan *const *scans, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (!scans[i])
			continue;
		for (uint32_t g = 0; g < scans[i]->kept; g++)
			scans[i]->gap[g].overlaps = 0;
		for (uint32_t j = 0; j < n; j++)
			if (j != i && scans[j])
				correlate_pair(scans[i], scans[j]);
	}
}
