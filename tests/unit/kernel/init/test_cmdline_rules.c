/*
 * test_cmdline_rules.c - the one pass over the whole configuration
 * (kernel/init/cmdline_rules.c: config_parse): every rule between keys,
 * the checks that used to wait until later in the boot (spin-lock
 * minimums, PMC sources, profile interval, trace buffers, the tracetest
 * scenario's trace items), and every problem reported at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <arch/cmdline.h>

#include "kernel/init/cmdline.h"
#include "kernel/profile/profile_keys.h"
#include "kernel/trace/config/trace_keys.h"

#define MAX_MSGS 16

static struct {
	int n;
	char text[MAX_MSGS][1024];
} msgs;

/* One message per problem: its first line (a wrapped list's further
 * lines are test_cmdline's and test_cmdline_keys's business). */
static void collect(void *ctx, const char *msg, enum cmdline_line kind)
{
	(void)ctx;
	if (kind == CMDLINE_MORE)
		return;
	if (msgs.n < MAX_MSGS)
		snprintf(msgs.text[msgs.n], sizeof(msgs.text[0]), "%s", msg);
	msgs.n++;
}

static int parse(const char *line)
{
	memset(&msgs, 0, sizeof(msgs));
	int n = config_parse(line, collect, NULL);
	assert_int_equal(n, msgs.n);
	return n;
}

/* The message that contains `s`, or NULL. */
static const char *message_with(const char *s)
{
	for (int i = 0; i < msgs.n && i < MAX_MSGS; i++)
		if (strstr(msgs.text[i], s))
			return msgs.text[i];
	return NULL;
}

/* trace.buffer_fit=auto never leaves config_parse: a size the user gave
 * is refused when it does not fit, a default one made smaller. */
static void test_trace_buffer_fit_resolved(void **state)
{
	(void)state;
	assert_int_equal(parse(""), 0);
	assert_int_equal(trace_config->buffer_fit, TRACE_FIT_SHRINK);
	assert_int_equal(parse("trace.buffer_kb=262144"), 0);
	assert_int_equal(trace_config->buffer_fit, TRACE_FIT_REFUSE);
	assert_int_equal(parse("trace.buffer_kb=16384 trace.buffer_fit=shrink"), 0);
	assert_int_equal(trace_config->buffer_fit, TRACE_FIT_SHRINK);
	assert_int_equal(parse("trace.buffer_fit=refuse"), 0);
	assert_int_equal(trace_config->buffer_fit, TRACE_FIT_REFUSE);
	assert_int_equal(parse("trace.buffer_fit=auto trace.buffer_kb=x"), 1);
	assert_int_equal(trace_config->buffer_fit, TRACE_FIT_SHRINK); /* a refused size: the default stands */
}

/* profile.interval: whether the user gave it, for the boot's pacing of a
 * default one (kernel/profile/pace.h); a refused value leaves the default. */
static void test_profile_interval_given(void **state)
{
	(void)state;
	assert_int_equal(parse("scenario=locks"), 0);
	assert_int_equal(profile_config->interval_given, 0);
	assert_int_equal(parse("profile.interval=10000"), 0);
	assert_int_equal(profile_config->interval_given, 1);
	assert_int_equal(parse("scenario=locks"), 0);
	assert_int_equal(profile_config->interval_given, 0);
	assert_int_equal(parse("profile.interval=5"), 1);
	assert_int_equal(profile_config->interval_given, 0);
}

static void test_trace_none_stands_alone(void **state)
{
	(void)state;
	assert_int_equal(parse("trace=none"), 0);
	assert_int_equal(parse("trace=none,cswitch"), 1);
	assert_string_equal(msgs.text[0], "cmdline: trace=cswitch,none: none cannot be combined with other items; "
					  "accepted: none alone, or a comma-separated list of the others");
	assert_int_equal(parse("trace=all,none"), 1);
	/* a refused trace= is not judged again by the rule */
	assert_int_equal(parse("trace=none,bogus"), 1);
	assert_non_null(strstr(msgs.text[0], "unknown item 'bogus'"));
}

static void test_trace_buffer_holds_two_subbuffers(void **state)
{
	(void)state;
	assert_int_equal(parse("trace.buffer_kb=128 trace.subbuf_kb=64"), 0);
	assert_int_equal(parse("trace.buffer_kb=64 trace.subbuf_kb=64"), 1);
	assert_string_equal(msgs.text[0], "cmdline: trace.buffer_kb=64: holds fewer than 2 sub-buffers of "
					  "trace.subbuf_kb=64; accepted: at least 128 (2 x trace.subbuf_kb), or a "
					  "smaller trace.subbuf_kb");
	/* the default buffer (4 MiB) holds even the largest sub-buffers */
	assert_int_equal(parse("trace.subbuf_kb=1024"), 0);
	assert_int_equal(parse("trace.subbuf_kb=1024 trace.buffer_kb=1024"), 1);
	assert_non_null(strstr(msgs.text[0], "trace.buffer_kb=1024: holds fewer than 2"));
	/* a sub-buffer size already refused is not used against the buffer */
	assert_int_equal(parse("trace.subbuf_kb=48 trace.buffer_kb=8"), 1);
	assert_non_null(strstr(msgs.text[0], "not a power of two"));
}

