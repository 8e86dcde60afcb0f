/*
 * timeline_phases.c - the phases of the run in `kprof timeline`: the
 * KprofPhase records (include/kprof/wmi.h), written where the scenario
 * (index 0) and each workload of scenario=mix (index 1..) start and end,
 * paired into phases; and their markers: a tinted band behind the rows
 * for each workload (the scenario's own when it has none), labelled above
 * the rows with the workload's name, and a dashed line at each start and
 * end across every row.  A phase that never ended (the run stopped
 * first) lasts to the end of the trace.  In the picture of the whole
 * trace, a label links to the phase's own picture (timeline.c).
 */
#include "tools/kprof/pictures/timeline/timeline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/read/records.h"
#include "tools/kprof/util/alloc.h"

static const char *const tints[] = { "#dce8fb", "#fbe9d2", "#dcf3dc", "#f3dcf1" };

void tl_phases_read(struct tl_phases *p, struct kp_log *log, uint64_t end)
{
	struct kp_merge mg;
	struct kp_record r;
	size_t cap = 0;

	memset(p, 0, sizeof(*p));
	kp_merge_init(&mg, log);
	while (kp_merge_next(&mg, &r)) {
		KPROF_PHASE k;
		if (r.h.HookId != KPROF_LOG_TYPE_PHASE || r.version != PHASE_VERSION || r.payload_size < sizeof(k))
			continue;
		memcpy(&k, r.payload, sizeof(k));
		if (!(k.Flags & KPROF_PHASE_END)) {
			struct tl_phase ph = { .index = k.Index, .start = r.h.TimeStamp, .end = end };
			memcpy(ph.name, k.Name, sizeof(k.Name));
			KP_PUSH(p->v, p->n, cap, ph);
			continue;
		}
		for (size_t i = p->n; i-- > 0;) /* the latest start of its index */
			if (p->v[i].index == k.Index) { /* never before its start (CPUs' clocks) */
				p->v[i].end = r.h.TimeStamp > p->v[i].start ? r.h.TimeStamp : p->v[i].start;
				break;
			}
	}
	kp_merge_free(&mg);
}

void tl_phases_free(struct tl_phases *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

bool tl_phase_drawn(const struct tl_phases *p, size_t i)
{
	if (p->v[i].index)
		return true;
	for (size_t k = 0; k < p->n; k++)
		if (p->v[k].index)
			return false;
	return true;
}

static void label(const struct tl *t, const struct tl_phase *ph, double x0, double x1)
{
	size_t fit = x1 - x0 > 8 ? (size_t)((x1 - x0 - 6) / 6.6) : 0, len = strlen(ph->name);
	char text[40], d[32];

	if (ph->index)
		snprintf(text, sizeof(text), "%" PRIu32 " %s", ph->index, ph->name);
	else
		snprintf(text, sizeof(text), "%s", ph->name);
	len = strlen(text);
	if (fit < len && fit < 3) {
		text[0] = 0; /* no room: the tooltip names it */
	} else if (fit < len) {
		text[fit - 2] = text[fit - 1] = '.';
		text[fit] = 0;
	}
	if (t->view != ph && ph->file[0]) {
		fputs("<a href=\"", t->f);
		kp_xml_text(t->f, ph->file);
		fputs("\">", t->f);
	}
	fprintf(t->f, "<text class=\"phaselabel\" x=\"%.2f\" y=\"%.1f\"><title>phase %" PRIu32 ": ", (x0 + x1) / 2,
		TL_ROWS_TOP - 6, ph->index);
	kp_xml_text(t->f, ph->name);
	fprintf(t->f, "\nfrom +%.6f ms to +%.6f ms (%s)%s</title>", kp_model_ms(t->m, ph->start),
		kp_model_ms(t->m, ph->end), tl_duration(t, ph->end - ph->start, d, sizeof(d)),
		t->view != ph && ph->file[0] ? "\nclick: this phase's own picture" : "");
	kp_xml_text(t->f, text);
	fputs(t->view != ph && ph->file[0] ? "</text></a>\n" : "</text>\n", t->f);
}

/* The bands and labels (behind the rows), or the lines at the starts and
 * ends (over them). */
static void draw(const struct tl *t, double y1, bool lines)
{
	const struct tl_phases *p = t->phases;
	double y0 = TL_ROWS_TOP - 18;

	fprintf(t->f, "<g id=\"%s\">\n", lines ? "phaselines" : "phases");
	for (size_t i = 0, shown = 0; i < p->n; i++) {
		const struct tl_phase *ph = &p->v[i];
		if (!tl_phase_drawn(p, i))
			continue;
		const char *tint = tints[shown++ % (sizeof(tints) / sizeof(tints[0]))];
		if (ph->end <= t->t0 || ph->start >= t->t1)
			continue;
		double x0 = tl_px(t, ph->start), x1 = tl_px(t, ph->end);
		fprintf(t->f, "<g class=\"phase\" data-index=\"%" PRIu32 "\" data-start=\"%" PRIu64 "\" data-end=\"%" PRIu64
			      "\" data-x0=\"%.2f\" data-x1=\"%.2f\">",
			ph->index, ph->start, ph->end, x0, x1);
		if (lines) {
			for (int e = 0; e < 2; e++) {
				uint64_t ts = e ? ph->end : ph->start;
				if (ts > t->t0 && ts < t->t1)
					fprintf(t->f, "<line class=\"phase%s\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" "
						      "y2=\"%.1f\"/>",
						e ? "end" : "start", tl_px(t, ts), y0, tl_px(t, ts), y1);
			}
		} else {
			fprintf(t->f, "<rect class=\"phaseband\" x=\"%.2f\" y=\"%.1f\" width=\"%.3f\" height=\"%.1f\" "
				      "fill=\"%s\"/>",
				x0, y0, x1 - x0, y1 - y0, tint);
			label(t, ph, x0, x1);
		}
		fputs("</g>\n", t->f);
	}
	fputs("</g>\n", t->f);
}

void tl_draw_phases(const struct tl *t, double y1)
{
	draw(t, y1, false);
}

void tl_draw_phase_lines(const struct tl *t, double y1)
{
	draw(t, y1, true);
}
