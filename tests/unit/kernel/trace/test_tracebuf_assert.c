/*
 * test_tracebuf_assert.c - the per-CPU trace buffer's asserted invariants
 * (kernel/trace/tracebuf.c's top comment): each test breaks one the way a
 * buggy writer or reader would and expects the bug check
 * KPROF_ASSERTION_FAILED, whose message names the relation and the values
 * (kernel/debug/kassert.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "shadow.h"
#include "kernel/debug/kassert.h"
#include "kernel/trace/tracebuf.h"
#include "support/tracebuf_fixture.h"

#if !KPROF_ASSERTS
#error "test_tracebuf_assert needs KPROF_ASSERTS"
#endif

/* The last bug check was a failed assertion in the buffer's code (tracebuf.c,
 * or the writer's inline path in tracebuf.h) whose message holds `what`
 * (the relation and its values). */
#define assert_tripped(what) assert_true(shadow_assertion_failed(what, "kernel/trace/tracebuf."))

static void test_unaligned_size(void **state)
{
	(void)state;
	struct trace_reservation r;
	assert_true(SHADOW_EXPECT_BUGCHECK(tracebuf_reserve(&tc, 60, &r)));
	assert_tripped("size % PERFINFO_RECORD_ALIGN == 0u (4 vs 0)");
	assert_int_equal(tc.offset, 0); /* nothing reserved */
}

static void test_size_below_a_header(void **state)
{
	(void)state;
	struct trace_reservation r;
	assert_true(SHADOW_EXPECT_BUGCHECK(tracebuf_reserve(&tc, 8, &r)));
	assert_tripped("size >= (uint32_t)sizeof(PERFINFO_TRACE_HEADER) (8 vs 16)");
}

/* A record of 200 bytes committed twice: 400 bytes of a 256-byte
 * sub-buffer would be committed. */
static void test_commit_twice(void **state)
{
	(void)state;
	struct trace_reservation r;
	assert_true(put_r(200, 1, &r));
	assert_true(SHADOW_EXPECT_BUGCHECK(tracebuf_commit(&r)));
	assert_tripped("s->commit + r->size <= 1u << tc->shift (400 vs 256)");
}

/* A small record committed twice fits the commit count; the switch out
 * of its sub-buffer finds more committed than was reserved. */
static void test_commit_beyond_reserved(void **state)
{
	(void)state;
	struct trace_reservation r;
	assert_true(put_r(64, 1, &r));
	tracebuf_commit(&r); /* 128 committed, 64 reserved */
	assert_true(SHADOW_EXPECT_BUGCHECK(put(256, 2)));
	assert_tripped("s->commit <= pos (128 vs 64)");
}

/* Release with nothing peeked: consumed would pass what the writer wrote. */
static void test_release_unwritten(void **state)
{
	(void)state;
	assert_true(SHADOW_EXPECT_BUGCHECK(tracebuf_release(&tc)));
	assert_tripped("n < (READ_ONCE(tc->offset) + (1u << tc->shift) - 1) >> tc->shift "
		       "(0 vs 0)");
	/* After a proper final release, a second one is the same bug. */
	struct trace_view v;
	assert_true(put(64, 1));
	assert_true(tracebuf_peek_final(&tc, &v));
	tracebuf_release(&tc);
	assert_true(SHADOW_EXPECT_BUGCHECK(tracebuf_release(&tc)));
	assert_tripped("(1 vs 1)");
}

/* A reader that got ahead of the writer (consumed past the sub-buffer
 * being entered): the writer asserts rather than see the ring as full. */
static void test_writer_behind_reader(void **state)
{
	(void)state;
	assert_true(put(256, 1)); /* sub-buffer 0 exactly full */
	tc.consumed = 2;          /* a reader released sub-buffers 0 and 1 */
	assert_true(SHADOW_EXPECT_BUGCHECK(put(64, 2)));
	assert_tripped("consumed <= number (2 vs 1)");
}

/* A reader that sees more than the ring unreleased: the writer lapped it
 * (here its count of released sub-buffers went back). */
static void test_writer_lapped_reader(void **state)
{
	(void)state;
	struct trace_view v;
	for (int i = 0; i < 8; i++)
		assert_true(put(128, (uint16_t)i)); /* fills all 4 sub-buffers */
	for (int i = 0; i < 2; i++) {
		assert_true(tracebuf_peek_full(&tc, &v));
		tracebuf_release(&tc);
	}
	for (int i = 0; i < 4; i++)
		assert_true(put(128, (uint16_t)(8 + i))); /* 2 more: 6 written */
	tc.consumed = 1; /* one release forgotten */
	assert_true(SHADOW_EXPECT_BUGCHECK(tracebuf_peek_full(&tc, &v)));
	assert_tripped("<= tc->nsub (5 vs 4)");
}

/* The ring used as it should be trips nothing: write, switch, read,
 * release, wrap around, final view. */
static void test_proper_use_is_quiet(void **state)
{
	(void)state;
	struct trace_view v;
	shadow_last_bugcheck = 0;
	for (uint32_t i = 0; i < 64; i++) {
		put(16 + 8 * (i % 30), (uint16_t)i);
		while (tracebuf_peek_full(&tc, &v))
			tracebuf_release(&tc);
	}
	assert_true(tracebuf_peek_final(&tc, &v));
	tracebuf_release(&tc);
	assert_int_equal(shadow_last_bugcheck, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_unaligned_size, setup),
		cmocka_unit_test_setup(test_size_below_a_header, setup),
		cmocka_unit_test_setup(test_commit_twice, setup),
		cmocka_unit_test_setup(test_commit_beyond_reserved, setup),
		cmocka_unit_test_setup(test_release_unwritten, setup),
		cmocka_unit_test_setup(test_writer_behind_reader, setup),
		cmocka_unit_test_setup(test_writer_lapped_reader, setup),
		cmocka_unit_test_setup(test_proper_use_is_quiet, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
