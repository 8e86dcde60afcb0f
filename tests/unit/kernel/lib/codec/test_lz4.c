/*
 * test_lz4.c - the kernel's LZ4 block compressor (kernel/lib/codec/lz4.c) and
 * the TSC delta transform (kernel/trace/trace_delta.c).
 *
 * Every block compressed here is decoded by liblz4's LZ4_decompress_safe
 * into exactly the input, and walked by check_format(), which checks the
 * rules the format leaves to the encoder (last 5 bytes literals, last match
 * at least 12 bytes before the end, offsets inside the block).  Output
 * buffers are malloc'd at exactly cap bytes, so ASan catches a write past
 * cap; a guard pattern behind a larger buffer catches it without ASan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <lz4.h>

#include "kernel/lib/codec/lz4.h"
#include "kernel/trace/trace_delta.h"
#include "support/golden_records.h"

static struct lz4_state st;
static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* Walk the sequences of an LZ4 block of n decoded bytes, with before
 * bytes of dictionary: the rules the decoder does not necessarily enforce,
 * and the decoded length. */
static void check_format(const uint8_t *c, size_t clen, size_t n, size_t before)
{
	size_t ip = 0, out = 0;

	for (;;) {
		assert_true(ip < clen);
		uint8_t token = c[ip++];
		size_t lit = token >> 4, b;
		if (lit == 15)
			do {
				assert_true(ip < clen);
				b = c[ip++];
				lit += b;
			} while (b == 255);
		assert_true(ip + lit <= clen);
		ip += lit;
		out += lit;
		if (ip == clen) {
			assert_true((token & 15) == 0);
			break;
		}
		/* A match follows: it starts >= 12 bytes before the end and
		 * leaves the last 5 as literals. */
		assert_true(ip + 2 <= clen);
		size_t off = c[ip] | (size_t)c[ip + 1] << 8;
		ip += 2;
		assert_true(off >= 1 && off <= out + before);
		size_t m = (token & 15) + 4;
		if ((token & 15) == 15)
			do {
				assert_true(ip < clen);
				b = c[ip++];
				m += b;
			} while (b == 255);
		assert_true(out + 12 <= n);
		out += m;
		assert_true(out + 5 <= n);
	}
	assert_int_equal(out, n);
}

/* Compress src[0..n) with a cap of exactly cap bytes; check the result.
 * Returns the compressed length (0: sent raw). */
static size_t roundtrip(const uint8_t *src, size_t n, size_t cap)
{
	uint8_t *dst = malloc(cap ? cap : 1);
	size_t r = lz4_compress_block(src, n, dst, cap, &st);

	assert_true(r <= cap);
	if (r) {
		assert_true(r < n);
		check_format(dst, r, n, 0);
		uint8_t *back = malloc(n + 1);
		int got = LZ4_decompress_safe((const char *)dst, (char *)back, (int)r, (int)n);
		assert_int_equal(got, (int)n);
		assert_memory_equal(back, src, n);
		free(back);
	}
	free(dst);
	return r;
}

static size_t roundtrip_full(const uint8_t *src, size_t n)
{
	return roundtrip(src, n, n + n / 255 + 16);
}

/* Every cap from 0 to the compressed length: 0 below it, the same bytes
 * at it, and nothing written past cap (a guard behind it). */
static void check_caps(const uint8_t *src, size_t n)
{
	size_t full = roundtrip_full(src, n);
	if (!full)
		return;
	uint8_t *ref = malloc(full), *buf = malloc(full + 64);
	assert_int_equal(lz4_compress_block(src, n, ref, full, &st), full);
	for (size_t cap = 0; cap <= full; cap++) {
		memset(buf, 0xA5, full + 64);
		size_t r = lz4_compress_block(src, n, buf, cap, &st);
		for (size_t i = cap; i < full + 64; i++)
			assert_int_equal(buf[i], 0xA5);
		if (cap < full) {
			assert_int_equal(r, 0);
		} else {
			assert_int_equal(r, full);
			assert_memory_equal(buf, ref, full);
		}
	}
	free(ref);
	free(buf);
}

static void test_tiny(void **state)
{
	(void)state;
	uint8_t buf[17];

	for (size_t n = 0; n <= 16; n++) {
		memset(buf, 0, sizeof(buf));
		size_t r = roundtrip_full(buf, n);
		if (n <= 12)
			assert_int_equal(r, 0); /* one literal run: n + 1 bytes */
		check_caps(buf, n);
		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)rnd();
		assert_int_equal(roundtrip_full(buf, n), 0);
		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)(i & 1);
		roundtrip_full(buf, n);
		check_caps(buf, n);
	}
}

