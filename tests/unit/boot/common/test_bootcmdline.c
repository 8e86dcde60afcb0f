/*
 * test_bootcmdline.c - the PVH entry's command-line copy
 * (boot/common/bootcmdline.c): a line up to BOOTINFO_CMDLINE_MAX - 1 bytes
 * is copied whole, a longer one is never cut but passed on as refused
 * (a line cut at the limit once turned tick_hz=1000 into tick_hz=10).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "boot/common/bootcmdline.h"

static struct bootinfo bi;

/* A line of exactly `len` bytes ending in "tick_hz=1000". */
static const char *line_of(size_t len)
{
	static char buf[4096];
	memset(buf, 'x', len);
	memcpy(buf + len - 13, " tick_hz=1000", 13);
	buf[len] = '\0';
	return buf;
}

static void test_fits(void **state)
{
	(void)state;
	const char *l = line_of(BOOTINFO_CMDLINE_MAX - 1);
	assert_int_equal(bootinfo_copy_cmdline(&bi, l, BOOTINFO_CMDLINE_PVH), BOOTINFO_CMDLINE_MAX - 1);
	assert_string_equal(bi.cmdline, l);
	assert_int_equal(bi.cmdline_refused, 0);
	assert_int_equal(bi.cmdline_source, BOOTINFO_CMDLINE_PVH);
}

static void test_too_long_is_refused_not_cut(void **state)
{
	(void)state;
	for (size_t len = BOOTINFO_CMDLINE_MAX; len < BOOTINFO_CMDLINE_MAX + 200; len += 37) {
		assert_int_equal(bootinfo_copy_cmdline(&bi, line_of(len), BOOTINFO_CMDLINE_PVH), len);
		assert_int_equal(bi.cmdline_refused, len);
		assert_string_equal(bi.cmdline, "");
		assert_int_equal(bi.cmdline_source, BOOTINFO_CMDLINE_PVH);
	}
	/* A later line that fits clears the refusal. */
	bootinfo_copy_cmdline(&bi, "scenario=boot", BOOTINFO_CMDLINE_PVH);
	assert_int_equal(bi.cmdline_refused, 0);
	assert_string_equal(bi.cmdline, "scenario=boot");
}

static void test_empty_and_none(void **state)
{
	(void)state;
	assert_int_equal(bootinfo_copy_cmdline(&bi, "", BOOTINFO_CMDLINE_PVH), 0);
	assert_int_equal(bi.cmdline_source, BOOTINFO_CMDLINE_NONE);
	assert_int_equal(bootinfo_copy_cmdline(&bi, NULL, BOOTINFO_CMDLINE_PVH), 0);
	assert_int_equal(bi.cmdline_source, BOOTINFO_CMDLINE_NONE);
	assert_string_equal(bi.cmdline, "");
	assert_int_equal(bi.cmdline_refused, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_too_long_is_refused_not_cut),
		cmocka_unit_test(test_empty_and_none),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
