/*
 * test_cmdline_keys.c - the real key tables, every subsystem's (the
 * *_keys.c files under kernel/) and the architecture's
 * (arch/x86_64/cmdline_keys.c), registered as in the kernel, through the
 * one pass (config_parse): defaults, every key landing in its owner's
 * struct, the messages for the failures docs/cmdline.md shows, the
 * tables' order and their own consistency.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <arch/cmdline.h>

#include "include/kprof/scenario.h"
#include "kernel/init/cmdline.h"
#include "kernel/ke/ke_keys.h"
#include "kernel/locks/spinlock_keys.h"
#include "kernel/profile/profile_keys.h"
#include "kernel/trace/config/trace_keys.h"
#include "kernel/usb/probe/probe_keys.h"
#include "kernel/usb/storage/stick_keys.h"
#include "kernel/ex/resource_keys.h"
#include "kernel/workloads/selftest.h"
#include "kernel/workloads/workload_keys.h"
#include "support/cmdline_lines.h"

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

static int parse(const char *line)
{
	count = 0;
	last[0] = '\0';
	lines_reset();
	int n = config_parse(line, keep, NULL);
	assert_int_equal(n, count);
	lines_check_lengths();
	return n;
}

static void test_defaults(void **state)
{
	(void)state;
	assert_int_equal(parse(""), 0);
	assert_int_equal(workload_config->scenario, SCENARIO_BOOT);
	assert_int_equal(ke_config->cpus, 0);
	assert_int_equal(workload_config->selftest, SELFTEST_NONE);
	assert_int_equal(trace_config->items, 1u << TRACE_ITEM_ALL);
	assert_int_equal(arch_config->tsc_source, TSC_SOURCE_AUTO);
	assert_int_equal(usb_stick_config->data_timeout_ms, 30000);
	assert_int_equal(usb_stick_config->csw_timeout_ms, 20000);
}

static void test_real_keys(void **state)
{
	(void)state;
	assert_int_equal(parse("scenario=boot cpus=256 selftest=fault"), 0);
	assert_int_equal(ke_config->cpus, 256);
	assert_int_equal(workload_config->selftest, SELFTEST_FAULT);
	const char *tests[] = { "none", "fault", "ud", "panic", "stack", "irql" };
	for (unsigned i = 0; i < 6; i++) {
		char line[64];
		snprintf(line, sizeof(line), "selftest=%s", tests[i]);
		assert_int_equal(parse(line), 0);
		assert_int_equal(workload_config->selftest, i);
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

/* tsc_source= is the architecture's key: it lands in arch_config, and no
 * kernel struct has a field for it. */
static void test_arch_key(void **state)
{
	(void)state;
	assert_int_equal(parse("tsc_source=pmtimer"), 0);
	assert_int_equal(arch_config->tsc_source, TSC_SOURCE_PMTIMER);
	assert_int_equal(parse("tsc_source=hpet scenario=locks"), 0);
	assert_int_equal(arch_config->tsc_source, TSC_SOURCE_HPET);
	assert_int_equal(workload_config->scenario, SCENARIO_LOCKS);
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
	assert_int_equal(parse("usb.csw_timeout_ms=99"), 1);
	assert_string_equal(last, "cmdline: usb.csw_timeout_ms=99: out of range; accepted: a whole number from 100 to "
				  "600000");
}

static struct cmdline_table tables[CMDLINE_MAX_TABLES];
static size_t ntables;

static size_t total_keys(void)
{
	size_t n = 0;
	for (size_t t = 0; t < ntables; t++)
		n += tables[t].count;
	return n;
}

/* The i-th key over all tables, with its table. */
static const struct cmdline_key *key_in(size_t i, const struct cmdline_table **table)
{
	for (size_t t = 0; t < ntables; i -= tables[t].count, t++)
		if (i < tables[t].count) {
			*table = &tables[t];
			return &tables[t].keys[i];
		}
	return NULL;
}

static const struct cmdline_key *key_at(size_t i, size_t *size)
{
	const struct cmdline_table *t;
	const struct cmdline_key *k = key_in(i, &t);
	*size = t->size;
	return k;
}

