/*
 * test_tracefit.c - the sizing of every CPU's trace buffer against free
 * memory (kernel/trace/config/tracefit.c): the size it accepts always fits with
 * the reserve left, one more sub-buffer would not, and a machine too small
 * for the smallest ring gets 0 (refused).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernel/trace/trace.h"
#include "kernel/trace/config/tracefit.h"

/* The answer fits, and is the largest that does (or the cap). */
static void check_most(uint64_t free_kb, uint32_t ncpu, uint32_t sub, uint32_t max)
{
	uint32_t most = trace_fit_most_kb(free_kb, ncpu, sub, max);
	uint64_t keep = trace_fit_reserve_kb(ncpu);
	if (!most) {
		assert_true(ncpu * trace_fit_cpu_kb(TRACE_MIN_SUBBUFS * sub, sub) + keep > free_kb);
		return;
	}
	assert_int_equal(most % sub, 0);
	assert_true(most >= TRACE_MIN_SUBBUFS * sub && most <= max);
	assert_true(ncpu * trace_fit_cpu_kb(most, sub) + keep <= free_kb);
	if (most + sub <= max)
		assert_true(ncpu * trace_fit_cpu_kb(most + sub, sub) + keep > free_kb);
}

static void test_issue_12_cases(void **state)
{
	(void)state;
	/* 2 CPUs, 512 MiB (about 510.6 MiB free): 256 MiB each does not fit. */
	uint32_t most = trace_fit_most_kb(522896, 2, 64, 262144);
	assert_true(most < 262144 && most > 200 * 1024);
	check_most(522896, 2, 64, 262144);
	/* 64 CPUs x 16 MiB in 512 MiB: made smaller, every CPU still gets a ring. */
	most = trace_fit_most_kb(505 * 1024, 64, 64, 16384);
	assert_true(most >= 2 * 64 && most < 16384);
	check_most(505 * 1024, 64, 64, 16384);
	/* What fits is left alone. */
	assert_int_equal(trace_fit_most_kb(1264 * 1024, 64, 64, 16384), 16384);
}

static void test_sweep(void **state)
{
	(void)state;
	static const uint32_t subs[] = { 4, 64, 1024 };
	for (uint64_t free_kb = 0; free_kb <= 4u << 20; free_kb += 12345)
		for (uint32_t ncpu = 1; ncpu <= 256; ncpu *= 3)
			for (size_t s = 0; s < sizeof(subs) / sizeof(subs[0]); s++)
				check_most(free_kb, ncpu, subs[s], 262144);
}

static void test_too_small(void **state)
{
	(void)state;
	assert_int_equal(trace_fit_most_kb(0, 2, 64, 16384), 0);
	assert_int_equal(trace_fit_most_kb(trace_fit_reserve_kb(2), 2, 64, 16384), 0);
	assert_int_equal(trace_fit_most_kb(1 << 20, 0, 64, 16384), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_issue_12_cases),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_too_small),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
