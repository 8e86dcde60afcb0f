/*
 * test_user_event.c - user event types and events (kernel/trace/
 * user_event.c): a declaration writes a KprofEventType record that
 * describes the type byte for byte, events pack their values in field
 * order, and the bounds are kept: too many fields, too long a name, a bad
 * size or value name are refused with the error that says so; a string
 * longer than its room is cut at the room; values of the wrong sort or
 * past the last field leave zeros; the fast forms never write past the
 * record, not even mixed with the others, and drop every value after the
 * first that does not fit; user_event_begin_values checks the writer's
 * size once and writes an event of zeros when it is not the type's; the
 * slot rule (slot i holds id i + 1) is asserted, and a broken one trips.
 * trace_record_begin/commit are caught here, into a byte buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/trace/user_event.h"
#include "tests/unit/shadow/shadow.h"

PERFINFO_GROUPMASK trace_groups;

static struct {
	uint16_t hook;
	uint8_t version;
	uint16_t size;
	uint8_t payload[4096];
	bool committed;
} recs[64];
static size_t nrecs;

void *trace_record_begin(struct trace_record *rec, uint16_t hook, uint8_t version, uint16_t payload_size)
{
	(void)rec;
	assert_true(nrecs < 64 && payload_size <= sizeof(recs[0].payload));
	recs[nrecs] = (__typeof__(recs[0])){ .hook = hook, .version = version, .size = payload_size };
	memset(recs[nrecs].payload, 0xAA, sizeof(recs[nrecs].payload)); /* what a buffer held before */
	return recs[nrecs++].payload;
}

void trace_record_commit(struct trace_record *rec)
{
	(void)rec;
	recs[nrecs - 1].committed = true;
}

static const char *const modes[] = { "read", "write", "flush" };
static const struct user_event_field req_fields[] = {
	USER_EVENT_UNSIGNED("Bytes", 4),
	USER_EVENT_POINTER("Buffer"),
	USER_EVENT_STRING("Who", 8),
	USER_EVENT_ENUM("Mode", 1, modes),
	USER_EVENT_SIGNED("Delta", 2),
};

static int reset(void **state)
{
	(void)state;
	memset(&trace_groups, 0, sizeof(trace_groups));
	perfinfo_group_set(&trace_groups, PERF_KPROF_USER);
	nrecs = 0;
	shadow_console[0] = 0;
	return 0;
}

/* Declaring writes the type record: header, fields, value names. */
static void test_declare_writes_type(void **state)
{
	(void)state;
	static struct user_event_type req = { "test.request", KprofEventKindInstant, req_fields, 5, 0, 0 };
	assert_int_equal(user_event_declare(&req), 0);
	assert_int_not_equal(req.id, 0);
	assert_int_equal(req.data_size, 4 + 8 + 8 + 1 + 2);
	assert_int_equal(nrecs, 1);
	assert_int_equal(recs[0].hook, KPROF_LOG_TYPE_EVENT_TYPE);
	assert_int_equal(recs[0].size, sizeof(KPROF_EVENT_TYPE) + 5 * sizeof(KPROF_EVENT_FIELD) + 3 * 16);
	const KPROF_EVENT_TYPE *t = (const KPROF_EVENT_TYPE *)recs[0].payload;
	assert_int_equal(t->TypeId, req.id);
	assert_int_equal(t->Kind, KprofEventKindInstant);
	assert_int_equal(t->FieldCount, 5);
	assert_int_equal(t->DataSize, 23);
	assert_int_equal(t->Flags, 0);
	assert_string_equal(t->Name, "test.request");
	assert_int_equal(t->Name[31], 0);
	assert_string_equal(t->Fields[2].Name, "Who");
	assert_int_equal(t->Fields[2].Type, KprofFieldString);
	assert_int_equal(t->Fields[2].Size, 8);
	assert_int_equal(t->Fields[3].ValueNames, 3);
	assert_int_equal(t->Fields[4].ValueNames, 0);
	const char *names = (const char *)&t->Fields[5];
	assert_string_equal(names, "read");
	assert_string_equal(names + 16, "write");
	assert_string_equal(names + 32, "flush");
	assert_int_equal(names[47], 0); /* padded: no stale buffer bytes */
	/* Declared again: the same id, no second record; the rundown writes it. */
	uint16_t id = req.id;
	assert_int_equal(user_event_declare(&req), 0);
	assert_int_equal(req.id, id);
	assert_int_equal(nrecs, 1);
	user_event_rundown();
	assert_true(nrecs >= 2);
	bool found = false;
	for (size_t i = 1; i < nrecs; i++) {
		const KPROF_EVENT_TYPE *r = (const KPROF_EVENT_TYPE *)recs[i].payload;
		if (r->TypeId == id) {
			found = true;
			assert_int_equal(r->Flags, KPROF_EVENT_TYPE_RUNDOWN);
			assert_memory_equal(r->Name, t->Name, sizeof(r->Name));
		}
	}
	assert_true(found);
}

