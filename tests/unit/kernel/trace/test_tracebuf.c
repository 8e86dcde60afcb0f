/*
 * test_tracebuf.c - the per-CPU trace buffer (kernel/trace/tracebuf.c) and
 * the frame header (kernel/trace/out/frame.c, kernel/lib/codec/crc32.c against zlib).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>

#include "kernel/lib/codec/crc32.h"
#include "kernel/trace/out/frame.h"
#include "kernel/trace/tracebuf.h"
#include "support/tracebuf_fixture.h"
#include "support/xorshift.h"

static void test_fill_switch_and_read(void **state)
{
	(void)state;
	struct trace_view v;
	assert_false(tracebuf_peek_full(&tc, &v)); /* nothing yet */
	for (int i = 0; i < 3; i++)
		assert_true(put(80, (uint16_t)i)); /* 240 of 256 bytes */
	assert_false(tracebuf_peek_full(&tc, &v)); /* writer still in it */
	assert_true(put(80, 3));                   /* does not fit: switch */
	assert_true(tracebuf_peek_full(&tc, &v));
	assert_int_equal(v.used, 240);             /* padding not sent */
	assert_int_equal(v.records, 3);
	assert_int_equal(v.seq, 0);
	const PERFINFO_TRACE_HEADER *h = (const void *)(v.data + 160);
	assert_int_equal(h->HookId, 2);
	tracebuf_release(&tc);
	assert_false(tracebuf_peek_full(&tc, &v));
	/* The final (partial) view: one record in sub-buffer 1. */
	assert_true(tracebuf_peek_final(&tc, &v));
	assert_int_equal(v.used, 80);
	assert_int_equal(v.seq, 1);
	assert_int_equal(v.unsettled, 0);
	assert_int_equal(tc.records, 4);
	assert_int_equal(tc.bytes, 320);
}

/* What the dump's progress counts (trace_finish, trace_out_dump_sent): a
 * full sub-buffer whole, padding included, the current one up to the
 * writer; releasing one takes its whole size off. */
static void test_held_counts_ring_bytes(void **state)
{
	(void)state;
	struct trace_view v;
	assert_int_equal(tracebuf_held(&tc), 0);
	for (int i = 0; i < 4; i++)
		assert_true(put(80, (uint16_t)i)); /* 240 in sub-buffer 0, 80 in 1 */
	assert_int_equal(tracebuf_held(&tc), 256 + 80);
	assert_true(tracebuf_peek_full(&tc, &v));
	tracebuf_release(&tc);
	assert_int_equal(tracebuf_held(&tc), 80);
	assert_true(tracebuf_peek_final(&tc, &v));
	assert_int_equal(v.used, tracebuf_held(&tc)); /* the final view is what is held */
}

static void test_exact_fit_has_no_padding(void **state)
{
	(void)state;
	struct trace_view v;
	for (int i = 0; i < 4; i++)
		assert_true(put(64, (uint16_t)i)); /* exactly 256 */
	assert_true(put(16, 9));                  /* starts sub-buffer 1 */
	assert_true(tracebuf_peek_full(&tc, &v));
	assert_int_equal(v.used, 256);
	assert_int_equal(v.records, 4);
}

static void test_full_ring_drops_and_counts(void **state)
{
	(void)state;
	struct trace_view v;
	int stored = 0;
	for (int i = 0; i < 100; i++)
		stored += put(64, (uint16_t)i);
	assert_int_equal(stored, 16); /* 4 sub-buffers of 4 records */
	assert_int_equal(tc.lost[KPROF_LOSS_BUFFERS_FULL], 84);
	assert_int_equal(tc.pending[KPROF_LOSS_BUFFERS_FULL], 84); /* for the next records-lost record */
	/* Reading one frees one; writing resumes in it. */
	assert_true(tracebuf_peek_full(&tc, &v));
	tracebuf_release(&tc);
	for (int i = 0; i < 3; i++) /* the first with the 48-byte records-lost record */
		assert_true(put(64, 100));
	assert_int_equal(tc.pending[KPROF_LOSS_BUFFERS_FULL], 0);
	assert_false(put(64, 101));
	assert_false(put(300, 102)); /* larger than a sub-buffer */
	assert_int_equal(tc.lost[KPROF_LOSS_TOO_LARGE], 1);
}