static void test_zeros(void **state)
{
	(void)state;
	static uint8_t z[LZ4_BLOCK_MAX];
	static const size_t sizes[] = { 13, 14, 15, 16, 17, 19, 20, 31, 32, 33, 255, 256, 257, 270, 271, 512, 1024,
					4095, 4096, 4097, 16384, 65535, 65536 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t r = roundtrip_full(z, sizes[i]);
		assert_true(r > 0);
		assert_true(r <= 16 + sizes[i] / 250); /* ~1 byte per 255 */
	}
	check_caps(z, 4096);
}

static void test_too_big(void **state)
{
	(void)state;
	size_t n = LZ4_BLOCK_MAX + 1;
	uint8_t *z = calloc(n, 1), *d = malloc(n);
	assert_int_equal(lz4_compress_block(z, n, d, n, &st), 0);
	free(z);
	free(d);
}

static void test_incompressible(void **state)
{
	(void)state;
	static uint8_t r[LZ4_BLOCK_MAX];

	for (size_t i = 0; i < sizeof(r); i++)
		r[i] = (uint8_t)rnd();
	static const size_t sizes[] = { 13, 64, 512, 1024, 4096, 16384, 65536 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		assert_int_equal(roundtrip_full(r, sizes[i]), 0);
		assert_int_equal(roundtrip(r, sizes[i], 2 * sizes[i]), 0); /* not smaller: raw */
	}
}

/* Small alphabets at every size up to 1100 and random sizes beyond:
 * every length and offset encoding the greedy parse produces. */
static void test_random_sizes(void **state)
{
	(void)state;
	static uint8_t buf[LZ4_BLOCK_MAX];

	for (unsigned alpha = 2; alpha <= 64; alpha *= 4) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)(rnd() % alpha);
		for (size_t n = 0; n <= 1100; n++)
			roundtrip_full(buf, n);
		for (int k = 0; k < 200; k++)
			roundtrip_full(buf, rnd() % (LZ4_BLOCK_MAX + 1));
		check_caps(buf, 300);
	}
}

/* Literal runs and match lengths at the nibble and 255-byte boundaries:
 * L random bytes, then a repeat of M bytes from the start, then 5 + some
 * random bytes as the tail. */
static void test_length_boundaries(void **state)
{
	(void)state;
	static const size_t lens[] = { 0, 1, 4, 14, 15, 16, 17, 18, 19, 20, 254, 255, 269, 270, 271, 272, 273, 274,
				       524, 525, 526, 529, 530, 1000 };
	static uint8_t buf[4096];
	size_t nl = sizeof(lens) / sizeof(lens[0]);

	for (size_t a = 0; a < nl; a++) {
		for (size_t b = 0; b < nl; b++) {
			size_t lit = lens[a] + 8, m = lens[b] + 4, n = lit + m + 16;
			for (size_t i = 0; i < lit; i++)
				buf[i] = (uint8_t)rnd();
			for (size_t i = 0; i < m; i++)
				buf[lit + i] = buf[i % lit];
			for (size_t i = lit + m; i < n; i++)
				buf[i] = (uint8_t)rnd();
			roundtrip_full(buf, n);
		}
	}
}

/* The state carries nothing from one call into the next one's output:
 * after blocks of other sizes (other table sizes), with and without a
 * dictionary, and across the epoch's wrap (the one full clear), the same
 * input gives the same bytes as with a freshly zeroed state. */
static void test_stateless(void **state)
{
	(void)state;
	static uint8_t buf[8192], other[LZ4_BLOCK_MAX], a[9000], b[9000], junk[LZ4_BLOCK_MAX + 300];
	static struct lz4_state fresh;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(rnd() % 8);
	for (size_t i = 0; i < sizeof(other); i++)
		other[i] = (uint8_t)(rnd() % 5);
	size_t ra = lz4_compress_block(buf, sizeof(buf), a, sizeof(a), &fresh);
	assert_true(ra > 0);
	static const size_t sizes[] = { 13, 300, 2048, 8192, 40000, 65536 };
	for (int round = 0; round < 3; round++) {
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			lz4_compress_block(other + k, sizes[k] - k, junk, sizeof(junk), &st);
			lz4_compress_block_dict(other, 1000 + k, buf, 4000, junk, sizeof(junk), &st);
		}
		if (round == 1)
			st.epoch = 0xFFFE; /* the next two calls cross the wrap */
		memset(b, 0, sizeof(b));
		size_t rb = lz4_compress_block(buf, sizeof(buf), b, sizeof(b), &st);
		assert_int_equal(ra, rb);
		assert_memory_equal(a, b, ra);
	}
	assert_true(st.epoch >= 1 && st.epoch < 100); /* it wrapped */
}

