/*
 * test_cmdline.c - the command-line parser (kernel/init/cmdline.c) against
 * synthetic key tables covering every key type, two tables walked as one,
 * and the messages it gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/init/cmdline.h"

static const char *const colours[] = { "red", "green", "blue", NULL };

struct first {
	uint32_t colour; /* ENUM of colours                 */
	uint32_t cpus;   /* UINT 1..64 or "all"             */
	uint32_t set;    /* SET of colours                  */
	uint32_t hold;   /* UINT 0, or 1000..2000           */
	uint32_t floor;  /* UINT 0..100, min 10 in a rule   */
	uint32_t sub;    /* UINT 4..64, a power of two      */
};

struct second {
	uint32_t shade; /* ENUM of colours: the "arch" table */
};

static const struct cmdline_key first_keys[] = {
	{ .name = "scenario", .type = CMDLINE_ENUM, .offset = offsetof(struct first, colour), .names = colours },
	{ .name = "cpus", .type = CMDLINE_UINT, .offset = offsetof(struct first, cpus), .min = 1, .max = 64,
	  .special = "all" },
	{ .name = "trace", .type = CMDLINE_SET, .offset = offsetof(struct first, set), .names = colours },
	{ .name = "hold", .type = CMDLINE_UINT, .offset = offsetof(struct first, hold), .min = 1000, .max = 2000,
	  .or_zero = true },
	{ .name = "floor", .type = CMDLINE_UINT, .offset = offsetof(struct first, floor), .min = 10, .max = 100,
	  .min_in_rule = true },
	{ .name = "sub", .type = CMDLINE_UINT, .offset = offsetof(struct first, sub), .min = 4, .max = 64, .pow2 = true },
};

static const struct cmdline_key second_keys[] = {
	{ .name = "shade", .type = CMDLINE_ENUM, .offset = offsetof(struct second, shade), .names = colours },
};

static struct first f;
static struct second sec;
static const struct cmdline_table tables[] = {
	{ .keys = first_keys, .count = sizeof(first_keys) / sizeof(first_keys[0]), .config = &f },
	{ .keys = second_keys, .count = 1, .config = &sec },
};

struct errors {
	int n;
	char text[4][1024];
};

static void collect(void *ctx, const char *msg)
{
	struct errors *e = ctx;
	if (e->n < 4)
		snprintf(e->text[e->n], sizeof(e->text[0]), "%s", msg);
	e->n++;
}

static uint8_t state[CMDLINE_MAX_KEYS];

static int parse(const char *line, struct errors *e)
{
	memset(e, 0, sizeof(*e));
	memset(&f, 0, sizeof(f));
	memset(&sec, 0, sizeof(sec));
	f.cpus = 7;
	int n = cmdline_parse(line, tables, 2, state, collect, e);
	assert_int_equal(n, e->n);
	return n;
}

static void test_empty_keeps_defaults(void **st)
{
	(void)st;
	struct errors e;
	assert_int_equal(parse("", &e), 0);
	assert_int_equal(f.cpus, 7);
	assert_int_equal(parse("   \t \n", &e), 0);
	assert_int_equal(cmdline_parse(NULL, tables, 2, NULL, collect, &e), 0);
	for (int i = 0; i < 7; i++)
		assert_int_equal(state[i], CMDLINE_DEFAULT);
}

static void test_values(void **st)
{
	(void)st;
	struct errors e;
	assert_int_equal(parse("  scenario=blue cpus=0x10\ttrace=red,blue shade=green ", &e), 0);
	assert_int_equal(f.colour, 2);
	assert_int_equal(f.cpus, 16);
	assert_int_equal(f.set, (1u << 0) | (1u << 2));
	assert_int_equal(sec.shade, 1); /* the second table's struct */
	assert_int_equal(state[0], CMDLINE_GIVEN);
	assert_int_equal(state[3], CMDLINE_DEFAULT);
	assert_int_equal(state[6], CMDLINE_GIVEN);
	assert_int_equal(parse("cpus=all", &e), 0);
	assert_int_equal(f.cpus, 0);
	assert_int_equal(parse("cpus=64 trace=green", &e), 0);
	assert_int_equal(f.cpus, 64);
	assert_int_equal(f.set, 2);
}

static void test_unknown_key(void **st)
{
	(void)st;
	struct errors e;
	assert_int_equal(parse("bogus=1", &e), 1);
	assert_string_equal(e.text[0],
			    "cmdline: unknown key 'bogus' in 'bogus=1'; accepted keys: scenario, cpus, trace, hold, floor, "
			    "sub, shade");
}

