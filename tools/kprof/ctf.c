/*
 * ctf.c - `kprof ctf LOG -o DIR`: the records as a CTF 1.8 trace, for
 * babeltrace2, Trace Compass and other CTF readers.
 *
 *   DIR/metadata    TSDL text, generated from fields.c's kp_events[]
 *   DIR/stream_N    CPU N's records, one stream per CPU
 *
 * Metadata.  One trace (little-endian, a UUID hashed from the log's bytes
 * so the same log always gives the same trace), one clock "tsc" ticking at
 * the run header's tsc_hz, one stream class, and one event class per
 * kp_events[] entry, its id the entry's index, plus "Unknown" (id
 * kp_nevents) for records the table does not describe (or too short for
 * their description), carrying hook, version and the payload bytes.  The
 * event classes are written from the table, field by field, so a field
 * added there shows up here without touching this file.
 *
 * Clock.  Event timestamps are the records' raw TimeStamp (TSC) values.
 * When the run header knows the wall clock at start (boot_unix_s, RTC
 * seconds), the clock's offset places start_tsc at boot_unix_s:
 * origin = boot_unix_s - start_tsc / tsc_hz, split into whole seconds
 * (offset_s) and a non-negative number of cycles (offset).  Otherwise the
 * offset is 0 and times read as seconds of TSC since reset.  The clock is
 * not absolute: the RTC has one-second resolution and a guest's RTC is
 * whatever the host says.  Without a run header there is no frequency:
 * the clock runs at 1 GHz, i.e. one tick reads as one nanosecond.
 *
 * Payloads.  An event's fields are written by value, not copied: each
 * table field is written as kp_field_value() returns it, the value the
 * decoder prints, so babeltrace2 and `kprof decode` cannot disagree.
 *   - integers keep their size and signedness, byte-aligned (align = 8:
 *     events are packed, no padding between fields);
 *   - KP_POINTER and KP_HEX fields are printed in base 16;
 *   - KP_BITS fields are integers of their bit width with align = 1:
 *     consecutive bit fields pack LSB-first (CTF little-endian bit order),
 *     and the next byte-sized field starts at the next byte;
 *   - fields with value names are CTF enumerations over that integer
 *     (babeltrace2 prints the label; a value without a name prints as
 *     "<unknown>" with its number).  Names given only through
 *     kp_field_value_name()'s special cases (nnames == 0, Resource.Action)
 *     cannot be listed, so those stay plain integers;
 *   - bytes the table does not name (Reserved, padding) are left out;
 *   - a tail becomes a sequence: a uint32 "<Tail>_count" field, then that
 *     many u64 addresses (base 16) or bytes (base 16).
 * Field names are written with a leading underscore, which CTF readers
 * strip (CTF 1.8 section 7.3.2), so no table name can clash with a TSDL
 * keyword.
 *
 * Streams and packets.  Per CPU, records go out in the cursor's order; CTF
 * needs time order within a stream, so a CPU whose records are out of
 * order (never seen, but the log does not promise it) is stably sorted by
 * TimeStamp, with a note.  Packets are 64 KiB (an event bigger than that
 * gets a packet of its own size); packet_size and content_size are in
 * bits, the rest of a packet is zeros, and the last packet of a stream is
 * cut at its content.  timestamp_begin/end are the packet's first and last
 * event times.  events_discarded is a running count, as CTF wants: 0, then
 * on the last packet the CPU end frame's lost records (all causes) plus
 * its stuck (reserved, never committed) records.  babeltrace2 reports the
 * exact count only when it changes between two packets (a first packet's
 * count reads as "may have discarded events"), so a stream with losses
 * ends with an extra empty packet carrying it, from the last record to the
 * run end frame's TSC: babeltrace2 then warns "discarded N events between
 * [last record] and [run end]".  That range is exact when the buffers
 * filled up and nothing more was stored (dump mode, or a stalled port);
 * the log does not say when losses between stored records happened, only
 * that they did (KPROF_BUFFER_LOSSES), so such losses are reported in the
 * same place.  A CPU without records gets an empty packet (and the
 * losses packet after it).
 *
 * DIR is created as by mkdir -p.  It may hold an earlier kprof trace (its
 * metadata says tracer_name "kprof"), whose stream files are removed first
 * (the CPU count may differ), and hidden files, which CTF readers skip;
 * anything else is refused, since a CTF reader would take it for a stream.
 */
