/*
 * test_cmdline.c - the command-line parser (kernel/init/cmdline.c) against
 * synthetic key tables covering every key type, two tables walked as one,
 * and the messages it gives; lists of hundreds of long keys or names
 * wrapped over lines the console writes whole (cmdline_report.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/init/cmdline.h"
#include "support/cmdline_lines.h"

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

static uint8_t state[CMDLINE_MAX_KEYS];

static int parse(const char *line)
{
	lines_reset();
	memset(&f, 0, sizeof(f));
	memset(&sec, 0, sizeof(sec));
	f.cpus = 7;
	int n = cmdline_parse(line, tables, 2, state, lines_collect, NULL);
	assert_int_equal(n, lines.problems);
	lines_check_lengths();
	return n;
}

static void test_empty_keeps_defaults(void **st)
{
	(void)st;
	assert_int_equal(parse(""), 0);
	assert_int_equal(f.cpus, 7);
	assert_int_equal(parse("   \t \n"), 0);
	assert_int_equal(cmdline_parse(NULL, tables, 2, NULL, lines_collect, NULL), 0);
	for (int i = 0; i < 7; i++)
		assert_int_equal(state[i], CMDLINE_DEFAULT);
}

static void test_values(void **st)
{
	(void)st;
	assert_int_equal(parse("  scenario=blue cpus=0x10\ttrace=red,blue shade=green "), 0);
	assert_int_equal(f.colour, 2);
	assert_int_equal(f.cpus, 16);
	assert_int_equal(f.set, (1u << 0) | (1u << 2));
	assert_int_equal(sec.shade, 1); /* the second table's struct */
	assert_int_equal(state[0], CMDLINE_GIVEN);
	assert_int_equal(state[3], CMDLINE_DEFAULT);
	assert_int_equal(state[6], CMDLINE_GIVEN);
	assert_int_equal(parse("cpus=all"), 0);
	assert_int_equal(f.cpus, 0);
	assert_int_equal(parse("cpus=64 trace=green"), 0);
	assert_int_equal(f.cpus, 64);
	assert_int_equal(f.set, 2);
}

static void test_unknown_key(void **st)
{
	(void)st;
	assert_int_equal(parse("bogus=1"), 1);
	/* 104 columns on one line: wrapped at CMDLINE_WRAP, under an indent */
	assert_int_equal(lines.n, 2);
	assert_string_equal(lines.text[0],
			    "cmdline: unknown key 'bogus' in 'bogus=1'; accepted keys: scenario, cpus, trace, hold, floor, "
			    "sub,");
	assert_int_equal(lines.kind[1], CMDLINE_MORE);
	assert_string_equal(lines.text[1], "cmdline:   shade");
}

static void test_bad_numbers(void **st)
{
	(void)st;
	assert_int_equal(parse("cpus=x"), 1);
	assert_string_equal(lines.text[0], "cmdline: cpus=x: not a number; accepted: a whole number from 1 to 64 or 'all'");
	assert_int_equal(parse("cpus=65"), 1);
	assert_string_equal(lines.text[0], "cmdline: cpus=65: out of range; accepted: a whole number from 1 to 64 or 'all'");
	assert_int_equal(f.cpus, 7); /* a refused value is not stored */
	assert_int_equal(state[1], CMDLINE_REJECTED);
	assert_int_equal(parse("cpus=0"), 1);
	assert_int_equal(parse("cpus="), 1);
	assert_int_equal(parse("cpus=-1"), 1);
	assert_int_equal(parse("cpus=0x"), 1);
	assert_int_equal(parse("cpus=12x"), 1);
	assert_string_equal(lines.text[0], "cmdline: cpus=12x: not a number; accepted: a whole number from 1 to 64 or 'all'");
}

/* A number too big for 64 bits is a number out of range, not junk. */
static void test_overflow_is_out_of_range(void **st)
{
	(void)st;
	assert_int_equal(parse("cpus=99999999999999999999999"), 1);
	assert_string_equal(lines.text[0], "cmdline: cpus=99999999999999999999999: out of range; accepted: a whole number "
				       "from 1 to 64 or 'all'");
	assert_int_equal(parse("cpus=0x10000000000000000"), 1);
	assert_string_equal(lines.text[0], "cmdline: cpus=0x10000000000000000: out of range; accepted: a whole number from "
				       "1 to 64 or 'all'");
	assert_int_equal(parse("cpus=18446744073709551615"), 1); /* UINT64_MAX itself */
	assert_non_null(strstr(lines.text[0], ": out of range;"));
	assert_int_equal(parse("cpus=99999999999999999999999x"), 1);
	assert_non_null(strstr(lines.text[0], ": not a number;"));
}

