/*
 * chunk.h - cutting a sub-buffer's records into chunk frames (wire v2).
 */
#ifndef KPROF_KERNEL_TRACE_CHUNK_H
#define KPROF_KERNEL_TRACE_CHUNK_H

#include <stdint.h>

#include "include/kprof/wire.h"
#include "kernel/lib/lz4.h"

/*
 * The next chunk of the records in data[0..used): whole records from byte
 * `off`, as many as fit in `limit` bytes (alignment padding included), and
 * always at least one, so a record larger than `limit` goes alone.
 * Returns the chunk's end offset and sets *records; the end equals `off`
 * (no records) when nothing valid is left: the end of `used`, or a record
 * whose header is not settled (Size below the header or past `used`: a
 * writer reserved it and never committed).
 */
uint32_t trace_chunk_next(const uint8_t *data, uint32_t used, uint32_t off, uint32_t limit, uint32_t *records);

/*
 * Compression scratch for trace_chunk_encode(): private to one sender at
 * a time (trace.c keeps one per CPU).  About 20 KiB; zeroed before its
 * first use (struct lz4_state).
 */
struct trace_chunk_scratch {
	struct lz4_state lz4;                   /* 16 KiB hash table         */
	uint8_t raw[KPROF_CHUNK_BYTES];         /* delta-transformed copy    */
	uint8_t packed[KPROF_CHUNK_BYTES];      /* the LZ4 block             */
};

/*
 * The payload of the chunk of records rec[0..n): sets c->encoding and
 * c->raw_bytes, returns the payload and its length in *len.  With scratch
 * s (may be NULL: raw) and n at most KPROF_CHUNK_BYTES, the records are
 * copied into s TSC-delta transformed (trace_delta_encode_copy) and
 * compressed as one LZ4 block of at most n - 1 bytes: encoding
 * KPROF_CHUNK_DELTA2_LZ4 when that fits, else the records go raw.  rec is
 * only read.
 */
const uint8_t *trace_chunk_encode(struct kprof_chunk_header *c, const uint8_t *rec, uint32_t n,
				  struct trace_chunk_scratch *s, uint32_t *len);

#endif
