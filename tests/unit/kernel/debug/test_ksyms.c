/*
 * test_ksyms.c - symbol lookup (kernel/debug/ksyms.c) on a synthetic table laid
 * out as tools/gen-ksyms.sh emits it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernel/debug/ksyms.h"

const uint64_t ksyms_num = 3;
const uint64_t ksyms_addr[] = { 0x1000, 0x1040, 0x10a0 };
const uint32_t ksyms_name_off[] = { 0, 6, 11 };
const char ksyms_names[] = "alpha\0beta\0gamma";
const uint64_t ksyms_text_end = 0x1100;

static void test_lookup(void **state)
{
	(void)state;
	uintptr_t off = 99;
	assert_null(ksym_lookup(0xfff, &off));
	assert_string_equal(ksym_lookup(0x1000, &off), "alpha");
	assert_int_equal(off, 0);
	assert_string_equal(ksym_lookup(0x103f, &off), "alpha");
	assert_int_equal(off, 0x3f);
	assert_string_equal(ksym_lookup(0x1040, &off), "beta");
	assert_string_equal(ksym_lookup(0x10ff, &off), "gamma");
	assert_int_equal(off, 0x5f);
	assert_null(ksym_lookup(0x1100, &off)); /* past the end of text */
	assert_string_equal(ksym_lookup(0x1041, NULL), "beta");
}

static void test_by_name(void **state)
{
	(void)state;
	assert_int_equal(ksym_address("gamma"), 0x10a0);
	assert_int_equal(ksym_address("delta"), 0);
	assert_int_equal(ksym_count(), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_by_name),
	};
	return cmocka_run_group_tests_name("ksyms", tests, NULL, NULL);
}
