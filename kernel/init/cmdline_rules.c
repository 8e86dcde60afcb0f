/*
 * cmdline_rules.c - the one check of the whole configuration: defaults,
 * every key's type and range (cmdline.c), then every rule below, before
 * anything runs.
 *
 * A rule covers what one key's range cannot say: combinations of keys,
 * and values the code that applies them would refuse later (the
 * spin-lock minimums of NtSetSystemInformation, the profile workload's
 * need for the profile timer).  Each uses the constants of the code it
 * speaks for, so the two cannot drift apart.  A rule runs only when every
 * key it reads was accepted or left at its default: a value already
 * refused is not judged again against a default it does not have.
 *
 * What only the hardware can tell (is that clock there, how wide is a
 * counter) is checked where it is probed; the keys' `probe` fields say
 * which, and those refusals end the run the same way (main.c).
 *
 * Pure like cmdline.c: the unit tests and the docs/cmdline.md generator
 * run it on the host.
 */
#include "kernel/init/cmdline.h"

#include <arch/dev/pmu.h>

#include "include/kprof/scenario.h"
#include "include/kprof/wmi.h"
#include "kernel/ke/ke_keys.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"
#include "kernel/locks/spinlock_params.h"
#include "kernel/profile/profile_keys.h"
#include "kernel/profile/source.h"
#include "kernel/trace/trace.h"
#include "kernel/trace/config/trace_keys.h"

/* A rule reads the values by key name, whichever subsystem's struct holds
 * them: the rules speak for combinations across owners. */
struct config_view {
	const struct cmdline_table *tables;  /* every key, with its struct    */
	size_t ntables;
	const uint8_t *state;                /* enum cmdline_key_state by key */
	cmdline_error_fn err;
	void *ctx;
};

#define report(v, ...) cmdline_report((v)->err, (v)->ctx, __VA_ARGS__)

static const struct cmdline_key *find(const struct config_view *v, const char *name, size_t *index,
				      const struct cmdline_table **table)
{
	return cmdline_key_find(v->tables, v->ntables, name, strlen(name), table, index);
}

/* Where the value of the key `name` is held (every name a rule reads is
 * a key of some table: test_cmdline_rules checks it). */
static uint32_t *field(const struct config_view *v, const char *name)
{
	size_t i;
	const struct cmdline_table *t;
	const struct cmdline_key *k = find(v, name, &i, &t);
	static uint32_t none;
	if (!k) {
		none = 0;
		return &none;
	}
	return (uint32_t *)((char *)t->config + k->offset);
}

static uint32_t value(const struct config_view *v, const char *name)
{
	return *field(v, name);
}

static enum cmdline_key_state state_of(const struct config_view *v, const char *name)
{
	size_t i;
	if (!find(v, name, &i, NULL) || i >= CMDLINE_MAX_KEYS)
		return CMDLINE_DEFAULT;
	return (enum cmdline_key_state)v->state[i];
}

/* " (the default)" after a value the user did not give. */
static const char *dflt(const struct config_view *v, const char *name)
{
	return state_of(v, name) == CMDLINE_GIVEN ? "" : " (the default)";
}

/* The items of a SET key's value, "a,b,c", as the user would write them. */
static const char *set_text(const struct config_view *v, const char *name, uint32_t bits, char *buf, size_t size)
{
	size_t i, len = 0;
	const struct cmdline_key *k = find(v, name, &i, NULL);
	buf[0] = '\0';
	for (uint32_t b = 0; k && cmdline_key_names(k)[b] && b < 32 && len < size; b++)
		if (bits & (1u << b))
			len += (size_t)ksnprintf(buf + len, size - len, "%s%s", len ? "," : "", cmdline_key_names(k)[b]);
	return buf;
}

/* ---- trace= and its buffers ---- */

static void describe_trace_none(char *buf, size_t size)
{
	ksnprintf(buf, size, "`trace=none` stands alone: none cannot be combined with other items.");
}

static int check_trace_none(const struct config_view *v)
{
	uint32_t bits = value(v, "trace");
	char text[256];
	if (!(bits & (1u << TRACE_ITEM_NONE)) || bits == (1u << TRACE_ITEM_NONE))
		return 0;
	report(v, "cmdline: trace=%s: none cannot be combined with other items; accepted: none alone, or a "
		  "comma-separated list of the others", set_text(v, "trace", bits, text, sizeof(text)));
	return 1;
}

static void describe_trace_buffer(char *buf, size_t size)
{
	ksnprintf(buf, size, "`trace.buffer_kb` >= %u x `trace.subbuf_kb`: each CPU's ring holds at least %u "
		  "sub-buffers (the writers fill one while another is sent).", TRACE_MIN_SUBBUFS, TRACE_MIN_SUBBUFS);
}

