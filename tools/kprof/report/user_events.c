/*
 * user_events.c - section 10 of the report: the workload's own events, by
 * type (read/user_types.c).  Each type's kind and events; for a span type
 * its slices (a Begin closed by an End on the same CPU, nested: an End
 * closes the latest open Begin) with the longest, and the Begins never
 * closed (an End time-stamped before the Begin it closes is damage, shown
 * as such, never a slice); for a counter type each numeric field's least, greatest and last
 * value.  Events shown raw (type missing or damaged) are counted by id.
 * The section is left out of logs without user events or types.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/read/user_types.h"
#include "tools/kprof/report/report.h"
#include "tools/kprof/util/alloc.h"

static const char *const kind_names[] = { "instant", "span", "counter" };

struct span_stats {
	uint64_t slices, unclosed, unopened; /* pairs, Begins left, lone Ends */
	uint64_t backwards;                  /* Ends before their Begin       */
	uint64_t longest, total;             /* cycles                         */
};

/* Pair t's Begins and Ends per CPU. */
static void spans(const struct kp_report *r, const struct kp_user_type *t, struct span_stats *s)
{
	memset(s, 0, sizeof(*s));
	for (uint32_t cpu = 0; cpu < r->log->ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record rec;
		uint64_t *open = NULL;
		size_t n = 0, cap = 0;
		kp_cursor_init(&c, r->log, cpu);
		while (kp_cursor_next(&c, &rec)) {
			if (kp_user_type_of(r->log, &rec) != t)
				continue;
			if (rec.payload[2] == KprofEventBegin) {
				if (n == cap)
					open = kp_xrealloc(open, cap = cap ? 2 * cap : 16, sizeof(*open));
				open[n++] = rec.h.TimeStamp;
			} else if (rec.payload[2] == KprofEventEnd) {
				if (!n) {
					s->unopened++;
					continue;
				}
				if (rec.h.TimeStamp < open[--n]) { /* damaged: no slice of -7 years */
					s->backwards++;
					continue;
				}
				uint64_t d = rec.h.TimeStamp - open[n];
				s->slices++;
				s->total += d;
				s->longest = d > s->longest ? d : s->longest;
			}
		}
		s->unclosed += n;
		free(open);
	}
}

/* A counter type's numeric fields: least, greatest, last (in time). */
static void counters(FILE *f, const struct kp_report *r, const struct kp_user_type *t)
{
	for (unsigned i = 0; i < t->ev.nfields; i++) {
		const struct kp_field *fl = &t->ev.fields[i];
		bool any = false, sgn = fl->kind == KP_SIGNED;
		uint64_t lo = 0, hi = 0, last = 0, last_ts = 0;
		if (fl->kind == KP_CHARS || fl->names)
			continue;
		for (uint32_t cpu = 0; cpu < r->log->ncpus; cpu++) {
			struct kp_cpu_cursor c;
			struct kp_record rec;
			kp_cursor_init(&c, r->log, cpu);
			while (kp_cursor_next(&c, &rec)) {
				if (kp_user_type_of(r->log, &rec) != t)
					continue;
				uint64_t v = kp_field_value(fl, rec.payload);
				if (!any || (sgn ? (int64_t)v < (int64_t)lo : v < lo))
					lo = v;
				if (!any || (sgn ? (int64_t)v > (int64_t)hi : v > hi))
					hi = v;
				if (!any || rec.h.TimeStamp >= last_ts)
					last = v, last_ts = rec.h.TimeStamp;
				any = true;
			}
		}
		if (!any)
			continue;
		if (sgn)
			fprintf(f, "    %s: least %" PRId64 ", greatest %" PRId64 ", last %" PRId64 "\n", fl->name,
				(int64_t)lo, (int64_t)hi, (int64_t)last);
		else
			fprintf(f, "    %s: least %" PRIu64 ", greatest %" PRIu64 ", last %" PRIu64 "\n", fl->name, lo, hi,
				last);
	}
}

void kp_report_user_events(FILE *f, const struct kp_report *r)
{
	const struct kp_user_types *u = r->log->user_types;
	char a[48], b[48];

	if (!u || !u->n)
		return;
	kp_report_section(f, "10. user events: the workload's own event types");
	fprintf(f, "Types the trace describes (KprofEventType records) and their events (KprofUserEvent).\n\n");
	fprintf(f, "  %-4s %-31s %-8s %10s\n", "id", "type", "kind", "events");
	for (uint32_t i = 0; i < u->n; i++) {
		const struct kp_user_type *t = u->list[i];
		if (!t->known || t->damaged) {
			fprintf(f, "  %-4u %-31s %-8s %10" PRIu64 "  shown raw: its type record is %s\n", t->id, "?", "?",
				t->raw_events, t->damaged ? "damaged" : "missing");
			continue;
		}
		fprintf(f, "  %-4u %-31s %-8s %10" PRIu64, t->id, t->name, kind_names[t->kind], kp_user_type_events(t));
		if (t->raw_events)
			fprintf(f, "  (and %" PRIu64 " of the wrong size, shown raw)", t->raw_events);
		fputc('\n', f);
		if (t->kind == KprofEventKindSpan) {
			struct span_stats s;
			spans(r, t, &s);
			fprintf(f, "    %" PRIu64 " slices, longest %s, mean %s; %" PRIu64 " begun and never ended, %" PRIu64
				   " ended without a begin",
				s.slices, kp_report_time(r->log, s.longest, a, sizeof(a)),
				kp_report_time(r->log, s.slices ? s.total / s.slices : 0, b, sizeof(b)), s.unclosed,
				s.unopened);
			if (s.backwards)
				fprintf(f, ", %" PRIu64 " ended before %s begin (damaged: no slice)", s.backwards,
					s.backwards == 1 ? "its" : "their");
			fputc('\n', f);
		} else if (t->kind == KprofEventKindCounter) {
			counters(f, r, t);
		}
	}
}

void kp_report_user_events_summary(FILE *f, const struct kp_report *r)
{
	const struct kp_user_types *u = r->log->user_types;
	char line[1024];
	size_t n = 0;

	for (uint32_t i = 0; u && i < u->n && n < sizeof(line) - 64; i++) {
		const struct kp_user_type *t = u->list[i];
		if (t->known && !t->damaged)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %" PRIu64, n ? ", " : "", t->name,
					      kp_user_type_events(t));
	}
	if (n)
		kp_wrap(f, "user events: ", 0, 4, ", ", line);
}
