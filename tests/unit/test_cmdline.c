/*
 * test_cmdline.c - the command-line parser (kernel/init/cmdline.c) against a
 * synthetic key table covering every key type, and the messages it gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/init/cmdline.h"

static const char *const colours[] = { "red", "green", "blue", NULL };

/* scenario: ENUM, cpus: UINT 1..64 or "all", selftest: SET of colours. */
const struct cmdline_key cmdline_keys[] = {
	{ .name = "scenario", .type = CMDLINE_ENUM, .offset = offsetof(struct kconfig, scenario), .names = colours },
	{ .name = "cpus", .type = CMDLINE_UINT, .offset = offsetof(struct kconfig, cpus), .min = 1, .max = 64,
	  .special = "all" },
	{ .name = "trace", .type = CMDLINE_SET, .offset = offsetof(struct kconfig, selftest), .names = colours },
};
const size_t cmdline_key_count = sizeof(cmdline_keys) / sizeof(cmdline_keys[0]);

void config_defaults(struct kconfig *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->cpus = 7;
}

struct errors {
	int n;
	char text[4][512];
};

static void collect(void *ctx, const char *msg)
{
	struct errors *e = ctx;
	if (e->n < 4)
		snprintf(e->text[e->n], sizeof(e->text[0]), "%s", msg);
	e->n++;
}

static int parse(const char *line, struct kconfig *cfg, struct errors *e)
{
	memset(e, 0, sizeof(*e));
	config_defaults(cfg);
	int n = cmdline_parse(line, cfg, collect, e);
	assert_int_equal(n, e->n);
	return n;
}

static void test_empty_keeps_defaults(void **state)
{
	(void)state;
	struct kconfig c;
	struct errors e;
	assert_int_equal(parse("", &c, &e), 0);
	assert_int_equal(c.cpus, 7);
	assert_int_equal(parse("   \t \n", &c, &e), 0);
	assert_int_equal(cmdline_parse(NULL, &c, collect, &e), 0);
}

static void test_values(void **state)
{
	(void)state;
	struct kconfig c;
	struct errors e;
	assert_int_equal(parse("  scenario=blue cpus=0x10\ttrace=red,blue ", &c, &e), 0);
	assert_int_equal(c.scenario, 2);
	assert_int_equal(c.cpus, 16);
	assert_int_equal(c.selftest, (1u << 0) | (1u << 2));
	assert_int_equal(parse("cpus=all", &c, &e), 0);
	assert_int_equal(c.cpus, 0);
	assert_int_equal(parse("cpus=64 trace=green", &c, &e), 0);
	assert_int_equal(c.cpus, 64);
	assert_int_equal(c.selftest, 2);
}

static void test_unknown_key(void **state)
{
	(void)state;
	struct kconfig c;
	struct errors e;
	assert_int_equal(parse("bogus=1", &c, &e), 1);
	assert_string_equal(e.text[0], "cmdline: unknown key 'bogus' in 'bogus=1'; accepted keys: scenario, cpus, trace");
}

static void test_bad_numbers(void **state)
{
	(void)state;
	struct kconfig c;
	struct errors e;
	assert_int_equal(parse("cpus=x", &c, &e), 1);
	assert_string_equal(e.text[0], "cmdline: cpus=x: not a number; accepted: a whole number from 1 to 64 or 'all'");
	assert_int_equal(parse("cpus=65", &c, &e), 1);
	assert_string_equal(e.text[0], "cmdline: cpus=65: out of range; accepted: a whole number from 1 to 64 or 'all'");
	assert_int_equal(parse("cpus=0", &c, &e), 1);
	assert_int_equal(parse("cpus=", &c, &e), 1);
	assert_int_equal(parse("cpus=-1", &c, &e), 1);
	assert_int_equal(parse("cpus=0x", &c, &e), 1);
	assert_int_equal(parse("cpus=99999999999999999999999", &c, &e), 1);
	assert_string_equal(e.text[0],
			    "cmdline: cpus=99999999999999999999999: not a number; accepted: a whole number from 1 to 64 or 'all'");
}

static void test_bad_enum_and_set(void **state)
{
	(void)state;
	struct kconfig c;
	struct errors e;
	assert_int_equal(parse("scenario=purple", &c, &e), 1);
	assert_string_equal(e.text[0], "cmdline: scenario=purple: unknown value; accepted: red, green, blue");
	assert_int_equal(parse("trace=red,,blue", &c, &e), 1);
	assert_int_equal(parse("trace=red,pink", &c, &e), 1);
	assert_string_equal(e.text[0], "cmdline: trace=red,pink: unknown item 'pink'; accepted: a comma-separated list "
				       "of red, green, blue");
}

static void test_syntax_and_duplicates(void **state)
{
	(void)state;
	struct kconfig c;
	struct errors e;
	assert_int_equal(parse("cpus", &c, &e), 1);
	assert_string_equal(e.text[0], "cmdline: 'cpus' is not key=value; accepted keys: scenario, cpus, trace");
	assert_int_equal(parse("=3", &c, &e), 1);
	assert_int_equal(parse("cpus=2 cpus=3", &c, &e), 1);
	assert_string_equal(e.text[0], "cmdline: cpus= given more than once; each key may appear once");
}

static void test_every_error_reported(void **state)
{
	(void)state;
	struct kconfig c;
	struct errors e;
	assert_int_equal(parse("a=1 cpus=x scenario=no trace=blue junk", &c, &e), 4);
	assert_int_equal(c.selftest, 4); /* the good word still parsed */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_keeps_defaults), cmocka_unit_test(test_values),
		cmocka_unit_test(test_unknown_key),          cmocka_unit_test(test_bad_numbers),
		cmocka_unit_test(test_bad_enum_and_set),     cmocka_unit_test(test_syntax_and_duplicates),
		cmocka_unit_test(test_every_error_reported),
	};
	return cmocka_run_group_tests_name("cmdline", tests, NULL, NULL);
}