#include "tools/kprof/output.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/kprof/fields.h"

#define CTF_MAGIC          0xC1FC1FC1u
#define PACKET_BYTES       (64u * 1024u)
#define PACKET_HEADER      (4 + 16 + 4)          /* magic, uuid, stream_id     */
#define PACKET_CONTEXT     (5 * 8 + 4)           /* 5 x u64, cpu_id            */
#define PACKET_PREAMBLE    (PACKET_HEADER + PACKET_CONTEXT)
#define NO_HZ_FREQ         1000000000ull         /* no run header: 1 tick = 1 ns */

/* ------------------------------------------------------------ bit buffer */

/* Bits appended LSB-first, as a little-endian CTF reader takes them. */
struct bitbuf {
	uint8_t *p;
	size_t bits;
	size_t cap;        /* bytes, all zero beyond bits                  */
};

static void bb_reserve(struct bitbuf *b, size_t more_bits)
{
	size_t need = (b->bits + more_bits + 7) / 8;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap * 2 : 256;
	while (cap < need)
		cap *= 2;
	uint8_t *p = realloc(b->p, cap);
	if (!p) {
		fprintf(stderr, "kprof: out of memory\n");
		exit(3);
	}
	memset(p + b->cap, 0, cap - b->cap);
	b->p = p;
	b->cap = cap;
}

static void bb_reset(struct bitbuf *b)
{
	if (b->bits)
		memset(b->p, 0, (b->bits + 7) / 8);
	b->bits = 0;
}

static void bb_align(struct bitbuf *b, unsigned align)
{
	size_t bits = (b->bits + align - 1) / align * align;
	bb_reserve(b, bits - b->bits);
	b->bits = bits;
}

static void bb_put(struct bitbuf *b, uint64_t v, unsigned nbits)
{
	bb_reserve(b, nbits);
	if (nbits < 64)
		v &= (1ull << nbits) - 1;
	while (nbits) {
		unsigned bit = b->bits % 8, n = 8 - bit;
		if (n > nbits)
			n = nbits;
		b->p[b->bits / 8] |= (uint8_t)((v & ((1u << n) - 1)) << bit);
		v >>= n;
		b->bits += n;
		nbits -= n;
	}
}

static void bb_bytes(struct bitbuf *b, const uint8_t *p, size_t n)
{
	bb_align(b, 8);
	bb_reserve(b, n * 8);
	memcpy(b->p + b->bits / 8, p, n);
	b->bits += n * 8;
}

/* ------------------------------------------------------------ field types */

/* How a table field is stored: the metadata and the writer both ask here. */
static unsigned field_bits(const struct kp_field *f)
{
	return f->kind == KP_BITS ? f->width : f->size * 8u;
}

static unsigned field_align(const struct kp_field *f)
{
	return f->kind == KP_BITS ? 1 : 8;
}

static bool field_signed(const struct kp_field *f)
{
	return f->kind == KP_SIGNED;
}

static unsigned field_base(const struct kp_field *f)
{
	return f->kind == KP_POINTER || f->kind == KP_HEX ? 16 : 10;
}

static bool field_is_enum(const struct kp_field *f)
{
	return f->names && f->nnames;
}

static uint32_t event_id(const struct kp_event *e)
{
	return (uint32_t)(e - kp_events);
}

static uint32_t unknown_id(void)
{
	return (uint32_t)kp_nevents;
}

/* The table's description of a record, or NULL: written as Unknown (the
 * same rule as the decoder's). */
static const struct kp_event *record_event(const struct kp_record *r)
{
	const struct kp_event *e = kp_event_find(r->h.HookId, r->version);
	return e && r->payload_size >= e->fixed_size ? e : NULL;
}

/* ------------------------------------------------------------ metadata */

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