static int check_trace_buffer(const struct config_view *v)
{
	uint32_t buffer_kb = value(v, "trace.buffer_kb"), subbuf_kb = value(v, "trace.subbuf_kb");
	if (buffer_kb / subbuf_kb >= TRACE_MIN_SUBBUFS)
		return 0;
	report(v, "cmdline: trace.buffer_kb=%u%s: holds fewer than %u sub-buffers of trace.subbuf_kb=%u%s; accepted: at "
		  "least %llu (%u x trace.subbuf_kb), or a smaller trace.subbuf_kb", buffer_kb,
	       dflt(v, "trace.buffer_kb"), TRACE_MIN_SUBBUFS, subbuf_kb, dflt(v, "trace.subbuf_kb"),
	       (unsigned long long)TRACE_MIN_SUBBUFS * subbuf_kb, TRACE_MIN_SUBBUFS);
	return 1;
}

static void describe_tracetest(char *buf, size_t size)
{
	ksnprintf(buf, size, "`scenario=tracetest` needs `trace=` to include tracetest (or all): the scenario "
		  "writes and checks only those records.");
}

static int check_tracetest(const struct config_view *v)
{
	uint32_t want = (1u << TRACE_ITEM_TRACETEST) | (1u << TRACE_ITEM_ALL);
	char text[256];
	if (value(v, "scenario") != SCENARIO_TRACETEST || (value(v, "trace") & want))
		return 0;
	report(v, "cmdline: trace=%s%s: scenario=tracetest writes only trace=tracetest records, which this list leaves "
		  "out; accepted with scenario=tracetest: a list that includes tracetest, or all",
	       set_text(v, "trace", value(v, "trace"), text, sizeof(text)), dflt(v, "trace"));
	return 1;
}

/* ---- spin-lock sampling: NtSetSystemInformation's own rule ---- */

static void describe_spinlock(char *buf, size_t size)
{
	ksnprintf(buf, size, "The four `spinlock.*` values go to NtSetSystemInformation (EventTraceSpinlockInformation) "
		  "as one structure and are refused together unless spin_threshold >= %u, acquire_sample_rate >= %u, "
		  "contention_sample_rate >= %u and hold_threshold is 0 or >= %u (the call's own check, made before "
		  "anything runs).", SPINLOCK_MIN_SPIN_THRESHOLD, SPINLOCK_MIN_ACQUIRE_SAMPLE_RATE,
		  SPINLOCK_MIN_CONTENTION_SAMPLE_RATE, SPINLOCK_MIN_HOLD_THRESHOLD);
}

static int check_spinlock(const struct config_view *v)
{
	const struct spinlock_params p = {
		.SpinThreshold = value(v, "spinlock.spin_threshold"),
		.AcquireSampleRate = value(v, "spinlock.acquire_sample_rate"),
		.ContentionSampleRate = value(v, "spinlock.contention_sample_rate"),
		.HoldThreshold = value(v, "spinlock.hold_threshold"),
	};
	if (spinlock_params_valid(&p))
		return 0;
	/* Which of them, for the end of the line. */
	const struct { const char *key; uint32_t value; bool low; } f[] = {
		{ "spinlock.spin_threshold", p.SpinThreshold, p.SpinThreshold < SPINLOCK_MIN_SPIN_THRESHOLD },
		{ "spinlock.acquire_sample_rate", p.AcquireSampleRate,
		  p.AcquireSampleRate < SPINLOCK_MIN_ACQUIRE_SAMPLE_RATE },
		{ "spinlock.contention_sample_rate", p.ContentionSampleRate,
		  p.ContentionSampleRate < SPINLOCK_MIN_CONTENTION_SAMPLE_RATE },
		{ "spinlock.hold_threshold", p.HoldThreshold,
		  p.HoldThreshold && p.HoldThreshold < SPINLOCK_MIN_HOLD_THRESHOLD },
	};
	char low[256];
	size_t len = 0;
	low[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(f); i++)
		if (f[i].low)
			len += (size_t)ksnprintf(low + len, sizeof(low) - len, "%s%s=%u", len ? ", " : "", f[i].key,
						 f[i].value);
	report(v, "cmdline: spinlock.spin_threshold=%u spinlock.acquire_sample_rate=%u spinlock.contention_sample_rate=%u "
		  "spinlock.hold_threshold=%u: refused by NtSetSystemInformation with %s (0x%08X); accepted: "
		  "spin_threshold >= %u, acquire_sample_rate >= %u, contention_sample_rate >= %u, hold_threshold 0 or "
		  ">= %u; below the minimum: %s",
	       p.SpinThreshold, p.AcquireSampleRate, p.ContentionSampleRate, p.HoldThreshold, "STATUS_INVALID_PARAMETER",
	       (unsigned)STATUS_INVALID_PARAMETER, SPINLOCK_MIN_SPIN_THRESHOLD, SPINLOCK_MIN_ACQUIRE_SAMPLE_RATE,
	       SPINLOCK_MIN_CONTENTION_SAMPLE_RATE, SPINLOCK_MIN_HOLD_THRESHOLD, low);
	return 1;
}

