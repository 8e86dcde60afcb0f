/*
 * compare.c - `kprof compare A B [--kernel ELF] [--kernel-b ELF]
 * [--json FILE] [--flame FILE.svg] [--fail-if-worse PCT] [-o FILE]`:
 * every figure of A and B (collect.c) with B - A and its 95% interval
 * (stats.c), significant only when the interval excludes zero.
 *
 * Sets against sets (at least two runs a side): the interval is over the
 * runs' values, Welch's t.  A run against a run: within the runs, from
 * each figure's variance in its run.  A run against a set is refused:
 * neither interval fits it.  Hot spots are the functions with at least
 * 0.5% of the periods on either side (fewer would be noise to read).
 *
 * Every figure is a cost (time in a function, waiting, holding, ready,
 * on a CPU), so a rise is worse: --fail-if-worse PCT exits 1 when a
 * significant rise is more than PCT% of A (any rise from 0).  Exit status
 * otherwise 0; 2 bad usage; 3 a log, kernel or output that could not be
 * read or written.
 */
#include "tools/kprof/compare/compare.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/format.h"
#include "tools/kprof/util/outfile.h"
#include "tools/kprof/util/sort.h"

#define USAGE "compare A B [--kernel ELF] [--kernel-b ELF] [--force-kernel] [--json FILE] [--flame FILE.svg] " \
	      "[--fail-if-worse PCT] [-o FILE]"
#define HOT_MIN 0.005 /* hot spots shown: at least this share on a side */

static const char *const section[KP_CMP_KINDS] = {
	[KP_CMP_HOT] = "hot spots: share of the profile periods",
	[KP_CMP_CONTENTION] = "locks: contended share of the traced acquisitions",
	[KP_CMP_WAIT] = "locks: mean wait of the traced acquisitions that waited",
	[KP_CMP_HOLD] = "locks: mean hold of the traced acquisitions",
	[KP_CMP_LATENCY] = "scheduling latency: mean from ready to running",
	[KP_CMP_CPU] = "threads: share of the CPUs' traced time",
};

const char *kp_cmp_method(const struct kp_cmp_table *t, enum kp_cmp_kind k)
{
	static const char *const within[KP_CMP_KINDS] = {
		[KP_CMP_HOT] = "normal interval of a difference of proportions, Kish's effective n of the "
			       "Count-weighted samples",
		[KP_CMP_CONTENTION] = "normal interval of a difference of proportions of the traced acquisitions",
		[KP_CMP_WAIT] = "normal interval of a difference of means, the traced waits' variance",
		[KP_CMP_HOLD] = "normal interval of a difference of means, the traced holds' variance",
		[KP_CMP_LATENCY] = "normal interval of a difference of means, the delays' variance",
		[KP_CMP_CPU] = "normal interval, each thread's runs a compound Poisson process (variance: "
			       "the sum of its runs' squared lengths)",
	};
	if (t->runs[0] > 1)
		return "Welch's t interval of the difference of the mean of the per-run values";
	return within[k];
}

/* The row of one figure. */
static void make_row(const struct kp_cmp_table *t, const struct kp_cmp_metric *m, struct kp_cmp_row *row,
		     double *va, double *vb)
{
	bool zero = kp_cmp_zero_if_absent(m->kind);
	size_t n[2] = { 0, 0 };
	double *v[2] = { va, vb };

	*row = (struct kp_cmp_row){ .metric = m };
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < t->runs[s]; i++)
			if (m->obs[s][i].have || zero)
				v[s][n[s]++] = m->obs[s][i].have ? m->obs[s][i].value : 0;
	row->na = n[0];
	row->nb = n[1];
	for (int s = 0; s < 2; s++) { /* the means shown, even without an interval */
		double sum = 0;
		for (size_t i = 0; i < n[s]; i++)
			sum += v[s][i];
		*(s ? &row->iv.b : &row->iv.a) = n[s] ? sum / (double)n[s] : 0;
	}
	row->iv.diff = row->iv.b - row->iv.a;
	if (t->runs[0] > 1) {
		row->ok = kp_welch(va, n[0], vb, n[1], &row->iv) || (row->iv.diff = row->iv.b - row->iv.a, false);
		row->why = "fewer than two runs a side have it";
	} else {
		struct kp_cmp_obs a = m->obs[0][0], b = m->obs[1][0];
		if (zero && !a.have)
			a = (struct kp_cmp_obs){ true, 0, 0 };
		if (zero && !b.have)
			b = (struct kp_cmp_obs){ true, 0, 0 };
		row->ok = a.have && b.have && kp_normal_diff(a.value, a.var, b.value, b.var, &row->iv);
		row->why = !a.have || !b.have ? "not in both runs" : "one event: no variance within the run";
	}
	row->significant = row->ok && (row->iv.lo > 0 || row->iv.hi < 0);
	row->change_pct = row->iv.a != 0 ? 100 * row->iv.diff / fabs(row->iv.a) : row->iv.diff != 0 ? INFINITY : 0;
}

