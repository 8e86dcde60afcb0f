/*
 * report.c - `kprof report LOG --kernel ELF [-o FILE]`: the report people
 * read, in sections:
 *
 *   1. the run, and up front what was lost or damaged ("nothing lost" when so)
 *   2. hot spots: SampledProfile and PmcInterrupt samples by function
 *   3. profile objects: each KprofProfileObject's buckets by function
 *   4. locks, 5. resources (report_locks.c, report_resources.c)
 *   6. threads: CPU time, switches and why they left the CPU (CSwitch)
 *   7. CPUs: busy and idle shares
 *
 * This file writes the header and puts the sections together (and the
 * --summary form); report_hot.c, report_threads.c and report_util.c hold
 * the rest.  Lines stay within KP_REPORT_WIDTH columns, and every order is total
 * (ties broken by address or id), so the same log and kernel always give
 * the same bytes: tests/tools/test_report compares them with golden files.
 */
#include "tools/kprof/report.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "include/kprof/exit_status.h"
#include "tools/kprof/fields.h"
#include "tools/kprof/output.h"
#include "tools/kprof/report_internal.h"

/* ------------------------------------------------------------ 1. header */

static const char *status_name(uint32_t status)
{
	switch (status) {
	case KPROF_EXIT_SUCCESS: return "success";
	case KPROF_EXIT_FAILURE: return "FAILURE (a scenario or self-test check failed)";
	case KPROF_EXIT_PANIC: return "PANIC (exception or bug check)";
	case KPROF_EXIT_CONFIG: return "CONFIG (the command line was rejected)";
	case KPROF_EXIT_LOADER: return "LOADER (the UEFI loader could not start the kernel)";
	default: return "unknown status";
	}
}

static void header_run(FILE *f, struct kp_log *log, const struct kp_options *o)
{
	const struct kprof_run_header *h = &log->header;
	char line[400];

	fprintf(f, "kprof report\n\n");
	fprintf(f, "%-10s%s\n", "log", o->input);
	fprintf(f, "%-10s%s\n", "kernel", o->kernel);
	if (!log->have_header) {
		fprintf(f, "%-10s%s\n", "run", "NO RUN HEADER: CPU count, TSC rate and command line unknown");
	} else {
		snprintf(line, sizeof(line), "%u CPU%s, TSC %" PRIu64 " Hz, trace mode %s, %u sub-buffers of %u KiB per CPU",
			 h->cpu_count, h->cpu_count == 1 ? "" : "s", h->tsc_hz,
			 h->trace_mode == KPROF_TRACE_DUMP ? "dump" : "stream", h->buffers_per_cpu, h->buffer_size / 1024);
		kp_rp_wrapped(f, "run", 10, line);
		kp_rp_wrapped(f, "cmdline", 10, log->cmdline[0] ? log->cmdline : "(empty: defaults)");
		fprintf(f, "%-10s%s\n", "build", log->build_id[0] ? log->build_id : "(none)");
	}
	if (log->have_run_end)
		fprintf(f, "%-10s%s (0x%02x)\n", "ended", status_name(log->run_end.status), log->run_end.status);
	else
		fprintf(f, "%-10s%s\n", "ended", "NO RUN END FRAME: the run did not finish sending (see frames)");
}

static void header_trace(FILE *f, struct kp_log *log, const struct kp_totals *t, const struct span *s)
{
	uint64_t first = 0, last = 0;
	bool any = false;
	char buf[40], line[200];

	for (uint32_t i = 0; i < log->ncpus; i++) {
		if (!s[i].any)
			continue;
		if (!any || s[i].first < first)
			first = s[i].first;
		if (!any || s[i].last > last)
			last = s[i].last;
		any = true;
	}
	snprintf(line, sizeof(line), "%" PRIu64 " records from %u CPU%s, %zu frames, %s ms from the first record to the last",
		 t->records, t->cpus_with_records, t->cpus_with_records == 1 ? "" : "s", log->frames,
		 kp_rp_ms(log, last - first, buf, sizeof(buf)));
	kp_rp_wrapped(f, "trace", 10, line);
}

/* "0, 3" - the CPUs without an end frame (their drop counts never came);
 * empty when every CPU's came. */
static void cpus_without_end(const struct kp_log *log, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < log->ncpus && len < size; i++)
		if (!log->cpus[i].have_end)
			len += (size_t)snprintf(buf + len, size - len, "%s%u", len ? ", " : "", i);
}

