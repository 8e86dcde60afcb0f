/*
 * test_latency.c - kernel/noise/latency.c: the timer latency
 * histogram's buckets, overflow, maximum and sum, and its percentiles
 * (the floor of the bucket holding the sample of that rank), with
 * lateness values chosen by the test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/noise/latency.h"

static void test_empty(void **state)
{
	(void)state;
	static struct latency_hist h;
	memset(&h, 0, sizeof(h));
	assert_int_equal(latency_percentile_us(&h, 500), 0);
	assert_int_equal(latency_percentile_us(&h, 990), 0);
}

/* 100 samples: 1..100 us late (plus 500 ns): p50 is the 50th, p99 the
 * 99th; the maximum and sum exact. */
static void test_percentiles(void **state)
{
	(void)state;
	static struct latency_hist h;
	uint64_t sum = 0;
	memset(&h, 0, sizeof(h));
	for (uint64_t us = 100; us >= 1; us--) {
		latency_add(&h, us * 1000 + 500);
		sum += us * 1000 + 500;
	}
	assert_int_equal(h.samples, 100);
	assert_int_equal(h.max_ns, 100500);
	assert_int_equal(h.sum_ns, sum);
	assert_int_equal(latency_percentile_us(&h, 500), 50);
	assert_int_equal(latency_percentile_us(&h, 990), 99);
	assert_int_equal(latency_percentile_us(&h, 1000), 100);
	assert_int_equal(latency_percentile_us(&h, 0), 1);
}

/* Beyond the buckets: counted in overflow, the percentile that lands
 * there says LATENCY_BUCKETS, the maximum stays exact. */
static void test_overflow(void **state)
{
	(void)state;
	static struct latency_hist h;
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 98; i++)
		latency_add(&h, 999);
	latency_add(&h, (uint64_t)LATENCY_BUCKETS * 1000);
	latency_add(&h, 7000000);
	assert_int_equal(h.overflow, 2);
	assert_int_equal(h.bucket[0], 98);
	assert_int_equal(h.max_ns, 7000000);
	assert_int_equal(latency_percentile_us(&h, 500), 0);
	assert_int_equal(latency_percentile_us(&h, 980), 0);
	assert_int_equal(latency_percentile_us(&h, 990), LATENCY_BUCKETS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_percentiles),
		cmocka_unit_test(test_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