static void test_uncommitted_blocks_reader(void **state)
{
	(void)state;
	struct trace_view v;
	struct trace_reservation outer, inner;
	/* An outer writer reserves, an interrupt writes and commits, the
	 * outer one has not committed: the sub-buffer is not readable. */
	assert_true(tracebuf_reserve(&tc, 200, &outer));
	assert_true(tracebuf_reserve(&tc, 48, &inner));
	assert_true((uint8_t *)inner.hdr > (uint8_t *)outer.hdr);
	assert_true(inner.hdr->TimeStamp >= outer.hdr->TimeStamp); /* time order follows buffer order */
	inner.hdr->Size = 48;
	inner.hdr->Marker = PERFINFO_MARKER_64;
	tracebuf_commit(&inner);
	assert_true(put(64, 1)); /* switches: the first sub-buffer is left */
	assert_false(tracebuf_peek_full(&tc, &v)); /* outer not committed */
	struct trace_view f;
	outer.hdr->Size = 200;
	outer.hdr->Marker = PERFINFO_MARKER_64;
	tracebuf_commit(&outer);
	assert_true(tracebuf_peek_full(&tc, &v));
	assert_int_equal(v.used, 248);
	assert_int_equal(v.records, 2);
	tracebuf_release(&tc);
	/* Final view counts bytes still uncommitted. */
	struct trace_reservation open;
	assert_true(tracebuf_reserve(&tc, 40, &open));
	assert_true(tracebuf_peek_final(&tc, &f));
	assert_int_equal(f.used, 104);
	assert_int_equal(f.unsettled, 40);
}

/* A ring of three sub-buffers (not a power of two: the slot of sub-buffer
 * number n is n % 3, which the writer keeps with n instead of dividing,
 * tracebuf.c) lapped 40 times: every view is the slot its number says,
 * and holds the records written into it, in order. */
static void test_slots_of_a_ring_of_three(void **state)
{
	(void)state;
	enum { RING = 3 };
	static uint8_t ring[RING << SHIFT];
	static struct trace_subbuf ring_subs[RING];
	struct trace_cpu t;
	uint16_t next = 0, expect = 0;
	uint64_t seq = 0;

	tracebuf_init(&t, 0, ring, ring_subs, SHIFT, RING);
	while (seq < 40 * RING) {
		struct trace_reservation r;
		assert_true(tracebuf_reserve(&t, 48, &r)); /* 5 a sub-buffer: never full */
		assert_int_equal(r.sub, (t.offset >> SHIFT) % RING);
		assert_int_equal(((uint8_t *)r.hdr - ring) >> SHIFT, r.sub);
		r.hdr->Marker = PERFINFO_MARKER_64;
		r.hdr->Size = 48;
		r.hdr->HookId = next++;
		tracebuf_commit(&r);
		struct trace_view v;
		while (tracebuf_peek_full(&t, &v)) {
			assert_int_equal(v.seq, seq);
			assert_ptr_equal(v.data, ring + ((seq % RING) << SHIFT));
			assert_int_equal(v.records, 5);
			for (uint32_t off = 0; off < v.used; off += 48) {
				const PERFINFO_TRACE_HEADER *h = (const void *)(v.data + off);
				assert_int_equal(h->HookId, expect++);
			}
			tracebuf_release(&t);
			seq++;
		}
	}
	assert_int_equal(expect, 40 * RING * 5);
}

/* The writer's inline path (tracebuf_reserve_inline, tracebuf.h) is the
 * slow path's common case and nothing else: two rings driven by the same
 * script, one through tracebuf_reserve_at (the inline path, falling back
 * to the slow one), one through tracebuf_reserve_slow alone, make the
 * same reservations and end byte for byte and count for count the same.
 * The script: records of 16 to 248 bytes and now and then one too large,
 * a clock that steps forward and now and then back, slews of the
 * correction, a reader that takes a sub-buffer now and then (and drops
 * when it lags, whose records-lost records follow). */
#define SCRIPT 20000
static uint64_t script_tsc[SCRIPT + 1];
static size_t script_at[2];
static int script_ring;

static uint64_t script_clock(void)
{
	return script_tsc[script_at[script_ring]++];
}