/* The copying transform writes what the in-place one leaves, one record
 * or a whole buffer, with a tail that is not a record copied unchanged. */
static void check_delta_copy(const uint8_t *src, size_t n)
{
	uint8_t *in_place = malloc(n + 1), *copy = malloc(n + 1);

	memcpy(in_place, src, n);
	memset(copy, 0x5C, n + 1);
	size_t recs = trace_delta_encode(in_place, n);
	assert_int_equal(trace_delta_encode_copy(copy, src, n), recs);
	assert_memory_equal(copy, in_place, n);
	assert_int_equal(copy[n], 0x5C); /* nothing past n */
	free(in_place);
	free(copy);
}

static const char *const golden_logs[] = {
	"tests/golden/report-locks.log", "tests/golden/report-profile.log", "tests/golden/report-resources.log",
	"tests/golden/report-sched.log", "tests/golden/tracetest-2cpu.log",
};

/* Real records, record-aligned blocks of 512 bytes .. 16 KiB: LZ4 alone,
 * and the delta transform under it, both back to the exact records. */
static void test_golden_blocks(void **state)
{
	(void)state;
	static const size_t block_sizes[] = { 512, 1024, 2048, 4096, 8192, 16384 };
	struct golden_stream cpu[GOLDEN_MAX_CPUS];
	size_t blocks = 0, compressed = 0;

	for (size_t l = 0; l < sizeof(golden_logs) / sizeof(golden_logs[0]); l++) {
		assert_true(golden_load(golden_logs[l], cpu) > 0);
		for (int c = 0; c < GOLDEN_MAX_CPUS; c++) {
			const struct golden_stream *s = &cpu[c];
			for (size_t k = 0; k < sizeof(block_sizes) / sizeof(block_sizes[0]); k++) {
				size_t off = 0, len, sum;
				while ((len = golden_block(s, off, block_sizes[k], &sum)) != 0) {
					const uint8_t *blk = s->bytes + off;
					compressed += roundtrip_full(blk, len) != 0;
					uint8_t *t = malloc(len);
					memcpy(t, blk, len);
					size_t recs = trace_delta_encode(t, len);
					assert_true(recs > 0);
					if (k == 2)
						check_delta_copy(blk, len);
					compressed += roundtrip_full(t, len) != 0;
					assert_int_equal(trace_delta_decode(t, len), recs);
					assert_memory_equal(t, blk, len);
					free(t);
					blocks++;
					off += len;
				}
			}
		}
		golden_free(cpu);
	}
	assert_true(blocks > 1000);
	assert_true(compressed > blocks); /* most blocks compress, both ways */
}

/* The transform stops at an invalid record, in both directions alike. */
static void test_delta_stops(void **state)
{
	(void)state;
	uint8_t b[64] = { 0 }, orig[64];
	uint32_t marker = 0xC0110002u;
	uint16_t size = 24, hook = 0x0F2E;
	uint64_t ts = 1000;

	for (int r = 0; r < 2; r++) {
		memcpy(b + r * 24, &marker, 4);
		memcpy(b + r * 24 + 4, &size, 2);
		memcpy(b + r * 24 + 6, &hook, 2);
		ts += 77;
		memcpy(b + r * 24 + 8, &ts, 8);
	}
	memset(b + 48, 0xEE, 16); /* not a record */
	memcpy(orig, b, sizeof(b));
	for (size_t n = 0; n <= sizeof(b); n++)
		check_delta_copy(b, n); /* records cut anywhere, and the tail */
	assert_int_equal(trace_delta_encode(b, sizeof(b)), 2);
	uint64_t d;
	memcpy(&d, b + 24 + 8, 8);
	assert_int_equal(d, 77);
	assert_memory_equal(b + 48, orig + 48, 16);
	assert_int_equal(trace_delta_decode(b, sizeof(b)), 2);
	assert_memory_equal(b, orig, sizeof(b));
}

/* Payload TSC fields: 0 (unset) and TimeStamp + 1 stay as they are, every
 * other value becomes TimeStamp + 1 - value; all of it undone exactly. */