/* An event packs the values in field order; a string is cut at its room. */
static void test_event_packs_fields(void **state)
{
	(void)state;
	static struct user_event_type req = { "test.packed", KprofEventKindInstant, req_fields, 5, 0, 0 };
	struct user_event e;
	assert_int_equal(user_event_declare(&req), 0);
	nrecs = 0;
	assert_true(user_event_begin(&e, &req, KprofEventInstant));
	user_event_int(&e, 0x11223344);
	user_event_int(&e, 0xffff800000001000ull);
	user_event_str(&e, "a-name-longer-than-8");
	user_event_int(&e, 2);
	user_event_int(&e, (uint64_t)-5);
	user_event_commit(&e);
	assert_int_equal(nrecs, 1);
	assert_true(recs[0].committed);
	assert_int_equal(recs[0].hook, KPROF_LOG_TYPE_USER_EVENT);
	assert_int_equal(recs[0].version, USER_EVENT_VERSION);
	assert_int_equal(recs[0].size, 4 + 23);
	const uint8_t *p = recs[0].payload;
	uint16_t id;
	memcpy(&id, p, 2);
	assert_int_equal(id, req.id);
	assert_int_equal(p[2], KprofEventInstant);
	assert_int_equal(p[3], 0);
	uint32_t bytes;
	uint64_t buffer;
	int16_t delta;
	memcpy(&bytes, p + 4, 4);
	memcpy(&buffer, p + 8, 8);
	memcpy(&delta, p + 25, 2);
	assert_int_equal(bytes, 0x11223344);
	assert_true(buffer == 0xffff800000001000ull);
	assert_memory_equal(p + 16, "a-name-l", 8); /* cut at 8: no NUL */
	assert_int_equal(p[24], 2);
	assert_int_equal(delta, -5);
	/* A short string is NUL-padded. */
	nrecs = 0;
	assert_true(user_event_begin(&e, &req, KprofEventInstant));
	user_event_int(&e, 1);
	user_event_int(&e, 2);
	user_event_str(&e, "ab");
	user_event_commit(&e);
	assert_memory_equal(recs[0].payload + 16, "ab\0\0\0\0\0\0", 8);
	/* Fields not written are zero, not what the buffer held. */
	assert_int_equal(recs[0].payload[24], 0);
	assert_int_equal(recs[0].payload[25], 0);
	assert_int_equal(recs[0].payload[26], 0);
}

/* A value of the wrong sort leaves its field zero; past the last field it
 * is ignored (the record keeps its size). */
static void test_wrong_sort_and_extra_values(void **state)
{
	(void)state;
	static struct user_event_type req = { "test.sorts", KprofEventKindInstant, req_fields, 5, 0, 0 };
	struct user_event e;
	assert_int_equal(user_event_declare(&req), 0);
	nrecs = 0;
	assert_true(user_event_begin(&e, &req, KprofEventInstant));
	user_event_str(&e, "x");     /* Bytes is an integer: zero */
	user_event_int(&e, 7);
	user_event_int(&e, 0x4142);  /* Who is a string: zero */
	user_event_int(&e, 1);
	user_event_int(&e, 3);
	user_event_int(&e, 99);      /* no sixth field */
	user_event_str(&e, "y");
	user_event_commit(&e);
	assert_int_equal(recs[0].size, 27);
	static const uint8_t zero[8];
	assert_memory_equal(recs[0].payload + 4, zero, 4);
	assert_memory_equal(recs[0].payload + 16, zero, 8);
	assert_int_equal(recs[0].payload[8], 7);
	assert_int_equal(recs[0].payload[24], 1);
	assert_int_equal(recs[0].payload[25], 3);
	assert_int_equal(recs[0].payload[27], 0xAA); /* nothing written past the record */
}

