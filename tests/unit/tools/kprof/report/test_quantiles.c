/*
 * test_quantiles.c - tools/kprof/report/quantiles.c: exact nearest-rank
 * medians and 99th percentiles, plain and weighted, in bounded memory.
 *
 * Every case is answered independently here, the way tools/kprof/report/stats.c does
 * it (every value kept and sorted, then the running weight read), and
 * compared with what the module gives over budgets from 1 value (every
 * window sliced until it is one value wide) to all of them (one reading).
 * The cases: random series of many sizes and spreads, weighted and not;
 * values at 0 and at UINT64_MAX; every value equal (no reading at all);
 * series with no value between others; heavy ties; and more windows than
 * one reading slices (they wait their turn).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/xorshift.h"

#include "tools/kprof/report/quantiles.h"

struct val {
	uint32_t series;
	uint64_t v, w;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	return xorshift64(&rng);
}

static int cmp_val(const void *a, const void *b)
{
	const struct val *x = a, *y = b;
	if (x->series != y->series)
		return x->series < y->series ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* The oracle: the series' values sorted, the rank's value read off. */
static void expect(const struct val *sorted, size_t n, uint32_t series, struct kp_quantile_result *r)
{
	uint64_t total = 0, cum = 0;
	size_t first = 0, count = 0;
	bool have50 = false, have99 = false;

	memset(r, 0, sizeof(*r));
	while (first < n && sorted[first].series != series)
		first++;
	for (size_t i = first; i < n && sorted[i].series == series; i++)
		total += sorted[i].w, count++;
	if (!count)
		return;
	uint64_t r50 = (50 * total + 99) / 100, r99 = (99 * total + 99) / 100;
	for (size_t i = first; i < first + count; i++) {
		cum += sorted[i].w;
		if (!have50 && cum >= r50)
			r->median = sorted[i].v, have50 = true;
		if (!have99 && cum >= r99)
			r->p99 = sorted[i].v, have99 = true;
	}
	r->count = count;
	r->weight = total;
	r->max = sorted[first + count - 1].v;
}

/* Runs the module over vals with the budget; returns its readings. */
static unsigned check_with(const struct val *vals, size_t n, uint32_t nseries, size_t budget)
{
	struct kp_quantiles *q = kp_quantiles_new(budget);
	struct val *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	unsigned readings;

	for (size_t i = 0; i < n; i++)
		kp_quantiles_count(q, vals[i].series % 2, vals[i].series / 2, vals[i].v, vals[i].w);
	while (kp_quantiles_replay(q))
		for (size_t i = n; i-- > 0;) /* another order than the counting's */
			kp_quantiles_add(q, vals[i].series % 2, vals[i].series / 2, vals[i].v, vals[i].w);
	memcpy(sorted, vals, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_val);
	for (uint32_t s = 0; s < nseries + 2; s++) {
		struct kp_quantile_result got, want;
		kp_quantiles_get(q, s % 2, s / 2, &got);
		expect(sorted, n, s, &want);
		if (memcmp(&got, &want, sizeof(got)))
			fail_msg("series %u of %u, %zu values, budget %zu: got n %llu w %llu median %llu p99 %llu max "
				 "%llu, want n %llu w %llu median %llu p99 %llu max %llu",
				 s, nseries, n, budget, (unsigned long long)got.count, (unsigned long long)got.weight,
				 (unsigned long long)got.median, (unsigned long long)got.p99, (unsigned long long)got.max,
				 (unsigned long long)want.count, (unsigned long long)want.weight,
				 (unsigned long long)want.median, (unsigned long long)want.p99,
				 (unsigned long long)want.max);
	}
	readings = kp_quantiles_readings(q);
	kp_quantiles_free(q);
	free(sorted);
	return readings;
}

static const size_t budgets[] = { 1, 2, 3, 17, 1000, 1u << 20 };

/* Every budget; the whole one takes exactly one reading (or none). */
static void check_all(const struct val *vals, size_t n, uint32_t nseries)
{
	for (size_t b = 0; b < sizeof(budgets) / sizeof(budgets[0]); b++) {
		unsigned r = check_with(vals, n, nseries, budgets[b]);
		if (budgets[b] >= n)
			assert_true(r <= 1);
	}
}

/* A value of one of several spreads: small, wide, 64-bit, or near the top. */
static uint64_t value(unsigned spread)
{
	switch (spread % 4) {
	case 0:
		return next() % 100;
	case 1:
		return next() % 5000000;
	case 2:
		return next();
	default:
		return UINT64_MAX - next() % 3;
	}
}

static void test_random(void **state)
{
	(void)state;
	for (unsigned round = 0; round < 60; round++) {
		uint32_t nseries = 1 + (uint32_t)(next() % 6);
		size_t n = (size_t)(next() % (round < 30 ? 50 : 3000));
		bool weighted = round % 2;
		struct val *vals = malloc((n ? n : 1) * sizeof(*vals));
		for (size_t i = 0; i < n; i++) {
			uint32_t s = (uint32_t)(next() % nseries);
			if (s == 1 && nseries > 2)
				s = 2; /* series 1 has no value, between others */
			vals[i] = (struct val){ s, value(s + round), weighted ? 1 + next() % 1000 : 1 };
		}
		check_all(vals, n, nseries);
		free(vals);
	}
}

/* Extremes, a series of one value repeated, heavy ties. */
static void test_edges(void **state)
{
	struct val vals[600];
	size_t n = 0;

	(void)state;
	vals[n++] = (struct val){ 0, 0, 1 };
	vals[n++] = (struct val){ 0, UINT64_MAX, 1 };
	vals[n++] = (struct val){ 0, UINT64_MAX, 1 };
	for (int i = 0; i < 200; i++)
		vals[n++] = (struct val){ 1, 42, 1 + (uint64_t)i % 3 };
	for (int i = 0; i < 300; i++)
		vals[n++] = (struct val){ 2, (uint64_t)(i % 4) << 40, 1 };
	vals[n++] = (struct val){ 3, 7, 1000000 }; /* one heavy value among light ones */
	for (int i = 0; i < 90; i++)
		vals[n++] = (struct val){ 3, 8 + (uint64_t)i, 1 };
	check_all(vals, n, 4);
}

/* Every value equal: answered from the counting, no reading. */
static void test_no_reading(void **state)
{
	struct val vals[50];

	(void)state;
	for (int i = 0; i < 50; i++)
		vals[i] = (struct val){ (uint32_t)(i % 2), 5 + (uint64_t)(i % 2), 1 };
	assert_int_equal(check_with(vals, 50, 2, 1), 0);
}

/* 64-bit values, budget 1: each reading narrows a window 256 times, so
 * 9 readings at most; with more windows than one reading slices, the rest
 * wait and the answers are still exact. */
static void test_readings(void **state)
{
	size_t n = 5000;
	struct val *vals = malloc(n * sizeof(*vals));

	(void)state;
	for (size_t i = 0; i < n; i++)
		vals[i] = (struct val){ 0, next(), 1 };
	assert_true(check_with(vals, n, 1, 1) <= 9);
	for (size_t i = 0; i < n; i++) /* 2500 series of 2 values: 2500 windows */
		vals[i] = (struct val){ (uint32_t)(i / 2), next() % 1000, 1 };
	unsigned r = check_with(vals, n, 2500, 1);
	assert_true(r >= 3); /* 1024 sliced a reading */
	free(vals);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_no_reading),
		cmocka_unit_test(test_readings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
