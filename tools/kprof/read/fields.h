/*
 * fields.h - what each record's payload holds, field by field.
 *
 * One table describes every event kprof writes, with Microsoft's field
 * names (docs/etw-records.md gives their sources); the text and JSON
 * decoders, the CTF metadata and the report all read it, so a field is
 * named the same everywhere.
 */
#ifndef KPROF_TOOL_FIELDS_H
#define KPROF_TOOL_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum kp_field_kind {
	KP_UNSIGNED,   /* size 1, 2, 4 or 8                                   */
	KP_SIGNED,     /* size 1, 2, 4 or 8                                   */
	KP_POINTER,    /* size 8, printed in hex                              */
	KP_HEX,        /* unsigned, printed in hex (Action values)            */
	KP_BITS,       /* `width` bits at `shift` of the byte at offset       */
	KP_CHARS,      /* char[size], text padded with NULs (thread names);   */
	               /* kp_field_value() gives 0: read the bytes             */
};

/* What follows the fixed part of a payload. */
enum kp_tail_kind {
	KP_TAIL_NONE,
	KP_TAIL_ADDRESSES, /* u64 return addresses to the end (stack walk)   */
	KP_TAIL_BYTES,     /* raw bytes to the end (tracetest pattern)       */
	KP_TAIL_COUNTS,    /* u32 counts to the end (profile buckets)        */
};

struct kp_field {
	const char *name;         /* Microsoft's, e.g. "AcquireMode"        */
	uint16_t offset;          /* in the payload                          */
	uint8_t size;             /* bytes (KP_BITS: of the containing byte) */
	uint8_t kind;             /* enum kp_field_kind                      */
	uint8_t shift, width;     /* KP_BITS                                 */
	const char *const *names; /* value names (enumerations), or NULL     */
	uint32_t nnames;
};

struct kp_event {
	uint16_t hook;            /* PERFINFO_LOG_TYPE_...                   */
	uint8_t version;          /* event version in the marker             */
	const char *name;         /* event name, e.g. "SpinLock"             */
	const char *type_name;    /* payload type, e.g. "WMI_SPINLOCK"       */
	uint16_t fixed_size;      /* bytes before the tail                   */
	enum kp_tail_kind tail;
	const char *tail_name;    /* "Stack", "Pattern"                      */
	const struct kp_field *fields;
	unsigned nfields;
};

extern const struct kp_event kp_events[];
/* A user event's Phase names: "Instant", "Begin", "End". */
extern const char *const kp_event_phases[];
extern const size_t kp_nevents;

/* The description of hook/version, or NULL for an event kprof does not
 * know (it is still decoded, as raw bytes). */
const struct kp_event *kp_event_find(uint16_t hook, uint8_t version);

/* A field's value (sign-extended for KP_SIGNED). */
uint64_t kp_field_value(const struct kp_field *f, const uint8_t *payload);
/* Its value name, or NULL. */
const char *kp_field_value_name(const struct kp_field *f, uint64_t v);

/* The one value-name lookup: the name of value v of the field called
 * `field` in the description of hook/version, or NULL when the table
 * gives it none (or has no such field). */
const char *kp_value_name(uint16_t hook, uint8_t version, const char *field, uint64_t v);
/* The names the pictures and the Perfetto trace show, "?" for a value
 * without one: CSwitch OldThreadState and OldThreadWaitReason, SpinLock
 * AcquireMode, ReadyThread AdjustReason. */
const char *kp_state_name(uint8_t state);
const char *kp_wait_reason_name(uint8_t reason);
const char *kp_acquire_mode_name(uint8_t mode);
const char *kp_adjust_reason_name(uint8_t reason);
/* KprofObjectName Kind: "SpinLock", "QueuedSpinLock", "ExecutiveSpinLock",
 * "Resource"; "?" for another value. */
const char *kp_object_kind_name(uint8_t kind);
/* A profile source (KPROFILE_SOURCE) by its short name ("TotalCycles"),
 * or "source N" for one without; returns the name or buf. */
const char *kp_source_name(unsigned source, char *buf, size_t size);

#endif
