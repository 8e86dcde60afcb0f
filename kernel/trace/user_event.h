/*
 * user_event.h - events of your own: the API a workload uses to declare
 * event types and write events (docs/user-events.md).  A public header:
 * workloads, in the tree or outside it, may include it.
 *
 * Declare a type once (a static description; the kernel keeps a pointer to
 * it and fills in its id):
 *
 *     static const char *const modes[] = { "fast", "slow" };
 *     static const struct user_event_field op_fields[] = {
 *         USER_EVENT_UNSIGNED("bytes", 4),
 *         USER_EVENT_POINTER("buffer"),
 *         USER_EVENT_STRING("who", 16),
 *         USER_EVENT_ENUM("mode", 1, modes),
 *     };
 *     static struct user_event_type op = USER_EVENT_TYPE("my_op", KprofEventKindInstant, op_fields);
 *     user_event_declare(&op);          0, or a negative USER_EVENT_E* error
 *
 * then write events, as cheaply as the kernel writes its own records
 * (the group check inline, then reserve, fill, commit):
 *
 *     struct user_event e;
 *     if (user_event_begin(&e, &op, KprofEventInstant)) {
 *         user_event_int(&e, n);        fields in declaration order
 *         user_event_int(&e, (uintptr_t)buf);
 *         user_event_str(&e, name);     cut to the field's room
 *         user_event_int(&e, 1);
 *         user_event_commit(&e);
 *     }
 *
 * or, faster, value by value with the values' size said once (the
 * bounds are checked at the begin, and the calls below become plain
 * stores), or in place (USER_EVENT_VALUES):
 *
 *     if (user_event_begin_values(&e, &op, KprofEventInstant, 4 + 8 + 16 + 1)) {
 *         user_event_u32(&e, n);
 *         ...
 *
 * Rules: values go to the fields in declaration order; user_event_int()
 * writes an integer, pointer or enumeration field (the value's low Size
 * bytes) and user_event_str() a string field (cut at the field's room,
 * NUL-padded); a value for a field of the other sort, or past the last
 * field, is ignored and the field left zero; fields not written are zero;
 * nothing is ever written outside the record, whatever the forms mixed.
 * Any IRQL, any CPU, no locks; a record that does not fit the buffer is
 * dropped and counted like the kernel's own.
 *
 * The writer's fast path is all inline, and its cost is the kernel's: the
 * event's offset and size stay in registers because values are stored as
 * their own types (USER_EVENT_STORE), never as bytes that could alias
 * them; a declared field's size is one of four, so no value is copied by
 * a call.  Only the string field and a wrong size take a call.
 */
#ifndef KPROF_KERNEL_TRACE_USER_EVENT_H
#define KPROF_KERNEL_TRACE_USER_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "include/kprof/user_event.h"
#include "kernel/trace/trace.h"

struct user_event_field {
	const char *name;               /* 1..23 of [A-Za-z0-9_], not a digit first */
	enum kprof_event_field_type type;
	uint8_t size;                   /* bytes (see include/kprof/user_event.h)   */
	const char *const *values;      /* Enum: names of values 0, 1, ...          */
	uint8_t nvalues;                /* Enum: how many (1..15 characters each)   */
};

struct user_event_type {
	const char *name;               /* 1..31 of [A-Za-z0-9_.], unique in a run  */
	enum kprof_event_kind kind;
	const struct user_event_field *fields;
	uint8_t nfields;                /* 0..KPROF_EVENT_MAX_FIELDS                */
	/* Filled in by user_event_declare: */
	uint16_t id;                    /* 0 until declared                          */
	uint16_t data_size;             /* bytes of the fields                       */
};

#define USER_EVENT_COUNT_OF(a) ((uint8_t)(sizeof(a) / sizeof((a)[0])))
/* Fields, by sort: integers of size 1, 2, 4 or 8 bytes, pointers, strings
 * of a room of 1..KPROF_EVENT_MAX_STRING bytes, enumerations of size 1, 2
 * or 4 named by an array of value names (value 0 first). */
#define USER_EVENT_UNSIGNED(n, size) { (n), KprofFieldUnsigned, (size), 0, 0 }
#define USER_EVENT_SIGNED(n, size)   { (n), KprofFieldSigned, (size), 0, 0 }
#define USER_EVENT_POINTER(n)        { (n), KprofFieldPointer, 8, 0, 0 }
#define USER_EVENT_STRING(n, room)   { (n), KprofFieldString, (room), 0, 0 }
#define USER_EVENT_ENUM(n, size, names) { (n), KprofFieldEnum, (size), (names), USER_EVENT_COUNT_OF(names) }
/* A type of the fields of an array; USER_EVENT_TYPE0 one without fields. */
#define USER_EVENT_TYPE(n, kind, fields) { (n), (kind), (fields), USER_EVENT_COUNT_OF(fields), 0, 0 }
#define USER_EVENT_TYPE0(n, kind)        { (n), (kind), 0, 0, 0, 0 }

