/*
 * test_size.c - size_format() (kernel/lib/size.c) in each style the
 * console uses, against the exact strings those messages printed when
 * each had a formatter of its own (the tables below were produced by
 * those four functions): the trace output's throughput line, the stick's
 * saved line, the trace buffer fit messages and the boot log's memory
 * lines.  Boundaries: 0, one byte, the rounding points of K and of the
 * tenths, exact and inexact M, the largest counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/lib/size.h"

struct size_case {
	uint64_t bytes;
	unsigned flags;
	const char *text;
};

static void check(const struct size_case *c, size_t n)
{
	char buf[32];

	for (size_t i = 0; i < n; i++) {
		memset(buf, 'x', sizeof(buf));
		const char *got = size_format(buf, sizeof(buf), c[i].bytes, c[i].flags);
		if (strcmp(got, c[i].text))
			fail_msg("%llu bytes, flags 0x%x: \"%s\", want \"%s\"", (unsigned long long)c[i].bytes,
				 c[i].flags, got, c[i].text);
		assert_ptr_equal(got, buf);
	}
}

/* trace: output ... serial 2.6 MB in 120 ms (21.6 MB/s): decimal, tenths
 * rounded down, "0.x MB" below a megabyte (kernel/trace/out/out.c; also
 * usb.probe=on's read rate). */
static void test_throughput_line(void **state)
{
	static const struct size_case c[] = {
		{ 0ull, SIZE_MB, "0.0 MB" },
		{ 1ull, SIZE_MB, "0.0 MB" },
		{ 499ull, SIZE_MB, "0.0 MB" },
		{ 500ull, SIZE_MB, "0.0 MB" },
		{ 99999ull, SIZE_MB, "0.0 MB" },
		{ 100000ull, SIZE_MB, "0.1 MB" },
		{ 131072ull, SIZE_MB, "0.1 MB" },
		{ 999499ull, SIZE_MB, "0.9 MB" },
		{ 999500ull, SIZE_MB, "0.9 MB" },
		{ 999999ull, SIZE_MB, "0.9 MB" },
		{ 1000000ull, SIZE_MB, "1.0 MB" },
		{ 1099999ull, SIZE_MB, "1.0 MB" },
		{ 1100000ull, SIZE_MB, "1.1 MB" },
		{ 1048576ull, SIZE_MB, "1.0 MB" },
		{ 2600000ull, SIZE_MB, "2.6 MB" },
		{ 2699999ull, SIZE_MB, "2.6 MB" },
		{ 268435456ull, SIZE_MB, "268.4 MB" },
		{ 1000000000000ull, SIZE_MB, "1000000.0 MB" },
		{ 18446744073709551615ull, SIZE_MB, "18446744073709.5 MB" },
	};
	(void)state;
	check(c, sizeof(c) / sizeof(c[0]));
}

/* trace: ... 261 KB saved to \kprof\trace.bin ...: decimal, whole KB
 * (rounded) below a megabyte (kernel/trace/out/out_stick.c). */
static void test_stick_saved_line(void **state)
{
	static const struct size_case c[] = {
		{ 0ull, SIZE_MB | SIZE_SMALL_K, "0 KB" },
		{ 1ull, SIZE_MB | SIZE_SMALL_K, "0 KB" },
		{ 499ull, SIZE_MB | SIZE_SMALL_K, "0 KB" },
		{ 500ull, SIZE_MB | SIZE_SMALL_K, "1 KB" },
		{ 99999ull, SIZE_MB | SIZE_SMALL_K, "100 KB" },
		{ 100000ull, SIZE_MB | SIZE_SMALL_K, "100 KB" },
		{ 131072ull, SIZE_MB | SIZE_SMALL_K, "131 KB" },
		{ 999499ull, SIZE_MB | SIZE_SMALL_K, "999 KB" },
		{ 999500ull, SIZE_MB | SIZE_SMALL_K, "1000 KB" },
		{ 999999ull, SIZE_MB | SIZE_SMALL_K, "1000 KB" },
		{ 1000000ull, SIZE_MB | SIZE_SMALL_K, "1.0 MB" },
		{ 1099999ull, SIZE_MB | SIZE_SMALL_K, "1.0 MB" },
		{ 1100000ull, SIZE_MB | SIZE_SMALL_K, "1.1 MB" },
		{ 1048576ull, SIZE_MB | SIZE_SMALL_K, "1.0 MB" },
		{ 2600000ull, SIZE_MB | SIZE_SMALL_K, "2.6 MB" },
		{ 2699999ull, SIZE_MB | SIZE_SMALL_K, "2.6 MB" },
		{ 268435456ull, SIZE_MB | SIZE_SMALL_K, "268.4 MB" },
		{ 1000000000000ull, SIZE_MB | SIZE_SMALL_K, "1000000.0 MB" },
		{ 18446744073709551615ull, SIZE_MB | SIZE_SMALL_K, "18446744073709.5 MB" },
	};
	(void)state;
	check(c, sizeof(c) / sizeof(c[0]));
}

