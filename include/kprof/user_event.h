/*
 * user_event.h - events of a workload's own: their types and records on
 * the wire, shared by the kernel (kernel/trace/user_event.c writes them)
 * and the host tool (tools/kprof/read/user_types.c decodes them).
 * docs/wire-format.md section 4 describes them for other decoders.
 *
 * A workload declares an event type: a name, a kind (how readers draw it)
 * and up to KPROF_EVENT_MAX_FIELDS typed fields.  The kernel gives the type
 * an id, unique in the run and never reused, and describes it in a
 * KprofEventType record (hook 0xFE09): when it is declared while tracing,
 * and in a rundown right after the run header for a type declared before
 * (Flags RUNDOWN).  Each event is a KprofUserEvent record (hook 0xFE0A):
 * the type id, a phase, then the fields' values packed in declaration
 * order with no padding, so a record is as large as its values and the
 * decoder needs nothing but the type record to read it.
 *
 * Every field has a fixed size, so every event of a type has the same
 * size: integers of 1, 2, 4 or 8 bytes, pointers of 8, enumerations of 1,
 * 2 or 4 (with up to KPROF_EVENT_MAX_VALUES value names in a type), strings of a
 * room of 1..KPROF_EVENT_MAX_STRING bytes (NUL-padded, cut at the room:
 * not NUL-terminated when they fill it).
 */
#ifndef KPROF_USER_EVENT_H
#define KPROF_USER_EVENT_H

#include <stddef.h>
#include <stdint.h>

#define KPROF_LOG_TYPE_EVENT_TYPE 0xFE09u /* a user event type's description */
#define KPROF_LOG_TYPE_USER_EVENT 0xFE0Au /* an event of a user event type    */
#define EVENT_TYPE_VERSION 1
#define USER_EVENT_VERSION 1

/* Group of both records, kprof's own word 7: on whenever anything is
 * traced (kernel/trace/trace.c). */
#define PERF_KPROF_USER 0xE0000010u

#define KPROF_EVENT_MAX_TYPES  255  /* ids 1..255 in a run                     */
#define KPROF_EVENT_MAX_FIELDS 16   /* fields of one type                      */
#define KPROF_EVENT_NAME       32   /* type name: 1..31 characters             */
#define KPROF_EVENT_FIELD_NAME 24   /* field name: 1..23 characters            */
#define KPROF_EVENT_VALUE_NAME 16   /* enumeration value name: 1..15 chars     */
#define KPROF_EVENT_MAX_VALUES 64   /* value names of all the enumerations of  */
                                    /* one type                                 */
#define KPROF_EVENT_MAX_STRING 128  /* room of a string field, bytes           */
#define KPROF_EVENT_MAX_DATA   1024 /* bytes of all the fields of a type       */

/* How readers draw a type's events. */
enum kprof_event_kind {
	KprofEventKindInstant = 0, /* a moment                                     */
	KprofEventKindSpan = 1,    /* Begin and End events on a CPU pair into      */
	                           /* slices (nested: an End closes the latest    */
	                           /* open Begin of its type on its CPU)           */
	KprofEventKindCounter = 2, /* a sample of the numeric fields' values        */
	KprofEventKinds = 3
};

/* A field's type (KPROF_EVENT_FIELD.Type). */
enum kprof_event_field_type {
	KprofFieldUnsigned = 0,    /* Size 1, 2, 4 or 8                             */
	KprofFieldSigned = 1,      /* Size 1, 2, 4 or 8, two's complement           */
	KprofFieldPointer = 2,     /* Size 8, an address                            */
	KprofFieldString = 3,      /* Size 1..KPROF_EVENT_MAX_STRING, NUL-padded    */
	KprofFieldEnum = 4,        /* Size 1, 2 or 4, unsigned; value names follow  */
	KprofFieldTypes = 5
};

/* An event's phase (KPROF_USER_EVENT.Phase). */
enum kprof_event_phase {
	KprofEventInstant = 0,     /* instant and counter types                     */
	KprofEventBegin = 1,       /* span types: a slice starts                    */
	KprofEventEnd = 2,         /* span types: the latest open one ends          */
	KprofEventPhases = 3
};

/* One field of a type, in a KprofEventType record. */
typedef struct _KPROF_EVENT_FIELD {
	char Name[KPROF_EVENT_FIELD_NAME];   /* NUL-padded, NUL-terminated           */
	uint8_t Type;                        /* enum kprof_event_field_type          */
	uint8_t Size;                        /* bytes in the event                   */
	uint8_t ValueNames;                  /* Enum: names that follow, else 0      */
	uint8_t Reserved[5];
} KPROF_EVENT_FIELD;