static void put_event_class(FILE *f, const struct kp_event *e)
{
	fprintf(f, "\n/* %s: %s, hook 0x%04x version %u, %u bytes%s%s */\n", e->name, e->type_name, e->hook,
		e->version, e->fixed_size, e->tail != KP_TAIL_NONE ? " + " : "",
		e->tail != KP_TAIL_NONE ? e->tail_name : "");
	fputs("event {\n\tname = ", f);
	put_string(f, e->name);
	fprintf(f, ";\n\tid = %" PRIu32 ";\n\tstream_id = 0;\n\tfields := struct {\n", event_id(e));
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
	*off_s = (int64_t)h->boot_unix_s - (int64_t)(h->start_tsc / h->tsc_hz);
	if (h->start_tsc % h->tsc_hz) {
		*off_s -= 1;
		*off_cycles = h->tsc_hz - h->start_tsc % h->tsc_hz;
	}
}

static uint64_t clock_freq(const struct kp_log *log)
{
	return log->have_header && log->header.tsc_hz ? log->header.tsc_hz : NO_HZ_FREQ;
}

static void put_prelude(FILE *f, const struct kp_log *log, const uint8_t uuid[16])
{
	int64_t off_s;
	uint64_t off_cycles;
	static const unsigned sizes[] = { 8, 16, 32, 64 };

	fputs("/* CTF 1.8 */\n\n"
	      "/*\n"
	      " * Written by `kprof ctf` from a kprof serial log: one stream per CPU,\n"
	      " * event classes from the tool's event table (tools/kprof/fields.c).\n"
	      " */\n\n", f);
	for (unsigned i = 0; i < 4; i++) {
		fprintf(f, "typealias integer { size = %u; align = 8; signed = false; } := uint%u_t;\n", sizes[i],
			sizes[i]);
		fprintf(f, "typealias integer { size = %u; align = 8; signed = false; base = 16; } := xuint%u_t;\n",
			sizes[i], sizes[i]);
	}
	fputs("\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = ", f);
	put_uuid(f, uuid);
	fputs(";\n\tbyte_order = le;\n\tpacket.header := struct {\n"
	      "\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n\t\tuint32_t stream_id;\n\t};\n};\n\n", f);

	fputs("env {\n\thostname = \"kprof\";\n\tdomain = \"kernel\";\n\ttracer_name = \"kprof\";\n"
	      "\tkernel_build = ", f);
	put_string(f, log->build_id);
	fputs(";\n\tcmdline = ", f);
	put_string(f, log->cmdline);
	fprintf(f, ";\n\tcpu_count = %" PRIu32 ";\n", log->have_header ? log->header.cpu_count : log->ncpus);
	if (log->have_header)
		fprintf(f, "\ttsc_hz = %" PRIu64 ";\n\tstart_tsc = %" PRIu64 ";\n\tboot_unix_s = %" PRIu64 ";\n",
			log->header.tsc_hz, log->header.start_tsc, log->header.boot_unix_s);
	fputs("};\n\n", f);

	clock_offset(log, &off_s, &off_cycles);
	fprintf(f, "clock {\n\tname = \"tsc\";\n\tdescription = \"%s\";\n\tfreq = %" PRIu64 ";\n"
		   "\tprecision = 1;\n\toffset_s = %" PRId64 ";\n\toffset = %" PRIu64 ";\n\tabsolute = false;\n};\n\n",
		log->have_header && log->header.tsc_hz ? "TSC of the traced machine"
						       : "TSC of the traced machine (frequency unknown: 1 tick = 1 ns)",
		clock_freq(log), off_s, off_cycles);
	fputs("typealias integer { size = 64; align = 8; signed = false; map = clock.tsc.value; } "
	      ":= uint64_clock_tsc_t;\n\n", f);

	fputs("stream {\n\tid = 0;\n\tpacket.context := struct {\n"
	      "\t\tuint64_clock_tsc_t timestamp_begin;\n\t\tuint64_clock_tsc_t timestamp_end;\n"
	      "\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n\t\tuint64_t events_discarded;\n"
	      "\t\tuint32_t cpu_id;\n\t};\n"
	      "\tevent.header := struct {\n\t\tuint16_t id;\n\t\tuint64_clock_tsc_t timestamp;\n\t};\n};\n", f);
}

