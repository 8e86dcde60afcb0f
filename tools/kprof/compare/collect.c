/*
 * collect.c - each run's figures for `kprof compare` (compare.h), read
 * from the figures the report prints (metrics/metrics.h), each with its
 * variance estimated within the run, for comparing a run with a run:
 *
 *   hot         a function's share p of the ProfileTime periods (Hot
 *               spots): binomial, p (1 - p) / n with Kish's effective n
 *               (the report's interval of the same share)
 *   contention  a lock's contended share of its traced acquisitions (Spin
 *               locks): binomial, p (1 - p) / traced.  Sampling traces
 *               contended acquisitions more often than the others, so
 *               this share is biased toward them; hence also
 *   contention  the share estimated over all its acquisitions, as the
 *   estimate    report's "estimate" line: R = sum(w y) / sum(w) over the
 *               traced records (w: what each stands for, y: contended),
 *               variance by the delta method for a ratio of
 *               Horvitz-Thompson totals (each acquisition traced with
 *               probability 1/w): sum(w (w - 1) (y - R)^2) / sum(w)^2
 *   wait, hold  a lock's mean wait (of the traced acquisitions that waited,
 *               less stalls) and mean hold (of all traced): s^2 / n of the
 *               traced records
 *   latency     a thread's mean ready-to-running delay (Scheduling
 *               latency): s^2 / n of its delays
 *   cpu         a thread's share of the CPUs' traced time (Threads): its
 *               runs taken as a compound Poisson process, so the variance
 *               of its total is the sum of its runs' squared lengths
 *   noise       scenario=noise: a CPU's gaps over its scanned time, per
 *               pass (Noise; KprofNoiseScan): its gaps a compound Poisson
 *               process, the variance the kept gaps' squared lengths (the
 *               unkept are the shortest) over the time scanned squared
 *   timer_mean  its mean timer lateness (KprofTimerLatency): the kernel
 *               keeps no spread, so an interval only over sets of runs
 *
 * Threads of one name are one figure (ids differ between runs, names do
 * not); locks are named as the report names them.  The workload's own
 * events are user.c's.  With --by only those are compared.  Both put
 * their figures through table.c.
 */
#include "tools/kprof/compare/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/noise/noise.h"
#include "tools/kprof/util/alloc.h"

/* Mean and the variance of the mean of n values with sum s, squares ss. */
static double mean_var(double s, double ss, double n, double *var)
{
	double mean = s / n;
	*var = n > 1 ? (ss - s * mean) / (n - 1) / n : NAN;
	*var = *var < 0 ? 0 : *var;
	return mean;
}

static void hot(struct kp_cmp_table *t, int side, size_t run, const struct kp_runlog *r)
{
	double w = (double)r->hot_all.weight, neff = r->hot_all.w2 > 0 ? w * w / r->hot_all.w2 : 0;
	const char *name;

	if (!r->syms || !w)
		return;
	for (size_t i = 0; i < r->nhot; i++) {
		if (!r->hot[i].known || !kp_symbols_lookup(r->syms, r->hot[i].func, &name, NULL, NULL))
			continue;
		double p = (double)r->hot[i].weight / w;
		kp_cmp_put(t, side, run, KP_CMP_HOT, name, p, p * (1 - p) / neff);
	}
}

static void locks(struct kp_cmp_table *t, int side, size_t run, const struct kp_runlog *r)
{
	char name[200];
	double hz = r->m.hz;

	for (size_t i = 0, j; i < r->nlocks && hz > 0; i = j) {
		double ws = 0, wss = 0, wn = 0, hs = 0, hss = 0, var, est = 0, est_c = 0, var_a = 0, var_c = 0;
		size_t contended = 0;
		for (j = i; j < r->nlocks && r->locks[j].lock == r->locks[i].lock; j++) {
			const struct kp_lock_rec *k = &r->locks[j];
			double wt = (double)k->wait / hz, ht = (double)k->hold / hz;
			contended += k->contended;
			double ww = (double)k->weight * (double)(k->weight - 1);
			est += (double)k->weight, var_a += ww;
			est_c += k->contended ? (double)k->weight : 0, var_c += k->contended ? ww : 0;
			hs += ht, hss += ht * ht;
			if (k->wait)
				ws += wt, wss += wt * wt, wn++;
		}
		double n = (double)(j - i), p = (double)contended / n;
		kp_run_lock_name(r, r->locks[i].lock, name, sizeof(name));
		kp_cmp_put(t, side, run, KP_CMP_CONTENTION, name, p, p * (1 - p) / n);
		double share = kp_lock_est_share(est, est_c, var_a, var_c, &var);
		kp_cmp_put(t, side, run, KP_CMP_CONTENTION_EST, name, share, var);
		double hold = mean_var(hs, hss, n, &var);
		kp_cmp_put(t, side, run, KP_CMP_HOLD, name, hold, var);
		if (wn) {
			double wait = mean_var(ws, wss, wn, &var);
			kp_cmp_put(t, side, run, KP_CMP_WAIT, name, wait, var);
		}
	}
}

