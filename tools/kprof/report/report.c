/*
 * report.c - `kprof report LOG --kernel ELF [--summary] [-o FILE]`: the
 * report people read, in sections:
 *
 *   1. the run, and up front what was lost or damaged (header.c)
 *   2. hot spots: SampledProfile and PmcInterrupt samples by function (hot.c)
 *   3. profile objects: each KprofProfileObject's buckets by function (objects.c)
 *   4. spin locks (locks.c), 5. executive resources (resources.c)
 *   6. threads: CPU time, switches and why they left the CPU (threads.c)
 *   7. scheduling latency, 8. waits per reason (latency.c)
 *   9. CPUs: busy, idle, stalled and no-trace shares (cpus.c)
 *  10. user events: the workload's own event types (user_events.c; only
 *      in a log that has them)
 *
 * This file builds the run's model once, hands it to every section, and
 * writes either the whole report or the --summary form `make run` prints,
 * or (-o FILE --with-summary) both from the one model, as make run asks.
 * The sections that read records from the log themselves (locks,
 * resources, hot spots, the clock's seen interval) keep what they made in
 * the report's cache, so the summary reads the log no more for them.
 */
#include "tools/kprof/report/report.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/kprof.h"
#include "tools/kprof/fidelity/fidelity.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/outfile.h"

/* One headline, joined back from its lines, wrapped again after "what ". */
static void put_headline(FILE *f, const char *what, const char *headline, bool *any)
{
	char lead[32];

	if (!headline[0])
		return;
	snprintf(lead, sizeof(lead), "%s ", what);
	if (!*any)
		fputc('\n', f);
	kp_wrap(f, lead, 0, (int)strlen(lead) + 2, " ", headline);
	*any = true;
}

/* The headline lines ("most contended: ...") of a section, which the
 * section functions write first: run it into memory and keep those, with
 * their continuation lines (indented: a headline wraps, never cut). */
static void summary_headlines(FILE *f, const struct kp_report *r, const char *what,
			      void (*section)(FILE *, const struct kp_report *))
{
	char *text = NULL, *line, *save = NULL, headline[1024] = "";
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	bool any = false;

	if (!m)
		return;
	section(m, r);
	fclose(m);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "most ", 5)) {
			put_headline(f, what, headline, &any);
			snprintf(headline, sizeof(headline), "%s", line);
		} else if (headline[0] && !strncmp(line, "  ", 2)) {
			size_t n = strlen(headline);
			snprintf(headline + n, sizeof(headline) - n, " %s", line + 2);
		} else {
			put_headline(f, what, headline, &any);
			headline[0] = 0;
		}
	}
	put_headline(f, what, headline, &any);
	free(text);
}

/* `kprof report --summary`: what `make run` prints at the end. */
static void write_summary(FILE *f, const struct kp_report *r)
{
	struct kp_totals t;
	struct kp_fidelity fid;

	kp_totals(r->log, &t, NULL);
	fprintf(f, "== kprof report: summary (the whole report: kprof report LOG --kernel ELF) ==\n");
	if (kp_symbols_warning(r->syms))
		kp_wrap(f, "", 0, 2, " ", kp_symbols_warning(r->syms));
	kp_report_header_short(f, r, &t);
	kp_fidelity_gather(r->log, r->m, &fid);
	kp_fidelity_summary(f, &fid);
	kp_report_hot_summary(f, r);
	summary_headlines(f, r, "locks:", kp_report_locks);
	summary_headlines(f, r, "resources:", kp_report_resources);
	kp_report_busiest(f, r);
	kp_report_user_events_summary(f, r);
}

static void write_report(FILE *f, const struct kp_report *r, const struct kp_options *o)
{
	uint64_t *per_cpu = kp_xcalloc(r->log->ncpus, sizeof(*per_cpu));
	struct kp_totals t;
	struct kp_fidelity fid;

	kp_totals(r->log, &t, per_cpu);
	kp_report_header(f, r, o->input, o->kernel, &t, per_cpu);
	kp_fidelity_gather(r->log, r->m, &fid);
	kp_fidelity_section(f, &fid);
	kp_report_hot_spots(f, r);
	kp_report_profile_objects(f, r);
	kp_report_locks(f, r);
	kp_report_resources(f, r);
	kp_report_threads(f, r);
	kp_report_latency(f, r);
	kp_report_blocked(f, r);
	kp_report_cpus(f, r);
	kp_report_user_events(f, r);
	kp_report_noise(f, r);
	free(per_cpu);
}

/* The model's build, with the sections' gathering riding its second pass
 * (its sink: the thread table, stalls and sampling settings are made by
 * then, which the sections read). */
struct gather {
	struct kp_report *r;
	unsigned what;                /* KP_GATHER_*                             */
	struct kp_report_gathering g;
};

static void gather_start(void *ctx, const struct kp_model *m)
{
	struct gather *x = ctx;

	(void)m;
	kp_report_gather_start(x->r, x->what, &x->g);
}

static void gather_record(void *ctx, const struct kp_record *r, uint16_t kind)
{
	kp_report_walk_take(&((struct gather *)ctx)->g.walk, r, kind);
}

int kp_cmd_report(struct kp_log *log, const struct kp_options *o)
{
	struct kp_symbols *syms;
	struct kp_model m;
	FILE *out;

	if (!o->kernel) {
		fprintf(stderr, "kprof: report needs --kernel ELF: the kernel the log was recorded with, with its "
				"symbols (build/kernel.elf), to name the functions\n");
		return 2;
	}
	if (o->with_summary && (!o->output || o->summary)) {
		fprintf(stderr, "kprof: report --with-summary writes the whole report to -o FILE and its summary to "
				"stdout: it needs -o, and not --summary\n");
		return 2;
	}
	if (!kp_symbols_for(o->kernel, &syms))
		return 3;
	if (!(out = kp_out_open(o->output))) {
		kp_symbols_close(syms);
		return 3;
	}
	/* Every record is walked here (kp_totals() again in the sections): any
	 * malformed one is an issue before the header reports the issues.  No
	 * section reads a run, a spin-lock wait or a ReadyThread record of the
	 * model, only what is made of them; the lock, resource and hot-spot
	 * sections and the clock line read their records as the model's
	 * second pass meets them (walk.c), and again if their medians ask. */
	struct kp_report_cache cache = { 0 }; /* the whole report and its summary share it */
	struct kp_report r = { .log = log, .m = &m, .syms = syms, .cache = &cache };
	struct gather g = { .r = &r, .what = KP_GATHER_LOCKS | KP_GATHER_RESOURCES | KP_GATHER_SAMPLES |
						     (o->summary ? 0 : KP_GATHER_SEEN) };
	const struct kp_run_sink sink = { .start = gather_start, .record = gather_record, .ctx = &g };
	kp_model_build_with(&m, log, 0, &sink);
	kp_report_walk_end(&g.g.walk); /* the sections' further readings, if any */
	if (o->summary)
		write_summary(out, &r);
	else
		write_report(out, &r, o);
	if (o->with_summary) /* make run: both from one model of the log */
		write_summary(stdout, &r);
	kp_report_cache_free(&cache);
	kp_model_free(&m);
	kp_symbols_close(syms);
	int rc = kp_out_close(out, o->output);
	if (o->with_summary && kp_out_close(stdout, NULL))
		rc = 3;
	return rc ? rc : kp_summary(log, o, o->output);
}

void kp_report_cache_free(struct kp_report_cache *c)
{
	kp_lock_table_free(&c->locks);
	kp_res_table_free(c->resources);
	kp_hot_samples_free(c->samples);
	*c = (struct kp_report_cache){ 0 };
}
