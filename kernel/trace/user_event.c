/*
 * user_event.c - user event types and their records (user_event.h,
 * include/kprof/user_event.h).
 *
 * Invariants:
 *   - types[i] is the type with id i + 1; ids are given in declaration
 *     order and never reused, so an id names one type for the whole run.
 *     A slot is written once, under the table lock, before the id is
 *     published in the type (t->id), so a writer that sees t->id reads a
 *     whole description.  Asserted where a type record is written (the
 *     slot of id holds the type) and by the rundown (slot i holds id
 *     i + 1); test_user_event breaks it.
 *   - The table lock (a raw lock, interrupts off) is held only to check
 *     names and take a slot, never while a record is written (the writer
 *     may queue the flush DPC, which takes the DPC queue's raw lock).
 *   - At least once, as objname.c: a type declared while tracing writes
 *     its record after taking its slot; the rundown, after trace_start
 *     turned the group on, writes every slot.  A type record precedes the
 *     type's events on its CPU; on other CPUs the decoder reads every type
 *     record of the log before any event.
 */
#include "kernel/trace/user_event.h"

#include "kernel/console/console.h"
#include "kernel/debug/kassert.h"
#include "kernel/ke/rawlock.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"

static struct {
	raw_lock_t lock;                               /* ntypes, types[]       */
	uint32_t ntypes;                               /* ids 1..ntypes given   */
	struct user_event_type *types[KPROF_EVENT_MAX_TYPES];
} table = { .lock = RAW_LOCK_INIT };

static const char *const errors[] = {
	"",
	"the type name is empty, over 31 characters, not of letters, digits, '_' and '.' (not a digit first), "
	"or taken",
	"more than 16 fields",
	"a field's name (1..23 of letters, digits and '_', not a digit first), type or size is wrong",
	"an enumeration has no value names, one is empty, over 15 characters or holds '\"', '\\' or a "
	"character that is not printable ASCII, or the type has over 64",
	"the fields take more than 1024 bytes",
	"255 types are declared already",
};

const char *user_event_error(int err)
{
	return err <= 0 && err >= USER_EVENT_EFULL ? errors[-err] : "?";
}

/* Why a name of this kind is wrong, or NULL: 1..max characters allowed. */
static const char *name_wrong(const char *s, size_t max, enum kprof_event_name_kind kind)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0)
		return "is empty";
	if (n > max)
		return "is too long";
	for (size_t i = 0; i < n; i++)
		if (!kprof_event_name_char_ok(s[i], kind, i == 0))
			return i == 0 && s[i] >= '0' && s[i] <= '9' ? "starts with a digit" : "holds a character not allowed";
	return NULL;
}

static const char *const field_sort[] = { "an unsigned integer", "a signed integer", "a pointer", "a string",
					  "an enumeration" };
static const char *const field_sizes[] = { "1, 2, 4 or 8", "1, 2, 4 or 8", "8", "1..128 (KPROF_EVENT_MAX_STRING)",
					   "1, 2 or 4" };

/* Field i of t: 0, or a USER_EVENT_E* error with why it was refused (the
 * field, what it is and the limit) in why. */
