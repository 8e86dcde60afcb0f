/*
 * summary.c - the closing summary every command prints: records, CPUs,
 * losses by cause, and every damaged, missing or truncated frame with its
 * byte offset.  Under --strict any of those makes the exit status 1.
 */
#include "tools/kprof/kprof.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/kprof/fidelity/fidelity.h"
#include "tools/kprof/progress/progress.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/json.h"
#include "tools/kprof/util/outfile.h"

/* Records the kernel dropped for want of a free sub-buffer: which CPUs,
 * and which key to change (the cause differs by trace mode). */
static void say_buffers_full(const struct kp_log *log)
{
	const char *sep = " ";
	fprintf(stderr, "kprof: buffers full, by CPU:");
	for (uint32_t i = 0; i < log->ncpus; i++) {
		const struct kp_cpu *c = &log->cpus[i];
		if (!c->have_end || !c->end.lost[KPROF_LOSS_BUFFERS_FULL])
			continue;
		fprintf(stderr, "%scpu %u: %" PRIu64 " of %" PRIu64, sep, i, c->end.lost[KPROF_LOSS_BUFFERS_FULL],
			kp_sat_add(c->end.records, c->end.lost[KPROF_LOSS_BUFFERS_FULL]));
		sep = ", ";
	}
	fputc('\n', stderr);
	if (log->have_header && log->header.trace_mode == KPROF_TRACE_STREAM)
		fprintf(stderr, "kprof: the serial port could not carry what was recorded (trace.mode=stream): "
				"use trace.mode=dump (send at the end, as make run does), a larger trace.buffer_kb, "
				"or fewer event groups (trace=)\n");
	else
		fprintf(stderr, "kprof: the buffers filled before the run ended (trace.mode=dump): "
				"use a larger trace.buffer_kb (MEM= for more guest memory), a shorter run, "
				"or fewer event groups (trace=)\n");
}

/* Where the kernel's drops are in time: how many records-lost records
 * place how many, and how many came after a CPU's last record. */
static void say_where_dropped(const struct kp_log *log)
{
	uint64_t placed = 0, tail = 0;
	size_t n = 0;

	if (log->drops_flagged) {
		fprintf(stderr, "kprof: drops flagged on the buffers sent after them (a kernel before records-lost "
				"records): not placed in time\n");
		return;
	}
	for (size_t i = 0; i < log->ndrops; i++) {
		if (log->drops[i].tail) {
			tail += log->drops[i].total;
		} else {
			placed += log->drops[i].total;
			n++;
		}
	}
	fprintf(stderr, "kprof: drops placed in time: %" PRIu64 " in %zu records-lost record%s, %" PRIu64
			" after a CPU's last record (to the end of the trace)\n",
		placed, n, n == 1 ? "" : "s", tail);
}

static uint64_t link_lost(const struct kp_cpu *c, uint64_t decoded)
{
	return c->have_end ? kp_sat_sub(c->end.records, kp_sat_add(decoded, kp_cpu_lost_file(c))) : 0;
}

/* A trace file too small for the trace: which CPUs' records did not fit
 * (the kernel counted them in the file's end frames), and what to do. */
static void say_file_full(const struct kp_log *log, uint64_t lost_file)
{
	const char *sep = " ";
	fprintf(stderr, "kprof: not in the trace file %" PRIu64 " records (it was full), by CPU:", lost_file);
	for (uint32_t i = 0; i < log->ncpus; i++) {
		const struct kp_cpu *c = &log->cpus[i];
		uint64_t n = kp_cpu_lost_file(c);
		if (!n)
			continue;
		fprintf(stderr, "%scpu %u: %" PRIu64 " of %" PRIu64 " (chunks from %u on)", sep, i, n, c->end.records,
			c->file_tail.frames);
		sep = ", ";
	}
	fprintf(stderr, "\nkprof: the trace file on the stick was too small for the trace: make it bigger "
			"(docs/usb-stick.md), or record less (trace=, a shorter run); the serial port, if captured, "
			"holds every record\n");
}

/* The run's fidelity statement (tools/kprof/fidelity/): its stalled share
 * needs the model, built here only for the JSON. */
