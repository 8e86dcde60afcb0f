/*
 * test_pb.c - tools/kprof/export/protobuf/pb.c, the write-only Protocol
 * Buffers encoder the protobuf trace is made with.
 *
 * The expected bytes are the wire format's own worked examples (its
 * encoding guide: 150 in field 1 is 08 96 01, "testing" in field 2 is
 * 12 07 74 65 73 74 69 6e 67, the packed 3, 270, 86942 in field 4 is
 * 22 06 03 8e 02 9e a7 05, a message holding 150 in field 1 as field 3
 * is 1a 03 08 96 01), not the encoder's logic again.  Then what the
 * encoder alone must get right: an empty packed column (no bytes to copy
 * from a buffer never grown: UBSan, in test_chunk_ring's build, says so
 * for memcpy from NULL), a nested message whose length needs two
 * bytes (pb_close moves its fields up), nesting in nesting, the largest
 * varint (ten bytes), a fixed64 little-endian, and zigzag differences
 * both ways round (the sorts' codecs write them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tools/kprof/export/protobuf/pb.h"

static void same(const struct pb_buf *b, const uint8_t *want, size_t n)
{
	assert_int_equal(b->n, n);
	assert_memory_equal(b->d, want, n);
}

static void test_the_guides_examples(void **state)
{
	(void)state;
	struct pb_buf b = { 0 };
	static const uint8_t v150[] = { 0x08, 0x96, 0x01 };
	static const uint8_t testing[] = { 0x12, 0x07, 0x74, 0x65, 0x73, 0x74, 0x69, 0x6e, 0x67 };
	static const uint8_t packed[] = { 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05 };
	static const uint8_t nested[] = { 0x1a, 0x03, 0x08, 0x96, 0x01 };

	pb_uint(&b, 1, 150);
	same(&b, v150, sizeof(v150));
	b.n = 0;
	pb_string(&b, 2, "testing");
	same(&b, testing, sizeof(testing));
	b.n = 0;
	struct pb_buf col = { 0 };
	pb_varint(&col, 3);
	pb_varint(&col, 270);
	pb_varint(&col, 86942);
	pb_bytes(&b, 4, col.d, col.n);
	same(&b, packed, sizeof(packed));
	b.n = 0;
	size_t at = pb_open(&b);
	pb_uint(&b, 1, 150);
	pb_close(&b, 3, at);
	same(&b, nested, sizeof(nested));
	b.n = 0;
	struct pb_buf none = { 0 }; /* a column with no values: its d is NULL */
	static const uint8_t empty[] = { 0x22, 0x00 };
	pb_bytes(&b, 4, none.d, none.n);
	same(&b, empty, sizeof(empty));
	pb_free(&col);
	pb_free(&b);
}

/* A message of 200 bytes inside one of its own, after a field: its
 * length takes two bytes (c8 01), so pb_close moves its fields up one
 * byte more than for a short one; the outer's length counts them. */
static void test_a_long_nested_message(void **state)
{
	(void)state;
	struct pb_buf b = { 0 };
	char text[198];

	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = 0;
	pb_uint(&b, 1, 1);
	size_t outer = pb_open(&b), inner = pb_open(&b);
	pb_uint(&b, 2, 7);           /* 2 bytes                             */
	pb_bytes(&b, 3, text, 195);  /* 1 + 2 + 195 bytes: 200 in all      */
	pb_close(&b, 5, inner);
	pb_close(&b, 6, outer);
	/* 08 01 | 32 cb 01 | 2a c8 01 | 10 07 | 1a c3 01 xx...             */
	assert_int_equal(b.n, 2 + 3 + 3 + 200);
	static const uint8_t head[] = { 0x08, 0x01, 0x32, 0xcb, 0x01, 0x2a, 0xc8, 0x01, 0x10, 0x07, 0x1a, 0xc3, 0x01 };
	assert_memory_equal(b.d, head, sizeof(head));
	for (size_t i = sizeof(head); i < b.n; i++)
		assert_int_equal(b.d[i], 'x');
	pb_free(&b);
}

static void test_varints_and_fixed(void **state)
{
	(void)state;
	struct pb_buf b = { 0 };
	unsigned char p[10];
	uint64_t v;
	static const uint8_t max[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	static const uint8_t fixed[] = { 0x09, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01 };

	assert_int_equal(pb_put_varint(p, UINT64_MAX), 10);
	assert_memory_equal(p, max, 10);
	assert_int_equal(pb_get_varint(p, &v), 10);
	assert_true(v == UINT64_MAX);
	assert_int_equal(pb_put_varint(p, 127), 1);
	assert_int_equal(pb_put_varint(p, 128), 2);
	assert_int_equal(pb_get_varint(p, &v), 2);
	assert_int_equal(v, 128);
	/* an int32 -1 is its sign-extended 64 bits: ten bytes */
	pb_uint(&b, 1, (uint64_t)(int64_t)-1);
	assert_int_equal(b.n, 11);
	b.n = 0;
	pb_fixed64(&b, 1, 0x0102030405060708ull);
	same(&b, fixed, sizeof(fixed));
	pb_free(&b);
}

static void test_zigzag(void **state)
{
	(void)state;
	/* the difference a - b: 0, -1, 1, -2 ... as 0, 1, 2, 3 ... */
	assert_int_equal(pb_zigzag(10, 10), 0);
	assert_int_equal(pb_zigzag(9, 10), 1);
	assert_int_equal(pb_zigzag(11, 10), 2);
	assert_int_equal(pb_zigzag(8, 10), 3);
	static const uint64_t vals[] = { 0, 1, 2, 1000, UINT64_MAX, UINT64_MAX - 1, 1ull << 63, 12345678901234ull };
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++)
			assert_true(pb_unzigzag(pb_zigzag(vals[i], vals[j]), vals[j]) == vals[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_guides_examples),
		cmocka_unit_test(test_a_long_nested_message),
		cmocka_unit_test(test_varints_and_fixed),
		cmocka_unit_test(test_zigzag),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
