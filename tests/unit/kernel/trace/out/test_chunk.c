/*
 * test_chunk.c - cutting a sub-buffer into chunk frames
 * (kernel/trace/out/chunk.c): whole records only, at most the limit unless
 * one record alone is larger, every record in exactly one chunk, and a
 * record that was never committed ends the records.  And the payload of
 * a chunk (trace_chunk_encode): raw, or delta + LZ4 that liblz4 and
 * trace_delta_decode() turn back into the very records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <lz4.h>

#include "include/kprof/wire.h"
#include "include/kprof/wmi.h"
#include "kernel/trace/out/chunk.h"
#include "kernel/trace/trace_delta.h"
#include "support/golden_records.h"

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
	assert_int_equal(offsetof(struct kprof_chunk_header, raw_bytes), 14);
	assert_int_equal(offsetof(struct kprof_run_header, run_id), 100);
	assert_int_equal(offsetof(struct kprof_cpu_end, run_id), KPROF_CPU_END_V1_SIZE);
	assert_int_equal(offsetof(struct kprof_run_end, run_id), KPROF_RUN_END_V1_SIZE);
}

/* Decode a chunk's payload as the host tool does; returns the bytes. */
static uint32_t decode_payload(const struct kprof_chunk_header *c, const uint8_t *p, uint32_t len, uint8_t *out)
{
	if (c->encoding == KPROF_CHUNK_RAW) {
		memcpy(out, p, len);
		return len;
	}
	assert_int_equal(c->encoding, KPROF_CHUNK_DELTA2_LZ4);
	int got = LZ4_decompress_safe((const char *)p, (char *)out, (int)len, c->raw_bytes);
	assert_int_equal(got, c->raw_bytes);
	trace_delta_decode(out, (size_t)got);
	return (uint32_t)got;
}

/* Every chunk of the records of real logs: the encoded payload decodes to
 * the very records, the records are left as they were, a compressed
 * payload is shorter than the records, and the whole is well under half. */
static void test_encode_round_trip(void **state)
{
	static const char *const logs[] = { "tests/golden/report-sched.log", "tests/golden/report-locks.log",
					    "tests/golden/report-resources.log", "tests/golden/tracetest-2cpu.log" };
	static struct trace_chunk_scratch scratch;
	static uint8_t copy[65536], out[65536];
	uint64_t raw_total = 0, wire_total = 0, chunks = 0, packed_chunks = 0;

	for (size_t l = 0; l < sizeof(logs) / sizeof(logs[0]); l++) {
		struct golden_stream cpu[GOLDEN_MAX_CPUS];
		assert_true(golden_load(logs[l], cpu) > 0);
		for (int c = 0; c < GOLDEN_MAX_CPUS; c++) {
			size_t sum;
			for (size_t boff = 0, blen; (blen = golden_block(&cpu[c], boff, sizeof(copy), &sum)); boff += blen) {
				/* One "sub-buffer" of the stream, cut as the sender cuts it. */
				const uint8_t *sub = cpu[c].bytes + boff;
				uint32_t off = 0, records;
				for (;;) {
					uint32_t end = trace_chunk_next(sub, (uint32_t)blen, off, KPROF_CHUNK_BYTES, &records);
					if (end == off)
						break;
					uint32_t n = end - off, len;
					struct kprof_chunk_header h = { .records = (uint16_t)records };
					memcpy(copy, sub + off, n);
					const uint8_t *p = trace_chunk_encode(&h, sub + off, n, &scratch, &len);
					assert_memory_equal(copy, sub + off, n); /* the records are only read */
					assert_int_equal(h.raw_bytes, n);
					if (h.encoding == KPROF_CHUNK_DELTA2_LZ4) {
						assert_true(len < n);
						packed_chunks++;
					} else {
						assert_ptr_equal(p, sub + off);
						assert_int_equal(len, n);
					}
					assert_int_equal(decode_payload(&h, p, len, out), n);
					assert_memory_equal(out, sub + off, n);
					raw_total += n;
					wire_total += len + sizeof(h) + KPROF_FRAME_HEADER_SIZE;
					chunks++;
					off = end;
				}
			}
		}
		golden_free(cpu);
	}
	print_message("encode: %llu chunks (%llu compressed), %.3f wire bytes per record byte\n",
		      (unsigned long long)chunks, (unsigned long long)packed_chunks, (double)wire_total / raw_total);
	assert_true(packed_chunks * 10 >= chunks * 9);
	assert_true(wire_total * 2 < raw_total);
}

