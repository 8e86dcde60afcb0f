/*
 * test_pace.c - ki_profile_paced_interval() (kernel/profile/pace.c)
 * with the round trips measured on the machines kprof ran on: TCG (about
 * 1.2 us), this host's KVM with software paging (0.7 ms, and 1.7 ms while
 * the 1 ms profile timer ran), and the bounds: the exact fit, rounding up
 * to the step, the largest interval, and a given interval kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernel/profile/pace.h"
#include "kernel/profile/source.h"

static void test_cheap_interrupts_keep_the_default(void **state)
{
	(void)state;
	assert_int_equal(ki_profile_paced_interval(PROFILE_TIME_DEFAULT_INTERVAL, false, 1200),
			 PROFILE_TIME_DEFAULT_INTERVAL);
	assert_int_equal(ki_profile_paced_interval(PROFILE_TIME_DEFAULT_INTERVAL, false, 0),
			 PROFILE_TIME_DEFAULT_INTERVAL);
}

static void test_exact_fit_is_kept(void **state)
{
	(void)state;
	/* 10 round trips of 100 us are 1 ms: they just fit. */
	assert_int_equal(ki_profile_paced_interval(10000, false, 100000), 10000);
	/* One nanosecond more does not. */
	assert_int_equal(ki_profile_paced_interval(10000, false, 100001), 10000 + PROFILE_PACE_STEP);
}

static void test_slow_interrupts_lengthen_it(void **state)
{
	(void)state;
	/* KVM with software paging: 0.74 ms a round trip -> 7.4 ms -> 7.4 ms. */
	assert_int_equal(ki_profile_paced_interval(PROFILE_TIME_DEFAULT_INTERVAL, false, 740000), 74000);
	/* 1.7 ms -> 17 ms; 1.234 ms -> 12.34 ms rounded up to 12.4 ms. */
	assert_int_equal(ki_profile_paced_interval(PROFILE_TIME_DEFAULT_INTERVAL, false, 1700000), 170000);
	assert_int_equal(ki_profile_paced_interval(PROFILE_TIME_DEFAULT_INTERVAL, false, 1234000), 124000);
	assert_int_equal(ki_profile_paced_interval(PROFILE_TIME_DEFAULT_INTERVAL, false, 1234000) % PROFILE_PACE_STEP, 0);
}

static void test_never_past_the_largest(void **state)
{
	(void)state;
	assert_int_equal(ki_profile_paced_interval(PROFILE_TIME_DEFAULT_INTERVAL, false, 500000000ull),
			 PROFILE_TIME_MAX_INTERVAL);
	assert_int_equal(ki_profile_paced_interval(PROFILE_TIME_DEFAULT_INTERVAL, false, UINT64_MAX),
			 PROFILE_TIME_MAX_INTERVAL);
}

static void test_a_given_interval_is_kept(void **state)
{
	(void)state;
	assert_int_equal(ki_profile_paced_interval(PROFILE_TIME_MIN_INTERVAL, true, 1700000), PROFILE_TIME_MIN_INTERVAL);
	assert_int_equal(ki_profile_paced_interval(PROFILE_TIME_DEFAULT_INTERVAL, true, 1700000),
			 PROFILE_TIME_DEFAULT_INTERVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cheap_interrupts_keep_the_default),
		cmocka_unit_test(test_exact_fit_is_kept),
		cmocka_unit_test(test_slow_interrupts_lengthen_it),
		cmocka_unit_test(test_never_past_the_largest),
		cmocka_unit_test(test_a_given_interval_is_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
