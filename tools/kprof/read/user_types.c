/*
 * user_types.c - user event types from their KprofEventType records, and
 * which events decode by them (user_types.h).
 */
#include "tools/kprof/read/user_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"

#define NAMELESS_SHOWN 64 /* damaged type records naming no type: issues, then a count */

/* Where each id was first met, for its issue. */
struct first {
	uint32_t cpu;
	uint64_t offset;
	bool seen;
};

static struct kp_user_type *type_of(struct kp_user_types *u, uint16_t id)
{
	if (!u->by_id[id]) {
		u->by_id[id] = kp_xcalloc(1, sizeof(*u->by_id[id]));
		u->by_id[id]->id = id;
	}
	return u->by_id[id];
}

/* A NUL-terminated, non-empty name of the characters its kind allows, in
 * a field of n bytes (a name that breaks the rules could break the CTF
 * metadata or the JSON it goes into). */
static bool name_ok(const char *s, size_t n, enum kprof_event_name_kind kind)
{
	if (!s[0] || !memchr(s, 0, n))
		return false;
	for (size_t i = 0; s[i]; i++)
		if (!kprof_event_name_char_ok(s[i], kind, i == 0))
			return false;
	return true;
}

/* Check the payload p (n bytes) of a KprofEventType record; NULL when it
 * reads, else what is wrong. */
static const char *check_record(const uint8_t *p, size_t n, char *why, size_t size)
{
	KPROF_EVENT_TYPE h;
	uint32_t data = 0, values = 0;

	if (n < sizeof(h))
		return "shorter than its 40-byte header";
	memcpy(&h, p, sizeof(h));
	if (!h.TypeId || h.TypeId > KPROF_EVENT_MAX_TYPES || h.Kind >= KprofEventKinds ||
	    h.FieldCount > KPROF_EVENT_MAX_FIELDS || !name_ok(h.Name, sizeof(h.Name), KprofNameType))
		return "its id, kind, field count or name is out of range";
	if (n < sizeof(h) + h.FieldCount * sizeof(KPROF_EVENT_FIELD))
		return "shorter than its fields";
	for (uint32_t i = 0; i < h.FieldCount; i++) {
		KPROF_EVENT_FIELD f;
		memcpy(&f, p + sizeof(h) + i * sizeof(f), sizeof(f));
		if (!name_ok(f.Name, sizeof(f.Name), KprofNameField) || f.Type >= KprofFieldTypes ||
		    !kprof_event_field_size_ok(f.Type, f.Size) || (f.Type == KprofFieldEnum) != (f.ValueNames != 0)) {
			snprintf(why, size, "field %u (type %u, size %u, %u value names) is not valid", i, f.Type, f.Size,
				 f.ValueNames);
			return why;
		}
		if (kprof_event_field_name_reserved(f.Name)) {
			snprintf(why, size, "field %u is named \"%s\", a name every decoded event has of its own", i, f.Name);
			return why;
		}
		for (uint32_t k = 0; k < i; k++) { /* at most 16 fields: a scan */
			KPROF_EVENT_FIELD g;
			memcpy(&g, p + sizeof(h) + k * sizeof(g), sizeof(g));
			if (!strncmp(g.Name, f.Name, sizeof(f.Name))) {
				snprintf(why, size, "fields %u and %u have one name, \"%s\"", k, i, f.Name);
				return why;
			}
		}
		data += f.Size;
		values += f.ValueNames;
	}
	const char *names = (const char *)p + sizeof(h) + h.FieldCount * sizeof(KPROF_EVENT_FIELD);
	for (uint32_t v = 0; v < values && values <= KPROF_EVENT_MAX_VALUES; v++)
		if ((size_t)(names - (const char *)p) + (v + 1) * KPROF_EVENT_VALUE_NAME > n ||
		    !name_ok(names + v * KPROF_EVENT_VALUE_NAME, KPROF_EVENT_VALUE_NAME, KprofNameValue))
			return "a value name is cut short, empty, or not of printable ASCII";
	if (data != h.DataSize || values > KPROF_EVENT_MAX_VALUES ||
	    n != sizeof(h) + h.FieldCount * sizeof(KPROF_EVENT_FIELD) + values * KPROF_EVENT_VALUE_NAME) {
		snprintf(why, size, "its sizes do not add up (DataSize %u, fields %u bytes, %u value names, %zu bytes)",
			 h.DataSize, data, values, n);
		return why;
	}
	return NULL;
}