/* req's 23 bytes of values, value by value (Who's 8 bytes as a u64). */
static void write_fast(struct user_event *e)
{
	user_event_u32(e, 0x01020304);
	user_event_u64(e, 0x1122334455667788ull);
	user_event_u64(e, 0x4142434445464748ull);
	user_event_u8(e, 2);
	user_event_u16(e, 0xfffe);
}

/* The record write_fast filled, and nothing written past it. */
static void expect_fast(const uint8_t *payload)
{
	assert_memory_equal(payload + 4, "\x04\x03\x02\x01", 4);
	assert_memory_equal(payload + 8, "\x88\x77\x66\x55\x44\x33\x22\x11", 8);
	assert_memory_equal(payload + 16, "HGFEDCBA", 8);
	assert_memory_equal(payload + 24, "\x02\xfe\xff", 3);
	for (int i = 27; i < 40; i++)
		assert_int_equal(payload[i], 0xAA);
}

/* The fast forms: typed values with no look-up, never past the record;
 * the values in place only when the struct is the type's size. */
static void test_fast_forms(void **state)
{
	(void)state;
	static struct user_event_type req = { "test.fast", KprofEventKindInstant, req_fields, 5, 0, 0 };
	struct user_event e;
	assert_int_equal(user_event_declare(&req), 0);
	nrecs = 0;
	assert_true(user_event_begin(&e, &req, KprofEventInstant));
	write_fast(&e);
	user_event_u64(&e, 0xdeadbeefdeadbeefull); /* past the values: dropped */
	user_event_commit(&e);
	assert_int_equal(recs[0].size, 27);
	expect_fast(recs[0].payload);
	/* Once a value is dropped, so are the ones after it, even one that
	 * would fit (it would land in the wrong field). */
	nrecs = 0;
	assert_true(user_event_begin(&e, &req, KprofEventInstant));
	user_event_u32(&e, 1);
	user_event_u64(&e, 2);
	user_event_u64(&e, 3);
	user_event_u64(&e, 4); /* 28 bytes: past the 23 */
	user_event_u8(&e, 5);  /* would fit at 20: dropped too */
	user_event_commit(&e);
	static const uint8_t zero3[3];
	assert_memory_equal(recs[0].payload + 24, zero3, 3);
	assert_int_equal(recs[0].payload[27], 0xAA);

	struct values {
		uint32_t Bytes;
		uint64_t Buffer;
		char Who[8];
		uint8_t Mode;
		int16_t Delta;
	} __attribute__((packed));
	nrecs = 0;
	assert_true(user_event_begin(&e, &req, KprofEventInstant));
	struct values *v = USER_EVENT_VALUES(&e, struct values);
	assert_non_null(v);
	v->Bytes = 9;
	v->Delta = -2;
	memcpy(v->Who, "abcdefgh", 8);
	v->Buffer = 1;
	v->Mode = 1;
	user_event_commit(&e);
	assert_int_equal(recs[0].payload[4], 9);
	assert_memory_equal(recs[0].payload + 16, "abcdefgh", 8);
	assert_int_equal((int16_t)(recs[0].payload[25] | recs[0].payload[26] << 8), -2);
	/* A struct of another size: NULL, and the values stay zero. */
	nrecs = 0;
	assert_true(user_event_begin(&e, &req, KprofEventInstant));
	assert_null(USER_EVENT_VALUES(&e, uint64_t));
	user_event_commit(&e);
	static const uint8_t zero[23];
	assert_memory_equal(recs[0].payload + 4, zero, 23);
}

/* The forms mixed in one event: a field written by type after the fast
 * forms filled the values (or after USER_EVENT_VALUES) is ignored, never
 * written past the record, and one that finds too little room drops the
 * values after it. */