static void test_inline_path_is_the_slow_paths(void **state)
{
	(void)state;
	enum { RING = 5 };
	static uint8_t ring[2][RING << SHIFT];
	static struct trace_subbuf ring_subs[2][RING];
	struct trace_cpu t[2];
	struct trace_clock_line line[2] = { { 0 }, { 0 } };
	uint64_t x = 0x9E3779B97F4A7C15ull, now = 1000000;

	for (int i = 0; i <= SCRIPT; i++) {
		uint64_t d = xorshift64(&x);
		now = d % 61 == 0 ? now - d % 3000 : now + 1 + (d >> 8) % 700; /* back now and then */
		script_tsc[i] = now;
	}
	memset(ring, 0xCC, sizeof(ring));
	for (int c = 0; c < 2; c++) {
		tracebuf_init(&t[c], 0, ring[c], ring_subs[c], SHIFT, RING);
		script_at[c] = 0;
	}
	for (int i = 0; i < SCRIPT; i++) {
		uint64_t d = xorshift64(&x);
		uint32_t size = d % 211 == 0 ? 512 : 16 + 8 * (uint32_t)((d >> 8) % 30);
		bool slew = (d >> 20) % 397 == 0, read = (d >> 32) % 3 == 0;
		struct trace_reservation r[2];
		bool ok[2];
		for (int c = 0; c < 2; c++) {
			script_ring = c;
			if (slew) {
				int64_t target = (int64_t)((d >> 40) % 4000) - 2000;
				line[c] = trace_clock_slew(&line[c], target, script_tsc[script_at[c]], 8000);
				tracebuf_set_line(&t[c], &line[c], 0);
			}
			ok[c] = c == 0 ? tracebuf_reserve_at(&t[c], size, &r[c], script_clock)
				       : tracebuf_reserve_slow(&t[c], size, &r[c], script_clock, NULL);
			if (ok[c]) {
				r[c].hdr->Marker = PERFINFO_MARKER_64;
				r[c].hdr->Size = (uint16_t)size;
				r[c].hdr->HookId = (uint16_t)i;
				tracebuf_commit(&r[c]);
			}
			struct trace_view v;
			if (read && tracebuf_peek_full(&t[c], &v))
				tracebuf_release(&t[c]);
		}
		assert_int_equal(ok[0], ok[1]);
		assert_int_equal(script_at[0], script_at[1]); /* one clock read each */
		if (!ok[0])
			continue;
		assert_int_equal((uint8_t *)r[0].hdr - ring[0], (uint8_t *)r[1].hdr - ring[1]);
		assert_int_equal(r[0].hdr->TimeStamp, r[1].hdr->TimeStamp);
		assert_int_equal(r[0].sub, r[1].sub);
		assert_int_equal(r[0].size, r[1].size);
		assert_int_equal(r[0].records, r[1].records);
		assert_int_equal(r[0].switched, r[1].switched);
		assert_int_equal(r[0].back, r[1].back);
		if (r[0].back) {
			assert_int_equal(r[0].raw, r[1].raw);
			assert_int_equal(r[0].last, r[1].last);
		}
	}
	assert_memory_equal(ring[0], ring[1], sizeof(ring[0]));
	assert_memory_equal(ring_subs[0], ring_subs[1], sizeof(ring_subs[0]));
	assert_int_equal(t[0].offset, t[1].offset);
	assert_int_equal(t[0].last_ts, t[1].last_ts);
	assert_int_equal(t[0].prev_tsc, t[1].prev_tsc);
	assert_int_equal(t[0].pending_tsc, t[1].pending_tsc);
	assert_int_equal(t[0].records, t[1].records);
	assert_int_equal(t[0].lost_records, t[1].lost_records);
	assert_int_equal(t[0].bytes, t[1].bytes);
	assert_int_equal(t[0].steps_back, t[1].steps_back);
	assert_int_equal(t[0].back_max, t[1].back_max);
	assert_int_equal(t[0].consumed, t[1].consumed);
	assert_memory_equal(t[0].lost, t[1].lost, sizeof(t[0].lost));
	assert_memory_equal(t[0].pending, t[1].pending, sizeof(t[0].pending));
	/* and the script went every way */
	assert_true(t[0].records > SCRIPT / 2);
	assert_true(t[0].steps_back > 0);
	assert_true(t[0].lost[KPROF_LOSS_BUFFERS_FULL] > 0);
	assert_true(t[0].lost[KPROF_LOSS_TOO_LARGE] > 0);
	assert_true(t[0].lost_records > 0);
}

/* A writer thread streams numbered records while a reader thread takes
 * full sub-buffers: every record is seen once, in order, or counted lost. */
#define STREAM 200000
static volatile int writer_done;