static void write_fidelity(struct kp_log *log, FILE *f)
{
	struct kp_model m;
	struct kp_fidelity fid;

	kp_model_build_totals(&m, log);
	kp_fidelity_gather(log, &m, &fid);
	kp_model_free(&m);
	kp_fidelity_json(f, &fid);
}

static void write_json(struct kp_log *log, const struct kp_totals *t, const uint64_t *per_cpu, FILE *f)
{
	fprintf(f, "{\"records\":%" PRIu64 ",\"cpus\":%u,\"frames\":%zu,\"per_cpu\":[", t->records, log->ncpus,
		log->frames);
	for (uint32_t i = 0; i < log->ncpus; i++) {
		const struct kp_cpu *c = &log->cpus[i];
		uint64_t lost = kp_cpu_lost(c);
		fprintf(f, "%s{\"cpu\":%u,\"records\":%" PRIu64 ",\"buffers\":%zu,\"end\":%s,\"lost\":%" PRIu64
			   ",\"written\":%" PRIu64 ",\"lost_link\":%" PRIu64 ",\"lost_file\":%" PRIu64 "}",
			i ? "," : "", i, per_cpu[i], c->nbuffers, c->have_end ? "true" : "false", lost,
			c->have_end ? c->end.records : 0, link_lost(c, per_cpu[i]), kp_cpu_lost_file(c));
	}
	fprintf(f, "],\"lost\":{");
	for (int k = 0; k < KPROF_LOSS_CAUSES; k++)
		fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "", kp_loss_cause_key(k), t->lost[k]);
	fprintf(f, "},\"lost_total\":%" PRIu64 ",\"stuck_bytes\":%" PRIu64 ",\"run_header\":%s,\"run_end\":%s,",
		t->lost_total, t->stuck, log->header_frame ? "true" : "false", log->have_run_end ? "true" : "false");
	fprintf(f, "\"status\":%d,", log->have_run_end ? (int)log->run_end.status : -1);
	fprintf(f, "\"file_form\":%s,\"lost_file\":%" PRIu64 ",\"fill_bytes\":%" PRIu64 ",",
		log->file_form ? "true" : "false", t->lost_file, log->fill_bytes);
	fprintf(f, "\"wire_version\":%u,\"run_id\":%u,\"run_info\":%s,\"lost_link\":%" PRIu64
		   ",\"cpus_without_end\":%u,\"duplicates\":%zu,\"other_run_frames\":%zu,\"gaps\":[",
		log->version, log->run_id, log->have_header && !log->header_frame ? "true" : "false", t->lost_link,
		t->cpus_without_end, log->duplicates, log->other_run_frames);
	for (size_t i = 0; i < log->ngaps; i++) {
		const struct kp_gap *g = &log->gaps[i];
		fprintf(f, "%s{\"cpu\":%d,\"seq_first\":%u,\"seq_last\":%u,\"ts_before\":%" PRIu64
			   ",\"ts_after\":%" PRIu64 "}",
			i ? "," : "", g->cpu == KPROF_FRAME_CPU_NONE ? -1 : (int)g->cpu, g->seq_first, g->seq_last,
			g->ts_before, g->ts_after);
	}
	fprintf(f, "],\"drops\":[");
	for (size_t i = 0; i < log->ndrops; i++) {
		const struct kp_drop *d = &log->drops[i];
		fprintf(f, "%s{\"cpu\":%u,\"count\":%" PRIu64 ",\"tail\":%s,\"ts_before\":%" PRIu64
			   ",\"first_ts\":%" PRIu64 ",\"ts\":%" PRIu64,
			i ? "," : "", d->cpu, d->total, d->tail ? "true" : "false", d->ts_before, d->first_ts, d->ts);
		for (int k = 0; k < KPROF_LOSS_CAUSES; k++)
			fprintf(f, ",\"%s\":%" PRIu64, kp_loss_cause_key(k), d->lost[k]);
		fputc('}', f);
	}
	fprintf(f, "],\"drops_flagged\":%s,\"fidelity\":", log->drops_flagged ? "true" : "false");
	write_fidelity(log, f);
	fprintf(f, ",\"issues\":[");
	for (size_t i = 0; i < log->nissues; i++) {
		const struct kp_issue *is = &log->issues[i];
		fprintf(f, "%s{\"kind\":\"%s\",\"offset\":%" PRIu64 ",\"cpu\":%d,\"seq_first\":%u,\"seq_last\":%u,\"what\":",
			i ? "," : "", kp_issue_kind_name(is->kind), is->offset,
			is->cpu == KPROF_FRAME_CPU_NONE ? -1 : (int)is->cpu, is->seq_first, is->seq_last);
		kp_json_string(f, is->what);
		fputc('}', f);
	}
	fprintf(f, "]}\n");
}