static void test_forms_mixed(void **state)
{
	(void)state;
	static struct user_event_type req = { "test.mixed", KprofEventKindInstant, req_fields, 5, 0, 0 };
	struct user_event e;
	assert_int_equal(user_event_declare(&req), 0);
	nrecs = 0;
	assert_true(user_event_begin(&e, &req, KprofEventInstant));
	write_fast(&e); /* all 23 bytes */
	user_event_int(&e, 0x55555555); /* Bytes by type: no room left */
	user_event_str(&e, "zzzzzzzz");
	user_event_commit(&e);
	expect_fast(recs[0].payload);

	nrecs = 0;
	assert_true(user_event_begin(&e, &req, KprofEventInstant));
	struct bytes23 {
		uint8_t b[23];
	} *v = USER_EVENT_VALUES(&e, struct bytes23);
	assert_non_null(v);
	memset(v->b, 0x11, sizeof(v->b));
	user_event_int(&e, 0x55555555);
	user_event_commit(&e);
	assert_int_equal(recs[0].payload[4], 0x11);
	assert_int_equal(recs[0].payload[26], 0x11);
	for (int i = 27; i < 40; i++)
		assert_int_equal(recs[0].payload[i], 0xAA);
	/* A field by type (int or str) that finds too little room drops the
	 * values after it as the fast forms do; the rest of the values is
	 * zero. */
	for (int by_str = 0; by_str < 2; by_str++) {
		nrecs = 0;
		assert_true(user_event_begin(&e, &req, KprofEventInstant));
		user_event_u32(&e, 1);
		user_event_u64(&e, 2);
		user_event_u64(&e, 3); /* 20 bytes */
		if (by_str)
			user_event_str(&e, "x"); /* field 0, Bytes, 4: past the 23 */
		else
			user_event_int(&e, 0x55555555);
		user_event_u8(&e, 5); /* would fit at 20: dropped */
		user_event_commit(&e);
		static const uint8_t zero3[3];
		assert_memory_equal(recs[0].payload + 24, zero3, 3);
		assert_int_equal(recs[0].payload[27], 0xAA);
	}
}

/* user_event_begin_values: the writer's size checked once.  The type's
 * size: the values go in as after user_event_begin.  Another size: false,
 * and the event is written with its values zero (counted in the trace,
 * not lost), nothing past the record. */
static void test_begin_values(void **state)
{
	(void)state;
	static struct user_event_type req = { "test.sized", KprofEventKindInstant, req_fields, 5, 0, 0 };
	struct user_event e;
	assert_int_equal(user_event_declare(&req), 0);
	nrecs = 0;
	assert_true(user_event_begin_values(&e, &req, KprofEventBegin, 23));
	write_fast(&e);
	user_event_u64(&e, 0xdeadbeefdeadbeefull); /* past the values: dropped */
	user_event_commit(&e);
	assert_int_equal(nrecs, 1);
	assert_true(recs[0].committed);
	assert_int_equal(recs[0].size, 4 + 23);
	assert_int_equal(recs[0].payload[2], KprofEventBegin);
	expect_fast(recs[0].payload);

	static const uint8_t zero[23];
	static const uint16_t wrong[] = { 0, 22, 24, 1024, 65535 };
	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		nrecs = 0;
		assert_false(user_event_begin_values(&e, &req, KprofEventEnd, wrong[i]));
		assert_int_equal(nrecs, 1);
		assert_true(recs[0].committed);
		assert_int_equal(recs[0].size, 4 + 23); /* the type's size, not the writer's */
		uint16_t id;
		memcpy(&id, recs[0].payload, 2);
		assert_int_equal(id, req.id);
		assert_int_equal(recs[0].payload[2], KprofEventEnd);
		assert_memory_equal(recs[0].payload + 4, zero, 23);
		assert_int_equal(recs[0].payload[27], 0xAA);
	}
	/* Not traced: nothing, whatever the size. */
	memset(&trace_groups, 0, sizeof(trace_groups));
	nrecs = 0;
	assert_false(user_event_begin_values(&e, &req, KprofEventInstant, 23));
	assert_false(user_event_begin_values(&e, &req, KprofEventInstant, 5));
	assert_int_equal(nrecs, 0);
}

