/*
 * pb.c - the Protocol Buffers encoding (pb.h): base-128 varints, least
 * significant group first; a field's key is (number << 3) | wire type.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/protobuf/pb.h"
#include "tools/kprof/util/alloc.h"

static void room(struct pb_buf *b, size_t more)
{
	b->d = kp_grow(b->d, &b->cap, b->n + more, 1);
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void pb_varint(struct pb_buf *b, uint64_t v)
{
	room(b, 10);
	b->n += pb_put_varint(b->d + b->n, v);
}

void pb_tag(struct pb_buf *b, unsigned field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

void pb_uint(struct pb_buf *b, unsigned field, uint64_t v)
{
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

void pb_fixed64(struct pb_buf *b, unsigned field, uint64_t v)
{
	pb_tag(b, field, PB_FIXED64);
	room(b, 8);
	for (int i = 0; i < 8; i++) /* little-endian */
		b->d[b->n++] = (uint8_t)(v >> (8 * i));
}

void pb_double(struct pb_buf *b, unsigned field, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	pb_fixed64(b, field, bits);
}

void pb_bytes(struct pb_buf *b, unsigned field, const void *p, size_t n)
{
	pb_tag(b, field, PB_LEN);
	pb_varint(b, n);
	if (!n) /* an empty packed column: p may be an empty buffer's NULL */
		return;
	room(b, n);
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

void pb_string(struct pb_buf *b, unsigned field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

size_t pb_open(const struct pb_buf *b)
{
	return b->n;
}

void pb_close(struct pb_buf *b, unsigned field, size_t start)
{
	size_t len = b->n - start;
	uint64_t key = (uint64_t)field << 3 | PB_LEN;
	size_t head = varint_size(key) + varint_size(len);

	room(b, head);
	memmove(b->d + start + head, b->d + start, len);
	pb_put_varint(b->d + start + pb_put_varint(b->d + start, key), len);
	b->n += head;
}

void pb_free(struct pb_buf *b)
{
	free(b->d);
	*b = (struct pb_buf){ 0 };
}
