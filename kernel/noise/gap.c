/*
 * gap.c - the gap detector of scenario=noise (gap.h): one tight loop of
 * clock reads, each step above the threshold kept as a gap, and the join
 * that marks gaps seen by several CPUs at once.
 *
 * Invariants: the NOISE_GAPS_MAX longest gaps are kept, in time order at
 * the end, and never overlap on one scan; total and max count every gap,
 * kept or not; the SMI count is read only after a gap, and the clock is
 * read again after the gap's bookkeeping, so its cost never shows as the
 * next gap.  Pure: no kernel header.
 */
#include "kernel/noise/gap.h"

#include <stddef.h>

/* Keep g among the NOISE_GAPS_MAX longest: appended while there is room,
 * else in place of the shortest kept when longer. */
static void keep(struct noise_scan *s, const struct noise_gap *g)
{
	uint32_t shortest = 0;

	if (s->kept < NOISE_GAPS_MAX) {
		s->gap[s->kept++] = *g;
		return;
	}
	for (uint32_t i = 1; i < s->kept; i++)
		if (s->gap[i].cycles < s->gap[shortest].cycles)
			shortest = i;
	if (g->cycles > s->gap[shortest].cycles)
		s->gap[shortest] = *g;
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

	s->total = s->max = 0;
	s->count = s->kept = 0;
	for (;;) {
		uint64_t t = s->now(s->ctx);
		uint64_t step = t > prev ? t - prev : 0; /* behind `begin` (another CPU's read): no step */
		if (step > s->threshold) {
			struct noise_gap g = { .start = prev, .cycles = step, .smi_before = smi };
			g.smi_after = s->smi ? s->smi(s->ctx) : 0;
			keep(s, &g);
			s->count++;
			s->total += step;
			if (step > s->max)
				s->max = step;
			smi = g.smi_after;
			t = s->now(s->ctx); /* the bookkeeping is not the next gap */
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
