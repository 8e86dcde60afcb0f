/*
 * ctf_metadata.c - the TSDL metadata of a `kprof ctf` trace (ctf.c gives
 * the design): the trace, its environment, the TSC clock, the stream and
 * one event class per entry of the event table (read/fields.c), field by
 * field.
 */
#include "tools/kprof/export/ctf/ctf_shared.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

/* A TSDL string literal: quotes and backslashes escaped, control and
 * non-ASCII bytes as '?'. */
static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else
			fputc(c < 0x20 || c > 0x7e ? '?' : c, f);
	}
	fputc('"', f);
}

static void put_uuid(FILE *f, const uint8_t u[16])
{
	fputc('"', f);
	for (int i = 0; i < 16; i++)
		fprintf(f, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
	fputc('"', f);
}

static void put_int_type(FILE *f, unsigned bits, unsigned align, bool is_signed, unsigned base)
{
	fprintf(f, "integer { size = %u; align = %u; signed = %s; base = %u; }", bits, align,
		is_signed ? "true" : "false", base);
}

static void put_field(FILE *f, const struct kp_field *fl)
{
	fputs("\t\t", f);
	if (fl->kind == KP_CHARS) { /* babeltrace2 prints a UTF-8 byte array as a string */
		fprintf(f, "integer { size = 8; align = 8; signed = false; encoding = UTF8; base = 10; } _%s[%u];\n",
			fl->name, fl->size);
		return;
	}
	if (field_is_enum(fl)) {
		fputs("enum : ", f);
		put_int_type(f, field_bits(fl), field_align(fl), field_signed(fl), field_base(fl));
		fputs(" {", f);
		for (uint32_t i = 0; i < fl->nnames; i++) {
			fputs(i ? ", " : " ", f);
			put_string(f, fl->names[i]);
			fprintf(f, " = %" PRIu32, i);
		}
		fputs(" }", f);
	} else {
		put_int_type(f, field_bits(fl), field_align(fl), field_signed(fl), field_base(fl));
	}
	fprintf(f, " _%s;\n", fl->name);
}

static void put_tail(FILE *f, const struct kp_event *e)
{
	const char *elem = e->tail == KP_TAIL_ADDRESSES ? "xuint64_t" : e->tail == KP_TAIL_COUNTS ? "uint32_t" : "xuint8_t";

	if (e->tail == KP_TAIL_NONE)
		return;
	fprintf(f, "\t\tuint32_t _%s_count;\n", e->tail_name);
	fprintf(f, "\t\t%s _%s[_%s_count];\n", elem, e->tail_name, e->tail_name);
}

static void put_event_class(FILE *f, const struct kp_event *e, uint32_t id)
{
	fprintf(f, "\n/* %s: %s, hook 0x%04x version %u, %u bytes%s%s */\n", e->name, e->type_name, e->hook,
		e->version, e->fixed_size, e->tail != KP_TAIL_NONE ? " + " : "",
		e->tail != KP_TAIL_NONE ? e->tail_name : "");
	fputs("event {\n\tname = ", f);
	put_string(f, e->name);
	fprintf(f, ";\n\tid = %" PRIu32 ";\n\tstream_id = 0;\n\tfields := struct {\n", id);
	for (unsigned i = 0; i < e->nfields; i++)
		put_field(f, &e->fields[i]);
	put_tail(f, e);
	fputs("\t};\n};\n", f);
}

static void put_unknown_class(FILE *f)
{
	fprintf(f, "\n/* Unknown: a record the table does not describe, as raw payload bytes */\n"
		   "event {\n\tname = \"Unknown\";\n\tid = %" PRIu32 ";\n\tstream_id = 0;\n"
		   "\tfields := struct {\n"
		   "\t\txuint16_t _hook;\n"
		   "\t\tuint8_t _version;\n"
		   "\t\tuint32_t _bytes_count;\n"
		   "\t\txuint8_t _bytes[_bytes_count];\n"
		   "\t};\n};\n", unknown_id());
}

/* The clock origin, as whole seconds and non-negative cycles (see top). */
static void clock_offset(const struct kp_log *log, int64_t *off_s, uint64_t *off_cycles)
{
	const struct kprof_run_header *h = &log->header;

	*off_s = 0;
	*off_cycles = 0;
	if (!log->have_header || !h->tsc_hz || !h->boot_unix_s)
		return;
	/* Both terms are the sender's word: a boot time past 2^63 s, or a
	 * difference past int64_t, is no clock and leaves the origin at 0. */
	uint64_t up_s = h->start_tsc / h->tsc_hz + (h->start_tsc % h->tsc_hz != 0);
	if (h->boot_unix_s > INT64_MAX || up_s > INT64_MAX)
		return;
	*off_s = (int64_t)h->boot_unix_s - (int64_t)up_s;
	if (h->start_tsc % h->tsc_hz)
		*off_cycles = h->tsc_hz - h->start_tsc % h->tsc_hz;
}

static uint64_t clock_freq(const struct kp_log *log)
{
	return log->have_header && log->header.tsc_hz ? log->header.tsc_hz : NO_HZ_FREQ;
}

/* kprof's own environment entries, in both styles. */
static void put_kprof_env(FILE *f, const struct kp_log *log)
{
	fputs("\tkernel_build = ", f);
	put_string(f, log->build_id);
	fputs(";\n\tcmdline = ", f);
	put_string(f, log->cmdline);
	fprintf(f, ";\n\tcpu_count = %" PRIu32 ";\n", log->have_header ? log->header.cpu_count : log->ncpus);
	if (log->have_header)
		fprintf(f, "\ttsc_hz = %" PRIu64 ";\n\tstart_tsc = %" PRIu64 ";\n\tboot_unix_s = %" PRIu64 ";\n",
			log->header.tsc_hz, log->header.start_tsc, log->header.boot_unix_s);
}

/* LTTng's kernel environment (lttng-modules' metadata; Trace Compass
 * takes a trace for a kernel one by domain "kernel", picks its event
 * layout by tracer_name and tracer_major/minor). */
static void put_lttng_env(FILE *f, const struct kp_log *log)
{
	fputs("env {\n\thostname = \"kprof\";\n\tdomain = \"kernel\";\n\tsysname = \"kprof\";\n"
	      "\tkernel_release = ", f);
	put_string(f, log->build_id[0] ? log->build_id : "unknown");
	fputs(";\n\tkernel_version = ", f);
	put_string(f, log->build_id[0] ? log->build_id : "unknown");
	fputs(";\n\ttracer_name = \"lttng-modules\";\n\ttracer_major = 2;\n\ttracer_minor = 13;\n"
	      "\ttracer_patchlevel = 0;\n\ttrace_buffering_scheme = \"global\";\n\ttrace_name = \"kprof\";\n"
	      "\twritten_by = \"kprof ctf --lttng\";\n", f);
	put_kprof_env(f, log);
	fputs("};\n\n", f);
}

static void put_prelude(FILE *f, const struct kp_log *log, const uint8_t uuid[16], bool lttng)
{
	int64_t off_s;
	uint64_t off_cycles;
	static const unsigned sizes[] = { 8, 16, 32, 64 };
	const char *clk = lttng ? "monotonic" : "tsc";

	fprintf(f, "/* CTF 1.8 */\n\n"
		   "/*\n"
		   " * Written by `kprof ctf` from a kprof serial log: one stream per CPU,\n"
		   " * event classes from the tool's event table (tools/kprof/read/fields.c)%s.\n"
		   " */\n\n", lttng ? ",\n * in LTTng's kernel conventions (tools/kprof/export/ctf/ctf_lttng.c)" : "");
	for (unsigned i = 0; i < 4; i++) {
		fprintf(f, "typealias integer { size = %u; align = 8; signed = false; } := uint%u_t;\n", sizes[i],
			sizes[i]);
		fprintf(f, "typealias integer { size = %u; align = 8; signed = false; base = 16; } := xuint%u_t;\n",
			sizes[i], sizes[i]);
	}
	fputs("\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = ", f);
	put_uuid(f, uuid);
	fprintf(f, ";\n\tbyte_order = le;\n\tpacket.header := struct {\n"
		   "\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n\t\tuint32_t stream_id;\n%s\t};\n};\n\n",
		lttng ? "\t\tuint64_t stream_instance_id;\n" : "");

	if (lttng) {
		put_lttng_env(f, log);
	} else {
		fputs("env {\n\thostname = \"kprof\";\n\tdomain = \"kernel\";\n\ttracer_name = \"kprof\";\n", f);
		put_kprof_env(f, log);
		fputs("};\n\n", f);
	}

	clock_offset(log, &off_s, &off_cycles);
	fprintf(f, "clock {\n\tname = \"%s\";\n\tdescription = \"%s\";\n\tfreq = %" PRIu64 ";\n"
		   "\tprecision = 1;\n\toffset_s = %" PRId64 ";\n\toffset = %" PRIu64 ";\n\tabsolute = false;\n};\n\n",
		clk, log->have_header && log->header.tsc_hz ? "TSC of the traced machine"
							    : "TSC of the traced machine (frequency unknown: 1 tick = 1 ns)",
		clock_freq(log), off_s, off_cycles);
	for (unsigned bits = 32; bits <= 64; bits += 32)
		if (lttng || bits == 64)
			fprintf(f, "typealias integer { size = %u; align = 8; signed = false; map = clock.%s.value; } "
				   ":= uint%u_clock_%s_t;\n", bits, clk, bits, clk);
	fputs("\n", f);

	if (!lttng) {
		fputs("stream {\n\tid = 0;\n\tpacket.context := struct {\n"
		      "\t\tuint64_clock_tsc_t timestamp_begin;\n\t\tuint64_clock_tsc_t timestamp_end;\n"
		      "\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n\t\tuint64_t events_discarded;\n"
		      "\t\tuint32_t cpu_id;\n\t};\n"
		      "\tevent.header := struct {\n\t\tuint16_t id;\n\t\tuint64_clock_tsc_t timestamp;\n\t};\n};\n", f);
		return;
	}
	/* lttng-modules' packet context and large event header (ctf_shared.h) */
	fputs("struct packet_context {\n"
	      "\tuint64_clock_monotonic_t timestamp_begin;\n\tuint64_clock_monotonic_t timestamp_end;\n"
	      "\tuint64_t content_size;\n\tuint64_t packet_size;\n\tuint64_t packet_seq_num;\n"
	      "\tuint64_t events_discarded;\n\tuint32_t cpu_id;\n};\n\n"
	      "struct event_header_large {\n"
	      "\tenum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
	      "\tvariant <id> {\n"
	      "\t\tstruct {\n\t\t\tuint32_clock_monotonic_t timestamp;\n\t\t} compact;\n"
	      "\t\tstruct {\n\t\t\tuint32_t id;\n\t\t\tuint64_clock_monotonic_t timestamp;\n\t\t} extended;\n"
	      "\t} v;\n} align(8);\n\n"
	      "stream {\n\tid = 0;\n\tevent.header := struct event_header_large;\n"
	      "\tpacket.context := struct packet_context;\n};\n", f);
}

int ctf_write_metadata(const char *path, const struct kp_log *log, const uint8_t uuid[16], bool lttng)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	put_prelude(f, log, uuid, lttng);
	for (size_t i = 0; i < kp_nevents; i++)
		if (!lttng || !ctf_lttng_replaces(&kp_events[i]))
			put_event_class(f, &kp_events[i], event_id(&kp_events[i]));
	put_unknown_class(f);
	/* The workload's own event types, as the trace describes them; the
	 * rest of a KprofUserEvent (TypeId, Phase) is in the class. */
	for (uint32_t i = 0; log->user_types && i < log->user_types->n; i++) {
		const struct kp_user_type *t = log->user_types->list[i];
		if (t->known && !t->damaged)
			put_event_class(f, &t->ev, user_event_id(t));
	}
	if (lttng)
		ctf_lttng_classes(f);
	if (ferror(f)) {
		fclose(f);
		errno = EIO;
		return -1;
	}
	return fclose(f);
}
