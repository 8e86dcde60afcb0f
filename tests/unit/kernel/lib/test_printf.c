/*
 * test_printf.c - kernel/lib/printf.c against the host C library's snprintf.
 *
 * Every case is formatted by both; output and return value must match.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/lib/printf.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"
#pragma GCC diagnostic ignored "-Wformat-zero-length"
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"

#define SAME(size, ...)                                                              \
	do {                                                                         \
		char k_[256], c_[256];                                               \
		memset(k_, 'X', sizeof(k_));                                         \
		memset(c_, 'X', sizeof(c_));                                         \
		int kn_ = ksnprintf(k_, (size), __VA_ARGS__);                        \
		int cn_ = snprintf(c_, (size), __VA_ARGS__);                         \
		assert_int_equal(kn_, cn_);                                          \
		assert_memory_equal(k_, c_, sizeof(k_));                             \
	} while (0)
#define CHECK(...) SAME(256, __VA_ARGS__)

static void test_integers(void **state)
{
	(void)state;
	CHECK("%d %i %u", 0, -1, 42u);
	CHECK("%d", INT32_MIN);
	CHECK("%d", INT32_MAX);
	CHECK("%ld", (long)INT64_MIN);
	CHECK("%lld", (long long)INT64_MAX);
	CHECK("%llu", (unsigned long long)UINT64_MAX);
	CHECK("%hhd %hhu", (signed char)-5, (unsigned char)250);
	CHECK("%hd %hu", (short)-300, (unsigned short)65000);
	CHECK("%zu %zx", (size_t)123456789, (size_t)0xabcdef);
	CHECK("%td", (ptrdiff_t)-77);
	CHECK("%jd %ju", (intmax_t)-9, (uintmax_t)9);
	CHECK("%o %#o %#o", 8u, 8u, 0u);
	CHECK("%x %X %#x %#X %#x", 0xbeefu, 0xbeefu, 255u, 255u, 0u);
}

static void test_width_precision_flags(void **state)
{
	(void)state;
	CHECK("[%5d] [%-5d] [%05d] [%+d] [% d]", 42, 42, 42, 42, 42);
	CHECK("[%5d] [%-5d] [%05d] [%+d] [% d]", -42, -42, -42, -42, -42);
	CHECK("[%.3d] [%8.3d] [%-8.3d] [%08.3d]", 7, 7, 7, 7);
	CHECK("[%.0d] [%.0x] [%5.0d]", 0, 0u, 0);
	CHECK("[%*d] [%-*d] [%*d]", 6, 1, 6, 1, -6, 1);
	CHECK("[%.*d] [%.*d]", 4, 3, -1, 3);
	CHECK("[%#10x] [%#-10x] [%#010x]", 0x1fu, 0x1fu, 0x1fu);
	CHECK("[%016llx]", 0xffffffff80200000ULL);
	CHECK("[%+5u] [% u]", 3u, 3u);
	CHECK("[%-+06d]", 9);
}

static void test_strings_chars(void **state)
{
	(void)state;
	CHECK("[%s] [%10s] [%-10s] [%.2s] [%10.2s]", "kprof", "kprof", "kprof", "kprof", "kprof");
	CHECK("[%c] [%3c] [%-3c]", 'a', 'b', 'c');
	CHECK("%%d %s%%", "x");
	CHECK("[%.*s]", 3, "abcdef");
	CHECK("%s", "");
	CHECK("no conversions at all");
}

static void test_pointers(void **state)
{
	(void)state;
	int x;
	CHECK("%p", (void *)&x);
	CHECK("[%20p] [%-20p]", (void *)0x1234, (void *)0x1234);
	CHECK("%p", (void *)0);
}

static void test_truncation(void **state)
{
	(void)state;
	SAME(1, "%s", "hello");
	SAME(3, "%s", "hello");
	SAME(6, "%s", "hello");
	SAME(5, "%d-%d", 1234, 5678);
	SAME(8, "%08x|%s", 0xdeadu, "tail");

	char buf[4] = { 'Z', 'Z', 'Z', 'Z' };
	assert_int_equal(ksnprintf(buf, 0, "%d", 12345), 5);
	assert_int_equal(buf[0], 'Z'); /* size 0: nothing written */
}

static void test_unknown_conversion_is_visible(void **state)
{
	(void)state;
	char buf[32];
	/* Not C: the kernel prints unknown conversions verbatim. */
	assert_int_equal(ksnprintf(buf, sizeof(buf), "a%qb", 1), 4);
	assert_string_equal(buf, "a%qb");
	assert_int_equal(ksnprintf(buf, sizeof(buf), "end%"), 3);
	assert_string_equal(buf, "end");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_width_precision_flags),
		cmocka_unit_test(test_strings_chars),
		cmocka_unit_test(test_pointers),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_unknown_conversion_is_visible),
	};
	return cmocka_run_group_tests_name("printf", tests, NULL, NULL);
}