static void test_bad_numbers(void **st)
{
	(void)st;
	struct errors e;
	assert_int_equal(parse("cpus=x", &e), 1);
	assert_string_equal(e.text[0], "cmdline: cpus=x: not a number; accepted: a whole number from 1 to 64 or 'all'");
	assert_int_equal(parse("cpus=65", &e), 1);
	assert_string_equal(e.text[0], "cmdline: cpus=65: out of range; accepted: a whole number from 1 to 64 or 'all'");
	assert_int_equal(f.cpus, 7); /* a refused value is not stored */
	assert_int_equal(state[1], CMDLINE_REJECTED);
	assert_int_equal(parse("cpus=0", &e), 1);
	assert_int_equal(parse("cpus=", &e), 1);
	assert_int_equal(parse("cpus=-1", &e), 1);
	assert_int_equal(parse("cpus=0x", &e), 1);
	assert_int_equal(parse("cpus=12x", &e), 1);
	assert_string_equal(e.text[0], "cmdline: cpus=12x: not a number; accepted: a whole number from 1 to 64 or 'all'");
}

/* A number too big for 64 bits is a number out of range, not junk. */
static void test_overflow_is_out_of_range(void **st)
{
	(void)st;
	struct errors e;
	assert_int_equal(parse("cpus=99999999999999999999999", &e), 1);
	assert_string_equal(e.text[0], "cmdline: cpus=99999999999999999999999: out of range; accepted: a whole number "
				       "from 1 to 64 or 'all'");
	assert_int_equal(parse("cpus=0x10000000000000000", &e), 1);
	assert_string_equal(e.text[0], "cmdline: cpus=0x10000000000000000: out of range; accepted: a whole number from "
				       "1 to 64 or 'all'");
	assert_int_equal(parse("cpus=18446744073709551615", &e), 1); /* UINT64_MAX itself */
	assert_non_null(strstr(e.text[0], ": out of range;"));
	assert_int_equal(parse("cpus=99999999999999999999999x", &e), 1);
	assert_non_null(strstr(e.text[0], ": not a number;"));
}

static void test_or_zero_pow2_and_rule_minimum(void **st)
{
	(void)st;
	struct errors e;
	assert_int_equal(parse("hold=0", &e), 0);
	assert_int_equal(parse("hold=1500", &e), 0);
	assert_int_equal(f.hold, 1500);
	assert_int_equal(parse("hold=5", &e), 1);
	assert_string_equal(e.text[0], "cmdline: hold=5: out of range; accepted: 0 or a whole number from 1000 to 2000");
	/* min_in_rule: the parser takes 0..max, a rule judges the minimum */
	assert_int_equal(parse("floor=0", &e), 0);
	assert_int_equal(parse("floor=101", &e), 1);
	assert_string_equal(e.text[0], "cmdline: floor=101: out of range; accepted: a whole number from 0 to 100");
	assert_int_equal(parse("sub=16", &e), 0);
	assert_int_equal(parse("sub=12", &e), 1);
	assert_string_equal(e.text[0], "cmdline: sub=12: not a power of two; accepted: 4, 8, 16, ... up to 64");
}

static void test_bad_enum_and_set(void **st)
{
	(void)st;
	struct errors e;
	assert_int_equal(parse("scenario=purple", &e), 1);
	assert_string_equal(e.text[0], "cmdline: scenario=purple: unknown value; accepted: red, green, blue");
	assert_int_equal(parse("shade=purple", &e), 1);
	assert_string_equal(e.text[0], "cmdline: shade=purple: unknown value; accepted: red, green, blue");
	assert_int_equal(parse("trace=red,,blue", &e), 1);
	assert_int_equal(parse("trace=red,pink", &e), 1);
	assert_string_equal(e.text[0], "cmdline: trace=red,pink: unknown item 'pink'; accepted: a comma-separated list "
				       "of red, green, blue");
}

static void test_syntax_and_duplicates(void **st)
{
	(void)st;
	struct errors e;
	assert_int_equal(parse("cpus", &e), 1);
	assert_string_equal(e.text[0], "cmdline: 'cpus' is not key=value; accepted keys: scenario, cpus, trace, hold, "
				       "floor, sub, shade");
	assert_int_equal(parse("=3", &e), 1);
	assert_int_equal(parse("cpus=2 cpus=3", &e), 1);
	assert_string_equal(e.text[0], "cmdline: cpus= given more than once; each key may appear once");
	assert_int_equal(parse("shade=red shade=red", &e), 1);
	assert_int_equal(parse("cpus=x cpus=3", &e), 2); /* a refused key still counts as given */
}

static void test_every_error_reported(void **st)
{
	(void)st;
	struct errors e;
	assert_int_equal(parse("a=1 cpus=x scenario=no trace=blue junk shade=pink", &e), 5);
	assert_int_equal(f.set, 4); /* the good word still parsed */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_keeps_defaults),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_bad_numbers),
		cmocka_unit_test(test_overflow_is_out_of_range),
		cmocka_unit_test(test_or_zero_pow2_and_rule_minimum),
		cmocka_unit_test(test_bad_enum_and_set),
		cmocka_unit_test(test_syntax_and_duplicates),
		cmocka_unit_test(test_every_error_reported),
	};
	return cmocka_run_group_tests_name("cmdline", tests, NULL, NULL);
}
