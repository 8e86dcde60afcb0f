/*
 * pb.h - a write-only Protocol Buffers encoder: the wire format's varints,
 * tags and length-delimited fields into a growing byte buffer, enough for
 * the Perfetto trace (the messages themselves:
 * export/perfetto/proto/schema.h, the writer: proto.h there).
 *
 * A nested message is written in place: pb_open notes where it starts,
 * its fields follow, and pb_close moves them up to put the tag and the
 * length (a varint, so its size is known only then) in front.  Fields are
 * written in any order (protobuf parsers accept that); a repeated scalar
 * is one field per value, or, where the schema declares it packed, its
 * values' varints gathered in a buffer of their own and written as one
 * length-delimited field (pb_bytes).
 */
#ifndef KPROF_TOOL_PROTOBUF_PB_H
#define KPROF_TOOL_PROTOBUF_PB_H

#include <stddef.h>
#include <stdint.h>

struct pb_buf {
	uint8_t *d;
	size_t n, cap;
};

/* Wire types. */
enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2 };

/* A base-128 varint (least significant group first) put at p, read from
 * p (each returns its bytes); a difference that may be negative as a
 * small unsigned number (zigzag): the encoder's own, and the pieces of
 * the writer's sort codecs (spill.h). */
static inline size_t pb_put_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

static inline size_t pb_get_varint(const unsigned char *p, uint64_t *v)
{
	size_t n = 0;
	uint64_t x = 0;

	for (unsigned shift = 0;; shift += 7) {
		unsigned char b = p[n++];
		x |= (uint64_t)(b & 0x7F) << shift;
		if (!(b & 0x80) || shift >= 63)
			break;
	}
	*v = x;
	return n;
}

static inline uint64_t pb_zigzag(uint64_t a, uint64_t b)
{
	int64_t d = (int64_t)(a - b);
	return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
}

static inline uint64_t pb_unzigzag(uint64_t z, uint64_t b)
{
	return b + ((z >> 1) ^ (0 - (z & 1)));
}

void pb_varint(struct pb_buf *b, uint64_t v);
void pb_tag(struct pb_buf *b, unsigned field, unsigned wire);
/* A uint32/uint64/int32/int64/bool/enum field (negative int64 as its
 * two's complement, 10 bytes, as the format has it). */
void pb_uint(struct pb_buf *b, unsigned field, uint64_t v);
void pb_fixed64(struct pb_buf *b, unsigned field, uint64_t v);
void pb_double(struct pb_buf *b, unsigned field, double v);
void pb_bytes(struct pb_buf *b, unsigned field, const void *p, size_t n);
void pb_string(struct pb_buf *b, unsigned field, const char *s);
/* A nested message: start = pb_open(b); its fields; pb_close(b, field,
 * start). */
size_t pb_open(const struct pb_buf *b);
void pb_close(struct pb_buf *b, unsigned field, size_t start);
void pb_free(struct pb_buf *b);

#endif