static int write_metadata(const char *path, const struct kp_log *log, const uint8_t uuid[16])
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	put_prelude(f, log, uuid);
	for (size_t i = 0; i < kp_nevents; i++)
		put_event_class(f, &kp_events[i]);
	put_unknown_class(f);
	if (ferror(f)) {
		fclose(f);
		errno = EIO;
		return -1;
	}
	return fclose(f);
}

/* ------------------------------------------------------------ events */

static void encode_tail(struct bitbuf *b, const struct kp_event *e, const struct kp_record *r)
{
	const uint8_t *p = r->payload + e->fixed_size;
	size_t n = r->payload_size - e->fixed_size;

	bb_align(b, 8);
	if (e->tail == KP_TAIL_ADDRESSES) {
		bb_put(b, n / 8, 32);
		bb_bytes(b, p, n / 8 * 8);   /* little-endian u64s, as the decoder reads them */
	} else if (e->tail == KP_TAIL_COUNTS) {
		bb_put(b, n / 4, 32);
		bb_bytes(b, p, n / 4 * 4);   /* little-endian u32s */
	} else if (e->tail == KP_TAIL_BYTES) {
		bb_put(b, n, 32);
		bb_bytes(b, p, n);
	}
}

/* One event (header and payload) into b, from its start; byte-sized. */
static void encode_event(struct bitbuf *b, const struct kp_record *r)
{
	const struct kp_event *e = record_event(r);

	bb_reset(b);
	bb_put(b, e ? event_id(e) : unknown_id(), 16);
	bb_put(b, r->h.TimeStamp, 64);
	if (!e) {
		bb_put(b, r->h.HookId, 16);
		bb_put(b, r->version, 8);
		bb_put(b, r->payload_size, 32);
		bb_bytes(b, r->payload, r->payload_size);
		return;
	}
	for (unsigned i = 0; i < e->nfields; i++) {
		const struct kp_field *f = &e->fields[i];
		bb_align(b, field_align(f));
		if (f->kind == KP_CHARS)
			bb_bytes(b, r->payload + f->offset, f->size);
		else
			bb_put(b, kp_field_value(f, r->payload), field_bits(f));
	}
	encode_tail(b, e, r);
	bb_align(b, 8);
}

/* ------------------------------------------------------------ packets */

struct stream {
	FILE *f;
	const uint8_t *uuid;
	uint32_t cpu;
	uint8_t *buf;          /* the packet being filled                  */
	size_t cap;            /* its size in bytes                        */
	size_t used;           /* preamble + events                        */
	uint64_t ts_begin, ts_end;
	uint32_t events;       /* in this packet                           */
	uint64_t discarded;    /* running count written in packets         */
	int err;               /* errno of the first write error           */
};

static void packet_open(struct stream *s, size_t need)
{
	size_t cap = need > PACKET_BYTES ? need : PACKET_BYTES;

	if (cap > s->cap) {
		free(s->buf);
		s->buf = malloc(cap);
		if (!s->buf) {
			fprintf(stderr, "kprof: out of memory\n");
			exit(3);
		}
		s->cap = cap;
	}
	memset(s->buf, 0, s->cap);
	s->used = PACKET_PREAMBLE;
	s->events = 0;
}

static void put_le(uint8_t **p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		*(*p)++ = (uint8_t)(v >> (8 * i));
}

/* Fill in the header and context and write the packet out; the last one
 * of a stream is cut at its content, the others keep their full size. */
static void packet_close(struct stream *s, bool last)
{
	size_t size = last ? s->used : (s->used > PACKET_BYTES ? s->used : PACKET_BYTES);
	uint8_t *p = s->buf;

	put_le(&p, CTF_MAGIC, 4);
	memcpy(p, s->uuid, 16);
	p += 16;
	put_le(&p, 0, 4);                       /* stream_id       */
	put_le(&p, s->ts_begin, 8);
	put_le(&p, s->ts_end, 8);
	put_le(&p, (uint64_t)s->used * 8, 8);   /* content_size    */
	put_le(&p, (uint64_t)size * 8, 8);      /* packet_size     */
	put_le(&p, s->discarded, 8);
	put_le(&p, s->cpu, 4);
	if (!s->err && fwrite(s->buf, 1, size, s->f) != size)
		s->err = errno ? errno : EIO;
}

