/*
 * test_cmdline_keys.c - the kernel's real key table (kernel/init/cmdline_keys.c):
 * defaults, every key accepting its documented values, and the messages
 * for the failures the README promises.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/init/cmdline.h"

static char last[512];
static void keep(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(last, sizeof(last), "%s", msg);
}

static void test_defaults(void **state)
{
	(void)state;
	struct kconfig c;
	config_defaults(&c);
	assert_int_equal(c.scenario, SCENARIO_BOOT);
	assert_int_equal(c.cpus, 0);
	assert_int_equal(c.selftest, SELFTEST_NONE);
}

static void test_real_keys(void **state)
{
	(void)state;
	struct kconfig c;
	config_defaults(&c);
	assert_int_equal(cmdline_parse("scenario=boot cpus=256 selftest=fault", &c, keep, NULL), 0);
	assert_int_equal(c.cpus, 256);
	assert_int_equal(c.selftest, SELFTEST_FAULT);
	const char *tests[] = { "none", "fault", "ud", "panic", "stack" };
	for (unsigned i = 0; i < 5; i++) {
		char line[64];
		snprintf(line, sizeof(line), "selftest=%s", tests[i]);
		config_defaults(&c);
		assert_int_equal(cmdline_parse(line, &c, keep, NULL), 0);
		assert_int_equal(c.selftest, i);
	}
}

static void test_readme_failures(void **state)
{
	(void)state;
	struct kconfig c;
	config_defaults(&c);
	assert_int_equal(cmdline_parse("bogus=1", &c, keep, NULL), 1);
	assert_non_null(strstr(last, "unknown key 'bogus'"));
	assert_non_null(strstr(last, "scenario, cpus, selftest"));
	assert_int_equal(cmdline_parse("cpus=x", &c, keep, NULL), 1);
	assert_string_equal(last, "cmdline: cpus=x: not a number; accepted: a whole number from 1 to 256 or 'all'");
	assert_int_equal(cmdline_parse("cpus=257", &c, keep, NULL), 1);
}

static void test_table_is_well_formed(void **state)
{
	(void)state;
	for (size_t i = 0; i < cmdline_key_count; i++) {
		const struct cmdline_key *k = &cmdline_keys[i];
		assert_non_null(k->name);
		assert_non_null(k->help);
		assert_true(k->offset + sizeof(uint32_t) <= sizeof(struct kconfig));
		if (k->type != CMDLINE_UINT)
			assert_non_null(k->names);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(k->name, cmdline_keys[j].name);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_real_keys),
		cmocka_unit_test(test_readme_failures),
		cmocka_unit_test(test_table_is_well_formed),
	};
	return cmocka_run_group_tests_name("cmdline_keys", tests, NULL, NULL);
}