/* trace: buffers sized down to fit: ... 2 CPUs x 16 MiB ... 510.5 MiB free:
 * binary from a KiB count, KiB below a MiB, no tenths on whole MiB
 * (the trace buffer fit messages). */
static void test_trace_buffer_fit(void **state)
{
	static const struct size_case c[] = {
		{ 0ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "0 KiB" },
		{ 1ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "1 KiB" },
		{ 640ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "640 KiB" },
		{ 1023ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "1023 KiB" },
		{ 1024ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "1 MiB" },
		{ 1025ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "1.0 MiB" },
		{ 1126ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "1.0 MiB" },
		{ 1127ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "1.1 MiB" },
		{ 2047ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "1.9 MiB" },
		{ 2048ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "2 MiB" },
		{ 262144ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "256 MiB" },
		{ 522854ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "510.5 MiB" },
		{ 4194304ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "4096 MiB" },
		{ 4194305ull * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "4096.0 MiB" },
	};
	(void)state;
	check(c, sizeof(c) / sizeof(c[0]));
}

/* memory: usable 510.6 MiB, ...: binary, tenths rounded to the nearest
 * (kernel/console/bootlog.c). */
static void test_memory_lines(void **state)
{
	static const struct size_case c[] = {
		{ 0ull, SIZE_MIB | SIZE_ROUND, "0.0 MiB" },
		{ 1ull, SIZE_MIB | SIZE_ROUND, "0.0 MiB" },
		{ 52428ull, SIZE_MIB | SIZE_ROUND, "0.0 MiB" },
		{ 52429ull, SIZE_MIB | SIZE_ROUND, "0.1 MiB" },
		{ 1048575ull, SIZE_MIB | SIZE_ROUND, "1.0 MiB" },
		{ 1048576ull, SIZE_MIB | SIZE_ROUND, "1.0 MiB" },
		{ 1101004ull, SIZE_MIB | SIZE_ROUND, "1.0 MiB" },
		{ 1101005ull, SIZE_MIB | SIZE_ROUND, "1.1 MiB" },
		{ 10433331ull, SIZE_MIB | SIZE_ROUND, "9.9 MiB" },
		{ 10433332ull, SIZE_MIB | SIZE_ROUND, "10.0 MiB" },
		{ 536870912ull, SIZE_MIB | SIZE_ROUND, "512.0 MiB" },
		{ 1099511627776ull, SIZE_MIB | SIZE_ROUND, "1048576.0 MiB" },
		{ 1152921504606846975ull, SIZE_MIB | SIZE_ROUND, "1099511627776.0 MiB" },
	};
	(void)state;
	check(c, sizeof(c) / sizeof(c[0]));
}

/* Past 1.8e18 bytes the boot log's old arithmetic (bytes * 10) wrapped;
 * the tenths now come from the remainder alone. */
static void test_no_overflow(void **state)
{
	static const struct size_case c[] = {
		{ 1ull << 62, SIZE_MIB | SIZE_ROUND, "4398046511104.0 MiB" },
		{ UINT64_MAX, SIZE_MIB | SIZE_ROUND, "17592186044416.0 MiB" },
		{ UINT64_MAX, SIZE_MIB, "17592186044415.9 MiB" },
		{ UINT64_MAX, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE, "17592186044415.9 MiB" },
	};
	(void)state;
	check(c, sizeof(c) / sizeof(c[0]));
}

/* A short buffer gets what fits, NUL-terminated (ksnprintf). */
static void test_short_buffer(void **state)
{
	char buf[8];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_string_equal(size_format(buf, 4, 2600000, SIZE_MB), "2.6");
	assert_int_equal(buf[4], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_throughput_line),
		cmocka_unit_test(test_stick_saved_line),
		cmocka_unit_test(test_trace_buffer_fit),
		cmocka_unit_test(test_memory_lines),
		cmocka_unit_test(test_no_overflow),
		cmocka_unit_test(test_short_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
