/*
 * lz4.c - a greedy single-pass LZ4 block compressor, written from the LZ4
 * block format specification (lz4:doc/lz4_Block_format.md), for trace chunks.
 *
 * Format.  A block is a sequence of sequences.  Each sequence is
 *   token            1 byte: high nibble literal length, low nibble
 *                    match length - 4; a nibble of 15 means "15 plus the
 *                    extension bytes that follow": 255, 255, ..., then one
 *                    byte < 255, all added up
 *   literal ext      (if the literal nibble is 15)
 *   literals         copied as they are
 *   offset           2 bytes little-endian, 1..65535: the match starts
 *                    that far back in the decoded output
 *   match ext        (if the match nibble is 15)
 * The last sequence is literals only: token, literal ext, literals, and it
 * ends the block.  The decoder must know the compressed size (the chunk
 * header carries it); it may overlap a match with its own output (offset <
 * length repeats a pattern).
 *
 * What the output guarantees (the rules every LZ4 decoder relies on):
 *   - the last 5 bytes of the input are literals, and the last match
 *     starts at least 12 bytes before the end, so an input of fewer than
 *     13 bytes is one literal run;
 *   - every offset is 1..65535 and points inside the block, or with a
 *     dictionary (lz4_compress_block_dict) into the dictionary's tail as
 *     if it came right before the block; nothing else: each block decodes
 *     on its own, which is what lets one damaged chunk lose only itself;
 *   - the length is < n and <= cap, or the result is 0 and the caller sends
 *     the input raw.  Nothing is written at or beyond dst + cap.
 *
 * Method.  A hash of the 5 bytes at each position indexes a table of the
 * last position with that hash (16 bits of it, so window and input are at
 * most 64 KiB together).  When the 4 bytes at the remembered position are equal,
 * the match is extended backwards over pending literals and forwards 8
 * bytes at a time, and emitted at once (greedy, no lazy matching).
 * Hashing 5 bytes rather than the 4 a match needs skips candidates that
 * share only 4, whose 3-byte cost (token, offset) breaks a literal run
 * for a 1-byte gain: on trace records the output is 4% (512-byte chunks)
 * to 15% (16 KiB) smaller than with 4 bytes, which is what liblz4's
 * LZ4_compress_default does for inputs under 64 KiB.  6 bytes are worse
 * up to 1 KiB chunks and barely better above; 7 and 8 are worse.
 * A dictionary's positions are hashed into the table first and numbered
 * before the input's, so a match may start in it and run on into the
 * input.  After 64 misses in a row the scan steps 2, then 3, ... bytes,
 * so incompressible data costs little.
 *
 * Cost.  One pass; per input byte a hash, a table load and store, and a
 * 4-byte compare, fewer on matched bytes; with a dictionary, one hash per
 * dictionary byte too.  The table has as many entries as the smallest
 * power of two >= dictionary window + n (256 to 4096).  It is not cleared
 * per call: each entry carries the epoch of the call that wrote it (a u16
 * beside the u16 position), an entry from another epoch reads as position
 * 0, exactly what a cleared table holds, and the whole table is cleared
 * only when the epoch wraps, once every 65535 calls.  Clearing up to 8 KiB
 * for every 2 KiB trace chunk had cost more than compressing it (in a
 * stream-mode run under QEMU, whose "rep stosb" goes a byte at a time:
 * 158 profile samples clearing against 43 compressing).  No allocation, no locks, no floating point; st is the only
 * state, so it runs at any IRQL.
 * On the host, over the golden logs' records, about 450 MB/s (liblz4's
 * LZ4_compress_default: 650); with a 4.5 KiB dictionary 110 MB/s for 512-
 * byte chunks, 350 for 16 KiB (tests/bench/bench_lz4.c).
 */
#include "kernel/lib/codec/lz4.h"
#include "kernel/lib/libk.h"

#define LZ_MIN_MATCH    4
#define LZ_LAST_LITERALS 5          /* the last 5 bytes are literals             */
#define LZ_MFLIMIT      12          /* a match starts >= 12 bytes before the end */
#define LZ_SKIP_SHIFT   6           /* misses before the scan speeds up: 2^6     */
#define LZ_HASH_LOG_MIN 8