/* Why a declaration was refused (nothing is declared then). */
enum {
	USER_EVENT_EBADNAME = -1,       /* the type name is empty, too long or not  */
	                                /* of the letters allowed, or taken         */
	USER_EVENT_EFIELDS = -2,        /* more than KPROF_EVENT_MAX_FIELDS fields  */
	USER_EVENT_EFIELD = -3,         /* a field's name, type or size is wrong     */
	USER_EVENT_EVALUES = -4,        /* an enumeration's value names are wrong   */
	                                /* or more than KPROF_EVENT_MAX_VALUES      */
	USER_EVENT_ESIZE = -5,          /* fields over KPROF_EVENT_MAX_DATA bytes    */
	USER_EVENT_EFULL = -6,          /* KPROF_EVENT_MAX_TYPES types declared      */
};

/* Declare t (kept by pointer: a static description).  0 when declared (or
 * declared before: the same id), else a USER_EVENT_E* error, also printed
 * on the console with the type's name.  Thread context, below
 * DISPATCH_LEVEL is not required; not from an interrupt handler. */
int user_event_declare(struct user_event_type *t);
/* The error's meaning, for messages. */
const char *user_event_error(int err);

struct user_event {
	struct trace_record rec;        /* the reservation                           */
	const struct user_event_type *t;
	uint8_t *data;                  /* the values                                */
	uint32_t at;                    /* the next value's offset in them, or where */
	                                /* they stopped | USER_EVENT_DROPPED          */
	uint16_t size;                  /* their size, the type's data_size          */
	uint8_t field;                  /* the next field                            */
};

/* In user_event.at once a value was dropped for want of room: every value
 * after it is dropped too (no offset with it passes a check), and the
 * commit zeroes the values from the offset it keeps. */
#define USER_EVENT_DROPPED 0x80000000u

/* Store v at p as a T, unaligned: a packed member, not bytes, so the
 * compiler knows the store cannot change the event's own fields (at,
 * size), keeps them in registers and folds the bounds checks below. */
#define USER_EVENT_STORE(p, T, val) (((struct __attribute__((packed)) { T v_; } *)(p))->v_ = (val))

/* The record of an event of t with size bytes of values (inline, below). */
static inline __attribute__((always_inline)) bool user_event_reserve(struct user_event *e,
								      const struct user_event_type *t,
								      enum kprof_event_phase phase, uint16_t id,
								      uint16_t size)
{
	KPROF_USER_EVENT *r = (KPROF_USER_EVENT *)trace_record_begin(&e->rec, KPROF_LOG_TYPE_USER_EVENT,
								     USER_EVENT_VERSION, (uint16_t)(sizeof(*r) + size));
	if (!r)
		return false;
	USER_EVENT_STORE(r, uint32_t, id | (uint32_t)phase << 16); /* TypeId, Phase, Reserved */
	e->t = t;
	e->data = r->Data;
	e->at = 0;
	e->size = size;
	e->field = 0;
	return true;
}

/* Reserve an event of t in phase (Instant for instant and counter types,
 * Begin or End for span types); false when nothing is traced, t is not
 * declared, or the record was dropped (counted).  Inline: the writer's
 * fast path, as the kernel's own records (trace.h). */
static inline __attribute__((always_inline)) bool user_event_begin(struct user_event *e,
								    const struct user_event_type *t,
								    enum kprof_event_phase phase)
{
	uint16_t id = __atomic_load_n(&t->id, __ATOMIC_ACQUIRE); /* the description is whole */

	if (!trace_enabled(PERF_KPROF_USER) || !id)
		return false;
	return user_event_reserve(e, t, phase, id, t->data_size);
}

/* The slow path of user_event_begin_values when size is not t's: the
 * event written with its values zero.  With an event of its own: the
 * caller's never leaves the inline path, so it stays in registers. */
void user_event_values_mismatch(const struct user_event_type *t, enum kprof_event_phase phase);

/* As user_event_begin, for a writer that then writes the values one by
 * one (user_event_u8..u64) and says how many bytes they take in all:
 * size, a constant.  The bounds are checked here, once: size must be the
 * type's values' size, and then every value's check below folds at
 * compile time into a plain store.  When it is not, nothing is left to
 * the writer: the event is written with its values zero (as
 * USER_EVENT_VALUES's NULL leaves them) and this returns false. */
