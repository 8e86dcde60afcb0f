/*
 * ctf_shared.h - what the files of `kprof ctf` share (ctf.c describes the trace
 * they write): the packet layout, how a field of the event table is
 * stored (the metadata and the stream writer both ask here, so they
 * cannot disagree), and the two writers.
 */
#ifndef KPROF_TOOL_CTF_SHARED_H
#define KPROF_TOOL_CTF_SHARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/kprof/read/fields.h"
#include "tools/kprof/read/log.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/read/user_types.h"

#define CTF_MAGIC          0xC1FC1FC1u
#define PACKET_BYTES       (64u * 1024u)
#define PACKET_HEADER      (4 + 16 + 4)          /* magic, uuid, stream_id     */
#define PACKET_CONTEXT     (5 * 8 + 4)           /* 5 x u64, cpu_id            */
#define PACKET_PREAMBLE    (PACKET_HEADER + PACKET_CONTEXT)
/* --lttng: the header adds stream_instance_id, the context packet_seq_num */
#define LTTNG_PREAMBLE     (PACKET_PREAMBLE + 8 + 8)
#define EVENT_HEADER       (2 + 8)               /* id, timestamp              */
/* --lttng: LTTng's event_header_large, compact (id < 65535, 32-bit time
 * since the previous event) or extended (65535, u32 id, u64 time) */
#define LTTNG_HEADER_COMPACT  (2 + 4)
#define LTTNG_HEADER_EXTENDED (2 + 4 + 8)
#define LTTNG_EXTENDED_ID     65535u
#define NO_HZ_FREQ         1000000000ull         /* no run header: 1 tick = 1 ns */

/* Bits appended LSB-first, as a little-endian CTF reader takes them. */
struct bitbuf {
	uint8_t *p;
	size_t bits;
	size_t cap;        /* bytes, all zero beyond bits                  */
};

void bb_reset(struct bitbuf *b);
void bb_align(struct bitbuf *b, unsigned align);
void bb_put(struct bitbuf *b, uint64_t v, unsigned nbits);
void bb_bytes(struct bitbuf *b, const uint8_t *p, size_t n);

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

/* A user event type's class (read/user_types.c): ids from CTF_USER_ID_BASE
 * up, after the table's, Unknown and --lttng's classes. */
#define CTF_USER_ID_BASE 1024u
static inline uint32_t user_event_id(const struct kp_user_type *t)
{
	return CTF_USER_ID_BASE + t->id;
}

/* The table's description of a record, or NULL: written as Unknown (the
 * same rule as the decoder's). */
static inline const struct kp_event *record_event(const struct kp_record *r)
{
	const struct kp_event *e = kp_event_find(r->h.HookId, r->version);
	return e && r->payload_size >= e->fixed_size ? e : NULL;
}

/* ctf_wakeup.c: each ReadyThread record's target_cpu (the CPU its thread
 * next runs on), per CPU by the record's place among its CPU's. */
struct ctf_wakeups {
	uint16_t **cpu;
	size_t *n;
	uint32_t ncpus;
};
void ctf_wakeups_find(struct ctf_wakeups *w, struct kp_log *log);
uint32_t ctf_wakeup_cpu(const struct ctf_wakeups *w, uint32_t cpu, size_t i);
void ctf_wakeups_free(struct ctf_wakeups *w);

/* LTTng's kernel conventions (ctf_lttng.c): the threads of the log, and
 * per CPU where its rundown is and which thread runs. */
struct ctf_lttng;
struct ctf_lttng_cpu {
	const struct ctf_lttng *l;
	uint32_t cpu;
	uint32_t current;      /* the thread running (last NewThreadId)        */
	uint32_t running;      /* the one running at the rundown               */
	bool have_rundown;     /* KprofThread records before its first CSwitch */
	size_t rundown_first, rundown_last; /* their indexes in the CPU's records */
	size_t readies;        /* its ReadyThread records encoded so far       */
};

struct ctf_lttng *ctf_lttng_new(struct kp_log *log);
void ctf_lttng_free(struct ctf_lttng *l);
/* The classes of the events below, and whether a table class is replaced
 * by one of them (and left out of the metadata). */
void ctf_lttng_classes(FILE *f);
bool ctf_lttng_replaces(const struct kp_event *e);
/* CPU cpu's rundown and the thread running at it: its records read up to
 * its first CSwitch (a cursor of its own, nothing held). */
void ctf_lttng_cpu_init(struct ctf_lttng_cpu *c, const struct ctf_lttng *l, uint32_t cpu, struct kp_log *log);
/* Record r, the CPU's record number i (from 0, in the cursor's order), as
 * an LTTng event, its payload into b and its class id into *id; false
 * when it keeps its table class. */
bool ctf_lttng_encode(struct ctf_lttng_cpu *c, const struct kp_record *r, size_t i, struct bitbuf *b, uint32_t *id);
/* lttng_statedump_start (or _end): no payload. */
uint32_t ctf_lttng_statedump_mark(struct bitbuf *b, bool end);

/* DIR/metadata (ctf_metadata.c): 0, or -1 with errno set.  lttng: in
 * LTTng's kernel conventions. */
int ctf_write_metadata(const char *path, const struct kp_log *log, const uint8_t uuid[16], bool lttng);
/* DIR/stream_N of one CPU (ctf_stream.c), events encoded in ev: 0 or an
 * errno.  lt: LTTng's conventions (NULL: the table's events). */
int ctf_write_stream(const char *path, struct kp_log *log, uint32_t cpu, const uint8_t uuid[16],
		     struct bitbuf *ev, const struct ctf_lttng *lt);

#endif
