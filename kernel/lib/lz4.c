/*
 * lz4.c - a greedy single-pass LZ4 block compressor, written from the LZ4
 * block format specification (lz4_Block_format.md), for trace chunks.
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
 *   - every offset is 1..65535 and points inside the block (there is no
 *     dictionary: each block decodes on its own, which is what lets one
 *     damaged chunk lose only itself);
 *   - the length is < n and <= cap, or the result is 0 and the caller sends
 *     the input raw.  Nothing is written at or beyond dst + cap.
 *
 * Method.  A hash of the 4 bytes at each position indexes a table of the
 * last position with that hash (u16, so inputs are at most 64 KiB).  When
 * the 4 bytes at the remembered position are equal, the match is extended
 * backwards over pending literals and forwards 8 bytes at a time, and
 * emitted at once (greedy, no lazy matching).  After 64 misses in a row
 * the scan steps 2, then 3, ... bytes, so incompressible data costs little.
 *
 * Cost.  One pass; per input byte a hash, a table load and store, and a
 * 4-byte compare, fewer on matched bytes.  The table has as many entries
 * as the smallest power of two >= n (256 to 4096) and is cleared per call:
 * 1 KiB for a 512-byte chunk, 8 KiB at most.  No allocation, no locks, no
 * floating point; st is the only state, so it runs at any IRQL.  On the
 * golden logs it runs at about 550 MB/s on the host (liblz4: 600-800), and
 * its output is within 0.3% of LZ4_compress_default's (tests/bench).
 */
#include "kernel/lib/lz4.h"
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

static inline uint32_t lz_hash(uint32_t seq, unsigned hlog)
{
	return (seq * 2654435761u) >> (32 - hlog); /* Knuth's multiplicative hash */
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

size_t lz4_compress_block(const void *src, size_t n, void *dst, size_t cap, struct lz4_state *st)
{
	const uint8_t *s = src;
	uint8_t *op = dst;
	size_t anchor = 0;

	if (n == 0 || n > LZ4_BLOCK_MAX)
		return 0;
	/* Not smaller than the input is no use: the caller sends raw. */
	uint8_t *oend = op + (cap < n - 1 ? cap : n - 1);

	if (n > LZ_MFLIMIT) {
		unsigned hlog = LZ4_HASH_LOG_MAX;
		while (hlog > LZ_HASH_LOG_MIN && (1u << (hlog - 1)) >= n)
			hlog--;
		uint16_t *table = st->table;
		memset(table, 0, sizeof(table[0]) << hlog);

		const size_t mflimit = n - LZ_MFLIMIT;          /* last match start  */
		const size_t mlimit = n - LZ_LAST_LITERALS;     /* matches end by here */
		size_t ip = 1;                                  /* table holds 0 everywhere: position 0 */

		for (;;) {
			/* Find a 4-byte match.  Every table entry is a position
			 * already passed, so ref < ip, and ip - ref < 65536 as
			 * n <= 65536: always a valid offset. */
			size_t ref;
			unsigned attempts = 1u << LZ_SKIP_SHIFT;
			for (;;) {
				if (ip > mflimit)
					goto last_literals;
				uint32_t seq = lz_read32(s + ip);
				uint32_t h = lz_hash(seq, hlog);
				ref = table[h];
				table[h] = (uint16_t)ip;
				if (lz_read32(s + ref) == seq)
					break;
				ip += attempts++ >> LZ_SKIP_SHIFT;
			}
			/* Extend backwards over literals not yet sent. */
			while (ip > anchor && ref > 0 && s[ip - 1] == s[ref - 1]) {
				ip--;
				ref--;
			}
			size_t len = LZ_MIN_MATCH + lz_common(s + ip + LZ_MIN_MATCH, s + ref + LZ_MIN_MATCH,
							      mlimit - ip - LZ_MIN_MATCH);
			op = lz_emit(op, oend, s + anchor, ip - anchor, len, ip - ref);
			if (!op)
				return 0;
			ip += len;
			anchor = ip;
			if (ip > mflimit)
				break;
			/* Remember a position inside the match, as later data
			 * often repeats its tail. */
			table[lz_hash(lz_read32(s + ip - 2), hlog)] = (uint16_t)(ip - 2);
		}
	}
last_literals:
	op = lz_emit(op, oend, s + anchor, n - anchor, 0, 0);
	if (!op)
		return 0;
	return (size_t)(op - (uint8_t *)dst);
}