static void test_delta_fields(void **state)
{
	(void)state;
	uint8_t b[2 * 72], orig[sizeof(b)];
	uint32_t marker = 0xC0110002u;
	uint16_t size = 72, hook = 0x0529; /* SpinLock: AcquireTime 0x20, ReleaseTime 0x28 */
	static const uint64_t acq[2] = { 0, 5000 }, rel[2] = { 4001, 5999 };
	uint64_t ts[2] = { 4000, 6000 };

	memset(b, 0x11, sizeof(b));
	for (int r = 0; r < 2; r++) {
		memcpy(b + r * 72, &marker, 4);
		memcpy(b + r * 72 + 4, &size, 2);
		memcpy(b + r * 72 + 6, &hook, 2);
		memcpy(b + r * 72 + 8, &ts[r], 8);
		memcpy(b + r * 72 + 0x20, &acq[r], 8);
		memcpy(b + r * 72 + 0x28, &rel[r], 8);
	}
	memcpy(orig, b, sizeof(b));
	assert_int_equal(trace_delta_encode(b, sizeof(b)), 2);
	uint64_t v;
	memcpy(&v, b + 0x20, 8);
	assert_int_equal(v, 0);          /* unset stays 0 */
	memcpy(&v, b + 0x28, 8);
	assert_int_equal(v, 4001);       /* TimeStamp + 1 stays */
	memcpy(&v, b + 72 + 8, 8);
	assert_int_equal(v, 2000);       /* from the previous record */
	memcpy(&v, b + 72 + 0x20, 8);
	assert_int_equal(v, 1001);
	memcpy(&v, b + 72 + 0x28, 8);
	assert_int_equal(v, 2);
	assert_int_equal(trace_delta_decode(b, sizeof(b)), 2);
	assert_memory_equal(b, orig, sizeof(b));
}

/* Tracetest records: Sequence becomes the difference from the previous
 * one of the same writer (Writer bit 0); a record too short to hold it is
 * left alone; all of it undone exactly. */
static void test_delta_tracetest_sequence(void **state)
{
	(void)state;
	enum { R = 32 };
	static const uint32_t writer[5] = { 0, 0, 1, 2, 3 }, seq[5] = { 7, 8, 3, 9, 4 };
	uint8_t b[5 * R + 24], orig[sizeof(b)];
	uint32_t marker = 0xC0110002u;
	uint16_t size = R, hook = 0xFE01, short_size = 24;
	uint64_t ts = 100;

	memset(b, 0x22, sizeof(b));
	for (int r = 0; r < 5; r++) {
		memcpy(b + r * R, &marker, 4);
		memcpy(b + r * R + 4, &size, 2);
		memcpy(b + r * R + 6, &hook, 2);
		memcpy(b + r * R + 8, &ts, 8);
		memcpy(b + r * R + 20, &writer[r], 4);
		memcpy(b + r * R + 24, &seq[r], 4);
	}
	memcpy(b + 5 * R, &marker, 4); /* a 24-byte tracetest record: no Sequence */
	memcpy(b + 5 * R + 4, &short_size, 2);
	memcpy(b + 5 * R + 6, &hook, 2);
	memcpy(orig, b, sizeof(b));
	assert_int_equal(trace_delta_encode(b, sizeof(b)), 6);
	static const uint32_t want[5] = { 7, 1, 3, 1, 1 }; /* writers 0,0 | 1 | 2 (= 0) | 3 (= 1) */
	for (int r = 0; r < 5; r++) {
		uint32_t v;
		memcpy(&v, b + r * R + 24, 4);
		assert_int_equal(v, want[r]);
	}
	assert_memory_equal(b + 5 * R + 16, orig + 5 * R + 16, 8);
	check_delta_copy(orig, sizeof(orig));
	assert_int_equal(trace_delta_decode(b, sizeof(b)), 6);
	assert_memory_equal(b, orig, sizeof(b));
}

/* As roundtrip(), with a dictionary, decoded by LZ4_decompress_safe_usingDict. */
static size_t roundtrip_dict(const uint8_t *src, size_t n, const uint8_t *dict, size_t dlen, size_t cap)
{
	uint8_t *dst = malloc(cap ? cap : 1);
	size_t r = lz4_compress_block_dict(src, n, dict, dlen, dst, cap, &st);

	assert_true(r <= cap);
	if (r) {
		assert_true(r < n);
		size_t window = dlen < LZ4_BLOCK_MAX - n ? dlen : LZ4_BLOCK_MAX - n;
		check_format(dst, r, n, window >= 4 ? window : 0);
		uint8_t *back = malloc(n + 1);
		int got = LZ4_decompress_safe_usingDict((const char *)dst, (char *)back, (int)r, (int)n,
							(const char *)dict, (int)dlen);
		assert_int_equal(got, (int)n);
		assert_memory_equal(back, src, n);
		free(back);
	}
	free(dst);
	return r;
}