static void stream_event(struct stream *s, const struct bitbuf *ev, uint64_t ts)
{
	size_t n = ev->bits / 8;

	if (s->events && s->used + n > s->cap) {
		packet_close(s, false);
		packet_open(s, PACKET_PREAMBLE + n);
	} else if (s->used + n > s->cap) {
		/* an empty packet too small for this event: grow it */
		packet_open(s, PACKET_PREAMBLE + n);
	}
	if (!s->events)
		s->ts_begin = ts;
	s->ts_end = ts;
	memcpy(s->buf + s->used, ev->p, n);
	s->used += n;
	s->events++;
}

/* ------------------------------------------------------------ records */

static int by_time(const void *a, const void *b)
{
	const struct kp_record *x = a, *y = b;

	if (x->h.TimeStamp != y->h.TimeStamp)
		return x->h.TimeStamp < y->h.TimeStamp ? -1 : 1;
	/* ties keep log order: the cursor walks a CPU's buffers in log order */
	return x->log_offset < y->log_offset ? -1 : x->log_offset > y->log_offset;
}

/* A CPU's records, in time order; *n of them (NULL if none). */
static struct kp_record *cpu_records(struct kp_log *log, uint32_t cpu, size_t *n, const struct kp_options *o)
{
	struct kp_cpu_cursor c;
	struct kp_record r, *v = NULL;
	size_t cap = 0, back = 0;

	*n = 0;
	kp_cursor_init(&c, log, cpu);
	while (kp_cursor_next(&c, &r)) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			struct kp_record *w = realloc(v, cap * sizeof(*v));
			if (!w) {
				fprintf(stderr, "kprof: out of memory\n");
				exit(3);
			}
			v = w;
		}
		if (*n && r.h.TimeStamp < v[*n - 1].h.TimeStamp)
			back++;
		v[(*n)++] = r;
	}
	if (back) {
		qsort(v, *n, sizeof(*v), by_time);
		if (!o->quiet)
			fprintf(stderr, "kprof: ctf: cpu %u: records out of time order (%zu steps back); sorted "
					"by TimeStamp, as a CTF stream must be\n", cpu, back);
	}
	return v;
}

static uint64_t cpu_discarded(const struct kp_log *log, uint32_t cpu)
{
	const struct kp_cpu *c = &log->cpus[cpu];
	uint64_t n = 0;

	if (!c->have_end)
		return 0;
	for (int k = 0; k < KPROF_LOSS_CAUSES; k++)
		n += c->end.lost[k];
	return n + c->end.stuck;
}

/* Write stream_N for one CPU; 0 or an errno. */
static int write_stream(const char *path, struct kp_log *log, uint32_t cpu, const uint8_t uuid[16],
			struct bitbuf *ev, const struct kp_options *o)
{
	struct stream s = { .uuid = uuid, .cpu = cpu };
	uint64_t lost = cpu_discarded(log, cpu);
	size_t n;
	struct kp_record *v = cpu_records(log, cpu, &n, o);
	uint64_t t0 = log->have_header ? log->header.start_tsc : 0;

	s.f = fopen(path, "wb");
	if (!s.f) {
		free(v);
		return errno;
	}
	packet_open(&s, PACKET_PREAMBLE);
	s.ts_begin = s.ts_end = n ? v[0].h.TimeStamp : t0;
	for (size_t i = 0; i < n; i++) {
		encode_event(ev, &v[i]);
		stream_event(&s, ev, v[i].h.TimeStamp);
	}
	if (lost) {
		/* the losses go in a packet of their own (see top) */
		packet_close(&s, false);
		packet_open(&s, PACKET_PREAMBLE);
		s.ts_begin = s.ts_end;
		if (log->have_run_end && log->run_end.end_tsc > s.ts_end)
			s.ts_end = log->run_end.end_tsc;
	}
	s.discarded = lost;
	packet_close(&s, true);
	if (fclose(s.f) && !s.err)
		s.err = errno ? errno : EIO;
	free(s.buf);
	free(v);
	return s.err;
}

/* ------------------------------------------------------------ directory */

/* A deterministic UUID from the log's bytes (two FNV-1a 64 hashes),
 * marked as an RFC 9562 version 8 (custom) UUID. */
