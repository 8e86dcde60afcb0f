/*
 * compare.c - `kprof compare A B [--kernel ELF] [--kernel-b ELF]
 * [--json FILE] [--flame FILE.svg] [--fail-if-worse PCT] [--by FIELD=A,B]
 * [-o FILE]`: every figure of A and B (collect.c, user.c) with B - A and
 * its 95% interval (stats.c), significant only when the interval excludes
 * zero.
 *
 * Sets against sets (at least two runs a side): the interval is over the
 * runs' values, Welch's t.  A run against a run: within the runs, from
 * each figure's variance in its run.  A run against a set is refused:
 * neither interval fits it.  Hot spots are the functions with at least
 * 0.5% of the periods on either side (fewer would be noise to read).
 *
 * --by FIELD=A,B compares A's events whose enumeration field FIELD is A
 * with B's whose FIELD is B, the workload's own figures only; A and B may
 * be the same runs, and then the interval is the paired t over them.
 *
 * Every figure is taken as a cost (time in a function, waiting, holding,
 * ready, on a CPU; a workload's own figures too), so a rise is worse:
 * --fail-if-worse PCT exits 1 when a
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
	      "[--fail-if-worse PCT] [--by FIELD=A,B] [-o FILE]"
#define HOT_MIN 0.005 /* hot spots shown: at least this share on a side */

/* Does a run lacking the figure have 0 of it?  A share, a rate; not a
 * rate of a run with user events it could not read. */
static bool zero_in(const struct kp_cmp_table *t, const struct kp_cmp_metric *m, int side, size_t run)
{
	return kp_cmp_zero_if_absent(m->kind) && !(kp_cmp_is_user(m->kind) && t->raw[side] && t->raw[side][run]);
}

/* Whether every value of each side is one number: in a run against a
 * run, a variance of 0 within each (a field constant within each --by
 * value); over sets, the same value in every run of a side.  Its
 * interval would be a point, B - A, marked significant however little
 * it says. */
static bool constant(const struct kp_cmp_table *t, const struct kp_cmp_metric *m, const struct kp_cmp_row *row,
		     const double *va, const double *vb)
{
	if (t->runs[0] == 1)
		return m->obs[0][0].have && m->obs[1][0].have && m->obs[0][0].var == 0 && m->obs[1][0].var == 0;
	if (row->na < 2 || row->nb < 2)
		return false;
	for (size_t i = 1; i < row->na; i++)
		if (va[i] != va[0])
			return false;
	for (size_t i = 1; i < row->nb; i++)
		if (vb[i] != vb[0])
			return false;
	return true;
}