static void test_or_zero_pow2_and_rule_minimum(void **st)
{
	(void)st;
	assert_int_equal(parse("hold=0"), 0);
	assert_int_equal(parse("hold=1500"), 0);
	assert_int_equal(f.hold, 1500);
	assert_int_equal(parse("hold=5"), 1);
	assert_string_equal(lines.text[0], "cmdline: hold=5: out of range; accepted: 0 or a whole number from 1000 to 2000");
	/* min_in_rule: the parser takes 0..max, a rule judges the minimum */
	assert_int_equal(parse("floor=0"), 0);
	assert_int_equal(parse("floor=101"), 1);
	assert_string_equal(lines.text[0], "cmdline: floor=101: out of range; accepted: a whole number from 0 to 100");
	assert_int_equal(parse("sub=16"), 0);
	assert_int_equal(parse("sub=12"), 1);
	assert_string_equal(lines.text[0], "cmdline: sub=12: not a power of two; accepted: 4, 8, 16, ... up to 64");
}

static void test_bad_enum_and_set(void **st)
{
	(void)st;
	assert_int_equal(parse("scenario=purple"), 1);
	assert_string_equal(lines.text[0], "cmdline: scenario=purple: unknown value; accepted: red, green, blue");
	assert_int_equal(parse("shade=purple"), 1);
	assert_string_equal(lines.text[0], "cmdline: shade=purple: unknown value; accepted: red, green, blue");
	assert_int_equal(parse("trace=red,,blue"), 1);
	assert_int_equal(parse("trace=red,pink"), 1);
	assert_string_equal(lines.text[0], "cmdline: trace=red,pink: unknown item 'pink'; accepted: a comma-separated list "
				       "of red, green, blue");
}

static void test_syntax_and_duplicates(void **st)
{
	(void)st;
	assert_int_equal(parse("cpus"), 1);
	assert_string_equal(lines.text[0], "cmdline: 'cpus' is not key=value; accepted keys: scenario, cpus, trace, hold, "
				       "floor, sub, shade");
	assert_int_equal(parse("=3"), 1);
	assert_int_equal(parse("cpus=2 cpus=3"), 1);
	assert_string_equal(lines.text[0], "cmdline: cpus= given more than once; each key may appear once");
	assert_int_equal(parse("shade=red shade=red"), 1);
	assert_int_equal(parse("cpus=x cpus=3"), 2); /* a refused key still counts as given */
}

static void test_every_error_reported(void **st)
{
	(void)st;
	assert_int_equal(parse("a=1 cpus=x scenario=no trace=blue junk shade=pink"), 5);
	assert_int_equal(f.set, 4); /* the good word still parsed */
}

/* ---- lists longer than any line: hundreds of long keys ---- */

#define MANY_KEYS 300
static char many_names[MANY_KEYS][200];
static const char *many_list[MANY_KEYS + 1];
static struct cmdline_key many_keys[MANY_KEYS];
static uint32_t many_value;
static const struct cmdline_table many_table[] = { { .keys = many_keys, .count = MANY_KEYS, .config = &many_value } };

/* Key i: 20 to 96 bytes, every 50th 150 (wider than a wrapped line). */
static void make_many_keys(void)
{
	for (size_t i = 0; i < MANY_KEYS; i++) {
		size_t len = i % 50 == 49 ? 150 : 20 + (i * 37) % 77;
		int n = snprintf(many_names[i], sizeof(many_names[i]), "subsystem%zu.key%zu_", i % 7, i);
		memset(many_names[i] + n, 'a' + (char)(i % 26), len - (size_t)n);
		many_names[i][len] = '\0';
		many_list[i] = many_names[i];
		many_keys[i] = (struct cmdline_key){ .name = many_names[i], .type = CMDLINE_UINT, .max = 100 };
	}
}

static int parse_many(const char *line)
{
	lines_reset();
	int n = cmdline_parse(line, many_table, 1, NULL, lines_collect, NULL);
	assert_int_equal(n, lines.problems);
	lines_check_lengths();
	return n;
}

static void test_many_keys_all_listed(void **st)
{
	(void)st;
	make_many_keys();
	assert_int_equal(parse_many("bogus=1"), 1);
	assert_int_equal(lines_check_list(0, "cmdline: unknown key 'bogus' in 'bogus=1'; accepted keys:", many_list,
					  MANY_KEYS), lines.n);
	assert_true(lines.n > 100); /* 300 keys of 20 to 150 bytes: many lines */
	assert_int_equal(parse_many("nokeyvalue"), 1);
	assert_int_equal(lines_check_list(0, "cmdline: 'nokeyvalue' is not key=value; accepted keys:", many_list,
					  MANY_KEYS), lines.n);
	/* Keys past CMDLINE_MAX_KEYS are parsed like the others. */
	char line[256];
	snprintf(line, sizeof(line), "%s=42", many_names[MANY_KEYS - 2]);
	assert_int_equal(parse_many(line), 0);
	assert_int_equal(many_value, 42);
}