/* No scratch, a record too large for a chunk, or data LZ4 cannot shrink:
 * raw, with the size still given. */
static void test_encode_raw_cases(void **state)
{
	static struct trace_chunk_scratch scratch;
	static const uint32_t big[] = { 3000 };
	uint32_t used = lay_out(big, 1), len;
	struct kprof_chunk_header h;

	assert_ptr_equal(trace_chunk_encode(&h, buf, used, &scratch, &len), buf);
	assert_int_equal(h.encoding, KPROF_CHUNK_RAW);
	assert_int_equal(len, used);
	assert_int_equal(h.raw_bytes, used);

	static const uint32_t small[] = { 64, 64, 64, 64 };
	used = lay_out(small, 4);
	assert_ptr_equal(trace_chunk_encode(&h, buf, used, NULL, &len), buf);
	assert_int_equal(h.encoding, KPROF_CHUNK_RAW);

	/* Random payload bytes: nothing to gain, sent raw. */
	static const uint32_t one[] = { 1024 };
	used = lay_out(one, 1);
	srand(7);
	for (uint32_t i = 16; i < used; i++)
		buf[i] = (uint8_t)rand();
	h.records = 1;
	assert_ptr_equal(trace_chunk_encode(&h, buf, used, &scratch, &len), buf);
	assert_int_equal(h.encoding, KPROF_CHUNK_RAW);
	assert_int_equal(len, used);
}

/* Compression's payoff (trace_compress_pay_update) with the figures
 * measured: TCG (encoding about 200 us a 2 KiB chunk, the port 5000
 * cycles a byte) keeps it; KVM with software paging (340 ms a chunk, the
 * port 45 us a byte) stops it once, after the warm-up, and not before. */
static void test_compression_pays_or_stops(void **state)
{
	(void)state;
	struct trace_compress_pay tcg = { 0 }, kvm = { 0 };
	uint64_t link_cycles = 0, link_bytes = 0;

	for (int i = 0; i < 200; i++) {
		link_bytes += 800, link_cycles += 800ull * 5000;
		assert_false(trace_compress_pay_update(&tcg, 480000, 2048, 800, link_cycles, link_bytes));
	}
	assert_false(tcg.off);
	assert_int_equal(tcg.in_bytes, 200u * 2048);
	assert_int_equal(tcg.out_bytes, 200u * 800);

	link_cycles = link_bytes = 0;
	int stopped_at = -1;
	for (int i = 0; i < 64; i++) {
		link_bytes += 800, link_cycles += 800ull * 117000;
		if (trace_compress_pay_update(&kvm, 884000000ull, 2048, 800, link_cycles, link_bytes)) {
			assert_int_equal(stopped_at, -1); /* once */
			stopped_at = i;
		}
	}
	assert_true(kvm.off);
	/* Not before TRACE_PAY_WARMUP bytes went in (32 chunks of 2 KiB). */
	assert_int_equal(stopped_at, TRACE_PAY_WARMUP / 2048 - 1);
	/* Once off, nothing more is counted. */
	assert_int_equal(kvm.in_bytes, TRACE_PAY_WARMUP);
}

/* No link measured yet (nothing sent), or nothing saved: the rule waits,
 * or stops at once when compression saves nothing and costs anything. */
static void test_compression_pay_edges(void **state)
{
	(void)state;
	struct trace_compress_pay p = { 0 };
	for (int i = 0; i < 64; i++)
		assert_false(trace_compress_pay_update(&p, 1000000000ull, 2048, 800, 0, 0));
	assert_false(p.off);
	struct trace_compress_pay q = { 0 };
	assert_true(trace_compress_pay_update(&q, 1, TRACE_PAY_WARMUP, TRACE_PAY_WARMUP, 1000, TRACE_PAY_LINK_MIN));
	assert_false(trace_compress_pay_update(&q, 1, 2048, 800, 1000, TRACE_PAY_LINK_MIN));
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
		cmocka_unit_test(test_encode_round_trip),
		cmocka_unit_test(test_encode_raw_cases),
		cmocka_unit_test(test_compression_pays_or_stops),
		cmocka_unit_test(test_compression_pay_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