/* The row of one figure. */
static void make_row(const struct kp_cmp_table *t, const struct kp_cmp_metric *m, struct kp_cmp_row *row,
		     double *va, double *vb)
{
	size_t n[2] = { 0, 0 };
	double *v[2] = { va, vb };
	bool median = m->kind == KP_CMP_EV_MEDIAN || m->kind == KP_CMP_SPAN_MEDIAN;
	bool no_spread = m->kind == KP_CMP_TIMER_MEAN; /* the kernel keeps no spread */

	*row = (struct kp_cmp_row){ .metric = m };
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < t->runs[s]; i++)
			if (m->obs[s][i].have || zero_in(t, m, s, i))
				v[s][n[s]++] = m->obs[s][i].have ? m->obs[s][i].value : 0;
	if (t->paired && t->runs[0] > 1) { /* the runs with a value on both sides, in pairs */
		n[0] = n[1] = 0;
		for (size_t i = 0; i < t->runs[0]; i++) {
			bool ha = m->obs[0][i].have || zero_in(t, m, 0, i), hb = m->obs[1][i].have || zero_in(t, m, 1, i);
			if (ha && hb) {
				va[n[0]++] = m->obs[0][i].have ? m->obs[0][i].value : 0;
				vb[n[1]++] = m->obs[1][i].have ? m->obs[1][i].value : 0;
			}
		}
	}
	row->na = n[0];
	row->nb = n[1];
	for (int s = 0; s < 2; s++) { /* the means shown, even without an interval */
		double sum = 0;
		for (size_t i = 0; i < n[s]; i++)
			sum += v[s][i];
		*(s ? &row->iv.b : &row->iv.a) = n[s] ? sum / (double)n[s] : 0;
	}
	row->iv.diff = row->iv.b - row->iv.a;
	if (t->paired && t->runs[0] > 1) {
		row->ok = kp_paired(va, vb, n[0], &row->iv);
		row->why = "fewer than two runs have it on both sides";
	} else if (t->runs[0] > 1) {
		row->ok = kp_welch(va, n[0], vb, n[1], &row->iv) || (row->iv.diff = row->iv.b - row->iv.a, false);
		row->why = "fewer than two runs a side have it";
	} else {
		struct kp_cmp_obs a = m->obs[0][0], b = m->obs[1][0];
		if (!a.have && zero_in(t, m, 0, 0))
			a = (struct kp_cmp_obs){ true, 0, 0 };
		if (!b.have && zero_in(t, m, 1, 0))
			b = (struct kp_cmp_obs){ true, 0, 0 };
		row->ok = a.have && b.have && kp_normal_diff(a.value, a.var, b.value, b.var, &row->iv);
		row->why = !a.have || !b.have ? "not in both runs"
			   : median ? "a median: over sets of runs only"
			   : no_spread ? "no spread within a run (KprofTimerLatency keeps sums): over sets of runs only"
				    : "one event: no variance within the run";
	}
	if (constant(t, m, row, va, vb)) {
		row->ok = false;
		row->constant = true;
		row->why = "constant: every value of A the same, and of B: B - A is exact, with no spread to weigh it "
			   "against";
	}
	if (row->ok && kp_cmp_is_share(m->kind) && (row->iv.lo < -1 || row->iv.hi > 1)) {
		row->clipped = true; /* a difference of two shares is within -1..1 */
		row->iv.lo = fmax(row->iv.lo, -1);
		row->iv.hi = fmin(row->iv.hi, 1);
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

/* Is the row a significant rise of more than pct% of A? */
static bool worse(const struct kp_cmp_row *r, double pct)
{
	return r->significant && r->iv.diff > 0 && r->change_pct > pct;
}

struct cmp_opts {
	const char *kernel, *kernel_b, *json, *flame, *out;
	bool force, fail_set;
	double fail_pct;
	struct kp_cmp_by by;
	char by_field[KPROF_EVENT_FIELD_NAME + 1];
};

/* --by FIELD=A,B: a field name and two value names, each as the trace
 * allows them (user_event.h). */
static bool parse_by(const char *arg, struct cmp_opts *o)
{
	const char *eq = strchr(arg, '='), *comma = eq ? strchr(eq + 1, ',') : NULL;
	size_t nf = eq ? (size_t)(eq - arg) : 0, na = comma ? (size_t)(comma - eq - 1) : 0;
	size_t nb = comma ? strlen(comma + 1) : 0;

	if (!nf || nf > KPROF_EVENT_FIELD_NAME - 1 || !na || na > KPROF_EVENT_VALUE_NAME - 1 || !nb ||
	    nb > KPROF_EVENT_VALUE_NAME - 1 || strchr(comma + 1, ','))
		return false;
	for (size_t i = 0; i < nf; i++)
		if (!kprof_event_name_char_ok(arg[i], KprofNameField, i == 0))
			return false;
	for (size_t i = 0; i < na; i++) /* the characters a value name may hold ('=' and ',' among them) */
		if (!kprof_event_name_char_ok(eq[1 + i], KprofNameValue, i == 0))
			return false;
	for (size_t i = 0; i < nb; i++)
		if (!kprof_event_name_char_ok(comma[1 + i], KprofNameValue, i == 0))
			return false;
	memcpy(o->by_field, arg, nf);
	memcpy(o->by.value[0], eq + 1, na);
	memcpy(o->by.value[1], comma + 1, nb);
	o->by.field = o->by_field;
	return true;
}

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
		{ "by", required_argument, NULL, 'b' }, { NULL, 0, NULL, 0 },
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
		case 'b':
			if (!parse_by(optarg, o))
				return usage("--by takes FIELD=A,B: an enumeration field of the workload's events and "
					     "the value of A's events and of B's (e.g. Lock=ticket,queued), not '%s'", optarg);
			break;
		case 'w':
			o->fail_pct = strtod(optarg, &end);
			if (*end == '%')
				end++;
			if (*end || end == optarg || !isfinite(o->fail_pct) || o->fail_pct < 0)
				return usage("--fail-if-worse takes a percentage (a finite number, 0 or more, e.g. 10), "
					     "not '%s'", optarg);
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
	if (o->flame && o->by.field)
		return usage("--flame draws whole runs; --by compares events within them: give one of the two%s", "");
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
	fprintf(f, "kprof compare\n");
	for (int s = 0; s < 2; s++) {
		fprintf(f, "%c: %s (%zu run%s)", s ? 'B' : 'A', side[s].path, side[s].n, side[s].n == 1 ? "" : "s");
		if (t->by.field)
			fprintf(f, ", its events with %s=%s", t->by.field, t->by.value[s]);
		fputc('\n', f);
	}
	kp_wrapf(f, "", 0, 0, " ", "B - A with its 95%% interval %s; * marks a difference whose interval excludes 0 "
		 "(significant at the 5%% level, each figure on its own: of 100 figures that do not differ, about 5 "
		 "are marked).%s", t->paired && t->runs[0] > 1 ? "over the runs (paired t: A and B are the same runs)"
		 : t->runs[0] > 1 ? "over the runs (Welch's t)" : "within the two runs",
		 t->by.field ? " --by: the workload's own events only." : runs[0][0]->syms ? ""
		 : " Hot spots need --kernel ELF.");
	if (t->runs[0] == 1)
		kp_wrap(f, "", 0, 0, " ", "A run against a run: the intervals know only the sampling within each run, "
			"not how runs of one configuration differ from each other, so they mark more differences than "
			"their 5% level (docs/compare.md measures it); compare sets of runs (make run REPEAT=5) to know.");
	kp_cmp_print_rows(f, t, rows, n);
	for (size_t i = 0; i < n; i++) {
		sig += rows[i].significant;
		bad += o->fail_set && worse(&rows[i], o->fail_pct);
	}
	if (t->nnotes)
		fprintf(f, "\nnot compared:\n");
	for (size_t i = 0; i < t->nnotes; i++)
		kp_wrap(f, "  ", 0, 4, " ", t->notes[i]);
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

/* Are A and B the same runs (the same logs, in order)? */
static bool same_runs(const struct kp_cmp_side *side)
{
	if (side[0].n != side[1].n)
		return false;
	for (size_t i = 0; i < side[0].n; i++) {
		char *a = realpath(side[0].logs[i], NULL), *b = realpath(side[1].logs[i], NULL);
		bool same = a && b && !strcmp(a, b);
		free(a);
		free(b);
		if (!same)
			return false;
	}
	return true;
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
	bool same = !rc && same_runs(side) && !o.kernel_b; /* B's runs are A's: read once */
	for (int s = 0; s < 2 && !rc; s++)
		if (s && same)
			runs[1] = runs[0];
		else
			rc = load_side(&side[s], &runs[s], s && o.kernel_b ? o.kernel_b : o.kernel, o.force);
	for (int s = 0; s < 2 && !rc; s++)
		if (!s || !same)
			rc = kp_cmp_side_keep(&t, s, &side[s], runs[s]);
		else { /* B is A's runs: the same ones kept */
			for (size_t i = 0; i < side[1].n; i++)
				free(side[1].logs[i]);
			for (size_t i = 0; i < side[0].n; i++)
				side[1].logs[i] = kp_xstrdup(side[0].logs[i]);
			side[1].n = side[0].n;
		}
	if (!rc) {
		t.runs[0] = side[0].n, t.runs[1] = side[1].n;
		t.by = o.by;
		t.paired = o.by.field && same_runs(side);
		for (int s = 0; s < 2; s++) {
			t.raw[s] = kp_xcalloc(side[s].n, sizeof(*t.raw[s]));
			for (size_t i = 0; i < side[s].n; i++)
				kp_cmp_collect(&t, s, i, runs[s][i]);
		}
		for (int s = 0; s < 2 && t.by.field && !rc; s++)
			if (!t.by_seen[s]) {
				fprintf(stderr, "kprof: compare --by %s=%s,%s: no event type of %c (%s) has an enumeration "
						"field %s with the value '%s'\n", t.by.field, t.by.value[0], t.by.value[1],
					s ? 'B' : 'A', side[s].path, t.by.field, t.by.value[s]);
				rc = 2;
			}
		if (!rc)
			rc = cmp_report(&o, side, &t, runs);
	}
	kp_cmp_table_free(&t);
	for (int s = 0; s < 2; s++) {
		if (!s || runs[1] != runs[0])
			free_runs(runs[s], side[s].n);
		kp_cmp_side_free(&side[s]);
	}
	return rc;
}
