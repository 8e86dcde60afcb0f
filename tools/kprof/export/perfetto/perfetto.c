/*
 * perfetto.c - `kprof perfetto LOG [--kernel ELF] [--format proto|json]
 * -o FILE`: the trace for ui.perfetto.dev, as Perfetto's own protobuf
 * trace (proto/proto.h: under 40 bytes a record, for big runs) or in the
 * Chrome JSON trace format (with every record's fields as args), which
 * ui.perfetto.dev, chrome://tracing, Chrome DevTools and speedscope open.
 * --format picks; without it a FILE ending ".json" is JSON, any other
 * (FILE.perfetto-trace) the protobuf trace.  The JSON:
 *
 *   {"traceEvents":[...],"systemTraceEvents":"...","displayTimeUnit":"ns",
 *    "otherData":{...}}
 *
 * The tracks (pf.h): per CPU its runs, samples, ReadyThread marks
 * and losses, its lock waits, its stalls and its holes (perfetto_cpu.c);
 * per thread its runs, ready time and waits (perfetto_threads.c); wake-up
 * flows between them (perfetto_flows.c); names and order
 * (perfetto_tracks.c); and the schedule again as ftrace text
 * (perfetto_sched.c), from which Perfetto draws its own CPU and thread
 * state tracks.  Every time is a whole number of nanoseconds since the
 * start of the trace, written as microseconds (perfetto_json.c), so that
 * no two slices of a track overlap.  Events are written in time order.
 * The runs and waits are the model's (model/model.h): the same schedule
 * the report and the timeline show.  The events are gathered by collect.c
 * from the model's records for this JSON writer; the protobuf one (proto/)
 * streams: it takes them as the model's second pass meets them
 * (pb_gather_sink), and the model keeps none.  The JSON writer holds the
 * whole trace: asked for one of more than 2 M records, it says first what
 * that will cost and which format streams (warn_big_json).
 */
#include <inttypes.h>
#include <stdlib.h>

#include <string.h>

#include "tools/kprof/export/perfetto/pf.h"
#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/kprof.h"
#include "tools/kprof/read/frames.h"
#include "tools/kprof/read/log.h"
#include "tools/kprof/read/user_types.h"
#include "tools/kprof/util/alloc.h"

static void write_other_data(struct pf *p, const struct kp_log *log)
{
	fputs(",\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{", p->f);
	fprintf(p->f, "\"generator\":\"kprof perfetto\",\"cpus\":%u,\"tsc_hz\":%" PRIu64 ",\"time_origin_tsc\":%" PRIu64,
		p->m->ncpus, log->header.tsc_hz, p->m->origin);
	pf_str_arg(p, "build_id", log->build_id);
	if (kp_symbols_warning(p->syms))
		pf_str_arg(p, "kernel_warning", kp_symbols_warning(p->syms));
	pf_str_arg(p, "cmdline", log->cmdline);
	fprintf(p->f, ",\"context_switches\":%" PRIu64 ",\"samples\":%" PRIu64 ",\"spinlock_waits\":%" PRIu64
		      ",\"ready_threads\":%" PRIu64 ",\"wakeup_flows_at_one_instant\":%" PRIu64
		      ",\"noise_links_at_one_instant\":%" PRIu64 "}}\n",
		p->m->switches, p->m->samples, p->m->waits, p->m->readies, p->flows_one_instant,
		p->noise_links_one_instant);
}

static void write_perfetto(FILE *f, const struct kp_log *log, const struct kp_model *m, const struct kp_symbols *syms)
{
	struct pf p = { .f = f, .m = m, .syms = syms, .first = true, .log = log };

	pf_collect(&p, (struct kp_log *)log, true); /* read only: cursors over its records */
	struct pf_walk walk;
	fputs("{\"traceEvents\":[", f);
	pf_write_metadata(&p);
	pf_walk_start(&p, &walk);
	for (const struct pf_item *it; (it = pf_walk_next(&walk));)
		it->kind->write(&p, it);
	pf_walk_free(&walk);
	fputs("\n]", f);
	pf_write_stack_frames(&p);
	pf_write_sched(&p);
	write_other_data(&p, log);
	pf_collect_free(&p);
}

/* The log being written (for lacks(), which sees only the model). */
static const struct kp_log *perfetto_log;

static const char *lacks(const struct kp_model *m)
{
	const struct kp_user_types *u = perfetto_log ? perfetto_log->user_types : NULL;

	return m->switches || m->samples || m->waits || (u && u->n)
		       ? NULL
		       : "no CSwitch, SpinLock wait, sample or user event records: run with trace=cswitch (and spinlock, "
			 "profile)";
}

/* --format, else by the output's name. */
static kp_model_writer *writer(const struct kp_options *o)
{
	size_t n = strlen(o->output);

	if (o->format)
		return !strcmp(o->format, "json") ? write_perfetto : !strcmp(o->format, "proto") ? pf_write_proto : NULL;
	return n >= 5 && !strcmp(o->output + n - 5, ".json") ? write_perfetto : pf_write_proto;
}

/* The JSON writer holds the whole trace: past this many records it needs
 * more than the 256 MiB every streaming command stays within.  Its bytes a
 * record, written and held, as `make bench-tool` measured them on the 20 M
 * record mix (tests/bench/tool_bench.py). */
#define JSON_BIG_RECORDS 2000000u
#define JSON_BYTES_A_RECORD 526.0
#define JSON_HELD_A_RECORD 134.0

/* Said before a big JSON is written, which the user asked for: what it
 * will cost, and the format that streams. */
static void warn_big_json(const struct kp_log *log)
{
	uint64_t n = kp_log_records(log);
	/* KPROF_JSON_BIG_RECORDS: records, for tests (the note on a small log) */
	size_t big = kp_env_number("KPROF_JSON_BIG_RECORDS", JSON_BIG_RECORDS, 0, SIZE_MAX);

	if (n <= big)
		return;
	fprintf(stderr,
		"kprof perfetto: %" PRIu64 " records as Chrome JSON: about %.1f GB of JSON, and about %.1f GiB of "
		"memory while it is written (the JSON writer holds the whole trace); Perfetto's protobuf trace streams "
		"in bounded memory at about 40 bytes a record: --format proto, or -o FILE.perfetto-trace\n",
		n, (double)n * JSON_BYTES_A_RECORD / 1e9, (double)n * JSON_HELD_A_RECORD / (1u << 30));
}

int kp_cmd_perfetto(struct kp_log *log, const struct kp_options *o)
{
	kp_model_writer *write = writer(o);

	if (!write) {
		fprintf(stderr, "kprof: perfetto --format '%s': accepted: proto (Perfetto's protobuf trace), json (Chrome JSON)\n",
			o->format);
		return 2;
	}
	perfetto_log = log;
	int rc;
	if (write == pf_write_proto) { /* streamed: the model keeps no record */
		struct kp_run_sink sink = pb_gather_sink;
		sink.ctx = pb_writer_now = pb_writer_new();
		pb_writer_now->pf.log = log;
		rc = kp_write_model(log, o, 0, &sink, lacks, write);
		pb_writer_free(pb_writer_now);
		pb_writer_now = NULL;
	} else {
		warn_big_json(log);
		rc = kp_write_model(log, o, KP_KEEP_RUNS | KP_KEEP_WAITS | KP_KEEP_READIES | KP_KEEP_SAMPLES | KP_KEEP_RESOURCES,
				    NULL, lacks, write);
	}
	perfetto_log = NULL;
	return rc;
}