/* The list comes once; later problems that would repeat it point back. */
static void test_keys_listed_once(void **st)
{
	(void)st;
	make_many_keys();
	assert_int_equal(parse_many("bogus=1 junk other=2"), 3);
	size_t next = lines_check_list(0, "cmdline: unknown key 'bogus' in 'bogus=1'; accepted keys:", many_list,
				       MANY_KEYS);
	assert_int_equal(next + 2, lines.n);
	assert_string_equal(lines.text[next], "cmdline: 'junk' is not key=value; accepted keys: as listed above");
	assert_string_equal(lines.text[next + 1],
			    "cmdline: unknown key 'other' in 'other=2'; accepted keys: as listed above");
}

/* A word longer than a line is shown cut, marked, and the list follows. */
static void test_long_word(void **st)
{
	(void)st;
	char word[1001];
	memset(word, 'k', 998);
	memcpy(word + 998, "=1", 3);
	assert_int_equal(parse(word), 1);
	char head[512];
	snprintf(head, sizeof(head), "cmdline: unknown key '%.*s...' in '%.*s...'; accepted keys:", CMDLINE_WORD_MAX,
		 word, CMDLINE_WORD_MAX, word);
	assert_string_equal(lines.text[0], head); /* too wide for the first key: alone on its line */
	static const char *const keys[] = { "scenario", "cpus", "trace", "hold", "floor", "sub", "shade" };
	assert_int_equal(lines_check_list(0, head, keys, 7), lines.n);
	assert_int_equal(lines.n, 2);
	memset(word, '7', 996);
	memcpy(word, "cpus=", 5);
	word[996] = '\0';
	assert_int_equal(parse(word), 1);
	assert_non_null(strstr(lines.text[0], "7...: out of range; accepted: a whole number from 1 to 64 or 'all'"));
}

/* A name list (ENUM, SET) wraps the same way. */
static void test_long_name_list(void **st)
{
	(void)st;
	make_many_keys();
	const struct cmdline_key k = { .name = "pick", .type = CMDLINE_ENUM, .names = many_list };
	const struct cmdline_table t = { .keys = &k, .count = 1, .config = &many_value };
	lines_reset();
	assert_int_equal(cmdline_parse("pick=nothing", &t, 1, NULL, lines_collect, NULL), 1);
	lines_check_lengths();
	assert_int_equal(lines_check_list(0, "cmdline: pick=nothing: unknown value; accepted:", many_list, MANY_KEYS),
			 lines.n);
}

/* A key in two tables (a workload's "cpus" beside the kernel's): refused
 * at every parse, naming the key and both owners, and the first table's
 * key still gets its value. */
static void test_key_in_two_tables(void **st)
{
	(void)st;
	static const struct cmdline_key mine[] = {
		{ .name = "cpus", .type = CMDLINE_UINT, .offset = offsetof(struct second, shade), .min = 1, .max = 9 },
	};
	const struct cmdline_table two[] = {
		{ .keys = first_keys, .count = sizeof(first_keys) / sizeof(first_keys[0]), .config = &f, .owner = "ke" },
		{ .keys = mine, .count = 1, .config = &sec, .owner = "myload" },
	};
	lines_reset();
	memset(&sec, 0, sizeof(sec));
	assert_int_equal(cmdline_parse("cpus=2", two, 2, NULL, lines_collect, NULL), 1);
	assert_int_equal(lines.problems, 1);
	assert_string_equal(lines.text[0], "cmdline: the key cpus= is in two tables, ke's and myload's: the second would "
			    "never get its value; accepted: each key in one table (a workload's named WORKLOAD.KEY, "
			    "docs/workloads.md)");
	assert_int_equal(f.cpus, 2);
	assert_int_equal(sec.shade, 0);
	lines_reset();
	assert_int_equal(cmdline_parse("", two, 2, NULL, lines_collect, NULL), 1);
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
		cmocka_unit_test(test_many_keys_all_listed),
		cmocka_unit_test(test_keys_listed_once),
		cmocka_unit_test(test_long_word),
		cmocka_unit_test(test_long_name_list),
		cmocka_unit_test(test_key_in_two_tables),
	};
	return cmocka_run_group_tests_name("cmdline", tests, NULL, NULL);
}