static void threads(struct kp_cmp_table *t, int side, size_t run, const struct kp_runlog *r)
{
	const struct kp_model *m = &r->m;
	double whole = (double)m->switching_cpus * (double)(m->end - m->begin), hz = m->hz;
	double *sq = kp_xcalloc(m->nthreads ? m->nthreads : 1, sizeof(*sq));

	if (!m->switches || whole <= 0 || hz <= 0) {
		free(sq);
		return;
	}
	for (uint32_t c = 0; c < m->ncpus; c++)
		for (size_t i = 0; i < m->cpu[c].nruns; i++) {
			const struct kp_run *u = &m->cpu[c].runs[i];
			const struct kp_model_thread *th = kp_model_thread(m, u->tid);
			double len = (double)(u->end - u->start) - (double)u->no_trace - (double)u->stalled;
			if (th)
				sq[th - m->threads] += len * len;
		}
	/* the threads of one name together: sums per name (found by a hash
	 * of the name: a scan per thread was quadratic), then one figure for
	 * each name one of whose threads ran */
	struct by_name { char name[64]; bool ran; double cyc, csq, ln, ls, lss; } *g = kp_xcalloc(m->nthreads + 1, sizeof(*g));
	struct kp_index ix = { 0 };
	size_t ng = 0;
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct kp_model_thread *u = &m->threads[i];
		char name[64];
		size_t it, k;
		kp_report_thread_name(u, true, name, sizeof(name));
		uint64_t h = kp_hash_str(name, 0);
		for (k = kp_index_first(&ix, h, &it); k != KP_INDEX_NONE && strcmp(g[k].name, name);)
			k = kp_index_next(&ix, h, &it);
		if (k == KP_INDEX_NONE) {
			kp_index_add(&ix, h, k = ng++);
			snprintf(g[k].name, sizeof(g[k].name), "%s", name);
		}
		g[k].ran |= u->in || u->out || u->lat.n;
		g[k].cyc += (double)u->cycles, g[k].csq += sq[i];
		g[k].ln += (double)u->lat.n, g[k].ls += (double)u->lat.total / hz, g[k].lss += u->lat.total2 / (hz * hz);
	}
	for (size_t k = 0; k < ng; k++) {
		double var;
		if (!g[k].ran)
			continue;
		kp_cmp_put(t, side, run, KP_CMP_CPU, g[k].name, g[k].cyc / whole, g[k].csq / (whole * whole));
		if (g[k].ln) {
			double lat = mean_var(g[k].ls, g[k].lss, g[k].ln, &var);
			kp_cmp_put(t, side, run, KP_CMP_LATENCY, g[k].name, lat, var);
		}
	}
	kp_index_free(&ix);
	free(g);
	free(sq);
}

static void noise(struct kp_cmp_table *t, int side, size_t run, const struct kp_runlog *r)
{
	struct kp_noise_cpu *cpus[KP_NOISE_PASSES];
	uint32_t n = r->log.ncpus;
	double *sq = kp_xcalloc((size_t)KP_NOISE_PASSES * (n ? n : 1), sizeof(*sq));
	char name[64];

	if (kp_noise_gather((struct kp_log *)&r->log, cpus)) {
		/* the kept gaps' squared lengths, per pass and CPU */
		for (uint32_t cpu = 0; cpu < n; cpu++) {
			struct kp_cpu_cursor c;
			KPROF_NOISE_GAP g;
			kp_cursor_init(&c, (struct kp_log *)&r->log, cpu);
			while (kp_noise_next_gap(&c, &g)) {
				if (g.Pass >= 1 && g.Pass <= KP_NOISE_PASSES)
					sq[(size_t)(g.Pass - 1) * n + cpu] += (double)g.Cycles * (double)g.Cycles;
			}
		}
		for (uint32_t p = 0; p < KP_NOISE_PASSES; p++)
			for (uint32_t cpu = 0; cpu < n; cpu++) {
				const struct kp_noise_cpu *c = &cpus[p][cpu];
				double scanned = (double)c->scan.ScannedCycles;
				if (!c->scanned || scanned <= 0)
					continue;
				snprintf(name, sizeof(name), "cpu %u, pass %u", cpu, p + 1);
				kp_cmp_put(t, side, run, KP_CMP_NOISE, name, (double)c->scan.GapCycles / scanned,
					   sq[(size_t)p * n + cpu] / (scanned * scanned));
			}
		for (uint32_t cpu = 0; cpu < n; cpu++) {
			const KPROF_TIMER_LATENCY *tl = &cpus[0][cpu].timer;
			if (!cpus[0][cpu].timed || !tl->Samples)
				continue;
			snprintf(name, sizeof(name), "cpu %u", cpu);
			kp_cmp_put(t, side, run, KP_CMP_TIMER_MEAN, name, (double)tl->SumNs / tl->Samples / 1e9, NAN);
		}
	}
	kp_noise_free(cpus);
	free(sq);
}

void kp_cmp_collect(struct kp_cmp_table *t, int side, size_t run, const struct kp_runlog *r)
{
	if (!t->by.field) {
		hot(t, side, run, r);
		locks(t, side, run, r);
		threads(t, side, run, r);
		noise(t, side, run, r);
	}
	kp_cmp_collect_user(t, side, run, r);
}

void kp_cmp_table_free(struct kp_cmp_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->m[i].obs[0]), free(t->m[i].obs[1]);
	free(t->m);
	kp_index_free(&t->by_name);
	for (size_t i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t->notes);
	free(t->raw[0]);
	free(t->raw[1]);
}