static inline uint32_t lz_read32(const uint8_t *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}

static inline uint64_t lz_read64(const uint8_t *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
}

/* The 5 bytes at p (a match needs 4; hashing one more makes a candidate
 * that shares only 4 bytes, a match that barely pays, less likely). */
static inline uint64_t lz_read40(const uint8_t *p)
{
	return lz_read32(p) | (uint64_t)p[4] << 32;
}

static inline uint32_t lz_hash(uint64_t seq40, unsigned hlog)
{
	return (uint32_t)((seq40 * 0x9E3779B97F4A7C15ull) >> (64 - hlog)); /* multiplicative, by 2^64/phi */
}

/* Bytes a length of v takes after its nibble (v >= 15: 255s, then < 255). */
static inline size_t lz_ext_len(size_t v)
{
	return v >= 15 ? (v - 15) / 255 + 1 : 0;
}

static inline uint8_t *lz_put_ext(uint8_t *op, size_t v)
{
	if (v < 15)
		return op;
	v -= 15;
	for (; v >= 255; v -= 255)
		*op++ = 255;
	*op++ = (uint8_t)v;
	return op;
}

/*
 * Append one sequence: nlit literals, then (mlen != 0) a match of mlen
 * bytes at offset off.  NULL if it does not fit before oend.
 */
static uint8_t *lz_emit(uint8_t *op, uint8_t *oend, const uint8_t *lit, size_t nlit, size_t mlen, size_t off)
{
	size_t need = 1 + lz_ext_len(nlit) + nlit;

	if (mlen)
		need += 2 + lz_ext_len(mlen - LZ_MIN_MATCH);
	if ((size_t)(oend - op) < need)
		return NULL;
	uint8_t *token = op++;
	*token = (uint8_t)((nlit < 15 ? nlit : 15) << 4);
	op = lz_put_ext(op, nlit);
	memcpy(op, lit, nlit);
	op += nlit;
	if (!mlen)
		return op;
	*op++ = (uint8_t)off;
	*op++ = (uint8_t)(off >> 8);
	size_t m = mlen - LZ_MIN_MATCH;
	*token |= (uint8_t)(m < 15 ? m : 15);
	return lz_put_ext(op, m);
}

/* Equal bytes at a and b, from 0 up to at most max. */
static inline size_t lz_common(const uint8_t *a, const uint8_t *b, size_t max)
{
	size_t len = 0;

	while (len + 8 <= max) {
		uint64_t x = lz_read64(a + len) ^ lz_read64(b + len);
		if (x)
			return len + ((size_t)__builtin_ctzll(x) >> 3); /* little-endian */
		len += 8;
	}
	while (len < max && a[len] == b[len])
		len++;
	return len;
}

/*
 * Positions are virtual: 0 .. dn-1 are the dictionary window d[0..dn),
 * dn .. dn+n-1 the input s[0..n), as if the window came right before the
 * input (which is how the decoder sees it).
 */
struct lz_in {
	const uint8_t *s;        /* input                                */
	const uint8_t *d;        /* dictionary window, dn bytes          */
	size_t dn;
};

static inline const uint8_t *lz_at(const struct lz_in *in, size_t v)
{
	return v < in->dn ? in->d + v : in->s + (v - in->dn);
}

/* Equal bytes at input position ip and virtual position v, up to max;
 * a match may run from the end of the window into the input. */
static size_t lz_extend(const struct lz_in *in, size_t ip, size_t v, size_t max)
{
	size_t len = 0;

	if (v < in->dn) {
		size_t part = in->dn - v < max ? in->dn - v : max;
		len = lz_common(in->s + ip, in->d + v, part);
		if (len < part || len == max)
			return len;
	}
	return len + lz_common(in->s + ip + len, in->s + (v + len - in->dn), max - len);
}

size_t lz4_compress_block(const void *src, size_t n, void *dst, size_t cap, struct lz4_state *st)
{
	return lz4_compress_block_dict(src, n, NULL, 0, dst, cap, st);
}

