/*
 * test_cmdline_tables.c - the registration of key tables
 * (CMDLINE_TABLE, kernel/lib/cmdline_key.h) and the registry that finds
 * them (kernel/init/cmdline_tables.c), with synthetic tables registered
 * here out of order: they come back sorted by order, then owner, however
 * the linker laid them out; a caller with too little room is told how
 * many there are and gets nothing half-sorted; defaults go into every
 * table's struct, including two tables that share one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/init/cmdline.h"

struct shared {
	uint32_t a, b;
};
struct alone {
	uint32_t c;
};

static struct shared shared;
static struct alone alone;
static const struct shared shared_defaults = { .a = 11, .b = 22 };
static const struct alone alone_defaults = { .c = 33 };

static const struct cmdline_key a_keys[] = { { .name = "a", .type = CMDLINE_UINT, .max = 100 } };
static const struct cmdline_key b_keys[] = {
	{ .name = "b", .type = CMDLINE_UINT, .offset = offsetof(struct shared, b), .max = 100 },
};
static const struct cmdline_key c_keys[] = { { .name = "c", .type = CMDLINE_UINT, .max = 100 } };
static const struct cmdline_key d_keys[] = { { .name = "d", .type = CMDLINE_UINT, .max = 100 } };

#define SHARED(rows) .keys = rows, .count = 1, .config = &shared, .defaults = &shared_defaults, .size = sizeof(shared)

/* Registered so that neither this order nor its reverse (the compiler
 * may emit either) is sorted, with a tie on order 500. */
CMDLINE_TABLE(c_table, .keys = c_keys, .count = 1, .config = &alone, .defaults = &alone_defaults,
	      .size = sizeof(alone), .owner = "beta", .order = 500);
CMDLINE_TABLE(a_table, SHARED(a_keys), .owner = "omega", .order = 10);
CMDLINE_TABLE(d_table, .keys = d_keys, .count = 1, .config = &alone, .defaults = &alone_defaults,
	      .size = sizeof(alone), .owner = "zeta", .order = 900);
CMDLINE_TABLE(b_table, SHARED(b_keys), .owner = "alpha", .order = 500);

static void test_sorted_by_order_then_owner(void **state)
{
	(void)state;
	struct cmdline_table t[8];
	assert_int_equal(cmdline_tables(t, 8), 4);
	const char *want[] = { "a", "b", "c", "d" };
	for (int i = 0; i < 4; i++)
		assert_string_equal(t[i].keys[0].name, want[i]);
	assert_string_equal(t[1].owner, "alpha"); /* order 500: alpha before beta */
}

static void test_too_little_room(void **state)
{
	(void)state;
	struct cmdline_table t[3];
	memset(t, 0xa5, sizeof(t));
	assert_int_equal(cmdline_tables(t, 3), 4);
	for (size_t i = 0; i < sizeof(t); i++)
		assert_int_equal(((unsigned char *)t)[i], 0xa5);
}

static void test_defaults_into_every_struct(void **state)
{
	(void)state;
	struct cmdline_table t[8];
	size_t n = cmdline_tables(t, 8);
	memset(&shared, 0, sizeof(shared));
	alone.c = 0;
	cmdline_tables_defaults(t, n);
	assert_int_equal(shared.a, 11);
	assert_int_equal(shared.b, 22);
	assert_int_equal(alone.c, 33);
	/* Defaults first, then the words: a key of the second table that
	 * fills a struct is not undone by the first table's defaults. */
	assert_int_equal(cmdline_parse("b=5 a=7", t, n, NULL, NULL, NULL), 0);
	assert_int_equal(shared.a, 7);
	assert_int_equal(shared.b, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_by_order_then_owner),
		cmocka_unit_test(test_too_little_room),
		cmocka_unit_test(test_defaults_into_every_struct),
	};
	return cmocka_run_group_tests_name("cmdline_tables", tests, NULL, NULL);
}