static int check_field(const struct user_event_type *t, uint32_t i, uint32_t *values, char *why, size_t n)
{
	const struct user_event_field *f = &t->fields[i];
	const char *wrong = name_wrong(f->name, KPROF_EVENT_FIELD_NAME - 1, KprofNameField);

	if (wrong) {
		ksnprintf(why, n, "field %u's name \"%.40s%s\" %s; accepted: 1..23 (KPROF_EVENT_FIELD_NAME - 1) of "
			  "letters, digits and '_', not a digit first", i + 1, f->name ? f->name : "",
			  f->name && strlen(f->name) > 40 ? "..." : "", wrong);
		return USER_EVENT_EFIELD;
	}
	if (kprof_event_field_name_reserved(f->name)) {
		ksnprintf(why, n, "field %u's name \"%s\" is reserved (an output's own key); accepted: any other name "
			  "than Phase, cpu, event, hook, version, TimeStamp or t", i + 1, f->name);
		return USER_EVENT_EFIELD;
	}
	for (uint32_t j = 0; j < i; j++)
		if (!strcmp(t->fields[j].name, f->name)) {
			ksnprintf(why, n, "fields %u and %u are both named \"%s\"; accepted: names unique in the type",
				  j + 1, i + 1, f->name);
			return USER_EVENT_EFIELD;
		}
	if ((unsigned)f->type >= KprofFieldTypes) {
		ksnprintf(why, n, "field \"%s\" has type %u; accepted: KprofFieldUnsigned, Signed, Pointer, String, "
			  "Enum (0..%u)", f->name, (unsigned)f->type, KprofFieldTypes - 1);
		return USER_EVENT_EFIELD;
	}
	if (!kprof_event_field_size_ok(f->type, f->size)) {
		ksnprintf(why, n, "field \"%s\" (%s) is %u bytes; accepted: %s", f->name, field_sort[f->type],
			  (unsigned)f->size, field_sizes[f->type]);
		return USER_EVENT_EFIELD;
	}
	if (f->type != KprofFieldEnum)
		return 0;
	if (!f->values || !f->nvalues) {
		ksnprintf(why, n, "field \"%s\" (an enumeration) has no value names; accepted: at least one", f->name);
		return USER_EVENT_EVALUES;
	}
	for (uint32_t v = 0; v < f->nvalues; v++) {
		const char *name = f->values[v];
		if ((wrong = name_wrong(name, KPROF_EVENT_VALUE_NAME - 1, KprofNameValue))) {
			ksnprintf(why, n, "field \"%s\"'s value name %u %s; accepted: 1..15 (KPROF_EVENT_VALUE_NAME - 1) "
				  "printable ASCII characters, not '\"' or '\\'", f->name, v, wrong);
			return USER_EVENT_EVALUES;
		}
	}
	*values += f->nvalues;
	return 0;
}

/* Check t; its data size in *size.  0, or a USER_EVENT_E* error with why
 * it was refused in why: the type or the field, and the limit. */
static int check(const struct user_event_type *t, uint32_t *size, char *why, size_t n)
{
	uint32_t values = 0;
	const char *wrong = name_wrong(t->name, KPROF_EVENT_NAME - 1, KprofNameType);
	int err;

	*size = 0;
	if (wrong) {
		ksnprintf(why, n, "the type name %s; accepted: 1..31 (KPROF_EVENT_NAME - 1) of letters, digits, '_' and "
			  "'.', not a digit first", wrong);
		return USER_EVENT_EBADNAME;
	}
	if ((unsigned)t->kind >= KprofEventKinds) {
		ksnprintf(why, n, "its kind is %u; accepted: KprofEventKindInstant, Span or Counter (0..%u)",
			  (unsigned)t->kind, KprofEventKinds - 1);
		return USER_EVENT_EBADNAME;
	}
	if (t->nfields > KPROF_EVENT_MAX_FIELDS) {
		ksnprintf(why, n, "it has %u fields; accepted: at most 16 (KPROF_EVENT_MAX_FIELDS)", (unsigned)t->nfields);
		return USER_EVENT_EFIELDS;
	}
	for (uint32_t i = 0; i < t->nfields; i++) {
		if ((err = check_field(t, i, &values, why, n)))
			return err;
		*size += t->fields[i].size;
	}
	if (values > KPROF_EVENT_MAX_VALUES) {
		ksnprintf(why, n, "its enumerations have %u value names; accepted: at most 64 (KPROF_EVENT_MAX_VALUES) "
			  "in a type", values);
		return USER_EVENT_EVALUES;
	}
	if (*size > KPROF_EVENT_MAX_DATA) {
		ksnprintf(why, n, "its fields take %u bytes; accepted: at most 1024 (KPROF_EVENT_MAX_DATA)", *size);
		return USER_EVENT_ESIZE;
	}
	return 0;
}

/* Bytes of t's KprofEventType payload. */
static uint32_t type_record_size(const struct user_event_type *t)
{
	uint32_t n = sizeof(KPROF_EVENT_TYPE) + t->nfields * sizeof(KPROF_EVENT_FIELD);

	for (uint32_t i = 0; i < t->nfields; i++)
		if (t->fields[i].type == KprofFieldEnum)
			n += t->fields[i].nvalues * KPROF_EVENT_VALUE_NAME;
	return n;
}

/* strncpy's padding without its name: n bytes, s cut, NUL-padded. */
static void copy_padded(char *dst, const char *s, size_t n)
{
	size_t len = strlen(s);

	memset(dst, 0, n);
	memcpy(dst, s, len < n ? len : n);
}