/* ---- profile sources ---- */

static void describe_pmc_time(char *buf, size_t size)
{
	ksnprintf(buf, size, "`pmc.sources` cannot name Time: ProfileTime is the profile timer (`trace=profile`), not "
		  "a counter.");
}

static int check_pmc_time(const struct config_view *v)
{
	char text[512];
	uint32_t sources = value(v, "pmc.sources");
	if (!(sources & (1u << ProfileTime)))
		return 0;
	report(v, "cmdline: pmc.sources: Time is the profile timer (trace=profile), not a counter; accepted: the other "
		  "KPROFILE_SOURCE names, e.g. TotalCycles,TotalIssues,BranchMispredictions,CacheMisses (given: "
		  "pmc.sources=%s)", set_text(v, "pmc.sources", sources, text, sizeof(text)));
	return 1;
}

static void describe_pmc_count(char *buf, size_t size)
{
	ksnprintf(buf, size, "`pmc.sources` names at most %u counter sources: what one CPU counts at once "
		  "(ARCH_PMU_MAX_SOURCES).", ARCH_PMU_MAX_SOURCES);
}

static int check_pmc_count(const struct config_view *v)
{
	uint32_t sources = value(v, "pmc.sources"), counters = sources & ~(1u << ProfileTime), n = 0;
	char text[512];
	for (uint32_t b = counters; b; b &= b - 1)
		n++;
	if (n <= ARCH_PMU_MAX_SOURCES)
		return 0;
	report(v, "cmdline: pmc.sources=%s: names %u counter sources; accepted: at most %u at once",
	       set_text(v, "pmc.sources", sources, text, sizeof(text)), n, ARCH_PMU_MAX_SOURCES);
	return 1;
}

/* The profile workload runs alone (scenario=profile, for profile.ms) and
 * in the mix (for mix.ms each). */
static bool runs_profile(const struct config_view *v, const char **ms_key, uint32_t *ms)
{
	uint32_t scenario = value(v, "scenario");
	if (scenario != SCENARIO_PROFILE && scenario != SCENARIO_MIX)
		return false;
	*ms_key = scenario == SCENARIO_PROFILE ? "profile.ms" : "mix.ms";
	*ms = value(v, *ms_key);
	return true;
}

static void describe_periodic(char *buf, size_t size)
{
	ksnprintf(buf, size, "`timer=periodic` is refused with `scenario=profile` and `scenario=mix`: their profile "
		  "workload needs the profile timer (ProfileTime), which does not run while the timer is periodic. "
		  "With other scenarios the run goes on without ProfileTime samples (a message says so).");
}

static int check_periodic(const struct config_view *v)
{
	const char *ms_key;
	uint32_t ms;
	if (value(v, "timer") != TIMER_PERIODIC || !runs_profile(v, &ms_key, &ms))
		return 0;
	const char *scenario = kprof_scenario_name(value(v, "scenario"));
	report(v, "cmdline: timer=periodic with scenario=%s: the profile workload needs the profile timer (ProfileTime), "
		  "which does not run while the timer is periodic; accepted with scenario=%s: timer=auto, deadline or "
		  "oneshot", scenario, scenario);
	return 1;
}

static void describe_profile_samples(char *buf, size_t size)
{
	ksnprintf(buf, size, "`profile.interval` <= `profile.ms` x %u with `scenario=profile`, <= `mix.ms` x %u with "
		  "`scenario=mix` (%u units of 100 ns in a millisecond): at least one profile period within the "
		  "workload's run, or it would take no sample.", PROFILE_TIME_UNITS_PER_MS, PROFILE_TIME_UNITS_PER_MS,
		  PROFILE_TIME_UNITS_PER_MS);
}