size_t lz4_compress_block_dict(const void *src, size_t n, const void *dict, size_t dict_len, void *dst, size_t cap,
			       struct lz4_state *st)
{
	const uint8_t *s = src;
	uint8_t *op = dst;
	size_t anchor = 0;

	if (n == 0 || n > LZ4_BLOCK_MAX)
		return 0;
	/* Not smaller than the input is no use: the caller sends raw. */
	uint8_t *oend = op + (cap < n - 1 ? cap : n - 1);

	if (n > LZ_MFLIMIT) {
		/* The window: the dictionary's tail, so that every virtual
		 * position fits a u16 and every offset is at most 65535. */
		struct lz_in in = { s, NULL, 0 };
		size_t dn = dict_len < LZ4_BLOCK_MAX - n ? dict_len : LZ4_BLOCK_MAX - n;
		if (dn >= LZ_MIN_MATCH) { /* else none: position 0 must have 4 bytes */
			in.dn = dn;
			in.d = (const uint8_t *)dict + (dict_len - dn);
		}
		dn = in.dn;
		unsigned hlog = LZ4_HASH_LOG_MAX;
		while (hlog > LZ_HASH_LOG_MIN && (1u << (hlog - 1)) >= dn + n)
			hlog--;
		uint32_t *table = st->table;
		/* Every entry of another epoch is position 0, whose 4 bytes
		 * exist: what a cleared table would say. */
		if (++st->epoch > 0xFFFF) {
			memset(st->table, 0, sizeof(st->table));
			st->epoch = 1;
		}
		const uint32_t tag = st->epoch << 16;
		for (size_t v = 0; v + 5 <= dn; v++)
			table[lz_hash(lz_read40(in.d + v), hlog)] = tag | (uint32_t)v;

		const size_t mflimit = n - LZ_MFLIMIT;          /* last match start  */
		const size_t mlimit = n - LZ_LAST_LITERALS;     /* matches end by here */
		size_t ip = dn ? 0 : 1;                         /* without a window, 0 is in the table */

		for (;;) {
			/* Find a 4-byte match.  Every table entry is a position
			 * already passed, so ref < dn + ip, and dn + ip - ref <
			 * 65536 as dn + n <= 65536: always a valid offset.  A
			 * window entry has its 4 bytes inside the window. */
			size_t ref;
			unsigned attempts = 1u << LZ_SKIP_SHIFT;
			for (;;) {
				if (ip > mflimit)
					goto last_literals;
				uint32_t seq = lz_read32(s + ip);
				uint32_t h = lz_hash(lz_read40(s + ip), hlog);
				uint32_t e = table[h];
				ref = (e & 0xFFFF0000u) == tag ? (e & 0xFFFFu) : 0;
				table[h] = tag | (uint32_t)(dn + ip);
				if (lz_read32(lz_at(&in, ref)) == seq)
					break;
				ip += attempts++ >> LZ_SKIP_SHIFT;
			}
			/* Extend backwards over literals not yet sent. */
			while (ip > anchor && ref > 0 && s[ip - 1] == *lz_at(&in, ref - 1)) {
				ip--;
				ref--;
			}
			size_t len = LZ_MIN_MATCH + lz_extend(&in, ip + LZ_MIN_MATCH, ref + LZ_MIN_MATCH,
							      mlimit - ip - LZ_MIN_MATCH);
			op = lz_emit(op, oend, s + anchor, ip - anchor, len, dn + ip - ref);
			if (!op)
				return 0;
			ip += len;
			anchor = ip;
			if (ip > mflimit)
				break;
			/* Remember a position inside the match, as later data
			 * often repeats its tail. */
			table[lz_hash(lz_read40(s + ip - 2), hlog)] = tag | (uint32_t)(dn + ip - 2);
		}
	}
last_literals:
	op = lz_emit(op, oend, s + anchor, n - anchor, 0, 0);
	if (!op)
		return 0;
	return (size_t)(op - (uint8_t *)dst);
}