/* KprofEventType (hook 0xFE09): Fields[FieldCount], then, for each Enum
 * field in field order, its ValueNames names (value 0, 1, ...) of
 * KPROF_EVENT_VALUE_NAME bytes each, NUL-padded. */
typedef struct _KPROF_EVENT_TYPE {
	uint16_t TypeId;                     /* 1..KPROF_EVENT_MAX_TYPES             */
	uint8_t Kind;                        /* enum kprof_event_kind                */
	uint8_t FieldCount;                  /* 0..KPROF_EVENT_MAX_FIELDS            */
	uint16_t DataSize;                   /* sum of the fields' Size              */
	uint8_t Flags;                       /* KPROF_EVENT_TYPE_*                   */
	uint8_t Reserved;
	char Name[KPROF_EVENT_NAME];         /* NUL-padded, NUL-terminated           */
	KPROF_EVENT_FIELD Fields[];
} KPROF_EVENT_TYPE;

#define KPROF_EVENT_TYPE_RUNDOWN 0x01u   /* written when the trace started       */

/* KprofUserEvent (hook 0xFE0A): the header, then the type's DataSize bytes
 * of values, packed in field order (little-endian, unaligned). */
typedef struct _KPROF_USER_EVENT {
	uint16_t TypeId;                     /* a KprofEventType's TypeId            */
	uint8_t Phase;                       /* enum kprof_event_phase               */
	uint8_t Reserved;
	uint8_t Data[];
} KPROF_USER_EVENT;

_Static_assert(sizeof(KPROF_EVENT_FIELD) == 32, "event field is 32 bytes");
_Static_assert(offsetof(KPROF_EVENT_FIELD, Type) == 0x18, "field Type at 0x18");
_Static_assert(sizeof(KPROF_EVENT_TYPE) == 40, "event type header is 40 bytes");
_Static_assert(offsetof(KPROF_EVENT_TYPE, Name) == 0x08, "type Name at 0x08");
_Static_assert(sizeof(KPROF_USER_EVENT) == 4, "user event header is 4 bytes");

/* Whether a field of this type may have this size (the kernel refuses a
 * declaration otherwise; a decoder calls a type record with one damaged). */
static inline int kprof_event_field_size_ok(unsigned type, unsigned size)
{
	switch (type) {
	case KprofFieldUnsigned:
	case KprofFieldSigned:
		return size == 1 || size == 2 || size == 4 || size == 8;
	case KprofFieldPointer:
		return size == 8;
	case KprofFieldString:
		return size >= 1 && size <= KPROF_EVENT_MAX_STRING;
	case KprofFieldEnum:
		return size == 1 || size == 2 || size == 4;
	default:
		return 0;
	}
}

/* The characters a name may hold: a type name letters, digits, '_' and
 * '.'; a field name letters, digits and '_' (an identifier in CTF and
 * JSON); neither starts with a digit.  A value name any printable ASCII
 * but '"' and '\\'. */
enum kprof_event_name_kind { KprofNameType, KprofNameField, KprofNameValue };

static inline int kprof_event_name_char_ok(char c, enum kprof_event_name_kind kind, int first)
{
	if (kind == KprofNameValue)
		return c >= 0x20 && c <= 0x7E && c != '"' && c != '\\';
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return 1;
	if (c >= '0' && c <= '9')
		return !first;
	return kind == KprofNameType && c == '.';
}

/* The names the decoders give every event of their own (the JSON keys
 * cpu, event, hook, version, TimeStamp and t; a span type's Phase): a
 * field of that name would be a second key of one name in a JSON line and
 * a second member of one name in the CTF metadata, so the kernel refuses
 * it (USER_EVENT_EFIELD) and a decoder reads a type record naming one as
 * damaged. */
static inline int kprof_event_field_name_reserved(const char *name)
{
	static const char *const reserved[] = { "Phase", "cpu", "event", "hook", "version", "TimeStamp", "t" };

	for (unsigned i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
		const char *a = reserved[i], *b = name;
		while (*a && *a == *b)
			a++, b++;
		if (!*a && !*b)
			return 1;
	}
	return 0;
}

/* The largest KprofEventType payload. */
#define KPROF_EVENT_TYPE_MAX_SIZE                                                   \
	(sizeof(KPROF_EVENT_TYPE) + KPROF_EVENT_MAX_FIELDS * sizeof(KPROF_EVENT_FIELD) + \
	 KPROF_EVENT_MAX_VALUES * KPROF_EVENT_VALUE_NAME)

#endif /* KPROF_USER_EVENT_H */