/* Build t's description from a record that checked. */
static void build(struct kp_user_type *t, const struct kp_record *r)
{
	const uint8_t *p = r->payload;
	uint16_t n = r->payload_size;
	KPROF_EVENT_TYPE h;
	const char *names;
	uint32_t off = sizeof(KPROF_USER_EVENT), nf = 0, nv = 0;

	memcpy(&h, p, sizeof(h));
	t->known = true;
	t->kind = h.Kind;
	t->data_size = h.DataSize;
	t->record = kp_xrealloc(NULL, n ? n : 1, 1); /* a copy: a compressed chunk's */
	memcpy(t->record, p, n);                  /* records are not kept decoded */
	t->record_size = n;
	t->record_cpu = r->cpu;
	t->record_offset = r->log_offset;
	memcpy(t->name, h.Name, sizeof(h.Name));
	if (h.Kind == KprofEventKindSpan) {
		t->fields[nf] = (struct kp_field){ "Phase", 2, 1, KP_UNSIGNED, 0, 0, kp_event_phases, KprofEventPhases };
		t->types[nf++] = KprofFieldEnum;
	}
	names = (const char *)p + sizeof(h) + h.FieldCount * sizeof(KPROF_EVENT_FIELD);
	for (uint32_t i = 0; i < h.FieldCount; i++) {
		KPROF_EVENT_FIELD f;
		memcpy(&f, p + sizeof(h) + i * sizeof(f), sizeof(f));
		memcpy(t->field_names[i], f.Name, sizeof(f.Name));
		struct kp_field *k = &t->fields[nf];
		*k = (struct kp_field){ t->field_names[i], (uint16_t)off, f.Size, KP_UNSIGNED, 0, 0, NULL, 0 };
		k->kind = f.Type == KprofFieldSigned ? KP_SIGNED : f.Type == KprofFieldPointer ? KP_POINTER
			  : f.Type == KprofFieldString ? KP_CHARS : KP_UNSIGNED;
		if (f.Type == KprofFieldEnum) {
			k->names = &t->values[nv];
			k->nnames = f.ValueNames;
			for (uint32_t v = 0; v < f.ValueNames; v++, nv++, names += KPROF_EVENT_VALUE_NAME) {
				memcpy(t->value_names[nv], names, KPROF_EVENT_VALUE_NAME);
				t->values[nv] = t->value_names[nv];
			}
		}
		t->types[nf++] = f.Type;
		off += f.Size;
	}
	t->ev = (struct kp_event){ KPROF_LOG_TYPE_USER_EVENT, USER_EVENT_VERSION, t->name, "KPROF_USER_EVENT",
				   (uint16_t)off, KP_TAIL_NONE, NULL, t->fields, nf };
}

/* t's record r is damaged: the first why is kept for its one issue. */
static void damaged(struct kp_user_type *t, const struct kp_record *r, const char *why)
{
	if (t->damaged)
		return;
	t->damaged = true;
	t->damage_cpu = r->cpu;
	t->damage_offset = r->log_offset;
	snprintf(t->damage, sizeof(t->damage), "%s", why);
}

