/*
 * test_trace_configure.c - trace_configure() (kernel/trace/config/trace_configure.c):
 * the trace's settings from its parsed keys and what probing found.
 * The buffers that fit are kept as given; too big ones are shrunk to the
 * largest that fits with trace.buffer_fit=shrink (and the console says
 * so), refused otherwise (one probe-time refusal naming the key); the
 * sub-buffer count is derived from the size in force; trace.out=auto is
 * resolved; and the parsed keys handed in are never written (they are
 * const, and a copy is compared after each call).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/trace/trace.h"
#include "kernel/trace/config/trace_configure.h"
#include "kernel/trace/config/tracefit.h"
#include "shadow.h"
#include "support/traceout_gen.h"

static const struct trace_config keys = {
	.items = 1u << TRACE_ITEM_CSWITCH,
	.mode = 1,
	.buffer_kb = 4096,
	.subbuf_kb = 64,
	.buffer_fit = TRACE_FIT_SHRINK,
	.out = TRACE_OUT_AUTO,
	.compress = 1,
};

static const struct bootinfo_stick no_stick = { .status = BOOTINFO_STICK_NONE };

/* Free memory for ncpu rings of kb each and the reserve, plus extra KiB. */
static uint64_t room_for(uint32_t ncpu, uint32_t kb, uint32_t sub, uint64_t extra)
{
	return ncpu * trace_fit_cpu_kb(kb, sub) + trace_fit_reserve_kb(ncpu) + extra;
}

static void configure(const struct trace_config *cfg, uint32_t ncpu, uint64_t free_kb)
{
	struct trace_config before = *cfg;
	const struct trace_probe p = { .ncpu = ncpu, .free_kb = free_kb, .stick = &no_stick };

	gen_test_reset(cfg->out);
	trace_configure(cfg, &p);
	assert_memory_equal(&before, cfg, sizeof(before)); /* the parsed keys stay as parsed */
}

static void test_fits_as_given(void **state)
{
	configure(&keys, 4, room_for(4, 4096, 64, 0));
	assert_int_equal(trace_settings->buffer_kb, 4096);
	assert_int_equal(trace_settings->subbuf_kb, 64);
	assert_int_equal(trace_settings->nsub, 64);
	assert_int_equal(trace_settings->items, keys.items);
	assert_int_equal(trace_settings->mode, keys.mode);
	assert_int_equal(trace_settings->compress, 1);
	assert_int_equal(trace_settings->out, TRACE_OUT_SERIAL); /* auto, not booted from a stick */
	assert_int_equal(probe_refusals, 0);
	assert_string_equal(shadow_console, "");
}

static void test_shrunk_to_fit(void **state)
{
	uint64_t free_kb = room_for(4, 1024, 64, 10);
	configure(&keys, 4, free_kb);
	uint32_t most = trace_fit_most_kb(free_kb, 4, 64, 4096);
	assert_true(most >= 1024 && most < 4096);
	assert_int_equal(trace_settings->buffer_kb, most);
	assert_int_equal(trace_settings->nsub, most / 64);
	assert_int_equal(probe_refusals, 0);
	assert_non_null(strstr(shadow_console, "trace: buffers sized down to fit: 4 CPUs x 4 MiB do not fit"));
	char want[64];
	snprintf(want, sizeof(want), "trace.buffer_kb=%u (trace.buffer_fit=shrink", most);
	assert_non_null(strstr(shadow_console, want));
}

static void test_given_size_refused(void **state)
{
	struct trace_config cfg = keys;
	cfg.buffer_fit = TRACE_FIT_REFUSE;
	cfg.out = TRACE_OUT_USB;
	configure(&cfg, 2, room_for(2, 1024, 64, 0));
	/* Two refusals, the buffers' and the output's; the settings hold the
	 * key as given (the run ends before they are used). */
	assert_int_equal(probe_refusals, 2);
	assert_int_equal(trace_settings->buffer_kb, 4096);
	assert_int_equal(trace_settings->nsub, 64);
	assert_int_equal(trace_settings->out, TRACE_OUT_SERIAL);
	assert_string_equal(shadow_console, "");

	cfg.out = TRACE_OUT_SERIAL;
	configure(&cfg, 2, room_for(2, 1024, 64, 0));
	assert_int_equal(probe_refusals, 1);
	assert_non_null(strstr(probe_refusal, "cmdline: trace.buffer_kb=4096: 2 CPUs x 4 MiB do not fit in the"));
	assert_non_null(strstr(probe_refusal, "or trace.buffer_fit=shrink)"));
}

static void test_nothing_fits(void **state)
{
	configure(&keys, 8, trace_fit_reserve_kb(8) + 8 * 64);
	assert_int_equal(probe_refusals, 1);
	assert_non_null(strstr(probe_refusal, "and not even 2 sub-buffers of trace.subbuf_kb=64 per CPU do"));
	assert_int_equal(trace_settings->buffer_kb, 4096);
}

/* A size that is not a whole number of sub-buffers keeps its whole ones. */
static void test_whole_subbuffers(void **state)
{
	struct trace_config cfg = keys;
	cfg.buffer_kb = 1000;
	configure(&cfg, 1, room_for(1, 1000, 64, 0));
	assert_int_equal(trace_settings->buffer_kb, 1000);
	assert_int_equal(trace_settings->nsub, 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits_as_given),
		cmocka_unit_test(test_shrunk_to_fit),
		cmocka_unit_test(test_given_size_refused),
		cmocka_unit_test(test_nothing_fits),
		cmocka_unit_test(test_whole_subbuffers),
	};
	return cmocka_run_group_tests_name("trace_configure", tests, NULL, NULL);
}
