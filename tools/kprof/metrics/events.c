/*
 * events.c - the workload's own events as `kprof assert` and `kprof
 * compare` name them (metrics.h): a type, or a type's events with one
 * value of an enumeration field ("ticketlock_handoff [Lock=queued]"), and
 * the values of a numeric field of those events.
 *
 * A type is split by its first enumeration field (a span's Phase, which
 * the decoder adds, is not the type's own), or by the one named; the
 * value is given by its name as the type record lists it, whole: "[FIELD=
 * value]" closes with its ']' at the end of the name, and a name or value
 * longer than the trace allows is no prefix of a longer one.
 */
#include "tools/kprof/metrics/metrics.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/read/user_types.h"
#include "tools/kprof/util/alloc.h"

int kp_user_split_field(const struct kp_user_type *t, const char *by)
{
	for (unsigned i = 0; i < t->ev.nfields; i++) {
		const struct kp_field *f = &t->ev.fields[i];
		if (f->names && f->names != kp_event_phases && (!by || !strcmp(f->name, by)))
			return (int)i;
	}
	return -1;
}

int64_t kp_field_value_named(const struct kp_field *f, const char *name)
{
	for (uint32_t k = 0; k < f->nnames; k++)
		if (f->names[k] && !strcmp(f->names[k], name))
			return k;
	return -1;
}

/* The known types' names, for the near matches. */
static size_t type_names(const struct kp_log *log, const char **names)
{
	const struct kp_user_types *u = log->user_types;
	size_t n = 0;

	for (uint32_t i = 0; u && i < u->n; i++)
		if (u->list[i]->known && !u->list[i]->damaged)
			names[n++] = u->list[i]->name;
	return n;
}

/* "FIELD=value]" (s, after the " [") into field and value: false when
 * the ']' is missing or not last, a part is empty or too long. */
static bool split_sel(const char *s, char *field, size_t fsize, char *value, size_t vsize)
{
	const char *eq = strchr(s, '='), *end = s + strlen(s) - 1;

	if (!*s || *end != ']' || !eq || eq == s || eq + 1 >= end)
		return false;
	size_t nf = (size_t)(eq - s), nv = (size_t)(end - eq - 1);
	if (nf >= fsize - 1 || nv >= vsize - 1) /* the trace's names end in a NUL within their size */
		return false;
	snprintf(field, fsize, "%.*s", (int)nf, s);
	snprintf(value, vsize, "%.*s", (int)nv, eq + 1);
	return true;
}

bool kp_run_event_sel(const struct kp_runlog *r, const char *name, struct kp_event_sel *sel, char *why, size_t size)
{
	const char *names[KPROF_EVENT_MAX_TYPES + 1];
	char type[KPROF_EVENT_NAME + 1] = "", field[KPROF_EVENT_FIELD_NAME + 1] = "", value[KPROF_EVENT_VALUE_NAME + 1];
	char near[400];
	size_t n = type_names(&r->log, names);
	const char *open = strstr(name, " [");

	*sel = (struct kp_event_sel){ .split = -1 };
	if (!n) {
		snprintf(why, size, "event \"%s\": the trace describes no event types of its own (no KprofEventType "
			 "records), so no event can be measured", name);
		return false;
	}
	snprintf(type, sizeof(type), "%.*s", open ? (int)(open - name) : (int)strlen(name), name);
	if (open && !split_sel(open + 2, field, sizeof(field), value, sizeof(value))) {
		snprintf(why, size, "event \"%s\": after the type, [FIELD=value] names an enumeration field (up to %d "
			 "characters) and one of its values (up to %d), and ends the name (\"%s [Lock=queued]\")", name,
			 KPROF_EVENT_FIELD_NAME - 1, KPROF_EVENT_VALUE_NAME - 1, type);
		return false;
	}
	sel->type = kp_user_type_named(&r->log, type);
	if (!sel->type) {
		kp_near_names(type, names, n, near, sizeof(near));
		snprintf(why, size, "no event type \"%s\" in the trace's %zu event types%s%s", type, n,
			 near[0] ? "; near: " : "", near);
		return false;
	}
	if (!open)
		return true;
	sel->split = kp_user_split_field(sel->type, field);
	int64_t v = sel->split >= 0 ? kp_field_value_named(&sel->type->ev.fields[sel->split], value) : -1;
	if (v < 0) {
		const struct kp_field *f = sel->split >= 0 ? &sel->type->ev.fields[sel->split] : NULL;
		size_t len = (size_t)snprintf(why, size, "event \"%s\": %s has no enumeration field %s%s%s", name, type,
					      field, f ? " with the value " : "", f ? value : "");
		for (uint32_t k = 0; f && k < f->nnames && len < size; k++)
			len += (size_t)snprintf(why + len, size - len, "%s%s", k ? ", " : "; its values: ", f->names[k]);
		return false;
	}
	sel->value = (uint64_t)v;
	return true;
}

