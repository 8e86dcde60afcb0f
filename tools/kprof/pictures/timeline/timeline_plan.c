/*
 * timeline_plan.c - what `kprof timeline` draws of the runs, planned as
 * the model makes them (model.h: a run sink), so that the model keeps no
 * run (a big log has one for every two or three records).
 *
 * Per view (the whole trace, then each phase with a picture of its own,
 * timeline.c) and CPU: the rectangles of its row (timeline_rows.c draws
 * them): consecutive runs narrower than TL_MIN_PX merged into one until it
 * is TL_MIN_PX wide, with the threads' shares, so a row holds at most
 * about 2 * TL_PLOT_W / TL_MIN_PX of them however long the run; and, for
 * a phase's view, the CPU's busy cycles in it and each thread's run
 * cycles in it (the legend's).  For the palette: each thread's first run.
 * A CPU's runs come in time order, which is all the merging needs.
 *
 * And per view, CPU and kind of sample (ProfileTime or PMC), the pixel
 * columns that hold samples (the row draws a tick in each), their number
 * and periods: a bit per column, not the samples.  And the ERESOURCE
 * waits, 40 bytes each, not every Resource record.
 */
#include "tools/kprof/pictures/timeline/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"

void tl_plan_init(struct tl_plan *p, const struct kp_model *m, const struct tl *views, size_t nviews)
{
	*p = (struct tl_plan){ .m = m, .ncpus = m->ncpus, .nviews = nviews };
	p->views = kp_xcalloc(nviews, sizeof(*p->views));
	for (size_t v = 0; v < nviews; v++) {
		p->views[v].t = views[v];
		p->views[v].cpu = kp_xcalloc(m->ncpus, sizeof(*p->views[v].cpu));
		p->views[v].thread_cycles = kp_xcalloc(m->nthreads + 1, sizeof(*p->views[v].thread_cycles));
		p->views[v].res = &p->res;
	}
	p->first = kp_xcalloc(m->nthreads + 1, sizeof(*p->first));
	for (size_t i = 0; i < m->nthreads; i++)
		p->first[i] = UINT64_MAX;
}

static void seg_add(struct tl_seg *g, const struct kp_run *r)
{
	uint64_t c = r->end - r->start;
	unsigned i;

	for (i = 0; i < g->ntop && g->top[i].tid != r->tid; i++)
		;
	if (i < g->ntop)
		g->top[i].cycles += c;
	else if (g->ntop < TL_TOP_SHARES)
		g->top[g->ntop++] = (typeof(g->top[0])){ r->tid, c };
	else
		g->other += c;
	g->n++;
	g->end = r->end;
}

/* A run into the view's row: a rectangle of its own, or merged with the
 * one before while both are narrower than TL_MIN_PX. */
static void plan_run(struct tl_row_plan *row, const struct tl *t, const struct kp_run *r)
{
	double x0 = tl_px(t, r->start), x1 = tl_px(t, r->end);
	struct tl_seg *g = &row->cur;

	if (!(g->n && g->x1 - g->x0 < TL_MIN_PX && x1 - x0 < TL_MIN_PX)) {
		if (g->n)
			KP_PUSH(row->v, row->n, row->cap, *g);
		*g = (struct tl_seg){ .first = *r, .x0 = x0 };
	}
	g->x1 = x1;
	seg_add(g, r);
}

void tl_plan_run(struct tl_plan *p, uint32_t cpu, const struct kp_run *r)
{
	const struct kp_model *m = p->m;
	const struct kp_model_thread *th = kp_model_thread(m, r->tid);
	size_t row = th ? (size_t)(th - m->threads) : m->nthreads;

	if (th && r->start < p->first[row])
		p->first[row] = r->start;
	for (size_t v = 0; v < p->nviews; v++) {
		struct tl_view_plan *vp = &p->views[v];
		const struct tl *t = &vp->t;
		if (r->end <= t->t0 || r->start >= t->t1)
			continue;
		plan_run(&vp->cpu[cpu], t, r);
		if (!t->view)
			continue; /* the whole trace: the model's busy and thread times */
		uint64_t cycles = tl_run_cycles(t, &m->cpu[cpu], r);
		if (r->tid)
			vp->cpu[cpu].busy += cycles;
		if (th)
			vp->thread_cycles[row] += cycles;
	}
}

static void plan_sample(struct tl_plan *p, uint32_t cpu, const struct kp_sample *s)
{
	if (cpu >= p->ncpus)
		return;
	for (size_t v = 0; v < p->nviews; v++) {
		const struct tl *t = &p->views[v].t;
		struct tl_ticks *k = &p->views[v].cpu[cpu].ticks[s->pmc];
		if (s->ts < t->t0 || s->ts > t->t1)
			continue;
		size_t col = (size_t)(long)(tl_px(t, s->ts) - TL_LEFT);
		if (!k->cols)
			k->cols = kp_xcalloc((TL_COLUMNS + 63) / 64, sizeof(*k->cols));
		if (col < TL_COLUMNS)
			k->cols[col / 64] |= (uint64_t)1 << (col % 64);
		k->n++;
		k->periods += s->count;
	}
}

void tl_plan_record(struct tl_plan *p, const struct kp_record *r, uint16_t kind)
{
	if (kind == PERFINFO_LOG_TYPE_SAMPLED_PROFILE || kind == PERFINFO_LOG_TYPE_PMC_INTERRUPT) {
		struct kp_sample s;
		kp_sample_of(r, &s);
		plan_sample(p, r->cpu, &s);
	} else if (kind == PERFINFO_LOG_TYPE_RESOURCE) {
		WMI_RESOURCE w;
		memcpy(&w, r->payload, sizeof(w));
		p->res.records++;
		if (tl_resource_waited(&w))
			KP_PUSH(p->res.v, p->res.n, p->res.cap,
				((struct tl_res_wait){ .acquire = w.AcquireTime, .wait = w.WaitTime, .hold = w.HoldTime,
						       .resource = w.Resource, .tid = w.ThreadId,
						       .exclusive = w.Action == WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE }));
	}
}

void tl_plan_finish(struct tl_plan *p)
{
	for (size_t v = 0; v < p->nviews; v++)
		for (uint32_t c = 0; c < p->ncpus; c++) {
			struct tl_row_plan *row = &p->views[v].cpu[c];
			if (row->cur.n)
				KP_PUSH(row->v, row->n, row->cap, row->cur);
			row->cur.n = 0;
		}
}

void tl_plan_free(struct tl_plan *p)
{
	for (size_t v = 0; v < p->nviews; v++) {
		for (uint32_t c = 0; c < p->ncpus; c++) {
			free(p->views[v].cpu[c].v);
			free(p->views[v].cpu[c].ticks[0].cols);
			free(p->views[v].cpu[c].ticks[1].cols);
		}
		free(p->views[v].cpu);
		free(p->views[v].thread_cycles);
	}
	free(p->views);
	free(p->first);
	free(p->res.v);
	*p = (struct tl_plan){ 0 };
}
