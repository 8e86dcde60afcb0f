/*
 * test_stats.c - quickselect and medians (kernel/lib/stats.c) against a
 * sorted copy, on the inputs timing samples have: random, sorted,
 * reversed, constant, and with a few huge outliers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/lib/stats.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void check_all_ranks(const uint64_t *in, size_t n)
{
	uint64_t *sorted = malloc(n * sizeof(*sorted)), *work = malloc(n * sizeof(*work));
	memcpy(sorted, in, n * sizeof(*in));
	qsort(sorted, n, sizeof(*sorted), cmp);
	for (size_t k = 0; k < n; k++) {
		memcpy(work, in, n * sizeof(*in));
		assert_int_equal(select_u64(work, n, k), sorted[k]);
	}
	memcpy(work, in, n * sizeof(*in));
	assert_int_equal(median_u64(work, n), sorted[(n - 1) / 2]);
	free(sorted);
	free(work);
}

static void test_shapes(void **state)
{
	(void)state;
	enum { N = 257 };
	uint64_t v[N];
	srand(1);
	for (size_t n = 1; n <= 64; n++) {
		for (size_t i = 0; i < n; i++)
			v[i] = (uint64_t)(rand() % 16); /* many duplicates */
		check_all_ranks(v, n);
		for (size_t i = 0; i < n; i++)
			v[i] = (uint64_t)rand() * 7919;
		check_all_ranks(v, n);
	}
	for (size_t i = 0; i < N; i++)
		v[i] = i;
	check_all_ranks(v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = N - i;
	check_all_ranks(v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = 42;
	check_all_ranks(v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = 3000 + (uint64_t)(rand() % 100) + (i % 50 == 0 ? UINT64_MAX / 2 : 0);
	check_all_ranks(v, N);
}

static void test_median_of_nothing(void **state)
{
	(void)state;
	assert_int_equal(median_u64(NULL, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_median_of_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