/* Input made of pieces of the dictionary: matches into it, matches that
 * run from its end into the input, tiny and oversized dictionaries. */
static void test_dict(void **state)
{
	(void)state;
	enum { DL = 3000 };
	static uint8_t dict[LZ4_BLOCK_MAX + 100], src[LZ4_BLOCK_MAX];

	for (size_t i = 0; i < sizeof(dict); i++)
		dict[i] = (uint8_t)rnd();
	/* Copies of dictionary pieces between random bytes. */
	for (size_t n = 0; n <= 2000; n += 7) {
		for (size_t i = 0; i < n;) {
			size_t k = rnd() % 40, at = rnd() % (DL - 40);
			for (size_t j = 0; j < k && i < n; j++)
				src[i++] = (uint8_t)rnd();
			for (size_t j = 0; j < 40 && i < n; j++)
				src[i++] = dict[at + j];
		}
		size_t r = roundtrip_dict(src, n, dict, DL, n + 16);
		if (n >= 200)
			assert_true(r > 0 && r < n * 3 / 4);
		for (size_t dl = 0; dl <= 5; dl++)
			roundtrip_dict(src, n, dict + DL - dl, dl, n + 16);
	}
	/* X, the dictionary's last 10 bytes, X: the second X's match starts
	 * in the dictionary and runs on into the input. */
	for (size_t i = 0; i < 20; i++)
		src[i] = (uint8_t)rnd();
	memcpy(src + 20, dict + DL - 10, 10);
	memcpy(src + 30, dict + DL - 10, 30);
	memcpy(src + 40, src, 20);
	for (size_t i = 60; i < 80; i++)
		src[i] = (uint8_t)rnd();
	assert_true(roundtrip_dict(src, 80, dict, DL, 96) > 0);
	/* Dictionaries longer than the window, inputs near the size limit. */
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = dict[i % 5000 + 100] ^ (uint8_t)(i % 97 == 0);
	static const size_t sizes[] = { 13, 1024, 60000, 65530, 65533, 65534, 65535, 65536 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		roundtrip_dict(src, sizes[k], dict, sizeof(dict), sizes[k] + 16);
		roundtrip_dict(src, sizes[k], dict, 6000, sizes[k] + 16);
	}
	/* Every cap: 0 below the compressed size, nothing written past cap. */
	size_t full = roundtrip_dict(src, 500, dict, 6000, 600);
	assert_true(full > 0);
	for (size_t cap = 0; cap <= full; cap++)
		assert_int_equal(roundtrip_dict(src, 500, dict, 6000, cap), cap < full ? 0 : full);
}

/* Real records with a dictionary of another log's records, after the
 * delta transform: back to the exact records. */
static void test_dict_golden(void **state)
{
	(void)state;
	struct golden_stream a[GOLDEN_MAX_CPUS], b[GOLDEN_MAX_CPUS];
	assert_true(golden_load("tests/golden/report-locks.log", a) > 0);
	assert_true(golden_load("tests/golden/report-sched.log", b) > 0);
	size_t dl = a[1].len < 4096 ? a[1].len : 4096;
	uint8_t *dict = malloc(dl);
	memcpy(dict, a[1].bytes, dl);
	trace_delta_encode(dict, dl);
	size_t plain = 0, with = 0, off = 0, len, sum;
	while ((len = golden_block(&b[0], off, 1024, &sum)) != 0) {
		uint8_t *t = malloc(len);
		memcpy(t, b[0].bytes + off, len);
		trace_delta_encode(t, len);
		size_t r0 = roundtrip_full(t, len), r1 = roundtrip_dict(t, len, dict, dl, len + 16);
		plain += r0 ? r0 : len;
		with += r1 ? r1 : len;
		free(t);
		off += len;
	}
	assert_true(with < plain); /* the dictionary helps */
	free(dict);
	golden_free(a);
	golden_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiny),
		cmocka_unit_test(test_zeros),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_incompressible),
		cmocka_unit_test(test_random_sizes),
		cmocka_unit_test(test_length_boundaries),
		cmocka_unit_test(test_stateless),
		cmocka_unit_test(test_golden_blocks),
		cmocka_unit_test(test_delta_stops),
		cmocka_unit_test(test_delta_fields),
		cmocka_unit_test(test_delta_tracetest_sequence),
		cmocka_unit_test(test_dict),
		cmocka_unit_test(test_dict_golden),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
