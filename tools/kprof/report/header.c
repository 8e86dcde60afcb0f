/*
 * header.c - the report's first lines: the run (CPUs, TSC rate, command
 * line, build, how it ended), the trace's extent, and up front what was
 * lost (per cause and per CPU, from the CPUs' end frames) and which frames
 * were corrupt, truncated or missing, with their byte offsets.  "nothing
 * lost" appears only when every CPU's end frame arrived and nothing was
 * dropped.
 */
#include "tools/kprof/report/report.h"

#include <inttypes.h>
#include <string.h>

#include "include/kprof/exit_status.h"
#include "tools/kprof/util/sort.h"
#include "tools/kprof/util/utf8.h"

/* text after a label in a 10-column (or indent-column) margin, wrapped at
 * spaces to the width */
static void wrap_label(FILE *f, const char *label, int indent, const char *text)
{
	kp_wrap(f, label, indent, indent, " ", text);
}

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

static void header_run(FILE *f, const struct kp_log *log, const char *input, const char *kernel,
		       const struct kp_symbols *syms)
{
	const struct kprof_run_header *h = &log->header;
	char line[400];

	fprintf(f, "kprof report\n\n");
	fprintf(f, "%-10s%s\n", "log", input);
	fprintf(f, "%-10s%s\n", "kernel", kernel);
	if (kp_symbols_warning(syms))
		wrap_label(f, "WARNING", 10, kp_symbols_warning(syms) + strlen("WARNING: "));
	if (!log->have_header) {
		fprintf(f, "%-10s%s\n", "run", "NO RUN HEADER: CPU count, TSC rate and command line unknown");
	} else {
		snprintf(line, sizeof(line), "%u CPU%s, TSC %" PRIu64 " Hz, trace mode %s, %u sub-buffers of %u KiB per CPU",
			 h->cpu_count, h->cpu_count == 1 ? "" : "s", h->tsc_hz,
			 h->trace_mode == KPROF_TRACE_DUMP ? "dump" : "stream", h->buffers_per_cpu, h->buffer_size / 1024);
		wrap_label(f, "run", 10, line);
		/* The log's strings, with their control characters escaped. */
		char shown[4 * sizeof(log->cmdline)];
		wrap_label(f, "cmdline", 10,
			   log->cmdline[0] ? kp_printable(shown, sizeof(shown), log->cmdline) : "(empty: defaults)");
		fprintf(f, "%-10s%s\n", "build",
			log->build_id[0] ? kp_printable(shown, sizeof(shown), log->build_id) : "(none)");
	}
	if (log->have_run_end)
		fprintf(f, "%-10s%s (0x%02x)\n", "ended", status_name(log->run_end.status), log->run_end.status);
	else
		fprintf(f, "%-10s%s\n", "ended", "NO RUN END FRAME: the run did not finish sending (see frames)");
}

