/*
 * test_tracebuf_loss.c - records-lost records (kernel/trace/tracebuf.c):
 * after drops, the first record a CPU stores is preceded, in the same
 * reservation, by a KPROF_RECORDS_LOST record counting the drops by cause,
 * with the TSC of the first drop; drops still pending at the end are only
 * in the totals.  Also drops made by a nested ("interrupt") writer while
 * an outer writer holds a reservation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <x86intrin.h>
#include <cmocka.h>

#include "kernel/trace/tracebuf.h"
#include "support/tracebuf_fixture.h"

#define LOST_SIZE 48

/* The record at byte `off` of ring slot `slot`. */
static const PERFINFO_TRACE_HEADER *at(uint32_t slot, uint32_t off)
{
	return (const PERFINFO_TRACE_HEADER *)(data + (slot << SHIFT) + off);
}

static KPROF_RECORDS_LOST lost_payload(const PERFINFO_TRACE_HEADER *h)
{
	KPROF_RECORDS_LOST l;
	assert_int_equal(h->HookId, KPROF_LOG_TYPE_RECORDS_LOST);
	assert_int_equal(h->Size, LOST_SIZE);
	assert_int_equal(h->Marker, PERFINFO_MARKER_64 | RECORDS_LOST_VERSION);
	memcpy(&l, h + 1, sizeof(l));
	return l;
}

static void fill_ring(void)
{
	for (int i = 0; i < 16; i++)
		assert_true(put(64, (uint16_t)i)); /* 4 sub-buffers of 4 */
}

static void test_lost_record_size(void **state)
{
	(void)state;
	assert_int_equal(TRACEBUF_LOST_RECORD_SIZE, LOST_SIZE);
}

/* No drop, no records-lost record. */
static void test_no_drop_no_lost_record(void **state)
{
	(void)state;
	fill_ring();
	for (uint32_t i = 0; i < NSUB; i++)
		for (uint32_t off = 0; off < 256; off += 64)
			assert_int_not_equal(at(i, off)->HookId, KPROF_LOG_TYPE_RECORDS_LOST);
	assert_int_equal(tc.lost_records, 0);
	assert_int_equal(tc.records, 16);
}

/* Fill, drop five, free a sub-buffer, write: the lost record opens the
 * freed slot with the count, the first drop's TSC and the record's time. */
static void test_drops_then_lost_record(void **state)
{
	(void)state;
	struct trace_view v;
	struct trace_reservation next;
	fill_ring();
	assert_true(tracebuf_peek_full(&tc, &v)); /* slot 0, holding records 0..3 */
	const PERFINFO_TRACE_HEADER *prev = at(3, 192);  /* the last stored: 15 */
	assert_int_equal(prev->HookId, 15);
	uint64_t before = __rdtsc();
	assert_false(put(64, 100));
	uint64_t after_first = __rdtsc();
	for (int i = 0; i < 4; i++)
		assert_false(put(16, 101));
	assert_int_equal(tc.lost[KPROF_LOSS_BUFFERS_FULL], 5);
	assert_int_equal(tc.pending[KPROF_LOSS_BUFFERS_FULL], 5);
	assert_false(put(300, 102)); /* too large: a second cause */
	tracebuf_release(&tc);
	uint64_t before_write = __rdtsc();
	assert_true(put_r(64, 200, &next));
	uint64_t after_write = __rdtsc();

	/* slot 0 now: records-lost at 0, record 200 at 48 */
	KPROF_RECORDS_LOST l = lost_payload(at(0, 0));
	assert_int_equal(l.BuffersFull, 5);
	assert_int_equal(l.TooLarge, 1);
	assert_int_equal(l.NotStarted, 0);
	assert_true(l.FirstLossTime >= before && l.FirstLossTime <= after_first);
	assert_true(l.FirstLossTime >= prev->TimeStamp); /* after the last record before it */
	assert_ptr_equal(next.hdr, at(0, LOST_SIZE));
	assert_int_equal(at(0, LOST_SIZE)->HookId, 200);
	assert_int_equal(at(0, 0)->TimeStamp, at(0, LOST_SIZE)->TimeStamp); /* one reservation */
	assert_true(at(0, 0)->TimeStamp >= before_write && at(0, 0)->TimeStamp <= after_write);
	assert_int_equal(next.records, 2);
	assert_int_equal(next.size, LOST_SIZE + 64);
	assert_int_equal(tc.records, 18);
	assert_int_equal(tc.lost_records, 1);
	assert_int_equal(tc.bytes, 16 * 64 + LOST_SIZE + 64);
	for (int c = 0; c < KPROF_LOSS_CAUSES; c++)
		assert_int_equal(tc.pending[c], 0);
	assert_int_equal(tc.pending_tsc, 0);

	/* The reader sees both records in the sub-buffer. */
	assert_true(tracebuf_peek_full(&tc, &v)); /* slot 1 */
	tracebuf_release(&tc);
	assert_true(put(64, 201));
	assert_true(put(64, 202)); /* 48 + 64 * 3 = 240: full */
	assert_true(put(64, 203)); /* switch into slot 1 */
	while (tracebuf_peek_full(&tc, &v) && v.seq < 4)
		tracebuf_release(&tc);
	assert_int_equal(v.seq, 4);
	assert_int_equal(v.records, 4);
	assert_int_equal(v.used, LOST_SIZE + 3 * 64);
}

/* A drop that does not switch (a record too large) is reported just
 * before the next record, in the middle of a sub-buffer. */