/* No tracing, or a type never declared: nothing is reserved. */
static void test_not_traced_or_undeclared(void **state)
{
	(void)state;
	static struct user_event_type undeclared = { "test.never", KprofEventKindInstant, req_fields, 5, 0, 0 };
	static struct user_event_type quiet = { "test.quiet", KprofEventKindCounter, req_fields, 1, 0, 0 };
	struct user_event e;
	assert_false(user_event_begin(&e, &undeclared, KprofEventInstant));
	memset(&trace_groups, 0, sizeof(trace_groups));
	assert_int_equal(user_event_declare(&quiet), 0); /* declared, no record while not traced */
	assert_false(user_event_begin(&e, &quiet, KprofEventInstant));
	assert_int_equal(nrecs, 0);
	perfinfo_group_set(&trace_groups, PERF_KPROF_USER);
	user_event_rundown(); /* the rundown has it */
	bool found = false;
	for (size_t i = 0; i < nrecs; i++)
		found |= !strcmp(((const KPROF_EVENT_TYPE *)recs[i].payload)->Name, "test.quiet");
	assert_true(found);
}

static void expect_refused(struct user_event_type *t, int err, const char *says)
{
	shadow_console[0] = 0;
	size_t before = nrecs;
	assert_int_equal(user_event_declare(t), err);
	assert_int_equal(t->id, 0);
	assert_int_equal(nrecs, before);
	assert_non_null(strstr(shadow_console, says));
}

/* Bounds: every declaration that breaks a rule of docs/user-events.md is
 * refused, and its console line names the type, the field (or value name)
 * and the limit; the limit itself is accepted. */
