/*
 * quantiles.h - exact nearest-rank medians and 99th percentiles (plain or
 * weighted) of many series of values, in memory bounded whatever the
 * number of values, over values the caller can give again (quantiles.c).
 *
 *	struct kp_quantiles *q = kp_quantiles_new(budget);
 *	for each value:   kp_quantiles_count(q, space, series, v, w);
 *	while (kp_quantiles_replay(q))
 *		for each value, the same again:   kp_quantiles_add(q, space, series, v, w);
 *	kp_quantiles_get(q, space, series, &r);
 *	kp_quantiles_free(q);
 *
 * A series is a small number chosen by the caller (0, 1, 2 ...: the
 * arrays grow to the largest one counted), in a space (0, 1, ...: one per
 * caller sharing the budget, each numbering its series from 0); w is 1
 * for a plain series.
 * Every reading must give the same values, each to the same series; the
 * order within a reading does not matter.
 */
#ifndef KPROF_TOOL_QUANTILES_H
#define KPROF_TOOL_QUANTILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Values kept at once, the report's (16 bytes each: 16 MiB; 32 MiB read no
 * faster: a 20 M-record log takes as many readings with either).  The
 * environment's KPROF_QUANTILE_BUDGET sets another (report/walk.c), which
 * the tests use to make a small log take several readings. */
#define KP_QUANTILE_BUDGET ((size_t)1 << 20)

struct kp_quantiles;

/* What a series' values came to.  weight: the count of a plain series (the
 * total weight of a weighted one); median and p99 by nearest rank, max the
 * largest value; all 0 when the series had no value. */
struct kp_quantile_result {
	uint64_t count, weight;
	uint64_t median, p99, max;
};

/* Keeping at most `budget` values at once (0 is taken as 1). */
struct kp_quantiles *kp_quantiles_new(size_t budget);
void kp_quantiles_count(struct kp_quantiles *q, size_t space, size_t series, uint64_t v, uint64_t w);
/* After the counting or a reading: true when every value must be given
 * again (kp_quantiles_add), false when every answer is known. */
bool kp_quantiles_replay(struct kp_quantiles *q);
void kp_quantiles_add(struct kp_quantiles *q, size_t space, size_t series, uint64_t v, uint64_t w);
/* Readings done after the counting (for the tests and the bench). */
unsigned kp_quantiles_readings(const struct kp_quantiles *q);
void kp_quantiles_get(const struct kp_quantiles *q, size_t space, size_t series, struct kp_quantile_result *r);
void kp_quantiles_free(struct kp_quantiles *q);

#endif
