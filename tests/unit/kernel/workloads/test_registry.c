/*
 * test_registry.c - the registry of workloads built from their
 * descriptors (WORKLOAD_DEFINE, kernel/workloads/registry.c) and a
 * workload's own keys (WORKLOAD_KEYS), with synthetic workloads
 * registered here as a folder outside the tree would: scenario= takes
 * the kernel's own names at their wire numbers, then the others sorted;
 * its refusal lists every one; a registered name is found and numbered
 * KPROF_SCENARIO_NAMED on the wire; duplicate and malformed names are
 * reported; a workload's own rule (cmdline_table.check) runs in the one
 * configuration pass, only when its keys were accepted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "include/kprof/scenario.h"
#include "kernel/init/cmdline.h"
#include "kernel/workloads/api/descriptor.h"
#include "kernel/workloads/workload_keys.h"

static enum kprof_exit_status run_ok(const struct workload_run *r)
{
	(void)r;
	return KPROF_EXIT_SUCCESS;
}

/* Registered out of order, one name twice, one malformed. */
WORKLOAD_DEFINE(zeta, .name = "zeta", .description = "z", .run = run_ok);
WORKLOAD_DEFINE(alpha_two, .name = "alpha_two", .description = "a", .run = run_ok);
WORKLOAD_DEFINE(zeta_again, .name = "zeta", .description = "z again", .run = run_ok);
WORKLOAD_DEFINE(bad, .name = "Bad-Name", .description = "b", .run = NULL);

struct demo_config {
	uint32_t lo, hi;
};
static struct demo_config demo;
static const struct demo_config demo_defaults = { .lo = 1, .hi = 2 };
static const struct cmdline_key demo_keys[] = {
	{ .name = "demo.lo", .type = CMDLINE_UINT, .offset = offsetof(struct demo_config, lo), .max = 100,
	  .used_by = "scenario=zeta", .help = "low" },
	{ .name = "demo.hi", .type = CMDLINE_UINT, .offset = offsetof(struct demo_config, hi), .max = 100,
	  .used_by = "scenario=zeta", .help = "high" },
};
static int demo_checks;
static const char *demo_check(const void *c, char *buf, size_t size)
{
	const struct demo_config *d = c;
	demo_checks++;
	if (d->lo <= d->hi)
		return NULL;
	snprintf(buf, size, "cmdline: demo.lo=%u is above demo.hi=%u; accepted: lo <= hi", d->lo, d->hi);
	return buf;
}
WORKLOAD_KEYS(demo, demo_keys, &demo, &demo_defaults, demo_check);

static char said[4096];
static void collect(void *ctx, const char *line, enum cmdline_line kind)
{
	(void)ctx;
	(void)kind;
	strncat(said, line, sizeof(said) - strlen(said) - 2);
	strcat(said, "\n");
}

static int parse(const char *line)
{
	said[0] = '\0';
	return config_parse(line, collect, NULL);
}

static void test_names_own_first_then_sorted(void **state)
{
	(void)state;
	const char *const *n = workload_names();
	for (uint32_t i = 0; i < SCENARIO_COUNT; i++)
		assert_string_equal(n[i], kprof_scenario_name(i));
	assert_string_equal(n[SCENARIO_COUNT], "Bad-Name"); /* listed; the registry check refuses it */
	assert_string_equal(n[SCENARIO_COUNT + 1], "alpha_two");
	assert_string_equal(n[SCENARIO_COUNT + 2], "zeta");
	assert_null(n[SCENARIO_COUNT + 3]); /* zeta once */
}

static void test_find_and_wire_number(void **state)
{
	(void)state;
	const struct workload *w = workload_find("alpha_two");
	assert_non_null(w);
	assert_string_equal(w->description, "a");
	assert_null(workload_find("nope"));
	assert_int_equal(workload_wire_number("locks"), SCENARIO_LOCKS);
	assert_int_equal(workload_wire_number("mix"), SCENARIO_MIX);
	assert_int_equal(workload_wire_number("zeta"), KPROF_SCENARIO_NAMED);
}

static char problems[1024];
static void say(const char *line)
{
	strncat(problems, line, sizeof(problems) - strlen(problems) - 2);
	strcat(problems, "\n");
}

static void test_registry_check(void **state)
{
	(void)state;
	problems[0] = '\0';
	assert_int_equal(workload_registry_check(say), 3);
	assert_non_null(strstr(problems, "two workloads are named zeta"));
	assert_non_null(strstr(problems, "the name 'Bad-Name' is refused"));
	assert_non_null(strstr(problems, "Bad-Name has no run function"));
}

static void test_scenario_takes_any_registered_name(void **state)
{
	(void)state;
	assert_int_equal(parse("scenario=zeta"), 0);
	assert_string_equal(workload_names()[workload_config->scenario], "zeta");
	assert_int_equal(parse("scenario=locks"), 0);
	assert_int_equal(workload_config->scenario, SCENARIO_LOCKS);
	assert_int_equal(parse("scenario=nope"), 1);
	assert_non_null(strstr(said, "scenario=nope: unknown value; accepted:"));
	for (const char *const *n = workload_names(); *n; n++)
		assert_non_null(strstr(said, *n));
}

static void test_own_rule_in_the_one_pass(void **state)
{
	(void)state;
	demo_checks = 0;
	assert_int_equal(parse("demo.lo=3 demo.hi=5"), 0);
	assert_int_equal(demo_checks, 1);
	assert_int_equal(parse("demo.lo=5 demo.hi=3"), 1);
	assert_non_null(strstr(said, "cmdline: demo.lo=5 is above demo.hi=3; accepted: lo <= hi"));
	/* A refused key: the rule does not judge the default left behind. */
	demo_checks = 0;
	assert_int_equal(parse("demo.lo=500 demo.hi=3"), 1);
	assert_int_equal(demo_checks, 0);
	assert_null(strstr(said, "is above"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_own_first_then_sorted),
		cmocka_unit_test(test_find_and_wire_number),
		cmocka_unit_test(test_registry_check),
		cmocka_unit_test(test_scenario_takes_any_registered_name),
		cmocka_unit_test(test_own_rule_in_the_one_pass),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
