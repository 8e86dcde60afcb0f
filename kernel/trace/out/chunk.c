/*
 * chunk.c - cutting a sub-buffer into chunks at record boundaries.
 *
 * Records in a sub-buffer are contiguous, each starting 8-byte aligned,
 * each PERFINFO_TRACE_HEADER.Size rounded up to 8.  A chunk is a run of
 * whole records of at most `limit` bytes (KPROF_CHUNK_BYTES on the wire),
 * or one record alone when that record is larger.  The chunker only reads:
 * the reader calls it on a sub-buffer that its writers have left (full and
 * committed, or the final one after the settle wait).
 *
 * trace_chunk_encode() then picks a chunk's payload: the records as they
 * are, or a copy of them TSC-delta transformed as they are copied
 * (trace_delta.c, its second rules: TD_RULES_2) and LZ4 compressed
 * (kernel/lib/codec/lz4.c) when that is smaller: encoding 2 on the wire
 * (KPROF_CHUNK_DELTA2_LZ4, docs/wire-format.md section 3).
 *
 * Asserted (KASSERT_OP, kernel/debug/kassert.h; test_chunk_assert.c
 * breaks each):
 *   - a chunk starts where the one before ended: inside the sub-buffer,
 *     on a record's 8-byte boundary (or at its end);
 *   - the delta transform walks exactly the records the chunker counted
 *     (the header's records): a chunk cut inside a record, or a count that
 *     is not the chunk's, would leave bytes the transform did not touch
 *     that the decoder then "undoes", and the records would come out
 *     wrong with their CRC right.  trace_delta.c itself stops quietly at
 *     a record that is not valid: the host tool runs it on what the link
 *     delivered, so the rule is asserted here, where the records are the
 *     kernel's own.
 */
#include "kernel/trace/out/chunk.h"

#include <stddef.h>

#include "include/kprof/wmi.h"
#include "kernel/debug/kassert.h"
#include "kernel/lib/libk.h"
#include "kernel/trace/trace_delta.h"

static uint32_t record_span(const uint8_t *data, uint32_t used, uint32_t off)
{
	const PERFINFO_TRACE_HEADER *h = (const void *)(data + off);

	if (used - off < sizeof(*h) || h->Size < sizeof(*h) || h->Size > used - off)
		return 0; /* not a settled record: nothing from here is sent */
	uint32_t span = ALIGN_UP((uint32_t)h->Size, PERFINFO_RECORD_ALIGN);
	return span <= used - off ? span : used - off;
}

uint32_t trace_chunk_next(const uint8_t *data, uint32_t used, uint32_t off, uint32_t limit, uint32_t *records)
{
	uint32_t end = off, n = 0;
	uint32_t misaligned = off < used ? off % PERFINFO_RECORD_ALIGN : 0;

	KASSERT_OP(off, <=, used);
	KASSERT_OP(misaligned, ==, 0u);
	while (end < used && n < UINT16_MAX) {
		uint32_t span = record_span(data, used, end);
		if (!span || (n && end - off + span > limit))
			break;
		end += span;
		n++;
	}
	*records = n;
	return end;
}

const uint8_t *trace_chunk_encode(struct kprof_chunk_header *c, const uint8_t *rec, uint32_t n,
				  struct trace_chunk_scratch *s, uint32_t *len)
{
	c->encoding = KPROF_CHUNK_RAW;
	c->raw_bytes = n <= UINT16_MAX ? (uint16_t)n : 0;
	*len = n;
	if (!s || n > KPROF_CHUNK_BYTES || n < 16)
		return rec;
	size_t walked = trace_delta_encode_copy(s->raw, rec, n); /* one pass: no copy first */
	KASSERT_OP(walked, ==, (size_t)c->records);
	size_t packed = lz4_compress_block(s->raw, n, s->packed, n - 1, &s->lz4);
	if (!packed || packed >= n)
		return rec;
	c->encoding = KPROF_CHUNK_DELTA2_LZ4;
	*len = (uint32_t)packed;
	return s->packed;
}

bool trace_compress_pay_update(struct trace_compress_pay *p, uint64_t cycles, uint32_t in, uint32_t out,
			       uint64_t link_cycles, uint64_t link_bytes)
{
	if (p->off)
		return false;
	p->encode_cycles += cycles;
	p->in_bytes += in;
	p->out_bytes += out;
	if (p->in_bytes < TRACE_PAY_WARMUP || link_bytes < TRACE_PAY_LINK_MIN)
		return false;
	uint64_t saved = p->in_bytes > p->out_bytes ? p->in_bytes - p->out_bytes : 0;
	/* encode / saved > link_cycles / link_bytes, without dividing */
	if ((unsigned __int128)p->encode_cycles * link_bytes <= (unsigned __int128)saved * link_cycles)
		return false;
	p->off = true;
	return true;
}
