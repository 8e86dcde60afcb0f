/*
 * lz4.h - LZ4 block-format compressor for trace chunks (kernel/lib/codec/lz4.c).
 *
 * The output is a plain LZ4 *block* (no frame header, no checksum, no
 * sizes): the chunk header carries the raw and compressed lengths, and the
 * host decodes with liblz4's LZ4_decompress_safe().  The file comment of
 * lz4.c describes the format and what the output guarantees.
 */
#ifndef KPROF_KERNEL_LZ4_H
#define KPROF_KERNEL_LZ4_H

#include <stddef.h>
#include <stdint.h>

#define LZ4_HASH_LOG_MAX 12                  /* 4096 entries of 4 bytes, 16 KiB */
#define LZ4_BLOCK_MAX    65536u              /* largest input: positions are u16 */

/* Scratch for compression: the hash table of recent positions.  The
 * caller owns it (one per CPU, say) and zeroes it once before its first
 * use (static or kzalloc'd storage is zero).  Each call tags the entries it
 * writes with its own epoch, and an entry with another epoch reads as
 * empty, so no call clears the table (lz4.c: "Cost") and no call's output
 * depends on an earlier one's: the same input always gives the same
 * block. */
struct lz4_state {
	uint32_t table[1u << LZ4_HASH_LOG_MAX];  /* hash of 5 bytes -> epoch << 16 | last position */
	uint32_t epoch;                          /* the last call's tag, 0..65535; 0: none yet */
};

/*
 * Compress src[0..n) into dst[0..cap) as one LZ4 block.  Returns the
 * compressed length, which is always < n, or 0 when the block would not
 * fit in cap, would not be smaller than n, or n > LZ4_BLOCK_MAX: the caller
 * then sends the bytes raw.  Never writes dst[cap] or beyond (on a 0 return
 * dst[0..cap) holds garbage).  Allocates nothing, takes no locks, and runs
 * at any IRQL with st private to the caller.
 */
size_t lz4_compress_block(const void *src, size_t n, void *dst, size_t cap, struct lz4_state *st);

/*
 * The same, with matches also into a fixed dictionary that the decoder
 * holds too (LZ4_decompress_safe_usingDict(..., dict, dict_len)): the
 * block then decodes only with those bytes, but still on its own.  Only
 * the last LZ4_BLOCK_MAX - n bytes of dict are used; a dict_len below 4
 * is no dictionary.  Costs a hash per dictionary byte per call.
 */
size_t lz4_compress_block_dict(const void *src, size_t n, const void *dict, size_t dict_len, void *dst, size_t cap,
			       struct lz4_state *st);

#endif
