/*
 * user_types.h - the workloads' own event types, read from the trace
 * itself (KprofEventType records, include/kprof/user_event.h), so the tool
 * decodes events of types it was never built with.
 *
 * The scan reads every type record of the log first (a type may be
 * described on one CPU and used on another a moment later), then counts
 * the events of each type.  A type whose record is damaged (a layout that
 * does not add up, two different descriptions of one id) or missing (a
 * capture that started late, a chunk lost on the link) is one issue with
 * the CPU and place of its first event, and its events are shown raw
 * (KprofUserEvent: TypeId, Phase and the Data bytes); an event whose size
 * is not its type's is shown raw too, one issue per type.  Everything
 * else decodes.
 */
#ifndef KPROF_TOOL_USER_TYPES_H
#define KPROF_TOOL_USER_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "include/kprof/user_event.h"
#include "tools/kprof/read/fields.h"
#include "tools/kprof/read/log.h"
#include "tools/kprof/read/records.h"

struct kp_user_type {
	uint16_t id;
	bool known;                 /* a whole KprofEventType record read      */
	bool damaged;               /* a record for this id would not read     */
	uint8_t kind;               /* enum kprof_event_kind                   */
	uint16_t data_size;
	char name[KPROF_EVENT_NAME + 1];
	struct kp_event ev;         /* how the decoders read its events:       */
	                            /* Phase (span types), then the fields      */
	struct kp_field fields[KPROF_EVENT_MAX_FIELDS + 1];
	uint8_t types[KPROF_EVENT_MAX_FIELDS + 1]; /* of fields[]: enum        */
	                            /* kprof_event_field_type (Phase: Enum)     */
	char field_names[KPROF_EVENT_MAX_FIELDS][KPROF_EVENT_FIELD_NAME + 1];
	char value_names[KPROF_EVENT_MAX_VALUES][KPROF_EVENT_VALUE_NAME + 1];
	const char *values[KPROF_EVENT_MAX_VALUES];
	uint8_t *record;            /* the first good type record's payload,    */
	                            /* copied                                   */
	uint16_t record_size;
	uint32_t record_cpu;        /* ... and where it is                      */
	uint64_t record_offset;
	uint64_t events[KprofEventPhases]; /* decoded, by phase                */
	uint64_t raw_events;        /* shown raw (type missing, damaged, size)  */
	char damage[200];           /* damaged: why, for its one issue          */
	uint32_t damage_cpu;        /* ... and where the record is              */
	uint64_t damage_offset;
};

/* Every id that a type record or an event names, in id order. */
struct kp_user_types {
	struct kp_user_type *by_id[KPROF_EVENT_MAX_TYPES + 1]; /* NULL: unseen */
	struct kp_user_type **list; /* the non-NULL ones, by id                */
	uint32_t n;
	uint64_t type_records;      /* KprofEventType records read             */
	uint64_t nameless;          /* ... damaged and naming no type: an      */
	                            /* issue for the first 64, then a count    */
};

/* Read the types and count the events (the scan's last step). */
void kp_user_types_find(struct kp_log *log);
void kp_user_types_free(struct kp_log *log);

/* The type an event of r is decoded by, or NULL: r is not a user event,
 * or one shown raw. */
const struct kp_user_type *kp_user_type_of(const struct kp_log *log, const struct kp_record *r);

/* The description to decode r by: its user type's, else kp_event_find's
 * (NULL for a record kprof does not know). */
const struct kp_event *kp_record_event(const struct kp_log *log, const struct kp_record *r);

/* The type called name (of a good record), or NULL. */
const struct kp_user_type *kp_user_type_named(const struct kp_log *log, const char *name);

/* Events of t decoded, all phases. */
uint64_t kp_user_type_events(const struct kp_user_type *t);

#endif
