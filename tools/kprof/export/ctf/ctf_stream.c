/*
 * ctf_stream.c - the stream files of a `kprof ctf` trace (ctf.c gives the
 * design): each record encoded bit by bit as its event class says, events
 * packed into packets with their header and context, one stream per CPU
 * in time order, losses in a packet of their own.
 */
#include "tools/kprof/export/ctf/ctf_shared.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"

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

/* One record's payload into b, from its start (byte-sized); its class id. */
static uint32_t encode_payload(struct bitbuf *b, const struct kp_record *r, const struct kp_log *log)
{
	const struct kp_user_type *t = kp_user_type_of(log, r);
	const struct kp_event *e = t ? &t->ev : record_event(r);

	bb_reset(b);
	if (!e) {
		bb_put(b, r->h.HookId, 16);
		bb_put(b, r->version, 8);
		bb_put(b, r->payload_size, 32);
		bb_bytes(b, r->payload, r->payload_size);
		return unknown_id();
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
	return t ? user_event_id(t) : event_id(e);
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
	bool lttng;            /* LTTng's packet and event headers         */
	size_t preamble;       /* packet header + context bytes            */
	size_t header_max;     /* the largest event header                 */
	uint64_t seq;          /* --lttng: packet_seq_num of the next one  */
	uint64_t last_ts;      /* the previous event's time (this packet)  */
	const struct kp_log *log; /* its user event types                   */
};

static void packet_open(struct stream *s, size_t need)
{
	size_t cap = need > PACKET_BYTES ? need : PACKET_BYTES;

	if (cap > s->cap) {
		free(s->buf);
		s->buf = kp_xrealloc(NULL, cap, 1);
		s->cap = cap;
	}
	memset(s->buf, 0, s->cap);
	s->used = s->preamble;
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
	if (s->lttng)
		put_le(&p, s->cpu, 8);          /* stream_instance_id */
	put_le(&p, s->ts_begin, 8);
	put_le(&p, s->ts_end, 8);
	put_le(&p, (uint64_t)s->used * 8, 8);   /* content_size    */
	put_le(&p, (uint64_t)size * 8, 8);      /* packet_size     */
	if (s->lttng)
		put_le(&p, s->seq++, 8);        /* packet_seq_num  */
	put_le(&p, s->discarded, 8);
	put_le(&p, s->cpu, 4);
	if (!s->err && fwrite(s->buf, 1, size, s->f) != size)
		s->err = errno ? errno : EIO;
}

/* The event header: the table's (id, 64-bit time) or, --lttng, LTTng's
 * event_header_large, compact when the time is less than 2^32 cycles
 * after the previous event of the packet (a reader adds the 32 bits to
 * the clock as CTF says: a wrap counts once), extended for the first
 * event of a packet and after longer gaps. */
static size_t event_header(const struct stream *s, uint32_t id, uint64_t ts, uint8_t *h)
{
	uint8_t *p = h;

	if (!s->lttng) {
		put_le(&p, id, 2);
		put_le(&p, ts, 8);
	} else if (s->events && ts >= s->last_ts && ts - s->last_ts < (1ull << 32) && id < LTTNG_EXTENDED_ID) {
		put_le(&p, id, 2);
		put_le(&p, ts, 4);
	} else {
		put_le(&p, LTTNG_EXTENDED_ID, 2);
		put_le(&p, id, 4);
		put_le(&p, ts, 8);
	}
	return (size_t)(p - h);
}

static void stream_event(struct stream *s, uint32_t id, const struct bitbuf *ev, uint64_t ts)
{
	size_t n = ev->bits / 8, hn;
	uint8_t h[LTTNG_HEADER_EXTENDED];

	if (s->events && s->used + s->header_max + n > s->cap) {
		packet_close(s, false);
		packet_open(s, s->preamble + s->header_max + n);
	} else if (s->used + s->header_max + n > s->cap) {
		/* an empty packet too small for this event: grow it */
		packet_open(s, s->preamble + s->header_max + n);
	}
	hn = event_header(s, id, ts, h);
	if (!s->events)
		s->ts_begin = ts;
	s->ts_end = ts;
	s->last_ts = ts;
	memcpy(s->buf + s->used, h, hn);
	if (n) /* an event without fields has no bytes (and may have no pointer) */
		memcpy(s->buf + s->used + hn, ev->p, n);
	s->used += hn + n;
	s->events++;
}

/* ------------------------------------------------------------ records */

static uint64_t cpu_discarded(const struct kp_log *log, uint32_t cpu)
{
	const struct kp_cpu *c = &log->cpus[cpu];

	return c->have_end ? kp_sat_add(kp_cpu_lost(c), c->end.stuck) : 0;
}

/* Drops before the next event: an empty packet from the last event to the
 * KprofRecordsLost record's time whose running count takes them in, so a
 * reader reports them between those two times (see ctf.c). */
static void stream_drops(struct stream *s, uint64_t n, uint64_t ts)
{
	packet_close(s, true); /* cut at its content too: drops can be many */
	packet_open(s, s->preamble);
	s->ts_begin = s->ts_end;
	s->ts_end = ts > s->ts_end ? ts : s->ts_end;
	s->discarded = kp_sat_add(s->discarded, n);
	packet_close(s, true); /* cut at its content: an empty packet */
	packet_open(s, s->preamble);
	s->ts_begin = s->ts_end;
}

/* Record r's event, the CPU's record number i (with, --lttng, the state
 * dump's start before the rundown and its end after it). */
static void stream_record(struct stream *s, struct ctf_lttng_cpu *lc, const struct kp_record *r, size_t i,
			  struct bitbuf *ev)
{
	uint64_t ts = r->h.TimeStamp;
	uint32_t id;

	if (lc && lc->have_rundown && i == lc->rundown_first) {
		id = ctf_lttng_statedump_mark(ev, false);
		stream_event(s, id, ev, ts);
	}
	if (!lc || !ctf_lttng_encode(lc, r, i, ev, &id))
		id = encode_payload(ev, r, s->log);
	stream_event(s, id, ev, ts);
	if (lc && lc->have_rundown && i == lc->rundown_last) {
		id = ctf_lttng_statedump_mark(ev, true);
		stream_event(s, id, ev, ts);
	}
}

/* Record r into the stream, after the drops placed just before it. */
static void stream_one(struct stream *s, struct ctf_lttng_cpu *lc, const struct kp_record *r, size_t i,
		       struct bitbuf *ev, uint64_t *lost)
{
	const struct kp_drop *d = kp_drop_at(s->log, r);
	uint64_t dropped = d ? d->total : 0;

	if (dropped) {
		stream_drops(s, dropped, r->h.TimeStamp);
		*lost = *lost > dropped ? *lost - dropped : 0; /* the rest: the tail, below */
	}
	stream_record(s, lc, r, i, ev);
}

/* Write stream_N for one CPU; 0 or an errno.  Its records stream from a
 * cursor, whose stamps never go back (read/records.h): nothing is held or
 * sorted; --lttng first reads the CPU up to its first CSwitch for its
 * rundown (ctf_lttng_cpu_init). */
int ctf_write_stream(const char *path, struct kp_log *log, uint32_t cpu, const uint8_t uuid[16],
		     struct bitbuf *ev, const struct ctf_lttng *lt)
{
	struct stream s = { .uuid = uuid, .cpu = cpu, .lttng = lt != NULL, .log = log };
	struct ctf_lttng_cpu lc;
	uint64_t lost = cpu_discarded(log, cpu);
	uint64_t t0 = log->have_header ? log->header.start_tsc : 0;
	struct kp_cpu_cursor c;
	struct kp_record r;
	bool have;

	s.preamble = lt ? LTTNG_PREAMBLE : PACKET_PREAMBLE;
	s.header_max = lt ? LTTNG_HEADER_EXTENDED : EVENT_HEADER;
	if (lt)
		ctf_lttng_cpu_init(&lc, lt, cpu, log);
	s.f = fopen(path, "wb");
	if (!s.f)
		return errno;
	packet_open(&s, s.preamble);
	kp_cursor_init(&c, log, cpu);
	have = kp_cursor_next(&c, &r);
	s.ts_begin = s.ts_end = have ? r.h.TimeStamp : t0;
	for (size_t i = 0; have; have = kp_cursor_next(&c, &r), i++)
		stream_one(&s, lt ? &lc : NULL, &r, i, ev, &lost);
	if (lost) {
		/* the losses go in a packet of their own (see top) */
		packet_close(&s, false);
		packet_open(&s, s.preamble);
		s.ts_begin = s.ts_end;
		if (log->have_run_end && log->run_end.end_tsc > s.ts_end)
			s.ts_end = log->run_end.end_tsc;
	}
	s.discarded = kp_sat_add(s.discarded, lost);
	packet_close(&s, true);
	if (fclose(s.f) && !s.err)
		s.err = errno ? errno : EIO;
	free(s.buf);
	return s.err;
}