static void *writer(void *arg)
{
	(void)arg;
	for (uint32_t i = 0; i < STREAM; i++) {
		struct trace_reservation r;
		uint32_t size = 16 + 8 * (i % 5);
		if (!tracebuf_reserve(&tc, size, &r))
			continue;
		r.hdr->Marker = PERFINFO_MARKER_64 | (i & 0xFF);
		r.hdr->Size = (uint16_t)size;
		r.hdr->HookId = (uint16_t)(i >> 8);
		tracebuf_commit(&r);
	}
	__atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_concurrent_reader(void **state)
{
	(void)state;
	pthread_t t;
	uint64_t seen = 0;
	int64_t last = -1;
	uint64_t reported = 0; /* drops in records-lost records */
	bool ordered = true;
	writer_done = 0;
	pthread_create(&t, NULL, writer, NULL);
	for (;;) {
		struct trace_view v;
		bool done = __atomic_load_n(&writer_done, __ATOMIC_ACQUIRE);
		bool got = tracebuf_peek_full(&tc, &v) || (done && tracebuf_peek_final(&tc, &v));
		if (!got) {
			if (done)
				break;
			continue;
		}
		for (uint32_t off = 0; off < v.used;) {
			PERFINFO_TRACE_HEADER h;
			const uint8_t *rec = v.data + off;
			memcpy(&h, rec, sizeof(h));
			off += (h.Size + 7u) & ~7u;
			if (h.HookId == KPROF_LOG_TYPE_RECORDS_LOST) {
				KPROF_RECORDS_LOST l;
				memcpy(&l, rec + sizeof(h), sizeof(l));
				reported += l.BuffersFull + l.TooLarge + l.NotStarted;
				continue;
			}
			int64_t id = ((int64_t)h.HookId << 8) | (h.Marker & 0xFF);
			ordered &= id > last;
			last = id;
			seen++;
		}
		tracebuf_release(&tc);
	}
	pthread_join(t, NULL);
	assert_true(ordered);
	assert_int_equal(seen + tc.lost_records, tc.records);
	assert_int_equal(seen + tc.lost[KPROF_LOSS_BUFFERS_FULL], STREAM);
	/* every drop in exactly one records-lost record, or still pending */
	assert_int_equal(reported + tc.pending[KPROF_LOSS_BUFFERS_FULL], tc.lost[KPROF_LOSS_BUFFERS_FULL]);
}

static void test_crc_matches_zlib(void **state)
{
	(void)state;
	uint8_t buf[1000];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	for (size_t n = 0; n <= sizeof(buf); n += 37)
		assert_int_equal(crc32_update(0, buf, n), crc32(0, buf, (uInt)n));
	assert_int_equal(crc32_update(crc32_update(0, buf, 100), buf + 100, 900), crc32(0, buf, 1000));
	assert_int_equal(crc32_update(0, "123456789", 9), 0xCBF43926u); /* the check value */
}

static void test_frame_header(void **state)
{
	(void)state;
	struct kprof_frame_header h;
	uint8_t a[10] = { 1, 2, 3 }, b[5] = { 9 };
	frame_header_build(&h, KPROF_FRAME_BUFFER, 7, 42, a, sizeof(a), b, sizeof(b));
	uint8_t whole[15];
	memcpy(whole, a, 10);
	memcpy(whole + 10, b, 5);
	assert_int_equal(h.magic, KPROF_FRAME_MAGIC);
	assert_memory_equal(&h, "\xFE" "KPF", 4);
	assert_int_equal(h.length, 15);
	assert_int_equal(h.payload_crc, crc32(0, whole, 15));
	assert_int_equal(h.header_crc, crc32(0, (const Bytef *)&h, 20));
	assert_int_equal(h.cpu, 7);
	assert_int_equal(h.seq, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_fill_switch_and_read, setup),
		cmocka_unit_test_setup(test_held_counts_ring_bytes, setup),
		cmocka_unit_test_setup(test_exact_fit_has_no_padding, setup),
		cmocka_unit_test_setup(test_full_ring_drops_and_counts, setup),
		cmocka_unit_test_setup(test_uncommitted_blocks_reader, setup),
		cmocka_unit_test_setup(test_slots_of_a_ring_of_three, setup),
		cmocka_unit_test_setup(test_inline_path_is_the_slow_paths, setup),
		cmocka_unit_test_setup(test_concurrent_reader, setup),
		cmocka_unit_test(test_crc_matches_zlib),
		cmocka_unit_test(test_frame_header),
	};
	return cmocka_run_group_tests_name("tracebuf", tests, NULL, NULL);
}