static void test_tracetest_needs_its_records(void **state)
{
	(void)state;
	assert_int_equal(parse("scenario=tracetest"), 0);
	assert_int_equal(parse("scenario=tracetest trace=tracetest"), 0);
	assert_int_equal(parse("scenario=tracetest trace=cswitch,clock"), 1);
	assert_string_equal(msgs.text[0], "cmdline: trace=cswitch,clock: scenario=tracetest writes only trace=tracetest "
					  "records, which this list leaves out; accepted with scenario=tracetest: a "
					  "list that includes tracetest, or all");
	assert_int_equal(parse("scenario=boot trace=cswitch"), 0);
}

static void test_spinlock_minimums(void **state)
{
	(void)state;
	assert_int_equal(parse("spinlock.acquire_sample_rate=1000 spinlock.hold_threshold=0"), 0);
	assert_int_equal(parse("spinlock.acquire_sample_rate=10"), 1);
	/* the message the spinlock-key-refused boot test expects */
	assert_string_equal(msgs.text[0],
			    "cmdline: spinlock.spin_threshold=1 spinlock.acquire_sample_rate=10 "
			    "spinlock.contention_sample_rate=1 spinlock.hold_threshold=1000000: refused by "
			    "NtSetSystemInformation with STATUS_INVALID_PARAMETER (0xC000000D); accepted: spin_threshold >= "
			    "1, acquire_sample_rate >= 1000, contention_sample_rate >= 1, hold_threshold 0 or >= 1000000; "
			    "below the minimum: spinlock.acquire_sample_rate=10");
	assert_int_equal(parse("spinlock.spin_threshold=0"), 1);
	assert_int_equal(parse("spinlock.contention_sample_rate=0"), 1);
	assert_int_equal(parse("spinlock.hold_threshold=999999"), 1);
	assert_non_null(strstr(msgs.text[0], "below the minimum: spinlock.hold_threshold=999999"));
	/* one call, one refusal, naming every value below its minimum */
	assert_int_equal(parse("spinlock.spin_threshold=0 spinlock.contention_sample_rate=0"), 1);
	assert_non_null(strstr(msgs.text[0], "below the minimum: spinlock.spin_threshold=0, "
					     "spinlock.contention_sample_rate=0"));
}

static void test_pmc_sources(void **state)
{
	(void)state;
	assert_int_equal(parse("pmc.sources=Time,TotalCycles"), 1);
	assert_string_equal(msgs.text[0], "cmdline: pmc.sources: Time is the profile timer (trace=profile), not a "
					  "counter; accepted: the other KPROFILE_SOURCE names, e.g. "
					  "TotalCycles,TotalIssues,BranchMispredictions,CacheMisses (given: "
					  "pmc.sources=Time,TotalCycles)");
	assert_int_equal(parse("pmc.sources=TotalCycles,TotalIssues,CacheMisses,BranchMispredictions"), 0);
	assert_int_equal(parse("pmc.sources=TotalCycles,TotalIssues,CacheMisses,BranchMispredictions,DcacheMisses"), 1);
	assert_string_equal(msgs.text[0], "cmdline: pmc.sources=TotalIssues,DcacheMisses,CacheMisses,"
					  "BranchMispredictions,TotalCycles: names 5 counter sources; accepted: at most 4 "
					  "at once");
	/* Time is not a counter: it is not counted against the four */
	assert_int_equal(parse("pmc.sources=Time,TotalCycles,TotalIssues,CacheMisses,BranchMispredictions"), 1);
	assert_non_null(strstr(msgs.text[0], "Time is the profile timer"));
}

static void test_periodic_timer_and_the_profile_workload(void **state)
{
	(void)state;
	assert_int_equal(parse("timer=periodic"), 0);
	assert_int_equal(parse("timer=periodic scenario=locks"), 0);
	assert_int_equal(parse("timer=oneshot scenario=profile"), 0);
	assert_int_equal(parse("timer=periodic scenario=profile"), 1);
	assert_string_equal(msgs.text[0], "cmdline: timer=periodic with scenario=profile: the profile workload needs the "
					  "profile timer (ProfileTime), which does not run while the timer is periodic; "
					  "accepted with scenario=profile: timer=auto, deadline or oneshot");
	assert_int_equal(parse("scenario=mix timer=periodic"), 1);
	assert_non_null(strstr(msgs.text[0], "timer=periodic with scenario=mix"));
}