static const struct cmdline_key *key_named(const char *name)
{
	size_t size;
	for (size_t i = 0; i < total_keys(); i++)
		if (!strcmp(key_at(i, &size)->name, name))
			return key_at(i, &size);
	return NULL;
}

/* An unknown key lists every key of every table, in order, each once,
 * on lines the console writes whole: the architecture's last. */
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
	assert_true(total_keys() <= CMDLINE_MAX_KEYS);
	for (size_t t = 0; t < ntables; t++) {
		assert_non_null(tables[t].owner);
		assert_non_null(tables[t].config);
		assert_non_null(tables[t].defaults);
		assert_true(tables[t].count > 0);
		/* One place per table: the order never depends on the link. */
		if (t)
			assert_true(tables[t - 1].order < tables[t].order ||
				    (tables[t - 1].order == tables[t].order &&
				     strcmp(tables[t - 1].owner, tables[t].owner) < 0));
	}
	for (size_t i = 0; i < total_keys(); i++) {
		size_t size;
		const struct cmdline_key *k = key_at(i, &size);
		assert_non_null(k->name);
		/* A name fits one wrapped line of a list (cmdline_report.c). */
		assert_true(strlen("cmdline:   ") + strlen(k->name) + 1 <= CMDLINE_WRAP);
		const char *const *names = cmdline_key_names(k);
		for (size_t n = 0; k->type != CMDLINE_UINT && names[n]; n++)
			assert_true(strlen("cmdline:   ") + strlen(names[n]) + 1 <= CMDLINE_WRAP);
		assert_non_null(k->help);
		assert_non_null(k->used_by);
		assert_true(k->offset + sizeof(uint32_t) <= size);
		if (k->type != CMDLINE_UINT)
			assert_non_null(names);
		else
			assert_true(k->min <= k->max && k->max <= UINT32_MAX);
		for (size_t j = 0; j < i; j++) {
			size_t s2;
			assert_string_not_equal(k->name, key_at(j, &s2)->name);
		}
		/* Every default is a value the key accepts. */
		uint32_t v;
		const struct cmdline_table *t;
		key_in(i, &t);
		memcpy(&v, (const char *)t->defaults + k->offset, sizeof(v));
		if (k->type == CMDLINE_UINT && !(v == 0 && (k->special || k->or_zero)))
			assert_true(v >= k->min && v <= k->max);
		if (k->type == CMDLINE_ENUM) {
			uint32_t n = 0;
			while (names[n])
				n++;
			assert_true(v < n);
		}
	}
	/* Every key a rule reads exists, and the one config_parse resolves. */
	for (size_t r = 0; r < cmdline_rule_count; r++) {
		assert_non_null(cmdline_rules[r].keys[0]);
		for (size_t k = 0; k < 4 && cmdline_rules[r].keys[k]; k++) {
			assert_non_null(key_named(cmdline_rules[r].keys[k]));
			assert_true(config_key_known(tables, ntables, cmdline_rules[r].keys[k]));
		}
	}
	const char *read_by_rules[] = { "trace", "trace.buffer_kb", "trace.subbuf_kb", "scenario", "timer",
					"pmc.sources", "profile.interval", "profile.ms", "mix.ms", "trace.buffer_fit",
					"spinlock.spin_threshold", "spinlock.acquire_sample_rate",
					"spinlock.contention_sample_rate", "spinlock.hold_threshold" };
	for (size_t i = 0; i < sizeof(read_by_rules) / sizeof(read_by_rules[0]); i++)
		assert_true(config_key_known(tables, ntables, read_by_rules[i]));
	assert_false(config_key_known(tables, ntables, "trace.buffer"));
}

/* Each subsystem's table, registered on its own, comes out in one fixed
 * order: the order docs/cmdline.md and the accepted-keys list have always
 * had, whatever the linker put first. */