/* A KprofEventType record r: the type it describes, or its damage. */
static void read_type(struct kp_log *log, struct kp_user_types *u, const struct kp_record *r)
{
	char why[160];
	const char *bad = check_record(r->payload, r->payload_size, why, sizeof(why));
	uint16_t id = 0;

	u->type_records++;
	if (r->payload_size >= 2)
		memcpy(&id, r->payload, 2);
	if (bad && (!id || id > KPROF_EVENT_MAX_TYPES)) {
		if (u->nameless++ < NAMELESS_SHOWN) /* then one count (kp_user_types_find) */
			kp_issue_add(log, KP_ISSUE_USER_TYPE, r->log_offset, r->cpu, 0, 0,
				     "a KprofEventType record on cpu %u is damaged (%s) and names no type", r->cpu, bad);
		return;
	}
	if (bad) {
		damaged(type_of(u, id), r, bad);
		return;
	}
	struct kp_user_type *t = type_of(u, id);
	if (!t->known) {
		build(t, r);
		return;
	}
	/* Again (a rundown and a declaration): the same but for Flags. */
	if (t->record_size != r->payload_size || memcmp(t->record, r->payload, 6) ||
	    memcmp(t->record + 8, r->payload + 8, r->payload_size - 8)) {
		damaged(t, r, "a second record describes it differently");
	}
}

static void walk(struct kp_log *log, struct kp_user_types *u, bool events, struct first *first, struct first *odd)
{
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record r;
		kp_cursor_init(&c, log, cpu);
		while (kp_cursor_next(&c, &r)) {
			if (!events && r.h.HookId == KPROF_LOG_TYPE_EVENT_TYPE && r.version == EVENT_TYPE_VERSION)
				read_type(log, u, &r);
			if (!events || r.h.HookId != KPROF_LOG_TYPE_USER_EVENT || r.version != USER_EVENT_VERSION)
				continue;
			uint16_t id = 0;
			uint8_t phase = 0;
			if (r.payload_size >= sizeof(KPROF_USER_EVENT)) {
				memcpy(&id, r.payload, 2);
				phase = r.payload[2];
			}
			if (id > KPROF_EVENT_MAX_TYPES)
				id = 0; /* not an id the kernel gives: counted under 0 */
			struct kp_user_type *t = type_of(u, id);
			const struct kp_user_type *good = kp_user_type_of(log, &r);
			if (good) {
				t->events[phase < KprofEventPhases ? phase : 0]++;
				continue;
			}
			t->raw_events++;
			struct first *f = t->known && !t->damaged ? &odd[id] : &first[id];
			if (!f->seen)
				*f = (struct first){ r.cpu, r.log_offset, true };
		}
	}
}

/* A type named as an earlier id's is damaged: the names tell the types
 * apart (assert, compare, the report), and a run's are unique (the kernel
 * refuses a second).  255 types at most: a scan. */
static void same_names(struct kp_user_types *u)
{
	for (uint32_t id = 1; id <= KPROF_EVENT_MAX_TYPES; id++) {
		struct kp_user_type *t = u->by_id[id];
		for (uint32_t k = 1; t && t->known && !t->damaged && k < id; k++) {
			const struct kp_user_type *e = u->by_id[k];
			if (e && e->known && !e->damaged && !strcmp(e->name, t->name)) {
				struct kp_record r = { .cpu = t->record_cpu, .log_offset = t->record_offset };
				char why[120];
				snprintf(why, sizeof(why), "its name \"%s\" is type %u's too: a run's types have names of "
					 "their own", t->name, k);
				damaged(t, &r, why);
			}
		}
	}
}