static void write_type(const struct user_event_type *t, uint8_t flags)
{
	struct trace_record rec;
	uint32_t size = type_record_size(t);

	KASSERT_OP(t->id, >=, 1u);
	KASSERT_OP((uintptr_t)table.types[t->id - 1], ==, (uintptr_t)t); /* written before the id was published */
	if (!trace_enabled(PERF_KPROF_USER))
		return;
	KPROF_EVENT_TYPE *r = trace_record_begin(&rec, KPROF_LOG_TYPE_EVENT_TYPE, EVENT_TYPE_VERSION, (uint16_t)size);
	if (!r)
		return;
	memset(r, 0, size);
	r->TypeId = t->id;
	r->Kind = (uint8_t)t->kind;
	r->FieldCount = t->nfields;
	r->DataSize = t->data_size;
	r->Flags = flags;
	copy_padded(r->Name, t->name, sizeof(r->Name));
	char *names = (char *)&r->Fields[t->nfields];
	for (uint32_t i = 0; i < t->nfields; i++) {
		const struct user_event_field *f = &t->fields[i];
		KPROF_EVENT_FIELD *w = &r->Fields[i];
		copy_padded(w->Name, f->name, sizeof(w->Name));
		w->Type = (uint8_t)f->type;
		w->Size = f->size;
		if (f->type != KprofFieldEnum)
			continue;
		w->ValueNames = f->nvalues;
		for (uint32_t v = 0; v < f->nvalues; v++, names += KPROF_EVENT_VALUE_NAME)
			copy_padded(names, f->values[v], KPROF_EVENT_VALUE_NAME);
	}
	trace_record_commit(&rec);
}

int user_event_declare(struct user_event_type *t)
{
	uint32_t size;
	char why[200];
	int err = check(t, &size, why, sizeof(why));

	if (t->id)
		return 0;
	unsigned long flags = raw_lock_irqsave(&table.lock);
	for (uint32_t i = 0; !err && i < table.ntypes; i++)
		if (table.types[i] == t)
			err = 1; /* declared meanwhile: done */
		else if (!strcmp(table.types[i]->name, t->name)) {
			err = USER_EVENT_EBADNAME;
			ksnprintf(why, sizeof(why), "the type name is taken by type %u; accepted: a name unique in the run",
				  i + 1);
		}
	if (!err && table.ntypes == KPROF_EVENT_MAX_TYPES) {
		err = USER_EVENT_EFULL;
		ksnprintf(why, sizeof(why), "255 types are declared already; accepted: at most 255 "
			  "(KPROF_EVENT_MAX_TYPES) in a run");
	}
	if (!err) {
		t->data_size = (uint16_t)size;
		table.types[table.ntypes++] = t;
		__atomic_store_n(&t->id, (uint16_t)table.ntypes, __ATOMIC_RELEASE);
	}
	raw_unlock_irqrestore(&table.lock, flags);
	if (err == 1)
		return 0;
	if (err) {
		kprintf("user events: type \"%.40s%s\" refused: %s\n", t->name ? t->name : "(null)",
			t->name && strlen(t->name) > 40 ? "..." : "", why);
		return err;
	}
	write_type(t, 0);
	return 0;
}

void user_event_str(struct user_event *e, const char *s)
{
	if (e->field >= e->t->nfields)
		return;
	const struct user_event_field *f = &e->t->fields[e->field++];
	uint32_t at = e->at;
	if (at + f->size > e->size) {
		e->at = at | USER_EVENT_DROPPED;
		return;
	}
	e->at = at + f->size;
	if (f->type == KprofFieldString && s)
		copy_padded((char *)e->data + at, s, f->size);
	else
		memset(e->data + at, 0, f->size);
}

void user_event_values_mismatch(const struct user_event_type *t, enum kprof_event_phase phase)
{
	struct user_event e;

	if (user_event_begin(&e, t, phase))
		user_event_commit(&e); /* its values zero */
}

void user_event_rundown(void)
{
	for (uint32_t i = 0;; i++) {
		unsigned long flags = raw_lock_irqsave(&table.lock);
		struct user_event_type *t = i < table.ntypes ? table.types[i] : NULL;
		raw_unlock_irqrestore(&table.lock, flags);
		if (!t)
			return;
		KASSERT_OP((uint32_t)t->id, ==, i + 1);
		write_type(t, KPROF_EVENT_TYPE_RUNDOWN);
	}
}
