/*
 * chunk.h - cutting a sub-buffer's records into chunk frames (wire v2).
 */
#ifndef KPROF_KERNEL_TRACE_CHUNK_H
#define KPROF_KERNEL_TRACE_CHUNK_H

#include <stdint.h>

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

#endif