static void loss_counts(FILE *f, struct kp_log *log, const struct kp_totals *t)
{
	char line[400];

	snprintf(line, sizeof(line), "LOST %" PRIu64 " records: buffers full %" PRIu64 ", too large %" PRIu64
		 ", not started %" PRIu64 "%s", t->lost_total, t->lost[KPROF_LOSS_BUFFERS_FULL],
		 t->lost[KPROF_LOSS_TOO_LARGE], t->lost[KPROF_LOSS_NOT_STARTED],
		 t->stuck ? "; some reserved records were never committed" : "");
	kp_rp_wrapped(f, "lost", 10, line);
	for (uint32_t i = 0; i < log->ncpus; i++) {
		const struct kp_cpu *c = &log->cpus[i];
		uint64_t n = 0;
		for (int k = 0; c->have_end && k < KPROF_LOSS_CAUSES; k++)
			n += c->end.lost[k];
		if (n || (c->have_end && c->end.stuck))
			fprintf(f, "%-10scpu %u: %" PRIu64 " lost, %" PRIu64 " never committed\n", "", i, n,
				c->have_end ? c->end.stuck : 0);
	}
}

/* Records the kernel dropped (its end frames count them), then frames
 * damaged or missing on the way: "nothing lost" only when both are known
 * to be none. */
static void header_losses(FILE *f, struct kp_log *log, const struct kp_totals *t)
{
	char line[400], missing[200];

	cpus_without_end(log, missing, sizeof(missing));
	if (t->lost_total || t->stuck)
		loss_counts(f, log, t);
	if (missing[0]) {
		bool some_end = false;
		for (uint32_t i = 0; i < log->ncpus; i++)
			some_end |= log->cpus[i].have_end;
		snprintf(line, sizeof(line), "UNKNOWN for CPU %s (no end frame: the kernel's count of dropped records "
			 "never arrived)%s", missing, some_end && !t->lost_total && !t->stuck ? "; none dropped on the others" : "");
		kp_rp_wrapped(f, t->lost_total || t->stuck ? "" : "lost", 10, line);
	} else if (!log->ncpus) {
		fprintf(f, "%-10s%s\n", "lost", "UNKNOWN: no CPU sent any frame");
	} else if (!t->lost_total && !t->stuck) {
		fprintf(f, "%-10s%s\n", "lost", log->nissues ? "the kernel dropped no records (frames below were lost "
							  "or damaged on the way)"
							: "nothing lost: every record written was recorded");
	}
	if (!log->nissues) {
		fprintf(f, "%-10s%s\n", "frames", "no corrupt, truncated or missing frames");
		return;
	}
	snprintf(line, sizeof(line), "%zu PROBLEM%s: the records of damaged or missing frames are not in this report",
		 log->nissues, log->nissues == 1 ? "" : "S");
	kp_rp_wrapped(f, "frames", 10, line);
	for (size_t i = 0; i < log->nissues; i++) {
		const struct kp_issue *is = &log->issues[i];
		snprintf(line, sizeof(line), "%s at byte %" PRIu64 ": %s", kp_issue_kind_name(is->kind), is->offset,
			 is->what);
		kp_rp_wrapped(f, "", 12, line);
	}
}

static void header_cpus(FILE *f, struct kp_log *log, const uint64_t *per_cpu)
{
	for (uint32_t i = 0; i < log->ncpus; i++) {
		const struct kp_cpu *c = &log->cpus[i];
		fprintf(f, "%-10scpu %u: %" PRIu64 " records in %zu buffer frame%s, %s\n", i ? "" : "cpus", i, per_cpu[i],
			c->nbuffers, c->nbuffers == 1 ? "" : "s",
			c->have_end ? "end frame received" : "NO END FRAME (its losses are unknown)");
	}
}

/* The headline lines ("most contended: ...") of a section, which the
 * section functions write first: run it into memory and keep those. */
static void summary_headlines(FILE *f, struct kp_log *log, const struct kp_symbols *syms, const char *what,
			      void (*section)(FILE *, struct kp_log *, const struct kp_symbols *))
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	bool any = false;

	if (!m)
		return;
	section(m, log, syms);
	fclose(m);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "most ", 5)) {
			fprintf(f, "%s%s %s\n", any ? "" : "\n", what, line);
			any = true;
		}
	free(text);
}