void kp_user_types_find(struct kp_log *log)
{
	struct kp_user_types *u = kp_xcalloc(1, sizeof(*u));
	struct first *first = kp_xcalloc(KPROF_EVENT_MAX_TYPES + 1, sizeof(*first));
	struct first *odd = kp_xcalloc(KPROF_EVENT_MAX_TYPES + 1, sizeof(*odd));

	log->user_types = u;
	walk(log, u, false, NULL, NULL);
	if (u->nameless > NAMELESS_SHOWN)
		kp_issue_add(log, KP_ISSUE_USER_TYPE, 0, 0, 0, 0, "%llu more KprofEventType records are damaged and name "
			     "no type (the first %d are above)", (unsigned long long)(u->nameless - NAMELESS_SHOWN),
			     NAMELESS_SHOWN);
	same_names(u);
	walk(log, u, true, first, odd);
	u->list = kp_xcalloc(KPROF_EVENT_MAX_TYPES + 1, sizeof(*u->list));
	for (uint32_t id = 0; id <= KPROF_EVENT_MAX_TYPES; id++) {
		struct kp_user_type *t = u->by_id[id];
		if (!t)
			continue;
		u->list[u->n++] = t;
		if (t->damaged)
			kp_issue_add(log, KP_ISSUE_USER_TYPE, t->damage_offset, t->damage_cpu, 0, 0,
				     "user event type %u: its KprofEventType record on cpu %u is damaged (%s); its %llu "
				     "events are shown raw", id, t->damage_cpu, t->damage, (unsigned long long)t->raw_events);
		else if (first[id].seen)
			kp_issue_add(log, KP_ISSUE_USER_TYPE, first[id].offset, first[id].cpu, 0, 0,
				     "user event type %u: no KprofEventType record describes it (a capture that started "
				     "late, or its record was lost); its %llu events are shown raw, the first on cpu %u",
				     id, (unsigned long long)t->raw_events, first[id].cpu);
		if (odd[id].seen)
			kp_issue_add(log, KP_ISSUE_USER_TYPE, odd[id].offset, odd[id].cpu, 0, 0,
				     "user event type %u (\"%s\"): %llu events are not the %u bytes of values its type "
				     "says; shown raw, the first on cpu %u", id, t->name, (unsigned long long)t->raw_events,
				     t->data_size, odd[id].cpu);
	}
	free(first);
	free(odd);
}

void kp_user_types_free(struct kp_log *log)
{
	struct kp_user_types *u = log->user_types;

	if (!u)
		return;
	for (uint32_t i = 0; i <= KPROF_EVENT_MAX_TYPES; i++) {
		if (u->by_id[i])
			free(u->by_id[i]->record);
		free(u->by_id[i]);
	}
	free(u->list);
	free(u);
	log->user_types = NULL;
}

const struct kp_user_type *kp_user_type_of(const struct kp_log *log, const struct kp_record *r)
{
	const struct kp_user_types *u = log->user_types;
	uint16_t id;

	if (!u || r->h.HookId != KPROF_LOG_TYPE_USER_EVENT || r->version != USER_EVENT_VERSION ||
	    r->payload_size < sizeof(KPROF_USER_EVENT))
		return NULL;
	memcpy(&id, r->payload, 2);
	const struct kp_user_type *t = id <= KPROF_EVENT_MAX_TYPES ? u->by_id[id] : NULL;
	if (!t || !t->known || t->damaged || r->payload_size != sizeof(KPROF_USER_EVENT) + t->data_size)
		return NULL;
	return t;
}

const struct kp_event *kp_record_event(const struct kp_log *log, const struct kp_record *r)
{
	const struct kp_user_type *t = kp_user_type_of(log, r);
	return t ? &t->ev : kp_event_find(r->h.HookId, r->version);
}

const struct kp_user_type *kp_user_type_named(const struct kp_log *log, const char *name)
{
	const struct kp_user_types *u = log->user_types;

	for (uint32_t i = 0; u && i < u->n; i++)
		if (u->list[i]->known && !u->list[i]->damaged && !strcmp(u->list[i]->name, name))
			return u->list[i];
	return NULL;
}

uint64_t kp_user_type_events(const struct kp_user_type *t)
{
	uint64_t n = 0;
	for (int p = 0; p < KprofEventPhases; p++)
		n += t->events[p];
	return n;
}