static void test_lost_record_mid_subbuffer(void **state)
{
	(void)state;
	assert_true(put(64, 1));
	uint64_t t0 = __rdtsc();
	assert_false(put(300, 2));
	assert_true(put(32, 3));
	KPROF_RECORDS_LOST l = lost_payload(at(0, 64));
	assert_int_equal(l.TooLarge, 1);
	assert_int_equal(l.BuffersFull, 0);
	assert_true(l.FirstLossTime >= t0 && l.FirstLossTime <= at(0, 64)->TimeStamp);
	assert_int_equal(at(0, 64 + LOST_SIZE)->HookId, 3);
	assert_true(at(0, 0)->TimeStamp <= l.FirstLossTime);
}

/* A record that could not fit a sub-buffer together with the records-lost
 * record goes alone; the drops stay pending for the next one. */
static void test_record_too_big_for_both(void **state)
{
	(void)state;
	assert_false(put(300, 1));
	assert_true(put(240, 2)); /* 240 + 48 > 256 */
	assert_int_equal(at(0, 0)->HookId, 2);
	assert_int_equal(tc.pending[KPROF_LOSS_TOO_LARGE], 1);
	assert_true(put(16, 3)); /* switches into slot 1 with the lost record */
	KPROF_RECORDS_LOST l = lost_payload(at(1, 0));
	assert_int_equal(l.TooLarge, 1);
	assert_int_equal(at(1, LOST_SIZE)->HookId, 3);
}

/* An outer writer holds the last space of the ring; an interrupt on its
 * CPU writes twice and is dropped twice (no free sub-buffer to switch
 * into).  The outer writer commits; after the reader frees a slot, the
 * next record carries the interrupt's drops, timed after the outer
 * record's time stamp. */
static void test_nested_writer_drops(void **state)
{
	(void)state;
	struct trace_reservation outer;
	struct trace_view v;
	for (int i = 0; i < 15; i++)
		assert_true(put(64, (uint16_t)i));
	assert_true(tracebuf_reserve(&tc, 64, &outer)); /* the ring's last 64 bytes */
	uint64_t t_outer = outer.hdr->TimeStamp;
	assert_false(put(64, 100));                     /* "interrupt": dropped */
	assert_false(put(16, 101));                     /* and again */
	outer.hdr->Marker = PERFINFO_MARKER_64;
	outer.hdr->Size = 64;
	outer.hdr->HookId = 15;
	tracebuf_commit(&outer);
	assert_int_equal(tc.pending[KPROF_LOSS_BUFFERS_FULL], 2);
	uint64_t first = tc.pending_tsc;
	assert_true(first >= t_outer);
	/* still full: a third drop does not move the first drop's time */
	assert_false(put(64, 102));
	assert_int_equal(tc.pending_tsc, first);
	assert_true(tracebuf_peek_full(&tc, &v));
	tracebuf_release(&tc);
	assert_true(put(64, 103));
	KPROF_RECORDS_LOST l = lost_payload(at(0, 0));
	assert_int_equal(l.BuffersFull, 3);
	assert_int_equal(l.FirstLossTime, first);
	assert_true(l.FirstLossTime <= at(0, 0)->TimeStamp);
	assert_int_equal(tc.lost[KPROF_LOSS_BUFFERS_FULL], 3);
}

/* Drops with nothing after them stay pending: the CPU end frame's totals
 * hold them, no records-lost record does. */
static void test_pending_at_end(void **state)
{
	(void)state;
	struct trace_view v;
	fill_ring();
	for (int i = 0; i < 7; i++)
		assert_false(put(64, 50));
	uint64_t in_records = 0;
	while (tracebuf_peek_full(&tc, &v)) {
		for (uint32_t off = 0; off < v.used; off += 64)
			in_records += ((const PERFINFO_TRACE_HEADER *)(v.data + off))->HookId == KPROF_LOG_TYPE_RECORDS_LOST;
		tracebuf_release(&tc);
	}
	assert_int_equal(in_records, 0);
	assert_int_equal(tc.lost[KPROF_LOSS_BUFFERS_FULL], 7);
	assert_int_equal(tc.pending[KPROF_LOSS_BUFFERS_FULL], 7);
	assert_int_equal(tc.lost_records, 0);
}

/* The benign race's outcome (tracebuf.c): a nested writer took the counts
 * between the outer writer's CAS and its take, or dropped between the take
 * of pending_tsc and of the counts, leaving pending_tsc set and nothing
 * counted.  The next record then carries a records-lost record with every
 * count zero and FirstLossTime 0, which decoders skip; nothing is counted
 * twice, and the next real drop is reported with its own time. */
static void test_race_leftover_zero_counts(void **state)
{
	(void)state;
	tc.pending_tsc = 12345; /* as the race leaves it: no count pending */
	assert_true(put(32, 1));
	KPROF_RECORDS_LOST l = lost_payload(at(0, 0));
	assert_int_equal(l.BuffersFull + l.TooLarge + l.NotStarted, 0);
	assert_int_equal(l.FirstLossTime, 0);
	assert_int_equal(tc.pending_tsc, 0);
	uint64_t t0 = __rdtsc();
	assert_false(put(300, 2));
	assert_true(put(32, 3));
	l = lost_payload(at(0, LOST_SIZE + 32));
	assert_int_equal(l.TooLarge, 1);
	assert_true(l.FirstLossTime >= t0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_record_size),
		cmocka_unit_test_setup(test_no_drop_no_lost_record, setup),
		cmocka_unit_test_setup(test_drops_then_lost_record, setup),
		cmocka_unit_test_setup(test_lost_record_mid_subbuffer, setup),
		cmocka_unit_test_setup(test_record_too_big_for_both, setup),
		cmocka_unit_test_setup(test_nested_writer_drops, setup),
		cmocka_unit_test_setup(test_pending_at_end, setup),
		cmocka_unit_test_setup(test_race_leftover_zero_counts, setup),
	};
	return cmocka_run_group_tests_name("tracebuf_loss", tests, NULL, NULL);
}
