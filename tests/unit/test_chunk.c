/*
 * test_chunk.c - cutting a sub-buffer into chunk frames
 * (kernel/trace/chunk.c): whole records only, at most the limit unless
 * one record alone is larger, every record in exactly one chunk, and a
 * record that was never committed ends the records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "include/kprof/wire.h"
#include "include/kprof/wmi.h"
#include "kernel/trace/chunk.h"

#define ALIGN8(x) (((x) + 7u) & ~7u)

static uint8_t buf[65536] __attribute__((aligned(8)));

/* Lay out records of the given sizes (header included, unaligned). */
static uint32_t lay_out(const uint32_t *sizes, uint32_t n)
{
	uint32_t off = 0;
	memset(buf, 0, sizeof(buf));
	for (uint32_t i = 0; i < n; i++) {
		PERFINFO_TRACE_HEADER *h = (void *)(buf + off);
		h->Marker = PERFINFO_MARKER_64;
		h->Size = (uint16_t)sizes[i];
		h->HookId = (uint16_t)i;
		h->TimeStamp = 1000 + i;
		off += ALIGN8(sizes[i]);
	}
	return off;
}

/* Cut everything; check the rules; return how many chunks. */
static uint32_t cut_all(uint32_t used, uint32_t limit, uint32_t expect_records)
{
	uint32_t off = 0, chunks = 0, total = 0, records;
	for (;;) {
		uint32_t end = trace_chunk_next(buf, used, off, limit, &records);
		if (end == off) {
			assert_int_equal(records, 0);
			break;
		}
		assert_true(records >= 1);
		assert_true(end - off <= limit || records == 1); /* only a lone record is larger */
		assert_int_equal(end % 8, 0);
		/* Starts at a record: the records in it walk exactly to end. */
		uint32_t walk = off, n = 0;
		while (walk < end) {
			const PERFINFO_TRACE_HEADER *h = (const void *)(buf + walk);
			assert_int_equal(h->HookId, total + n); /* in order, none skipped */
			walk += ALIGN8(h->Size);
			n++;
		}
		assert_int_equal(walk, end);
		assert_int_equal(n, records);
		total += records;
		chunks++;
		off = end;
	}
	assert_int_equal(total, expect_records);
	return chunks;
}

static void test_small_records_fill_chunks(void **state)
{
	(void)state;
	uint32_t sizes[200];
	for (int i = 0; i < 200; i++)
		sizes[i] = 16 + (uint32_t)(i % 5) * 12; /* 16..64, some unaligned */
	uint32_t used = lay_out(sizes, 200);
	uint32_t chunks = cut_all(used, KPROF_CHUNK_BYTES, 200);
	assert_true(chunks >= used / KPROF_CHUNK_BYTES);
	assert_true(chunks <= used / (KPROF_CHUNK_BYTES - 64) + 1); /* no chunk is much short of the limit */
}

static void test_exact_fit_and_one_over(void **state)
{
	(void)state;
	uint32_t sizes[33];
	for (int i = 0; i < 33; i++)
		sizes[i] = 64;
	uint32_t used = lay_out(sizes, 33); /* 32 records fill 2048 bytes exactly */
	uint32_t records, end = trace_chunk_next(buf, used, 0, 1024, &records);
	assert_int_equal(end, 1024);
	assert_int_equal(records, 16);
	assert_int_equal(cut_all(used, 1024, 33), 3); /* 16 + 16 + 1 */
}

static void test_large_record_goes_alone(void **state)
{
	(void)state;
	uint32_t sizes[] = { 40, 3000, 40, 40, 2000 };
	uint32_t used = lay_out(sizes, 5), records;
	uint32_t end = trace_chunk_next(buf, used, 0, 1024, &records);
	assert_int_equal(records, 1); /* the big one does not join it */
	end = trace_chunk_next(buf, used, end, 1024, &records);
	assert_int_equal(records, 1);
	assert_int_equal(end, 40 + 3000);
	assert_int_equal(cut_all(used, 1024, 5), 4);
}

static void test_unsettled_record_ends_the_records(void **state)
{
	(void)state;
	uint32_t sizes[] = { 32, 32, 32, 32 };
	uint32_t used = lay_out(sizes, 4);
	((PERFINFO_TRACE_HEADER *)(buf + 64))->Size = 0; /* reserved, never written */
	assert_int_equal(cut_all(used, 1024, 2), 1);
	((PERFINFO_TRACE_HEADER *)(buf + 64))->Size = 4000; /* past the end */
	assert_int_equal(cut_all(used, 1024, 2), 1);
	uint32_t records;
	assert_int_equal(trace_chunk_next(buf, used, 64, 1024, &records), 64);
	assert_int_equal(records, 0);
}

static void test_empty_and_tail(void **state)
{
	(void)state;
	uint32_t records;
	assert_int_equal(trace_chunk_next(buf, 0, 0, 1024, &records), 0);
	assert_int_equal(records, 0);
	uint32_t sizes[] = { 20 };
	uint32_t used = lay_out(sizes, 1);
	assert_int_equal(used, 24); /* the padding is part of the chunk */
	assert_int_equal(trace_chunk_next(buf, used, 0, 1024, &records), 24);
	assert_int_equal(records, 1);
	/* A record that runs past `used` is not sent. */
	assert_int_equal(trace_chunk_next(buf, 16, 0, 1024, &records), 0);
	assert_int_equal(records, 0);
}

static void test_header_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct kprof_chunk_header), 16);
	assert_int_equal(offsetof(struct kprof_chunk_header, records), 8);
	assert_int_equal(offsetof(struct kprof_chunk_header, flags), 10);
	assert_int_equal(offsetof(struct kprof_chunk_header, encoding), 12);
	assert_int_equal(offsetof(struct kprof_run_header, run_id), 100);
	assert_int_equal(offsetof(struct kprof_cpu_end, run_id), KPROF_CPU_END_V1_SIZE);
	assert_int_equal(offsetof(struct kprof_run_end, run_id), KPROF_RUN_END_V1_SIZE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_records_fill_chunks),
		cmocka_unit_test(test_exact_fit_and_one_over),
		cmocka_unit_test(test_large_record_goes_alone),
		cmocka_unit_test(test_unsettled_record_ends_the_records),
		cmocka_unit_test(test_empty_and_tail),
		cmocka_unit_test(test_header_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
