/*
 * test_chunk_assert.c - the chunker's asserted rules (kernel/trace/out/
 * chunk.c's top comment): each test breaks one the way a buggy sender
 * would and expects the bug check KPROF_ASSERTION_FAILED, whose message
 * names the relation and its values (kernel/debug/kassert.h); the same
 * calls made right pass.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "shadow.h"
#include "include/kprof/wire.h"
#include "include/kprof/wmi.h"
#include "kernel/debug/kassert.h"
#include "kernel/trace/out/chunk.h"

#if !KPROF_ASSERTS
#error "test_chunk_assert needs KPROF_ASSERTS"
#endif

#define assert_tripped(what) assert_true(shadow_assertion_failed(what, "kernel/trace/out/chunk.c:"))

static uint8_t buf[4096] __attribute__((aligned(8)));
static struct trace_chunk_scratch scratch;

/* n records of `size` bytes (a multiple of 8) that compress well: the
 * same type, time stamps one apart. */
static uint32_t lay_out(uint32_t n, uint32_t size)
{
	memset(buf, 0, sizeof(buf));
	for (uint32_t i = 0; i < n; i++) {
		PERFINFO_TRACE_HEADER *h = (void *)(buf + i * size);
		h->Marker = PERFINFO_MARKER_64;
		h->Size = (uint16_t)size;
		h->HookId = PERFINFO_LOG_TYPE_SPINLOCK;
		h->TimeStamp = 1000 + i;
	}
	return n * size;
}

/* A chunk asked for from the middle of a record. */
static void test_next_inside_a_record(void **state)
{
	(void)state;
	uint32_t used = lay_out(8, 64), records;
	assert_int_equal(trace_chunk_next(buf, used, 64, 2048, &records), used); /* right: a boundary */
	assert_true(SHADOW_EXPECT_BUGCHECK(trace_chunk_next(buf, used, 68, 2048, &records)));
	assert_tripped("misaligned == 0u (4 vs 0)");
}

/* A chunk asked for past the end of what the sub-buffer holds. */
static void test_next_past_the_end(void **state)
{
	(void)state;
	uint32_t used = lay_out(8, 64), records;
	assert_int_equal(trace_chunk_next(buf, used, used, 2048, &records), used); /* right: the end, nothing */
	assert_int_equal(records, 0);
	assert_true(SHADOW_EXPECT_BUGCHECK(trace_chunk_next(buf, used, used + 8, 2048, &records)));
	assert_tripped("off <= used (520 vs 512)");
}

/* The header says more records than the bytes given hold: the sender
 * passed a chunk cut short (or the wrong count). */
static void test_encode_count_not_the_chunks(void **state)
{
	(void)state;
	uint32_t used = lay_out(16, 64), len;
	struct kprof_chunk_header c = { .records = 16 };
	const uint8_t *p = trace_chunk_encode(&c, buf, used, &scratch, &len); /* right */
	assert_ptr_equal(p, scratch.packed);
	assert_int_equal(c.encoding, KPROF_CHUNK_DELTA2_LZ4);
	c.records = 17;
	assert_true(SHADOW_EXPECT_BUGCHECK(trace_chunk_encode(&c, buf, used, &scratch, &len)));
	assert_tripped("walked == (size_t)c->records (16 vs 17)");
}

/* A chunk that ends inside a record: the last record's Size runs past
 * the bytes given, so the transform stops before it. */
static void test_encode_cut_inside_a_record(void **state)
{
	(void)state;
	lay_out(16, 64);
	uint32_t len;
	struct kprof_chunk_header c = { .records = 16 };
	assert_true(SHADOW_EXPECT_BUGCHECK(trace_chunk_encode(&c, buf, 16 * 64 - 8, &scratch, &len)));
	assert_tripped("walked == (size_t)c->records (15 vs 16)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next_inside_a_record),
		cmocka_unit_test(test_next_past_the_end),
		cmocka_unit_test(test_encode_count_not_the_chunks),
		cmocka_unit_test(test_encode_cut_inside_a_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