static void test_bounds_refused(void **state)
{
	(void)state;
	static struct user_event_field many[KPROF_EVENT_MAX_FIELDS + 1];
	static char names[KPROF_EVENT_MAX_FIELDS + 1][16];
	for (int i = 0; i <= KPROF_EVENT_MAX_FIELDS; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		many[i] = (struct user_event_field){ names[i], KprofFieldUnsigned, 8, NULL, 0 };
	}
	struct user_event_type too_many = { "test.many", KprofEventKindInstant, many, KPROF_EVENT_MAX_FIELDS + 1, 0, 0 };
	expect_refused(&too_many, USER_EVENT_EFIELDS, "user events: type \"test.many\" refused: it has 17 fields; "
		       "accepted: at most 16 (KPROF_EVENT_MAX_FIELDS)\n");
	static struct user_event_type sixteen = { "test.sixteen", KprofEventKindInstant, many, KPROF_EVENT_MAX_FIELDS, 0, 0 };
	assert_int_equal(user_event_declare(&sixteen), 0); /* the limit itself is fine */

	/* The type: its name, its kind. */
	static const char *const type_rule = "; accepted: 1..31 (KPROF_EVENT_NAME - 1) of letters, digits, '_' and '.', "
					     "not a digit first\n";
	struct { const char *name, *wrong; } bad_types[] = {
		{ "a_type_name_of_32_characters_xxx", "is too long" }, { "", "is empty" },
		{ "9lives", "starts with a digit" }, { "has space", "holds a character not allowed" },
	};
	for (size_t i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++) {
		char says[256];
		snprintf(says, sizeof(says), "type \"%s\" refused: the type name %s%s", bad_types[i].name,
			 bad_types[i].wrong, type_rule);
		struct user_event_type t = { bad_types[i].name, KprofEventKindInstant, NULL, 0, 0, 0 };
		expect_refused(&t, USER_EVENT_EBADNAME, says);
	}
	static struct user_event_type name31 = { "a_type_name_of_31_characters_xx", KprofEventKindInstant, NULL, 0, 0, 0 };
	assert_int_equal(user_event_declare(&name31), 0);
	uint16_t first = name31.id;
	struct user_event_type taken = { "a_type_name_of_31_characters_xx", KprofEventKindInstant, NULL, 0, 0, 0 };
	char says[256];
	snprintf(says, sizeof(says), "refused: the type name is taken by type %u; accepted: a name unique in the run\n",
		 first);
	expect_refused(&taken, USER_EVENT_EBADNAME, says);
	struct user_event_type kind = { "test.kind", (enum kprof_event_kind)7, NULL, 0, 0, 0 };
	expect_refused(&kind, USER_EVENT_EBADNAME, "type \"test.kind\" refused: its kind is 7; accepted: "
		       "KprofEventKindInstant, Span or Counter (0..2)\n");

	/* A field: its name, unique, its type and its size by sort. */
	static const struct user_event_field long_field[] = { USER_EVENT_UNSIGNED("Ok", 4),
							      USER_EVENT_UNSIGNED("a_field_name_of_24_chars", 4) };
	struct user_event_type lf = { "test.longfield", KprofEventKindInstant, long_field, 2, 0, 0 };
	expect_refused(&lf, USER_EVENT_EFIELD, "refused: field 2's name \"a_field_name_of_24_chars\" is too long; "
		       "accepted: 1..23 (KPROF_EVENT_FIELD_NAME - 1) of letters, digits and '_', not a digit first\n");
	static const struct user_event_field digit_field[] = { USER_EVENT_UNSIGNED("1st", 4) };
	struct user_event_type df = { "test.digitfield", KprofEventKindInstant, digit_field, 1, 0, 0 };
	expect_refused(&df, USER_EVENT_EFIELD, "refused: field 1's name \"1st\" starts with a digit; accepted: 1..23");
	static const struct user_event_field dup[] = { USER_EVENT_UNSIGNED("x", 4), USER_EVENT_SIGNED("x", 4) };
	struct user_event_type dp = { "test.dup", KprofEventKindInstant, dup, 2, 0, 0 };
	expect_refused(&dp, USER_EVENT_EFIELD, "refused: fields 1 and 2 are both named \"x\"; accepted: names unique in "
		       "the type\n");
	static const struct user_event_field bad_type[] = { { "Odd", (enum kprof_event_field_type)9, 4, NULL, 0 } };
	struct user_event_type bt = { "test.badtype", KprofEventKindInstant, bad_type, 1, 0, 0 };
	expect_refused(&bt, USER_EVENT_EFIELD, "refused: field \"Odd\" has type 9; accepted: KprofFieldUnsigned, Signed, "
		       "Pointer, String, Enum (0..4)\n");
	static const char *const two[] = { "a", "b" };
	struct { struct user_event_field f; const char *says; } sizes[] = {
		{ USER_EVENT_UNSIGNED("Bytes", 3), "field \"Bytes\" (an unsigned integer) is 3 bytes; accepted: 1, 2, 4 or 8\n" },
		{ USER_EVENT_SIGNED("Delta", 16), "field \"Delta\" (a signed integer) is 16 bytes; accepted: 1, 2, 4 or 8\n" },
		{ { "Where", KprofFieldPointer, 4, NULL, 0 }, "field \"Where\" (a pointer) is 4 bytes; accepted: 8\n" },
		{ USER_EVENT_STRING("Who", 200), "field \"Who\" (a string) is 200 bytes; accepted: 1..128 "
						 "(KPROF_EVENT_MAX_STRING)\n" },
		{ USER_EVENT_STRING("Empty", 0), "field \"Empty\" (a string) is 0 bytes; accepted: 1..128" },
		{ USER_EVENT_ENUM("Mode", 8, two), "field \"Mode\" (an enumeration) is 8 bytes; accepted: 1, 2 or 4\n" },
	};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct user_event_type t = { "test.size", KprofEventKindInstant, &sizes[i].f, 1, 0, 0 };
		expect_refused(&t, USER_EVENT_EFIELD, sizes[i].says);
	}
	static const struct user_event_field s128[] = { USER_EVENT_STRING("Who", KPROF_EVENT_MAX_STRING) };
	static struct user_event_type room128 = { "test.room128", KprofEventKindInstant, s128, 1, 0, 0 };
	assert_int_equal(user_event_declare(&room128), 0);
	/* the decoders' own names: a second "cpu" key in a JSON line, a second
	 * _Phase member in the CTF metadata (babeltrace2 refuses the trace) */
	static const struct user_event_field r_phase[] = { USER_EVENT_UNSIGNED("Phase", 4) };
	static const struct user_event_field r_cpu[] = { USER_EVENT_UNSIGNED("cpu", 4) };
	static const struct user_event_field r_t[] = { USER_EVENT_SIGNED("t", 4) };
	static const struct user_event_field r_event[] = { USER_EVENT_UNSIGNED("event", 1) };
	struct user_event_type rp = { "test.rphase", KprofEventKindSpan, r_phase, 1, 0, 0 };
	struct user_event_type rc = { "test.rcpu", KprofEventKindInstant, r_cpu, 1, 0, 0 };
	struct user_event_type rt = { "test.rt", KprofEventKindCounter, r_t, 1, 0, 0 };
	struct user_event_type re = { "test.revent", KprofEventKindInstant, r_event, 1, 0, 0 };
	expect_refused(&rp, USER_EVENT_EFIELD, "is reserved (an output's own key); accepted: any other name");
	expect_refused(&rc, USER_EVENT_EFIELD, "is reserved (an output's own key); accepted: any other name");
	expect_refused(&rt, USER_EVENT_EFIELD, "is reserved (an output's own key); accepted: any other name");
	expect_refused(&re, USER_EVENT_EFIELD, "is reserved (an output's own key); accepted: any other name");
	static const struct user_event_field near_reserved[] = { USER_EVENT_UNSIGNED("Cpu", 4),
								 USER_EVENT_UNSIGNED("ts", 4) };
	static struct user_event_type nr = { "test.nearreserved", KprofEventKindInstant, near_reserved, 2, 0, 0 };
	assert_int_equal(user_event_declare(&nr), 0); /* names only like them are fine */

	/* An enumeration's value names, and their number in a type. */
	static const char *const long_value[] = { "ok", "sixteen_chars_xx" };
	static const struct user_event_field lv[] = { USER_EVENT_ENUM("m", 1, long_value) };
	struct user_event_type lvt = { "test.longvalue", KprofEventKindInstant, lv, 1, 0, 0 };
	expect_refused(&lvt, USER_EVENT_EVALUES, "refused: field \"m\"'s value name 1 is too long; accepted: 1..15 "
		       "(KPROF_EVENT_VALUE_NAME - 1) printable ASCII characters, not '\"' or '\\'\n");
	static const char *const quoted[] = { "a\"b" };
	static const struct user_event_field qv[] = { USER_EVENT_ENUM("m", 1, quoted) };
	struct user_event_type qvt = { "test.quoted", KprofEventKindInstant, qv, 1, 0, 0 };
	expect_refused(&qvt, USER_EVENT_EVALUES, "refused: field \"m\"'s value name 0 holds a character not allowed;");
	static const struct user_event_field none[] = { { "m", KprofFieldEnum, 1, NULL, 0 } };
	struct user_event_type nv = { "test.novalues", KprofEventKindInstant, none, 1, 0, 0 };
	expect_refused(&nv, USER_EVENT_EVALUES, "refused: field \"m\" (an enumeration) has no value names; accepted: at "
		       "least one\n");
	static const char *values33[33];
	static char value_names[33][16];
	for (int i = 0; i < 33; i++) {
		snprintf(value_names[i], sizeof(value_names[i]), "v%d", i);
		values33[i] = value_names[i];
	}
	static const struct user_event_field e65[] = { { "A", KprofFieldEnum, 1, values33, 33 },
						       { "B", KprofFieldEnum, 1, values33, 32 } };
	struct user_event_type too_many_values = { "test.values", KprofEventKindInstant, e65, 2, 0, 0 };
	expect_refused(&too_many_values, USER_EVENT_EVALUES, "type \"test.values\" refused: its enumerations have 65 "
		       "value names; accepted: at most 64 (KPROF_EVENT_MAX_VALUES) in a type\n");
	static const struct user_event_field e64[] = { { "A", KprofFieldEnum, 1, values33, 32 },
						       { "B", KprofFieldEnum, 1, values33, 32 } };
	static struct user_event_type values64 = { "test.values64", KprofEventKindInstant, e64, 2, 0, 0 };
	assert_int_equal(user_event_declare(&values64), 0);

	/* The values' bytes. */
	static struct user_event_field strings[KPROF_EVENT_MAX_FIELDS];
	for (int i = 0; i < KPROF_EVENT_MAX_FIELDS; i++)
		strings[i] = (struct user_event_field){ names[i], KprofFieldString, KPROF_EVENT_MAX_STRING, NULL, 0 };
	struct user_event_type huge = { "test.huge", KprofEventKindInstant, strings, 9, 0, 0 }; /* 1152 bytes */
	expect_refused(&huge, USER_EVENT_ESIZE, "type \"test.huge\" refused: its fields take 1152 bytes; accepted: at "
		       "most 1024 (KPROF_EVENT_MAX_DATA)\n");
	static struct user_event_type just = { "test.just", KprofEventKindInstant, strings, 8, 0, 0 }; /* 1024 */
	assert_int_equal(user_event_declare(&just), 0);
}

