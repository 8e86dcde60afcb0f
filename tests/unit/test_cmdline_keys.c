/*
 * test_cmdline_keys.c - the real key tables, the kernel's
 * (kernel/init/cmdline_keys.c) and the architecture's
 * (arch/x86_64/cmdline_keys.c), through the one pass (config_parse):
 * defaults, every key accepting its documented values, the messages for
 * the failures docs/cmdline.md shows, and the tables' own consistency.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <arch/cmdline.h>

#include "kernel/init/cmdline.h"
#include "cmdline_lines.h"

/* The last problem's first line, and how many problems there were. */
static char last[CMDLINE_LINE_MAX + 1];
static int count;
static void keep(void *ctx, const char *line, enum cmdline_line kind)
{
	lines_collect(ctx, line, kind);
	if (kind == CMDLINE_MORE)
		return;
	snprintf(last, sizeof(last), "%s", line);
	count++;
}

static struct kconfig c;
static struct arch_config a;

static int parse(const char *line)
{
	count = 0;
	last[0] = '\0';
	lines_reset();
	int n = config_parse(line, &c, &a, keep, NULL);
	assert_int_equal(n, count);
	lines_check_lengths();
	return n;
}

static void test_defaults(void **state)
{
	(void)state;
	assert_int_equal(parse(""), 0);
	assert_int_equal(c.scenario, SCENARIO_BOOT);
	assert_int_equal(c.cpus, 0);
	assert_int_equal(c.selftest, SELFTEST_NONE);
	assert_int_equal(c.trace, 1u << TRACE_ITEM_ALL);
	assert_int_equal(a.tsc_source, TSC_SOURCE_AUTO);
}

static void test_real_keys(void **state)
{
	(void)state;
	assert_int_equal(parse("scenario=boot cpus=256 selftest=fault"), 0);
	assert_int_equal(c.cpus, 256);
	assert_int_equal(c.selftest, SELFTEST_FAULT);
	const char *tests[] = { "none", "fault", "ud", "panic", "stack", "irql" };
	for (unsigned i = 0; i < 6; i++) {
		char line[64];
		snprintf(line, sizeof(line), "selftest=%s", tests[i]);
		assert_int_equal(parse(line), 0);
		assert_int_equal(c.selftest, i);
	}
	/* The command lines of the boot tests and make run. */
	assert_int_equal(parse("scenario=profile trace=profile,stack,pmc trace.mode=dump trace.buffer_kb=16384 "
			       "profile.interval=1221 profile.ms=2000"), 0);
	assert_int_equal(parse("scenario=mix trace.mode=dump trace.buffer_kb=16384 mix.ms=400"), 0);
	assert_int_equal(parse("cpus=2 timer=periodic tick_hz=250"), 0);
	assert_int_equal(parse("scenario=tracetest trace=tracetest trace.mode=dump trace.buffer_kb=64 trace.subbuf_kb=16"),
			 0);
	assert_int_equal(parse("scenario=sched trace=cswitch,clock"), 0);
	assert_int_equal(parse("spinlock.hold_threshold=0 pmc.sources=TotalCycles,TotalIssues,CacheMisses,"
			       "BranchMispredictions"), 0);
}

/* tsc_source= is the architecture's key: it lands in arch_config, and the
 * kernel's struct has no field for it. */
static void test_arch_key(void **state)
{
	(void)state;
	assert_int_equal(parse("tsc_source=pmtimer"), 0);
	assert_int_equal(a.tsc_source, TSC_SOURCE_PMTIMER);
	assert_int_equal(parse("tsc_source=hpet scenario=locks"), 0);
	assert_int_equal(a.tsc_source, TSC_SOURCE_HPET);
	assert_int_equal(c.scenario, SCENARIO_LOCKS);
	assert_int_equal(parse("tsc_source=rdtsc"), 1);
	assert_string_equal(last, "cmdline: tsc_source=rdtsc: unknown value; accepted: auto, cpuid, hpet, pmtimer");
	assert_int_equal(parse("tsc_source=cpuid tsc_source=hpet"), 1);
}

static void test_documented_failures(void **state)
{
	(void)state;
	assert_int_equal(parse("bogus=1"), 1);
	assert_non_null(strstr(last, "unknown key 'bogus'"));
	assert_non_null(strstr(last, "accepted keys: scenario, cpus, selftest"));
	assert_int_equal(parse("cpus=x"), 1);
	assert_string_equal(last, "cmdline: cpus=x: not a number; accepted: a whole number from 1 to 256 or 'all'");
	assert_int_equal(parse("cpus=257"), 1);
	assert_int_equal(parse("tick_hz=99999999999999999999"), 1);
	assert_string_equal(last, "cmdline: tick_hz=99999999999999999999: out of range; accepted: a whole number from "
				  "10 to 1000");
	assert_int_equal(parse("pmc.interval=4294967296"), 1);
	assert_string_equal(last, "cmdline: pmc.interval=4294967296: out of range; accepted: a whole number from 1000 to "
				  "4294967295");
	assert_int_equal(parse("profile.interval=1220"), 1);
	assert_int_equal(parse("spinlock.hold_threshold=4294967296"), 1);
	assert_string_equal(last, "cmdline: spinlock.hold_threshold=4294967296: out of range; accepted: a whole number "
				  "from 0 to 4294967295");
}