int kp_summary(struct kp_log *log, const struct kp_options *o, const char *what_was_written)
{
	struct kp_totals t;
	uint64_t *per_cpu = kp_xcalloc(log->ncpus, sizeof(*per_cpu));

	kp_progress_end(); /* the summary is written where the line was */
	kp_totals(log, &t, per_cpu);
	if (!o->quiet) {
		fprintf(stderr, "kprof: %" PRIu64 " records from %u CPU%s (%u with records), %zu frames", t.records,
			log->ncpus, log->ncpus == 1 ? "" : "s", t.cpus_with_records, log->frames);
		if (what_was_written)
			fprintf(stderr, "; wrote %s", what_was_written);
		fputc('\n', stderr);
		char link[48] = "", file[48] = "";
		if (t.lost_link)
			snprintf(link, sizeof(link), ", on the link %" PRIu64, t.lost_link);
		if (t.lost_file)
			snprintf(file, sizeof(file), ", not in the file %" PRIu64, t.lost_file);
		fprintf(stderr, "kprof: lost %" PRIu64 " records (buffers full %" PRIu64 ", too large %" PRIu64
				", not started %" PRIu64 "%s%s)%s\n",
			kp_sat_add(kp_sat_add(t.lost_total, t.lost_link), t.lost_file), t.lost[KPROF_LOSS_BUFFERS_FULL],
			t.lost[KPROF_LOSS_TOO_LARGE], t.lost[KPROF_LOSS_NOT_STARTED], file, link, t.stuck ? "; some reserved records were never committed" : "");
		if (t.lost[KPROF_LOSS_BUFFERS_FULL])
			say_buffers_full(log);
		if (t.lost_total)
			say_where_dropped(log);
		if (t.lost_link) {
			/* Written by the kernel (CPU end frames) but not decoded. */
			const char *sep = " ";
			fprintf(stderr, "kprof: lost on the link %" PRIu64 " records (written minus decoded):", t.lost_link);
			for (uint32_t i = 0; i < log->ncpus; i++) {
				uint64_t n = link_lost(&log->cpus[i], per_cpu[i]);
				if (!n)
					continue;
				fprintf(stderr, "%scpu %u: %" PRIu64 " of %" PRIu64, sep, i, n, log->cpus[i].end.records);
				sep = ", ";
			}
			fputc('\n', stderr);
		}
		if (t.lost_file)
			say_file_full(log, t.lost_file);
		if (t.cpus_without_end)
			fprintf(stderr, "kprof: %u CPU%s without an end frame: records lost on the link not known\n",
				t.cpus_without_end, t.cpus_without_end == 1 ? "" : "s");
		if (!log->nissues)
			fprintf(stderr, "kprof: frames: no corrupt, truncated or missing frames\n");
		for (size_t i = 0; i < log->nissues; i++)
			fprintf(stderr, "kprof: %s: %s\n", kp_issue_kind_name(log->issues[i].kind), log->issues[i].what);
	}
	if (o->summary_json) {
		FILE *f = kp_out_open(o->summary_json);
		if (!f) {
			free(per_cpu);
			return 3;
		}
		write_json(log, &t, per_cpu, f);
		if (kp_out_close(f, o->summary_json)) {
			free(per_cpu);
			return 3;
		}
	}
	free(per_cpu);
	if (o->strict && (t.lost_total || t.lost_link || t.lost_file || t.stuck || log->nissues)) {
		if (!o->quiet)
			fprintf(stderr, "kprof: --strict: the trace is not complete\n");
		return 1;
	}
	return 0;
}