/* Ids are given in order and never reused; the 255th type is the last. */
static void test_table_full(void **state)
{
	(void)state;
	static struct user_event_type types[KPROF_EVENT_MAX_TYPES + 1];
	static char names[KPROF_EVENT_MAX_TYPES + 1][24];
	uint16_t last = 0;
	int declared = 0;
	memset(&trace_groups, 0, sizeof(trace_groups)); /* no records: the ids are what counts */
	for (int i = 0; i <= KPROF_EVENT_MAX_TYPES; i++) {
		snprintf(names[i], sizeof(names[i]), "full_%d", i);
		types[i] = (struct user_event_type){ names[i], KprofEventKindInstant, NULL, 0, 0, 0 };
		if (user_event_declare(&types[i]) == 0) {
			assert_true(types[i].id > last);
			last = types[i].id;
			declared++;
		} else {
			assert_int_equal(user_event_declare(&types[i]), USER_EVENT_EFULL);
		}
	}
	assert_int_equal(last, KPROF_EVENT_MAX_TYPES);
	assert_true(declared < KPROF_EVENT_MAX_TYPES + 1);
	assert_non_null(strstr(shadow_console, "refused: 255 types are declared already; accepted: at most 255 "
					      "(KPROF_EVENT_MAX_TYPES) in a run\n"));
}