static void test_keys_keep_their_order(void **state)
{
	(void)state;
	static const char *const order[] = {
		"scenario", "cpus", "selftest", "timer", "tick_hz", "clock.fault_ppm", "trace", "trace.mode", "trace.buffer_kb",
		"trace.subbuf_kb", "trace.buffer_fit", "trace.out", "trace.compress", "usb.probe", "usb.dma32", "usb.dmalog",
		"mm.high_first", "usb.stick_port", "usb.data_timeout_ms", "usb.csw_timeout_ms", "tracetest.records", "sched.ms", "rawlock", "spinlock.spin_threshold",
		"spinlock.acquire_sample_rate",
		"spinlock.contention_sample_rate", "spinlock.hold_threshold", "locks.ms", "locks.hold_ns",
		"locks.think_ns", "resources.ms", "resource.timeout_ms", "profile.interval", "pmc.sources",
		"pmc.interval", "profile.ms", "mix.ms", "noise.ms", "noise.window_ms", "noise.width_ms",
		"noise.threshold_ns", "noise.timer_us", "tsc_source",
	};
	size_t size;
	assert_int_equal(total_keys(), sizeof(order) / sizeof(order[0]));
	for (size_t i = 0; i < total_keys(); i++)
		assert_string_equal(key_at(i, &size)->name, order[i]);
}

/* Every key lands in its owner's struct, read through the owner's const
 * view, and a parse starts again from the defaults. */
static void test_keys_land_in_their_owners_struct(void **state)
{
	(void)state;
	assert_int_equal(parse("timer=oneshot tick_hz=250 rawlock=tas trace=cswitch trace.mode=dump "
			       "trace.buffer_kb=512 trace.subbuf_kb=16 trace.out=serial trace.compress=off usb.probe=on usb.stick_port=3 "
			       "usb.data_timeout_ms=1500 usb.csw_timeout_ms=700 "
			       "spinlock.acquire_sample_rate=2000 resource.timeout_ms=30 profile.interval=2000 "
			       "pmc.interval=5000 scenario=locks locks.ms=300 locks.hold_ns=7 mix.ms=900"), 0);
	assert_int_equal(ke_config->timer, TIMER_ONESHOT);
	assert_int_equal(ke_config->tick_hz, 250);
	assert_int_equal(ke_config->rawlock, RAWLOCK_TAS);
	assert_int_equal(trace_config->items, 1u << TRACE_ITEM_CSWITCH);
	assert_int_equal(trace_config->buffer_kb, 512);
	assert_int_equal(trace_config->subbuf_kb, 16);
	assert_int_equal(trace_config->out, TRACE_OUT_SERIAL);
	assert_int_equal(trace_config->compress, 0);
	assert_int_equal(usb_probe_config->probe, 1);
	assert_int_equal(usb_stick_config->port, 3);
	assert_int_equal(usb_stick_config->data_timeout_ms, 1500);
	assert_int_equal(usb_stick_config->csw_timeout_ms, 700);
	assert_int_equal(spinlock_config->acquire_sample_rate, 2000);
	assert_int_equal(resource_config->timeout_ms, 30);
	assert_int_equal(profile_config->interval, 2000);
	assert_int_equal(profile_config->pmc_interval, 5000);
	assert_int_equal(workload_config->scenario, SCENARIO_LOCKS);
	assert_int_equal(workload_config->locks_ms, 300);
	assert_int_equal(workload_config->locks_hold_ns, 7);
	assert_int_equal(workload_config->mix_ms, 900);
	assert_int_equal(parse(""), 0);
	assert_int_equal(ke_config->tick_hz, 100);
	assert_int_equal(trace_config->buffer_kb, 4096);
	assert_int_equal(usb_probe_config->probe, 0);
	assert_int_equal(usb_stick_config->port, 0);
	assert_int_equal(resource_config->timeout_ms, 4000);
	assert_int_equal(workload_config->mix_ms, 1000);
}

static int setup(void **state)
{
	(void)state;
	ntables = cmdline_tables(tables, CMDLINE_MAX_TABLES);
	return ntables > 0 && ntables <= CMDLINE_MAX_TABLES ? 0 : -1;
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
		cmocka_unit_test(test_keys_keep_their_order),
		cmocka_unit_test(test_keys_land_in_their_owners_struct),
	};
	return cmocka_run_group_tests_name("cmdline_keys", tests, setup, NULL);
}