/* Kind, then significant first, then the largest change, then name. */
static int row_order(const void *x, const void *y)
{
	const struct kp_cmp_row *a = x, *b = y;
	if (a->metric->kind != b->metric->kind)
		return a->metric->kind < b->metric->kind ? -1 : 1;
	if (a->significant != b->significant)
		return a->significant ? -1 : 1;
	double da = fabs(a->iv.diff), db = fabs(b->iv.diff);
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->metric->name, b->metric->name);
}

/* A hot spot worth a row: HOT_MIN on either side, in a run's mean. */
static bool shown(const struct kp_cmp_row *r)
{
	return r->metric->kind != KP_CMP_HOT || fabs(r->iv.a) >= HOT_MIN || fabs(r->iv.b) >= HOT_MIN;
}

/* v as a share ("12.34%") or a time in the unit of `scale` ("1.234 ms"). */
static const char *value_text(char *buf, size_t size, double v, bool share, double scale, bool sign)
{
	static const struct { double per_s; const char *name; } units[] = {
		{ 1, "s" }, { 1e3, "ms" }, { 1e6, "us" }, { 1e9, "ns" },
	};
	size_t u = 0;

	if (share) {
		snprintf(buf, size, sign ? "%+.2f%%" : "%.2f%%", 100 * v);
		return buf;
	}
	while (u + 1 < sizeof(units) / sizeof(units[0]) && scale * units[u].per_s < 1)
		u++;
	snprintf(buf, size, sign ? "%+.3f %s" : "%.3f %s", v * units[u].per_s, units[u].name);
	return buf;
}

static void print_rows(FILE *f, const struct kp_cmp_table *t, const struct kp_cmp_row *rows, size_t n)
{
	int kind = -1;

	for (size_t i = 0; i < n; i++) {
		const struct kp_cmp_row *r = &rows[i];
		bool share = kp_cmp_is_share(r->metric->kind);
		double scale = fmax(fabs(r->iv.a), fabs(r->iv.b));
		char a[32], b[32], d[32], lo[32], hi[32], iv[80];
		if ((int)r->metric->kind != kind) {
			kind = (int)r->metric->kind;
			fprintf(f, "\n%s\n", section[kind]);
			kp_wrapf(f, "  ", 0, 2, " ", "(95%% interval: %s)", kp_cmp_method(t, r->metric->kind));
			fprintf(f, "  %-32s %11s %11s %12s  %s\n", r->metric->kind == KP_CMP_HOT ? "function"
				: r->metric->kind >= KP_CMP_LATENCY ? "thread" : "lock", "A", "B", "B - A",
				"95% interval of B - A");
		}
		if (strlen(r->metric->name) > 32) /* whole, on a line of its own, with the mark */
			fprintf(f, "%c %s\n", r->significant ? '*' : ' ', r->metric->name);
		const char *name = strlen(r->metric->name) > 32 ? "" : r->metric->name;
		if (r->ok)
			snprintf(iv, sizeof(iv), "%s .. %s", value_text(lo, sizeof(lo), r->iv.lo, share, scale, true),
				 value_text(hi, sizeof(hi), r->iv.hi, share, scale, true));
		else
			snprintf(iv, sizeof(iv), "none: %s", r->why);
		fprintf(f, "%c %-32s %11s %11s %12s  %s\n", r->significant && name[0] ? '*' : ' ', name,
			r->na ? value_text(a, sizeof(a), r->iv.a, share, scale, false) : "-",
			r->nb ? value_text(b, sizeof(b), r->iv.b, share, scale, false) : "-",
			r->na && r->nb ? value_text(d, sizeof(d), r->iv.diff, share, scale, true) : "-", iv);
	}
}

