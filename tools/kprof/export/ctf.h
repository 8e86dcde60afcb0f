/*
 * ctf.h - what the files of `kprof ctf` share (ctf.c describes the trace
 * they write): the packet layout, how a field of the event table is
 * stored (the metadata and the stream writer both ask here, so they
 * cannot disagree), and the two writers.
 */
#ifndef KPROF_TOOL_CTF_H
#define KPROF_TOOL_CTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/kprof/read/fields.h"
#include "tools/kprof/read/log.h"
#include "tools/kprof/read/records.h"

#define CTF_MAGIC          0xC1FC1FC1u
#define PACKET_BYTES       (64u * 1024u)
#define PACKET_HEADER      (4 + 16 + 4)          /* magic, uuid, stream_id     */
#define PACKET_CONTEXT     (5 * 8 + 4)           /* 5 x u64, cpu_id            */
#define PACKET_PREAMBLE    (PACKET_HEADER + PACKET_CONTEXT)
#define NO_HZ_FREQ         1000000000ull         /* no run header: 1 tick = 1 ns */

/* Bits appended LSB-first, as a little-endian CTF reader takes them. */
struct bitbuf {
	uint8_t *p;
	size_t bits;
	size_t cap;        /* bytes, all zero beyond bits                  */
};

/* How a table field is stored: the metadata and the writer both ask here. */
static inline unsigned field_bits(const struct kp_field *f)
{
	return f->kind == KP_BITS ? f->width : f->size * 8u;
}

static inline unsigned field_align(const struct kp_field *f)
{
	return f->kind == KP_BITS ? 1 : 8;
}

static inline bool field_signed(const struct kp_field *f)
{
	return f->kind == KP_SIGNED;
}

static inline unsigned field_base(const struct kp_field *f)
{
	return f->kind == KP_POINTER || f->kind == KP_HEX ? 16 : 10;
}

static inline bool field_is_enum(const struct kp_field *f)
{
	return f->names && f->nnames;
}

static inline uint32_t event_id(const struct kp_event *e)
{
	return (uint32_t)(e - kp_events);
}

static inline uint32_t unknown_id(void)
{
	return (uint32_t)kp_nevents;
}

/* The table's description of a record, or NULL: written as Unknown (the
 * same rule as the decoder's). */
static inline const struct kp_event *record_event(const struct kp_record *r)
{
	const struct kp_event *e = kp_event_find(r->h.HookId, r->version);
	return e && r->payload_size >= e->fixed_size ? e : NULL;
}

/* DIR/metadata (ctf_metadata.c): 0, or -1 with errno set. */
int ctf_write_metadata(const char *path, const struct kp_log *log, const uint8_t uuid[16]);
/* DIR/stream_N of one CPU (ctf_stream.c), events encoded in ev: 0 or an
 * errno.  Unless quiet, says so when the CPU's records had to be sorted. */
int ctf_write_stream(const char *path, struct kp_log *log, uint32_t cpu, const uint8_t uuid[16],
		     struct bitbuf *ev, bool quiet);

#endif