/* Does the event r belong to sel? */
static bool selected(const struct kp_runlog *run, const struct kp_event_sel *sel, const struct kp_record *r)
{
	if (kp_user_type_of(&run->log, r) != sel->type)
		return false;
	return sel->split < 0 || kp_field_value(&sel->type->ev.fields[sel->split], r->payload) == sel->value;
}

uint64_t kp_run_event_count(const struct kp_runlog *r, const struct kp_event_sel *sel)
{
	uint64_t n = 0;

	if (sel->split < 0)
		return kp_user_type_events(sel->type);
	for (uint32_t cpu = 0; cpu < r->log.ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record rec;
		kp_cursor_init(&c, (struct kp_log *)&r->log, cpu); /* reads only */
		while (kp_cursor_next(&c, &rec))
			n += selected(r, sel, &rec);
	}
	return n;
}

size_t kp_run_event_values(const struct kp_runlog *r, const struct kp_event_sel *sel, const char *field, double **v,
			   char *why, size_t size)
{
	const struct kp_user_type *t = sel->type;
	const struct kp_field *f = NULL;
	size_t n = 0, cap = 0, len;

	*v = NULL;
	for (unsigned i = 0; i < t->ev.nfields; i++)
		if (!strcmp(t->ev.fields[i].name, field) && !t->ev.fields[i].names &&
		    (t->ev.fields[i].kind == KP_UNSIGNED || t->ev.fields[i].kind == KP_SIGNED))
			f = &t->ev.fields[i];
	if (!f) {
		len = (size_t)snprintf(why, size, "event type \"%s\" has no numeric field \"%s\"", t->name, field);
		for (unsigned i = 0, k = 0; i < t->ev.nfields && len < size; i++)
			if (!t->ev.fields[i].names && (t->ev.fields[i].kind == KP_UNSIGNED || t->ev.fields[i].kind == KP_SIGNED))
				len += (size_t)snprintf(why + len, size - len, "%s%s", k++ ? ", " : "; its numeric fields: ",
							t->ev.fields[i].name);
		return 0;
	}
	for (uint32_t cpu = 0; cpu < r->log.ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record rec;
		kp_cursor_init(&c, (struct kp_log *)&r->log, cpu); /* reads only */
		while (kp_cursor_next(&c, &rec)) {
			if (!selected(r, sel, &rec))
				continue;
			uint64_t x = kp_field_value(f, rec.payload);
			*v = kp_grow(*v, &cap, n + 1, sizeof(**v));
			(*v)[n++] = f->kind == KP_SIGNED ? (double)(int64_t)x : (double)x;
		}
	}
	if (!n)
		snprintf(why, size, "no events of \"%s\"%s in the log, so its field \"%s\" has no values", t->name,
			 sel->split >= 0 ? " with that value" : "", field);
	return n;
}

size_t kp_run_span_lengths(const struct kp_runlog *r, const struct kp_event_sel *sel, uint64_t **v,
			   uint64_t *backwards)
{
	struct begin {
		uint64_t ts;
		bool selected;
	} *open = NULL;
	size_t n = 0, cap = 0, vcap = 0;

	*v = NULL;
	*backwards = 0;
	for (uint32_t cpu = 0; cpu < r->log.ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record rec;
		size_t nopen = 0;
		kp_cursor_init(&c, (struct kp_log *)&r->log, cpu); /* reads only */
		while (kp_cursor_next(&c, &rec)) {
			if (kp_user_type_of(&r->log, &rec) != sel->type)
				continue;
			if (rec.payload[2] == KprofEventBegin) {
				open = kp_grow(open, &cap, nopen + 1, sizeof(*open));
				open[nopen++] = (struct begin){ rec.h.TimeStamp, selected(r, sel, &rec) };
			} else if (rec.payload[2] == KprofEventEnd && nopen) {
				struct begin b = open[--nopen];
				if (rec.h.TimeStamp < b.ts)
					(*backwards)++;
				else if (b.selected)
					KP_PUSH(*v, n, vcap, rec.h.TimeStamp - b.ts);
			}
		}
	}
	free(open);
	return n;
}