/* Is the row a significant rise of more than pct% of A? */
static bool worse(const struct kp_cmp_row *r, double pct)
{
	return r->significant && r->iv.diff > 0 && r->change_pct > pct;
}

struct cmp_opts {
	const char *kernel, *kernel_b, *json, *flame, *out;
	bool force, fail_set;
	double fail_pct;
};

static int usage(const char *fmt, const char *what)
{
	fprintf(stderr, "kprof: compare ");
	fprintf(stderr, fmt, what);
	fprintf(stderr, "\nusage: kprof %s\n", USAGE);
	return 2;
}

static int parse(int argc, char **argv, struct cmp_opts *o)
{
	static const struct option longopts[] = {
		{ "kernel", required_argument, NULL, 'k' }, { "kernel-b", required_argument, NULL, 'K' },
		{ "force-kernel", no_argument, NULL, 'F' }, { "json", required_argument, NULL, 'j' },
		{ "flame", required_argument, NULL, 'g' }, { "fail-if-worse", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	*o = (struct cmp_opts){ 0 };
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': o->kernel = optarg; break;
		case 'K': o->kernel_b = optarg; break;
		case 'F': o->force = true; break;
		case 'j': o->json = optarg; break;
		case 'g': o->flame = optarg; break;
		case 'o': o->out = optarg; break;
		case 'w':
			o->fail_pct = strtod(optarg, &end);
			if (*end == '%')
				end++;
			if (*end || end == optarg || o->fail_pct < 0)
				return usage("--fail-if-worse takes a percentage (0 or more, e.g. 10), not '%s'", optarg);
			o->fail_set = true;
			break;
		case ':': return usage("needs a value after '%s'", argv[optind - 1]);
		default: return usage("does not take the option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return usage("needs two sides, A and B (each a log, a run's folder or a set's folder)%s", "");
	if (o->flame && !o->kernel)
		return usage("--flame needs --kernel ELF (the functions' names)%s", "");
	return 0;
}

/* Load a side's runs into its table column. */
static int load_side(struct kp_cmp_side *s, struct kp_runlog ***runs, const char *kernel, bool force)
{
	*runs = kp_xcalloc(s->n, sizeof(**runs));
	for (size_t i = 0; i < s->n; i++) {
		(*runs)[i] = kp_xcalloc(1, sizeof(***runs));
		if (kp_run_load((*runs)[i], s->logs[i], kernel, force))
			return 3;
	}
	return 0;
}

static void free_runs(struct kp_runlog **runs, size_t n)
{
	for (size_t i = 0; runs && i < n; i++)
		if (runs[i]) {
			if (runs[i]->path)
				kp_run_free(runs[i]);
			free(runs[i]);
		}
	free(runs);
}

/* The rows, the text, the JSON, the flame graph and the exit status. */
static int cmp_report(const struct cmp_opts *o, const struct kp_cmp_side *side, const struct kp_cmp_table *t,
			 struct kp_runlog **const *runs)
{
	struct kp_cmp_row *rows = kp_xcalloc(t->n ? t->n : 1, sizeof(*rows));
	size_t most = side[0].n > side[1].n ? side[0].n : side[1].n, n = 0, sig = 0, bad = 0;
	double *va = kp_xcalloc(most, sizeof(*va)), *vb = kp_xcalloc(most, sizeof(*vb));
	int rc = 0;
	FILE *f;

	for (size_t i = 0; i < t->n; i++) {
		make_row(t, &t->m[i], &rows[n], va, vb);
		n += shown(&rows[n]);
	}
	kp_sort(rows, n, sizeof(*rows), row_order);
	if (!(f = kp_out_open(o->out))) {
		rc = 3;
		goto out;
	}
	fprintf(f, "kprof compare\nA: %s (%zu run%s)\nB: %s (%zu run%s)\n", side[0].path, side[0].n,
		side[0].n == 1 ? "" : "s", side[1].path, side[1].n, side[1].n == 1 ? "" : "s");
	kp_wrapf(f, "", 0, 0, " ", "B - A with its 95%% interval %s; * marks a difference whose interval excludes 0 "
		 "(significant at the 5%% level, each figure on its own: of 100 figures that do not differ, about 5 "
		 "are marked).%s", t->runs[0] > 1 ? "over the runs (Welch's t)" : "within the two runs",
		 runs[0][0]->syms ? "" : " Hot spots need --kernel ELF.");
	if (t->runs[0] == 1)
		kp_wrap(f, "", 0, 0, " ", "A run against a run: the intervals know only the sampling within each run, "
			"not how runs of one configuration differ from each other, so they mark more differences than "
			"their 5% level (docs/compare.md measures it); compare sets of runs (make run REPEAT=5) to know.");
	print_rows(f, t, rows, n);
	for (size_t i = 0; i < n; i++) {
		sig += rows[i].significant;
		bad += o->fail_set && worse(&rows[i], o->fail_pct);
	}
	fprintf(f, "\nsignificant: %zu of %zu figures\n", sig, n);
	if (o->fail_set) {
		fprintf(f, "worse by more than %g%% (--fail-if-worse): %zu%s\n", o->fail_pct, bad, bad ? ":" : "");
		for (size_t i = 0; i < n; i++)
			if (worse(&rows[i], o->fail_pct))
				fprintf(f, "  %s %s: %+.1f%%\n", kp_cmp_kind_name(rows[i].metric->kind), rows[i].metric->name,
					rows[i].change_pct);
	}
	rc = kp_out_close(f, o->out);
	if (!rc && o->json)
		rc = kp_cmp_json(o->json, side, t, rows, n, o->fail_set ? o->fail_pct : -1);
	if (!rc && o->flame)
		rc = kp_cmp_flame(o->flame, runs[0], side[0].n, runs[1], side[1].n, o->kernel);
	if (!rc && bad)
		rc = 1;
out:
	free(va);
	free(vb);
	free(rows);
	return rc;
}

int kp_cmd_compare(int argc, char **argv)
{
	struct kp_cmp_side side[2] = { 0 };
	struct kp_runlog **runs[2] = { NULL, NULL };
	struct kp_cmp_table t = { 0 };
	struct cmp_opts o;
	int rc;

	if ((rc = parse(argc, argv, &o)))
		return rc;
	for (int s = 0; s < 2 && !rc; s++)
		rc = kp_cmp_side_read(argv[optind + s], &side[s]);
	if (!rc && (side[0].n > 1) != (side[1].n > 1))
		rc = usage("compares a run with a run, or a set of runs with a set: %s", side[0].n > 1
			   ? "A is a set, B one run" : "A is one run, B a set");
	for (int s = 0; s < 2 && !rc; s++)
		rc = load_side(&side[s], &runs[s], s && o.kernel_b ? o.kernel_b : o.kernel, o.force);
	if (!rc) {
		t.runs[0] = side[0].n, t.runs[1] = side[1].n;
		for (int s = 0; s < 2; s++)
			for (size_t i = 0; i < side[s].n; i++)
				kp_cmp_collect(&t, s, i, runs[s][i]);
		rc = cmp_report(&o, side, &t, runs);
	}
	kp_cmp_table_free(&t);
	for (int s = 0; s < 2; s++) {
		free_runs(runs[s], side[s].n);
		kp_cmp_side_free(&side[s]);
	}
	return rc;
}
