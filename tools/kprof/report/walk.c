/*
 * walk.c - one walk of the log for every section that reads records
 * itself (the spin locks, the executive resources, the hot spots, the
 * clock's seen interval), so that the report reads the log once for all
 * of them, not once each; and again while their order statistics ask for
 * another reading (quantiles.h).  The readers share one set of order
 * statistics, so that one budget of values kept bounds them all.
 *
 * The records come in time order (kp_merge: the CPUs merged, each CPU's
 * in its own order), each with its kind by the model's rule
 * (kp_model_kind: 0 for a kind no section reads, or one too short).  The
 * first walk may be another's: the report's is the model's second pass,
 * whose sink hands every record on (report.c), so the sections' counting
 * costs no walk of its own.
 */
#include "tools/kprof/report/report.h"

#include <stdlib.h>

#include "tools/kprof/read/frames.h"
#include "tools/kprof/report/quantiles.h"

void kp_report_walk_start(struct kp_report_walk *w, struct kp_log *log, struct kp_report_reader *readers, size_t n)
{
	/* KPROF_QUANTILE_BUDGET: a whole number of values from 1 (the tests'
	 * many readings); anything else is said on stderr and the default used */
	*w = (struct kp_report_walk){ .log = log, .readers = readers, .n = n,
				      .q = kp_quantiles_new(kp_env_number("KPROF_QUANTILE_BUDGET", KP_QUANTILE_BUDGET, 1,
									  (size_t)1 << 40)) };
	for (size_t i = 0; i < n; i++)
		if (readers[i].begin)
			readers[i].begin(readers[i].ctx, &(struct kp_report_stats){ w->q, i }, true);
}

void kp_report_walk_take(struct kp_report_walk *w, const struct kp_record *r, uint16_t kind)
{
	for (size_t i = 0; i < w->n; i++)
		w->readers[i].take(w->readers[i].ctx, r, kind);
}

void kp_report_stats_get(const struct kp_report_stats *st, size_t series, struct kp_stats *s)
{
	struct kp_quantile_result r;

	kp_quantiles_get(st->q, st->space, series, &r);
	*s = (struct kp_stats){ .n = (size_t)r.weight, .median = r.median, .p99 = r.p99, .max = r.max };
}

/* Every record of a kind the model reads, in time order, to w's readers. */
static void walk_once(struct kp_report_walk *w)
{
	struct kp_merge mg;
	struct kp_record r;

	kp_merge_init(&mg, w->log);
	while (kp_merge_next(&mg, &r)) {
		uint16_t kind = kp_model_kind(&r);
		if (kind)
			kp_report_walk_take(w, &r, kind);
	}
	kp_merge_free(&mg);
}

void kp_report_walk_end(struct kp_report_walk *w)
{
	while (kp_quantiles_replay(w->q)) {
		for (size_t i = 0; i < w->n; i++)
			if (w->readers[i].begin)
				w->readers[i].begin(w->readers[i].ctx, &(struct kp_report_stats){ w->q, i }, false);
		walk_once(w);
	}
	for (size_t i = 0; i < w->n; i++)
		if (w->readers[i].finish)
			w->readers[i].finish(w->readers[i].ctx);
	kp_quantiles_free(w->q);
}

void kp_report_walk(struct kp_log *log, struct kp_report_reader *readers, size_t n)
{
	struct kp_report_walk w;

	kp_report_walk_start(&w, log, readers, n);
	walk_once(&w);
	kp_report_walk_end(&w);
}

void kp_report_gather_start(const struct kp_report *rp, unsigned what, struct kp_report_gathering *g)
{
	struct kp_report_cache *c = rp->cache;
	size_t n = 0;

	what &= ~c->have;
	if (what & KP_GATHER_LOCKS)
		kp_lock_table_reader(rp, &c->locks, &g->r[n++]);
	if (what & KP_GATHER_RESOURCES)
		kp_res_table_reader(rp, &c->resources, &g->r[n++]);
	if (what & KP_GATHER_SAMPLES)
		kp_hot_samples_reader(rp, &c->samples, &g->r[n++]);
	if ((what & KP_GATHER_SEEN) && rp->m->hz > 0) /* else 0: no time to show it in */
		kp_seen_interval_reader(rp, &c->seen, &g->r[n++]);
	c->have |= what;
	kp_report_walk_start(&g->walk, rp->log, g->r, n);
}

void kp_report_gather(const struct kp_report *rp, unsigned what)
{
	struct kp_report_gathering g;

	kp_report_gather_start(rp, what, &g);
	walk_once(&g.walk);
	kp_report_walk_end(&g.walk);
}