static void trace_uuid(const struct kp_log *log, uint8_t uuid[16])
{
	uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;

	for (size_t i = 0; i < log->size; i++) {
		h1 = (h1 ^ log->bytes[i]) * 0x100000001b3ull;
		h2 = (h2 ^ log->bytes[i] ^ 0x5a) * 0x100000001b3ull;
	}
	h2 ^= h1 >> 29;
	for (int i = 0; i < 8; i++) {
		uuid[i] = (uint8_t)(h1 >> (56 - 8 * i));
		uuid[8 + i] = (uint8_t)(h2 >> (56 - 8 * i));
	}
	uuid[6] = (uuid[6] & 0x0f) | 0x80;
	uuid[8] = (uuid[8] & 0x3f) | 0x80;
}

/* mkdir -p; then DIR must be a directory. */
static int make_dir(const char *dir)
{
	char *p = strdup(dir);
	struct stat st;

	if (!p)
		return -1;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST) {
			fprintf(stderr, "kprof: cannot create directory %s: %s\n", p, strerror(errno));
			free(p);
			return -1;
		}
		*s = '/';
	}
	free(p);
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "kprof: cannot create directory %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st)) {
		fprintf(stderr, "kprof: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "kprof: %s exists and is not a directory\n", dir);
		return -1;
	}
	return 0;
}

static bool is_stream_name(const char *name)
{
	if (strncmp(name, "stream_", 7) || !name[7])
		return false;
	for (const char *s = name + 7; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Is DIR/metadata one that kprof wrote? */
static bool is_kprof_metadata(const char *dir)
{
	char path[4096], head[2048];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	head[n] = '\0';
	return !strncmp(head, "/* CTF 1.8 */", 13) && strstr(head, "tracer_name = \"kprof\";");
}

/* DIR may hold nothing but an earlier kprof trace (hidden files, which CTF
 * readers skip, are left alone): anything else would be read as a stream
 * or clobbered.  The old stream files go, a CPU count may have changed. */
static int clear_dir(const char *dir)
{
	DIR *d;
	struct dirent *de;
	int pass, bad = 0;

	for (pass = 0; pass < 2 && !bad; pass++) {
		d = opendir(dir);
		if (!d) {
			fprintf(stderr, "kprof: %s: %s\n", dir, strerror(errno));
			return -1;
		}
		while ((de = readdir(d))) {
			char path[4096];
			if (de->d_name[0] == '.')
				continue;
			if (!strcmp(de->d_name, "metadata")) {
				if (!pass && !is_kprof_metadata(dir)) {
					fprintf(stderr, "kprof: %s/metadata is not kprof's; not writing a trace there\n",
						dir);
					bad = 1;
				}
				continue;
			}
			if (!is_stream_name(de->d_name)) {
				fprintf(stderr, "kprof: %s holds %s, which is not part of a kprof trace; "
						"give a new or empty directory\n", dir, de->d_name);
				bad = 1;
				break;
			}
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (pass && unlink(path)) {
				fprintf(stderr, "kprof: cannot remove %s: %s\n", path, strerror(errno));
				bad = 1;
			}
		}
		closedir(d);
	}
	return bad ? -1 : 0;
}

int kp_cmd_ctf(struct kp_log *log, const struct kp_options *o)
{
	const char *dir = o->output;
	char path[4096];
	uint8_t uuid[16];
	struct bitbuf ev = { 0 };
	int err;

	if (strlen(dir) > sizeof(path) - 32) {
		fprintf(stderr, "kprof: %s: path too long\n", dir);
		return 3;
	}
	if (make_dir(dir) || clear_dir(dir))
		return 3;
	trace_uuid(log, uuid);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (write_metadata(path, log, uuid)) {
		fprintf(stderr, "kprof: cannot write %s: %s\n", path, strerror(errno));
		return 3;
	}
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		snprintf(path, sizeof(path), "%s/stream_%u", dir, cpu);
		err = write_stream(path, log, cpu, uuid, &ev, o);
		if (err) {
			fprintf(stderr, "kprof: cannot write %s: %s\n", path, strerror(err));
			free(ev.p);
			return 3;
		}
	}
	free(ev.p);
	return kp_summary(log, o, dir);
}
