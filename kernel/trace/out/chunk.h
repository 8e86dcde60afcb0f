/*
 * chunk.h - cutting a sub-buffer's records into chunk frames (wire v2).
 */
#ifndef KPROF_KERNEL_TRACE_CHUNK_H
#define KPROF_KERNEL_TRACE_CHUNK_H

#include <stdbool.h>
#include <stdint.h>

#include "include/kprof/wire.h"
#include "kernel/lib/codec/lz4.h"

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

/*
 * Whether compression pays on this machine's link: it must cost less time
 * than the bytes it saves would take on the way out.  Under KVM with
 * software paging encoding took 6.8 ms a record, four times what the
 * saved bytes cost on the serial port; under TCG and on hardware it costs
 * a small part.  trace.c feeds every compressed chunk's encode cycles and
 * sizes, with what the sinks have taken so far (cycles and bytes); once
 * TRACE_PAY_WARMUP payload bytes went through the encoder and
 * TRACE_PAY_LINK_MIN bytes through the link, the first chunk where the
 * encoding's cycles exceed the saved bytes' link cycles turns `off`
 * (true returned that once), and the rest of the run goes raw.
 */
#define TRACE_PAY_WARMUP   (64u * 1024)
#define TRACE_PAY_LINK_MIN (16u * 1024)

struct trace_compress_pay {
	uint64_t encode_cycles;     /* in trace_chunk_encode, every chunk so far */
	uint64_t in_bytes;          /* records given to it                        */
	uint64_t out_bytes;         /* payload bytes it returned                  */
	bool off;                   /* compression stopped for the rest of the run */
};

bool trace_compress_pay_update(struct trace_compress_pay *p, uint64_t cycles, uint32_t in, uint32_t out,
			       uint64_t link_cycles, uint64_t link_bytes);

#endif