static int check_profile_samples(const struct config_view *v)
{
	const char *ms_key;
	uint32_t ms, interval = value(v, "profile.interval");
	if (!runs_profile(v, &ms_key, &ms))
		return 0;
	uint64_t most = (uint64_t)ms * PROFILE_TIME_UNITS_PER_MS;
	if (interval <= most)
		return 0;
	report(v, "cmdline: profile.interval=%u%s: with %s=%u%s the profile workload would take no sample (one period "
		  "is %u ms); accepted: at most %s*%u = %llu, or a longer %s", interval,
	       dflt(v, "profile.interval"), ms_key, ms, dflt(v, ms_key), interval / PROFILE_TIME_UNITS_PER_MS,
	       ms_key, PROFILE_TIME_UNITS_PER_MS, (unsigned long long)most, ms_key);
	return 1;
}

const struct cmdline_rule cmdline_rules[] = {
	{ { "trace" }, describe_trace_none, check_trace_none },
	{ { "trace.buffer_kb", "trace.subbuf_kb" }, describe_trace_buffer, check_trace_buffer },
	{ { "scenario", "trace" }, describe_tracetest, check_tracetest },
	{ { "spinlock.spin_threshold", "spinlock.acquire_sample_rate", "spinlock.contention_sample_rate",
	    "spinlock.hold_threshold" }, describe_spinlock, check_spinlock },
	{ { "pmc.sources" }, describe_pmc_time, check_pmc_time },
	{ { "pmc.sources" }, describe_pmc_count, check_pmc_count },
	{ { "timer", "scenario" }, describe_periodic, check_periodic },
	{ { "profile.interval", "profile.ms", "mix.ms", "scenario" }, describe_profile_samples, check_profile_samples },
};

const size_t cmdline_rule_count = ARRAY_SIZE(cmdline_rules);

/* The keys every rule reads, and the one written below, are keys of some
 * table (for the unit tests, which check it). */
bool config_key_known(const struct cmdline_table *tables, size_t ntables, const char *name)
{
	const struct config_view v = { .tables = tables, .ntables = ntables };
	size_t i;
	return find(&v, name, &i, NULL) != NULL;
}

/* Each table's own rule (a workload's: cmdline_table.check), when none
 * of the table's keys was refused. */
static int check_tables(const struct config_view *v)
{
	int errors = 0;
	size_t base = 0;
	for (size_t t = 0; t < v->ntables; base += v->tables[t].count, t++) {
		const struct cmdline_table *tb = &v->tables[t];
		bool judged = tb->check != NULL;
		for (size_t i = 0; judged && i < tb->count && base + i < CMDLINE_MAX_KEYS; i++)
			judged = v->state[base + i] != CMDLINE_REJECTED;
		char buf[CMDLINE_LINE_MAX];
		const char *msg = judged ? tb->check(tb->config, buf, sizeof(buf)) : NULL;
		if (msg) {
			report(v, "%s", msg);
			errors++;
		}
	}
	return errors;
}

/* Each table's finish(), with which of its keys were given: the last
 * writes of the pass. */
static void finish_tables(const struct config_view *v)
{
	bool given[CMDLINE_MAX_KEYS];
	size_t base = 0;

	for (size_t t = 0; t < v->ntables; base += v->tables[t].count, t++) {
		const struct cmdline_table *tb = &v->tables[t];
		if (!tb->finish || base + tb->count > CMDLINE_MAX_KEYS)
			continue;
		for (size_t i = 0; i < tb->count; i++)
			given[i] = v->state[base + i] == CMDLINE_GIVEN;
		tb->finish(tb->config, given);
	}
}

int config_parse(const char *line, cmdline_error_fn err, void *ctx)
{
	struct cmdline_table tables[CMDLINE_MAX_TABLES];
	uint8_t state[CMDLINE_MAX_KEYS];
	size_t ntables = cmdline_tables(tables, ARRAY_SIZE(tables));

	if (ntables > ARRAY_SIZE(tables)) {
		cmdline_report(err, ctx, "cmdline: %zu tables of keys are registered; the parser walks at most %zu "
			       "(CMDLINE_MAX_TABLES)", ntables, ARRAY_SIZE(tables));
		return 1;
	}
	cmdline_tables_defaults(tables, ntables);
	int errors = cmdline_parse(line, tables, ntables, state, err, ctx);

	const struct config_view v = { .tables = tables, .ntables = ntables, .state = state, .err = err, .ctx = ctx };
	for (size_t r = 0; r < cmdline_rule_count; r++) {
		bool judged = true;
		for (size_t k = 0; k < ARRAY_SIZE(cmdline_rules[r].keys) && cmdline_rules[r].keys[k]; k++)
			judged &= state_of(&v, cmdline_rules[r].keys[k]) != CMDLINE_REJECTED;
		if (judged)
			errors += cmdline_rules[r].check(&v);
	}
	errors += check_tables(&v);
	finish_tables(&v);
	return errors;
}