static void test_profile_interval_within_the_run(void **state)
{
	(void)state;
	assert_int_equal(parse("scenario=profile profile.interval=1000000 profile.ms=100"), 0); /* one period */
	assert_int_equal(parse("scenario=profile profile.interval=10000000 profile.ms=100"), 1);
	assert_string_equal(msgs.text[0], "cmdline: profile.interval=10000000: with profile.ms=100 the profile workload "
					  "would take no sample (one period is 1000 ms); accepted: at most "
					  "profile.ms*10000 = 1000000, or a longer profile.ms");
	assert_int_equal(parse("scenario=mix mix.ms=100 profile.interval=2000000"), 1);
	assert_non_null(strstr(msgs.text[0], "with mix.ms=100 the profile workload would take no sample"));
	/* mix.ms does not matter to scenario=profile, profile.ms not to mix */
	assert_int_equal(parse("scenario=profile mix.ms=100 profile.interval=10000000"), 0);
	assert_int_equal(parse("scenario=mix profile.ms=100 profile.interval=10000000 mix.ms=1000"), 0);
	/* without the profile workload a long interval is fine */
	assert_int_equal(parse("scenario=boot profile.interval=10000000 profile.ms=100"), 0);
	/* the default run length, given the other way round */
	assert_int_equal(parse("scenario=profile profile.ms=100"), 0);
	/* a refused profile.ms is not judged again by the rule */
	assert_int_equal(parse("scenario=profile profile.ms=abc profile.interval=10000000"), 1);
	assert_non_null(strstr(msgs.text[0], "profile.ms=abc: not a number"));
}

/* Three bad keys of three different groups: all three are reported, each
 * naming its key and value, in one pass. */
static void test_three_groups_at_once(void **state)
{
	(void)state;
	assert_int_equal(parse("tick_hz=0 spinlock.spin_threshold=0 trace.buffer_kb=3"), 3);
	assert_non_null(message_with("cmdline: tick_hz=0: out of range; accepted: a whole number from 10 to 1000"));
	assert_non_null(message_with("below the minimum: spinlock.spin_threshold=0"));
	assert_non_null(message_with("cmdline: trace.buffer_kb=3: out of range; accepted: a whole number from 8 to "
				     "262144"));
}

/* Everything that used to be found only later in the boot, together. */
static void test_late_checks_now_in_the_pass(void **state)
{
	(void)state;
	assert_int_equal(parse("tick_hz=5 spinlock.acquire_sample_rate=10 trace.buffer_kb=64 trace.subbuf_kb=64 "
			       "pmc.sources=Time,TotalCycles scenario=profile timer=periodic profile.interval=10000000 "
			       "profile.ms=100 tsc_source=sundial"), 7);
	assert_non_null(message_with("cmdline: tick_hz=5: out of range"));
	assert_non_null(message_with("cmdline: tsc_source=sundial: unknown value"));
	assert_non_null(message_with("refused by NtSetSystemInformation"));
	assert_non_null(message_with("cmdline: trace.buffer_kb=64: holds fewer than 2 sub-buffers"));
	assert_non_null(message_with("cmdline: pmc.sources: Time is the profile timer"));
	assert_non_null(message_with("cmdline: timer=periodic with scenario=profile"));
	assert_non_null(message_with("cmdline: profile.interval=10000000: with profile.ms=100"));
}

static void test_rules_describe_themselves(void **state)
{
	(void)state;
	for (size_t r = 0; r < cmdline_rule_count; r++) {
		char text[1024] = "";
		cmdline_rules[r].describe(text, sizeof(text));
		assert_true(strlen(text) > 20 && strlen(text) < sizeof(text) - 1);
		/* names (the last part of) the first key it reads */
		const char *dot = strrchr(cmdline_rules[r].keys[0], '.');
		assert_non_null(strstr(text, dot ? dot + 1 : cmdline_rules[r].keys[0]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_none_stands_alone),
		cmocka_unit_test(test_trace_buffer_holds_two_subbuffers),
		cmocka_unit_test(test_tracetest_needs_its_records),
		cmocka_unit_test(test_spinlock_minimums),
		cmocka_unit_test(test_pmc_sources),
		cmocka_unit_test(test_periodic_timer_and_the_profile_workload),
		cmocka_unit_test(test_profile_interval_within_the_run),
		cmocka_unit_test(test_three_groups_at_once),
		cmocka_unit_test(test_late_checks_now_in_the_pass),
		cmocka_unit_test(test_rules_describe_themselves),
		cmocka_unit_test(test_trace_buffer_fit_resolved),
		cmocka_unit_test(test_profile_interval_given),
	};
	return cmocka_run_group_tests_name("cmdline_rules", tests, NULL, NULL);
}