static size_t total_keys(void)
{
	return cmdline_key_count + arch_cmdline_key_count;
}

static const struct cmdline_key *key_at(size_t i, size_t *size)
{
	if (i < cmdline_key_count) {
		*size = sizeof(struct kconfig);
		return &cmdline_keys[i];
	}
	*size = sizeof(struct arch_config);
	return &arch_cmdline_keys[i - cmdline_key_count];
}

static const struct cmdline_key *key_named(const char *name)
{
	size_t size;
	for (size_t i = 0; i < total_keys(); i++)
		if (!strcmp(key_at(i, &size)->name, name))
			return key_at(i, &size);
	return NULL;
}

/* An unknown key lists every key of both tables, in order, each once,
 * on lines the console writes whole: the architecture's after the
 * kernel's. */
static void test_unknown_key_lists_every_key(void **state)
{
	(void)state;
	const char *names[CMDLINE_MAX_KEYS];
	size_t size;
	for (size_t i = 0; i < total_keys(); i++)
		names[i] = key_at(i, &size)->name;
	assert_int_equal(parse("bogus=1"), 1);
	assert_int_equal(lines_check_list(0, "cmdline: unknown key 'bogus' in 'bogus=1'; accepted keys:", names,
					  total_keys()), lines.n);
	assert_true(lines.n >= 2); /* today's 31 keys take more than one line */
	assert_int_equal(parse("selftest"), 1);
	assert_int_equal(lines_check_list(0, "cmdline: 'selftest' is not key=value; accepted keys:", names,
					  total_keys()), lines.n);
	/* The longest name list, pmc.sources's, wraps the same way. */
	const struct cmdline_key *pmc = key_named("pmc.sources");
	size_t n = 0;
	while (pmc->names[n])
		n++;
	assert_int_equal(parse("pmc.sources=TotalCycles,Nope"), 1);
	assert_int_equal(lines_check_list(0, "cmdline: pmc.sources=TotalCycles,Nope: unknown item 'Nope'; accepted: "
					  "a comma-separated list of", pmc->names, n), lines.n);
}

static void test_tables_are_well_formed(void **state)
{
	(void)state;
	struct kconfig d;
	struct arch_config ad;
	config_defaults(&d);
	arch_config_defaults(&ad);
	assert_true(total_keys() <= CMDLINE_MAX_KEYS);
	for (size_t i = 0; i < total_keys(); i++) {
		size_t size;
		const struct cmdline_key *k = key_at(i, &size);
		assert_non_null(k->name);
		/* A name fits one wrapped line of a list (cmdline_report.c). */
		assert_true(strlen("cmdline:   ") + strlen(k->name) + 1 <= CMDLINE_WRAP);
		for (size_t n = 0; k->type != CMDLINE_UINT && k->names[n]; n++)
			assert_true(strlen("cmdline:   ") + strlen(k->names[n]) + 1 <= CMDLINE_WRAP);
		assert_non_null(k->help);
		assert_non_null(k->used_by);
		assert_true(k->offset + sizeof(uint32_t) <= size);
		if (k->type != CMDLINE_UINT)
			assert_non_null(k->names);
		else
			assert_true(k->min <= k->max && k->max <= UINT32_MAX);
		for (size_t j = 0; j < i; j++) {
			size_t s2;
			assert_string_not_equal(k->name, key_at(j, &s2)->name);
		}
		/* Every default is a value the key accepts. */
		uint32_t v;
		memcpy(&v, (const char *)(i < cmdline_key_count ? (void *)&d : (void *)&ad) + k->offset, sizeof(v));
		if (k->type == CMDLINE_UINT && !(v == 0 && (k->special || k->or_zero)))
			assert_true(v >= k->min && v <= k->max);
		if (k->type == CMDLINE_ENUM) {
			uint32_t n = 0;
			while (k->names[n])
				n++;
			assert_true(v < n);
		}
	}
	/* Every key a rule reads exists. */
	for (size_t r = 0; r < cmdline_rule_count; r++) {
		assert_non_null(cmdline_rules[r].keys[0]);
		for (size_t k = 0; k < 4 && cmdline_rules[r].keys[k]; k++)
			assert_non_null(key_named(cmdline_rules[r].keys[k]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_real_keys),
		cmocka_unit_test(test_arch_key),
		cmocka_unit_test(test_documented_failures),
		cmocka_unit_test(test_unknown_key_lists_every_key),
		cmocka_unit_test(test_tables_are_well_formed),
	};
	return cmocka_run_group_tests_name("cmdline_keys", tests, NULL, NULL);
}
