/*
 * chunk.c - cutting a sub-buffer into chunks at record boundaries.
 *
 * Records in a sub-buffer are contiguous, each starting 8-byte aligned,
 * each PERFINFO_TRACE_HEADER.Size rounded up to 8.  A chunk is a run of
 * whole records of at most `limit` bytes (KPROF_CHUNK_BYTES on the wire),
 * or one record alone when that record is larger.  The chunker only reads:
 * the reader calls it on a sub-buffer that its writers have left (full and
 * committed, or the final one after the settle wait).
 */
#include "kernel/trace/chunk.h"

#include <stddef.h>

#include "include/kprof/wmi.h"

#define ALIGN8(x) (((x) + 7u) & ~7u)

static uint32_t record_span(const uint8_t *data, uint32_t used, uint32_t off)
{
	const PERFINFO_TRACE_HEADER *h = (const void *)(data + off);

	if (used - off < sizeof(*h) || h->Size < sizeof(*h) || h->Size > used - off)
		return 0; /* not a settled record: nothing from here is sent */
	uint32_t span = ALIGN8((uint32_t)h->Size);
	return span <= used - off ? span : used - off;
}

uint32_t trace_chunk_next(const uint8_t *data, uint32_t used, uint32_t off, uint32_t limit, uint32_t *records)
{
	uint32_t end = off, n = 0;

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
