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
 * (kp_model_kind: 0 for a kind no section reads, or one too short).
 */
#include "tools/kprof/report/report.h"

#include <stdlib.h>

#include "tools/kprof/read/frames.h"
#include "tools/kprof/report/quantiles.h"

void kp_report_walk(struct kp_log *log, struct kp_report_reader *readers, size_t n)
{
	/* KPROF_QUANTILE_BUDGET: a whole number of values from 1 (the tests'
	 * many readings); anything else is said on stderr and the default used */
	struct kp_quantiles *q =
		kp_quantiles_new(kp_env_number("KPROF_QUANTILE_BUDGET", KP_QUANTILE_BUDGET, 1, (size_t)1 << 40));
	bool first = true;

	do {
		struct kp_merge mg;
		struct kp_record r;

		for (size_t i = 0; i < n; i++)
			if (readers[i].begin)
				readers[i].begin(readers[i].ctx, &(struct kp_report_stats){ q, i }, first);
		kp_merge_init(&mg, log);
		while (kp_merge_next(&mg, &r)) {
			uint16_t kind = kp_model_kind(&r);
			if (!kind)
				continue;
			for (size_t i = 0; i < n; i++)
				readers[i].take(readers[i].ctx, &r, kind);
		}
		kp_merge_free(&mg);
		first = false;
	} while (kp_quantiles_replay(q));
	for (size_t i = 0; i < n; i++)
		if (readers[i].finish)
			readers[i].finish(readers[i].ctx);
	kp_quantiles_free(q);
}

void kp_report_gather(const struct kp_report *rp, bool clock)
{
	struct kp_report_cache *c = rp->cache;
	struct kp_report_reader r[4];
	size_t n = 0;

	if (!c->have_locks)
		kp_lock_table_reader(rp, &c->locks, &r[n++]), c->have_locks = true;
	if (!c->resources)
		kp_res_table_reader(rp, &c->resources, &r[n++]);
	if (!c->samples)
		kp_hot_samples_reader(rp, &c->samples, &r[n++]);
	if (clock && !c->have_seen && rp->m->hz > 0)
		kp_seen_interval_reader(rp, &c->seen, &r[n++]);
	if (clock)
		c->have_seen = true;
	kp_report_walk(rp->log, r, n);
}