static void header_trace(FILE *f, const struct kp_report *r, const struct kp_totals *t)
{
	const struct kp_log *log = r->log;
	uint64_t first = 0, last = 0;
	bool any = false;
	char buf[40], line[200];

	for (uint32_t i = 0; i < r->m->ncpus; i++) {
		const struct kp_model_cpu *c = &r->m->cpu[i];
		if (!c->any)
			continue;
		KP_RANGE_ADD(any, first, last, c->first);
		KP_RANGE_ADD(any, first, last, c->last);
	}
	snprintf(line, sizeof(line), "%" PRIu64 " records from %u CPU%s, %zu frames, %s from the first record to the last",
		 t->records, t->cpus_with_records, t->cpus_with_records == 1 ? "" : "s", log->frames,
		 kp_report_time(log, last - first, buf, sizeof(buf)));
	wrap_label(f, "trace", 10, line);
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

/* Where a CPU's drops are in time: "at 8 places in time, 12.345 ms with no
 * trace", from the drops (read/drops.c) and the model's holes. */
static void where_dropped(const struct kp_report *r, uint32_t cpu, char *buf, size_t size)
{
	const struct kp_log *log = r->log;
	size_t places = 0;
	char ms[32];

	if (log->drops_flagged) {
		snprintf(buf, size, " (not placed: an old kernel)");
		return;
	}
	for (size_t i = 0; i < log->ndrops; i++)
		places += log->drops[i].cpu == cpu;
	buf[0] = 0;
	if (places && cpu < r->m->ncpus && r->m->hz > 0)
		snprintf(buf, size, " at %zu place%s in time (%s with no trace)", places, places == 1 ? "" : "s",
			 kp_report_time(log, r->m->cpu[cpu].no_trace, ms, sizeof(ms)));
}

static void loss_counts(FILE *f, const struct kp_report *r, const struct kp_totals *t)
{
	const struct kp_log *log = r->log;
	char line[400], where[120];

	snprintf(line, sizeof(line), "LOST %" PRIu64 " records: buffers full %" PRIu64 ", too large %" PRIu64
		 ", not started %" PRIu64 "%s", t->lost_total, t->lost[KPROF_LOSS_BUFFERS_FULL],
		 t->lost[KPROF_LOSS_TOO_LARGE], t->lost[KPROF_LOSS_NOT_STARTED],
		 t->stuck ? "; some reserved records were never committed" : "");
	wrap_label(f, "lost", 10, line);
	for (uint32_t i = 0; i < log->ncpus; i++) {
		const struct kp_cpu *c = &log->cpus[i];
		uint64_t n = kp_cpu_lost(c);
		if (!n && !(c->have_end && c->end.stuck))
			continue;
		where_dropped(r, i, where, sizeof(where));
		fprintf(f, "%-10scpu %u: %" PRIu64 " lost%s, %" PRIu64 " never committed\n", "", i, n, n ? where : "",
			c->have_end ? c->end.stuck : 0);
	}
}

/* Records the kernel dropped (its end frames count them), then frames
 * damaged or missing on the way: "nothing lost" only when both are known
 * to be none. */
static void header_losses(FILE *f, const struct kp_report *r, const struct kp_totals *t, const uint64_t *per_cpu)
{
	const struct kp_log *log = r->log;
	char line[400], missing[200];

	cpus_without_end(log, missing, sizeof(missing));
	if (t->lost_total || t->stuck)
		loss_counts(f, r, t);
	if (missing[0]) {
		bool some_end = false;
		for (uint32_t i = 0; i < log->ncpus; i++)
			some_end |= log->cpus[i].have_end;
		snprintf(line, sizeof(line), "UNKNOWN for CPU %s (no end frame: the kernel's count of dropped records "
			 "never arrived)%s", missing, some_end && !t->lost_total && !t->stuck ? "; none dropped on the others" : "");
		wrap_label(f, t->lost_total || t->stuck ? "" : "lost", 10, line);
	} else if (!log->ncpus) {
		fprintf(f, "%-10s%s\n", "lost", "UNKNOWN: no CPU sent any frame");
	} else if (!t->lost_total && !t->stuck && !t->lost_file) {
		fprintf(f, "%-10s%s\n", "lost", log->nissues ? "the kernel dropped no records (frames below were lost "
							  "or damaged on the way)"
							: "nothing lost: every record written was recorded");
	}
	if (t->lost_file) {
		/* A trace file too small: the kernel counted what it left out. */
		snprintf(line, sizeof(line), "NOT IN THE FILE %" PRIu64 " records: the trace file on the stick was full "
			 "(a bigger one keeps them: docs/usb-stick.md)", t->lost_file);
		wrap_label(f, t->lost_total || t->stuck ? "" : "lost", 10, line);
	}
	if (t->lost_link) {
		/* The kernel wrote them (its end frames count them); they were
		 * in frames damaged or missing on the way. */
		int n = snprintf(line, sizeof(line), "LOST ON THE LINK %" PRIu64 " records (written minus decoded):",
				 t->lost_link);
		const char *sep = " ";
		for (uint32_t i = 0; per_cpu && i < log->ncpus && n > 0 && (size_t)n < sizeof(line); i++) {
			const struct kp_cpu *c = &log->cpus[i];
			if (!c->have_end || c->end.records <= per_cpu[i])
				continue;
			n += snprintf(line + n, sizeof(line) - (size_t)n, "%scpu %u: %" PRIu64 " of %" PRIu64, sep, i,
				      c->end.records - per_cpu[i], c->end.records);
			sep = ", ";
		}
		wrap_label(f, "", 10, line);
	}
	if (!log->nissues) {
		fprintf(f, "%-10s%s\n", "frames", "no corrupt, truncated or missing frames");
		return;
	}
	snprintf(line, sizeof(line), "%zu PROBLEM%s: the records of damaged or missing frames are not in this report",
		 log->nissues, log->nissues == 1 ? "" : "S");
	wrap_label(f, "frames", 10, line);
	for (size_t i = 0; i < log->nissues; i++) {
		const struct kp_issue *is = &log->issues[i];
		snprintf(line, sizeof(line), "%s at byte %" PRIu64 ": %s", kp_issue_kind_name(is->kind), is->offset,
			 is->what);
		wrap_label(f, "", 12, line);
	}
}

static void header_cpus(FILE *f, const struct kp_log *log, const uint64_t *per_cpu)
{
	for (uint32_t i = 0; i < log->ncpus; i++) {
		const struct kp_cpu *c = &log->cpus[i];
		fprintf(f, "%-10scpu %u: %" PRIu64 " records in %zu %s%s, %s\n", i ? "" : "cpus", i, per_cpu[i],
			c->nbuffers, log->version == KPROF_FRAME_VERSION_1 ? "buffer frame" : "chunk",
			c->nbuffers == 1 ? "" : "s",
			c->have_end ? "end frame received" : "NO END FRAME (its losses are unknown)");
	}
}

/* Each CPU whose clock went back: the steps the kernel clamped (its
 * KprofClockStep records), the ones an older kernel left in the log (the
 * decoder clamps them), and a TSC the watchdog found unstable.  Nothing
 * when time never went back. */
static const char *reference_name(uint16_t kind)
{
	return kind == KPROF_REFCLOCK_HPET ? "the HPET" : kind == KPROF_REFCLOCK_PMTIMER ? "the ACPI PM timer" : "none";
}

/* A v4 run header's time fields: the boot's skew and the watchdog. */
static void header_clock(FILE *f, const struct kp_log *log)
{
	const struct kprof_run_header *h = &log->header;
	char line[400];
	size_t len = 0;
	uint64_t unstable = 0;

	if (!log->have_header || h->version < 4 || (!h->skew_cpus && !h->watchdog_ms))
		return;
	for (uint32_t i = 0; i < log->ncpus; i++)
		unstable += log->cpus[i].clock_unstable;
	if (h->skew_cpus)
		len += (size_t)snprintf(line + len, sizeof(line) - len, "TSC skew from cpu 0 at boot: largest %+d ns "
					"(cpu %u, +-%u ns), %u CPU%s measured%s%s; ", h->tsc_skew_ns, h->tsc_skew_cpu,
					h->tsc_skew_error_ns, h->skew_cpus, h->skew_cpus == 1 ? "" : "s",
					h->clock_flags & KPROF_RUN_CLOCK_SKEW_FIXED ? ", corrected" : "",
					h->clock_flags & KPROF_RUN_CLOCK_NOT_SYNCED ? ", NOT SYNCHRONISED" : "");
	if (h->watchdog_ms)
		snprintf(line + len, sizeof(line) - len, "watchdog against %s every %u ms (a read: %u ns): %s",
			 reference_name(h->clock_reference), h->watchdog_ms, h->ref_read_ns,
			 unstable ? "TSC UNSTABLE, stamps corrected from it" : "no check found the TSC unstable");
	else if (h->ref_read_ns)
		snprintf(line + len, sizeof(line) - len, "no watchdog (a read of the reference clock took %u ns, more than a "
			 "check can trust)", h->ref_read_ns);
	else
		snprintf(line + len, sizeof(line) - len, "no watchdog (no reference clock)");
	wrap_label(f, "time", 10, line);
}

static void header_time(FILE *f, const struct kp_report *r)
{
	const struct kp_log *log = r->log;
	char line[300], big[40];

	header_clock(f, log);
	for (uint32_t i = 0; i < log->ncpus; i++) {
		const struct kp_cpu *c = &log->cpus[i];
		if (c->clock_steps) {
			snprintf(line, sizeof(line), "cpu %u: its TSC went back %" PRIu64 " time%s, the largest by %s; "
				 "the kernel clamped its stamps", i, c->clock_steps, c->clock_steps == 1 ? "" : "s",
				 kp_report_time(log, c->clock_step_max, big, sizeof(big)));
			wrap_label(f, "time", 10, line);
		}
		if (c->steps_back) {
			snprintf(line, sizeof(line), "cpu %u: STAMPS GO BACK %" PRIu64 " time%s in the log, the largest by "
				 "%s (a kernel that did not clamp them): clamped here", i, c->steps_back,
				 c->steps_back == 1 ? "" : "s", kp_report_time(log, c->back_max, big, sizeof(big)));
			wrap_label(f, "time", 10, line);
		}
		if (c->clock_unstable) {
			snprintf(line, sizeof(line), "cpu %u: TSC UNSTABLE: %" PRIu64 " watchdog check%s found it apart "
				 "from the reference clock (KprofClockCheck)", i, c->clock_unstable,
				 c->clock_unstable == 1 ? "" : "s");
			wrap_label(f, "time", 10, line);
		}
	}
}

void kp_report_header(FILE *f, const struct kp_report *r, const char *input, const char *kernel,
		      const struct kp_totals *t, const uint64_t *per_cpu)
{
	header_run(f, r->log, input, kernel, r->syms);
	header_time(f, r);
	kp_report_clock(f, r);
	header_trace(f, r, t);
	kp_report_stalled_line(f, r);
	header_losses(f, r, t, per_cpu);
	header_cpus(f, r->log, per_cpu);
}

void kp_report_header_short(FILE *f, const struct kp_report *r, const struct kp_totals *t)
{
	header_time(f, r);
	header_trace(f, r, t);
	kp_report_stalled_line(f, r);
	header_losses(f, r, t, NULL);
}