/* The slot rule (user_event.c): slot i holds the type whose id is i + 1.
 * A type whose id was overwritten after it was declared (a workload that
 * wrote into its descriptor: another type's id, or one past every slot)
 * trips it at the rundown, before its record is written. */
static void test_slot_rule_asserted(void **state)
{
	(void)state;
	static struct user_event_type a = { "slot_a", KprofEventKindInstant, NULL, 0, 0, 0 };
	static struct user_event_type b = { "slot_b", KprofEventKindInstant, NULL, 0, 0, 0 };
	assert_int_equal(user_event_declare(&a), 0);
	assert_int_equal(user_event_declare(&b), 0);
	assert_int_equal(b.id, a.id + 1);
	assert_false(SHADOW_EXPECT_BUGCHECK(user_event_rundown())); /* the rule holds: quiet */
	uint16_t id = b.id;
	size_t before = nrecs;
	b.id = a.id; /* b now claims a's slot */
	assert_true(SHADOW_EXPECT_BUGCHECK(user_event_rundown()));
	assert_true(shadow_assertion_failed("(uint32_t)t->id == i + 1", "kernel/trace/user_event.c:"));
	b.id = (uint16_t)(id + 7); /* past every slot taken */
	assert_true(SHADOW_EXPECT_BUGCHECK(user_event_rundown()));
	assert_true(shadow_assertion_failed("(uint32_t)t->id == i + 1", "kernel/trace/user_event.c:"));
	for (size_t i = before; i < nrecs; i++) /* no record claimed the wrong id */
		assert_true(((const KPROF_EVENT_TYPE *)recs[i].payload)->TypeId != id + 7);
	b.id = id;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_declare_writes_type, reset),
		cmocka_unit_test_setup(test_event_packs_fields, reset),
		cmocka_unit_test_setup(test_wrong_sort_and_extra_values, reset),
		cmocka_unit_test_setup(test_fast_forms, reset),
		cmocka_unit_test_setup(test_forms_mixed, reset),
		cmocka_unit_test_setup(test_begin_values, reset),
		cmocka_unit_test_setup(test_not_traced_or_undeclared, reset),
		cmocka_unit_test_setup(test_bounds_refused, reset),
		cmocka_unit_test_setup(test_slot_rule_asserted, reset),
		cmocka_unit_test_setup(test_table_full, reset), /* last: it fills the table */
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
