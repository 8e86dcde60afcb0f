/*
 * json.c - `kprof compare --json FILE`: the sides and every figure's row,
 * for programs:
 *
 *   {"a": {"path": ..., "runs": [logs]}, "b": {...}, "level": 0.95,
 *    "fail_if_worse_pct": PCT or null,
 *    "by": {"field": "Lock", "a": "ticket", "b": "queued"} or null,
 *    "not_compared": ["A run 2 (...): user event type 1: ...", ...],
 *    "figures": [{"kind": "wait", "name": "hot2",
 *                 "unit": "s", "share", "per_s" or "value",
 *                 "a": .., "b": .., "diff": .., "lo": .., "hi": ..,
 *                 "change_pct": .., "significant": true, "worse": false,
 *                 "method": "...", "n_a": 5, "n_b": 5, "why": null,
 *                 "constant": false, "clipped": false}]}
 *
 * Shares are fractions (0.25), times seconds, rates events per second,
 * a value a user event field's own number; lo and hi are null when no
 * interval could be made (why says why); change_pct null when A is 0.
 * constant: every value of A one number and every value of B one number
 * (no interval: B - A is exact); clipped: a share's limits were cut to
 * -1..1.
 */
#include "tools/kprof/compare/compare.h"

#include <math.h>

#include "tools/kprof/util/json.h"
#include "tools/kprof/util/outfile.h"

static void num(FILE *f, const char *key, double v, bool ok)
{
	fprintf(f, ", \"%s\": ", key);
	if (ok && isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
}

static void side_json(FILE *f, const char *key, const struct kp_cmp_side *s)
{
	fprintf(f, "\"%s\": {\"path\": ", key);
	kp_json_string(f, s->path);
	fputs(", \"runs\": [", f);
	for (size_t i = 0; i < s->n; i++) {
		fputs(i ? ", " : "", f);
		kp_json_string(f, s->logs[i]);
	}
	fputs("]}", f);
}

int kp_cmp_json(const char *path, const struct kp_cmp_side *side, const struct kp_cmp_table *t,
		const struct kp_cmp_row *rows, size_t n, double fail_pct)
{
	FILE *f = kp_out_open(path);

	if (!f)
		return 3;
	fputs("{", f);
	side_json(f, "a", &side[0]);
	fputs(", ", f);
	side_json(f, "b", &side[1]);
	fputs(", \"level\": 0.95", f);
	num(f, "fail_if_worse_pct", fail_pct, fail_pct >= 0);
	fputs(", \"by\": ", f);
	if (t->by.field) {
		fputs("{\"field\": ", f);
		kp_json_string(f, t->by.field);
		fputs(", \"a\": ", f);
		kp_json_string(f, t->by.value[0]);
		fputs(", \"b\": ", f);
		kp_json_string(f, t->by.value[1]);
		fputs("}", f);
	} else {
		fputs("null", f);
	}
	fputs(", \"not_compared\": [", f);
	for (size_t i = 0; i < t->nnotes; i++) {
		fputs(i ? ", " : "", f);
		kp_json_string(f, t->notes[i]);
	}
	fputs("]", f);
	fputs(", \"figures\": [", f);
	for (size_t i = 0; i < n; i++) {
		const struct kp_cmp_row *r = &rows[i];
		fprintf(f, "%s\n  {\"kind\": \"%s\", \"name\": ", i ? "," : "", kp_cmp_kind_name(r->metric->kind));
		kp_json_string(f, r->metric->name);
		static const char *const units[] = { [KP_CMP_SHARE] = "share", [KP_CMP_SECONDS] = "s",
						     [KP_CMP_PER_S] = "per_s", [KP_CMP_VALUE] = "value" };
		fprintf(f, ", \"unit\": \"%s\"", units[kp_cmp_unit(r->metric->kind)]);
		num(f, "a", r->iv.a, r->na || r->ok);
		num(f, "b", r->iv.b, r->nb || r->ok);
		num(f, "diff", r->iv.diff, r->na && r->nb);
		num(f, "lo", r->iv.lo, r->ok);
		num(f, "hi", r->iv.hi, r->ok);
		num(f, "change_pct", r->change_pct, r->iv.a != 0);
		fprintf(f, ", \"significant\": %s, \"worse\": %s, \"method\": ", r->significant ? "true" : "false",
			fail_pct >= 0 && r->significant && r->iv.diff > 0 && r->change_pct > fail_pct ? "true" : "false");
		kp_json_string(f, kp_cmp_method(t, r->metric->kind));
		fprintf(f, ", \"n_a\": %zu, \"n_b\": %zu, \"why\": ", r->na, r->nb);
		if (r->ok)
			fputs("null", f);
		else
			kp_json_string(f, r->why);
		fprintf(f, ", \"constant\": %s, \"clipped\": %s}", r->constant ? "true" : "false",
			r->clipped ? "true" : "false");
	}
	fputs("\n]}\n", f);
	return kp_out_close(f, path);
}