/* `kprof report --summary`: what `make run` prints at the end. */
static void write_summary(FILE *f, struct kp_log *log, const struct kp_symbols *syms)
{
	size_t n = log->ncpus ? log->ncpus : 1;
	uint64_t *per_cpu = kp_xcalloc(n, sizeof(*per_cpu));
	struct span *sp = kp_xcalloc(n, sizeof(*sp));
	struct sched s = { .cpus = kp_xcalloc(n, sizeof(*s.cpus)), .spans = sp };
	struct kp_totals t;

	kp_totals(log, &t, per_cpu);
	kp_rp_spans(log, sp);
	fprintf(f, "== kprof report: summary (the whole report: kprof report LOG --kernel ELF) ==\n");
	header_trace(f, log, &t, sp);
	header_losses(f, log, &t);
	kp_rp_hot_summary(f, log, syms);
	summary_headlines(f, log, syms, "locks:", kp_report_locks);
	summary_headlines(f, log, syms, "resources:", kp_report_resources);
	kp_rp_sched_collect(log, &s);
	if (s.switches) {
		uint64_t total = 0;
		for (uint32_t i = 0; i < log->ncpus; i++)
			if (s.cpus[i].any_switch)
				total += s.spans[i].last - s.spans[i].first;
		qsort(s.threads.v, s.threads.n, sizeof(*s.threads.v), kp_rp_cmp_thread);
		fprintf(f, "\nbusiest threads:\n");
		fprintf(f, "%6s %-16s %-16s %10s %7s %6s %5s %6s %4s\n", "thread", "name", "process", "cpu ms", "%", "in",
			"prio", "out", "wait");
		for (size_t i = 0, shown = 0; i < s.threads.n && shown < TOP_SUMMARY; i++)
			if (s.threads.v[i].in || s.threads.v[i].out) {
				kp_rp_thread_line(f, log, &s.threads.v[i], total);
				shown++;
			}
	}
	kp_rp_sched_free(&s);
	free(sp);
	free(per_cpu);
}

static void write_report(FILE *f, struct kp_log *log, const struct kp_symbols *syms, const struct kp_options *o)
{
	size_t n = log->ncpus ? log->ncpus : 1;
	uint64_t *per_cpu = kp_xcalloc(n, sizeof(*per_cpu));
	struct span *sp = kp_xcalloc(n, sizeof(*sp));
	struct sched s = { .cpus = kp_xcalloc(n, sizeof(*s.cpus)), .spans = sp };
	struct kp_totals t;

	kp_totals(log, &t, per_cpu); /* walks every record: any malformed one is an issue now */
	kp_rp_spans(log, sp);
	header_run(f, log, o);
	header_trace(f, log, &t, sp);
	header_losses(f, log, &t);
	header_cpus(f, log, per_cpu);
	kp_rp_hot_spots(f, log, syms);
	kp_rp_profile_objects(f, log, syms);
	kp_report_locks(f, log, syms);
	kp_report_resources(f, log, syms);
	kp_rp_sched_collect(log, &s);
	kp_rp_threads(f, log, &s);
	kp_rp_cpus(f, log, &s);
	kp_rp_sched_free(&s);
	free(sp);
	free(per_cpu);
}

int kp_cmd_report(struct kp_log *log, const struct kp_options *o)
{
	struct kp_symbols *syms;
	char err[512];
	FILE *out = stdout;

	if (!o->kernel) {
		fprintf(stderr, "kprof: report needs --kernel ELF: the kernel the log was recorded with, with its "
				"symbols (build/kernel.elf), to name the functions\n");
		return 2;
	}
	if (!(syms = kp_symbols_open(o->kernel, err, sizeof(err)))) {
		fprintf(stderr, "kprof: --kernel %s\n", err);
		return 3;
	}
	if (o->output && !(out = fopen(o->output, "w"))) {
		perror(o->output);
		kp_symbols_close(syms);
		return 3;
	}
	if (o->summary)
		write_summary(out, log, syms);
	else
		write_report(out, log, syms, o);
	kp_symbols_close(syms);
	if (out != stdout ? fclose(out) != 0 : fflush(out) != 0) {
		perror(o->output ? o->output : "stdout");
		return 3;
	}
	return kp_summary(log, o, o->output);
}