static inline __attribute__((always_inline)) bool user_event_begin_values(struct user_event *e,
									   const struct user_event_type *t,
									   enum kprof_event_phase phase,
									   uint16_t size)
{
	uint16_t id = __atomic_load_n(&t->id, __ATOMIC_ACQUIRE);

	if (!trace_enabled(PERF_KPROF_USER) || !id)
		return false;
	if (t->data_size != size) {
		user_event_values_mismatch(t, phase);
		return false; /* known here: the writer's calls are skipped */
	}
	return user_event_reserve(e, t, phase, id, size);
}

/* The next field's value: an integer, pointer or enumeration field.  The
 * declaration checked the field's size (1, 2, 4 or 8), so the store is
 * one of four, with no call. */
static inline __attribute__((always_inline)) void user_event_int(struct user_event *e, uint64_t v)
{
	const struct user_event_type *t = e->t;
	uint32_t at = e->at;

	if (e->field >= t->nfields)
		return;
	const struct user_event_field *f = &t->fields[e->field++];
	uint32_t size = f->size;
	if (at + size > e->size) {
		e->at = at | USER_EVENT_DROPPED;
		return;
	}
	e->at = at + size;
	uint8_t *p = e->data + at;
	if (f->type == KprofFieldString)
		__builtin_memset(p, 0, size);
	else if (size == 8)
		USER_EVENT_STORE(p, uint64_t, v);
	else if (size == 4)
		USER_EVENT_STORE(p, uint32_t, (uint32_t)v); /* little-endian: the low bytes */
	else if (size == 2)
		USER_EVENT_STORE(p, uint16_t, (uint16_t)v);
	else
		USER_EVENT_STORE(p, uint8_t, (uint8_t)v);
}

/* The fast form, when the writer knows the type's layout: the next value
 * of exactly this size, with no look-up in the type.  A value that would
 * go past the type's values is dropped, and so is every value after it
 * (the commit zeroes the values from the first one dropped); the sizes
 * must be the fields', or the values land in the wrong fields - never
 * outside the record.  Inlined in a run of these, the offset stays in a
 * register and each check is one compare of the type's size with a
 * constant - none at all after user_event_begin_values. */
#define USER_EVENT_PUT(bits)                                                                       \
	static inline __attribute__((always_inline)) void user_event_u##bits(struct user_event *e, \
									  uint##bits##_t v)        \
	{                                                                                          \
		uint32_t at = e->at;                                                               \
		if (at + sizeof(v) <= e->size) {                                                   \
			USER_EVENT_STORE(e->data + at, uint##bits##_t, v);                         \
			e->at = at + (uint32_t)sizeof(v);                                          \
		} else {                                                                           \
			e->at = at | USER_EVENT_DROPPED;                                           \
		}                                                                                  \
	}
USER_EVENT_PUT(8)
USER_EVENT_PUT(16)
USER_EVENT_PUT(32)
USER_EVENT_PUT(64)
#undef USER_EVENT_PUT

/* The form the kernel fills its own records in: the values in place, as
 * a packed struct whose members are the fields in declaration order with
 * their sizes (strings as char arrays of their room).  NULL (and the
 * event's values stay zero) unless the struct's size is the type's
 * values' size - never, after user_event_begin_values(..., sizeof the
 * struct), where the check folds.  Use it instead of the one-by-one forms:
 *     struct my_values *v = USER_EVENT_VALUES(&e, struct my_values);
 *     if (v) { v->bytes = n; ... }
 *     user_event_commit(&e); */
static inline __attribute__((always_inline)) void *user_event_values(struct user_event *e, unsigned long size)
{
	if (size != e->size || e->at)
		return 0;
	e->at = (uint32_t)size; /* the one-by-one forms write nothing more */
	return e->data;
}
#define USER_EVENT_VALUES(e, type) ((type *)user_event_values((e), sizeof(type)))

/* The next field's value: a string field (cut at its room). */
void user_event_str(struct user_event *e, const char *s);

/* Commit the event (fields not written stay zero). */
static inline __attribute__((always_inline)) void user_event_commit(struct user_event *e)
{
	uint32_t end = e->at & ~USER_EVENT_DROPPED; /* where the values stopped */

	if (end < e->size)
		__builtin_memset(e->data + end, 0, e->size - end);
	trace_record_commit(&e->rec);
}

/* Write a KprofEventType record (Flags RUNDOWN) for every declared type
 * (right after trace_start). */
void user_event_rundown(void);

#endif /* KPROF_KERNEL_TRACE_USER_EVENT_H */
