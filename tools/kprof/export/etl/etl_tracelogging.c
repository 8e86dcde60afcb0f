/*
 * etl_tracelogging.c - kprof's own records as TraceLogging events
 * (etl_tracelogging.h says why; docs/etw-records.md, "kprof's own records
 * in the ETL file", gives the layout).
 *
 * An event is:
 *
 *   EVENT_HEADER (0x50)   HeaderType EVENT64, Flags EXTENDED_INFO, the
 *                         record's TimeStamp, the CPU's current thread and
 *                         its process, provider kprof, Id 0, Version 0,
 *                         Channel 11, Level 5, Opcode 0 (1 and 2 for a
 *                         span's Begin and End), Keyword 0
 *   PROV_TRAITS item      u16 size, "kprof\0"
 *   EVENT_SCHEMA_TL item  u16 size, a tag byte 0, the event's name\0, then
 *                         per field its name\0 and InType (| 0x80 and an
 *                         OutType byte where it has one)
 *   user data             the fields in the schema's order
 *
 * as the real Windows files in the tests hold TraceLogging events.  The
 * names and fields are those of `kprof decode --json` (read/fields.c, or
 * the workload's own type for a user event), so the two can be joined
 * field by field:
 *
 *   KP_UNSIGNED, KP_BITS  UINT8/16/32/64 by size (a bit field: its value)
 *   KP_SIGNED             INT8/16/32/64
 *   KP_POINTER, KP_HEX    UINT8..64 with OutType HEX
 *   KP_CHARS              ANSISTRING: the text up to its first NUL, then NUL
 *   tail                  an array (InType | VCCOUNT: a u16 count, then
 *                         the items): Stack UINT64 HEX, counts UINT32,
 *                         bytes BINARY (a u16 length, then the bytes)
 */
#include "tools/kprof/export/etl/etl_tracelogging.h"

#include <stdlib.h>
#include <string.h>

#include "include/kprof/user_event.h"
#include "include/kprof/wmi.h"
#include "tools/kprof/read/fields.h"
#include "tools/kprof/read/user_types.h"
#include "tools/kprof/util/alloc.h"

/* 9c48d2d6-5a2c-5939-867f-908cb09ca28d, stored as Windows stores a GUID
 * (the first three fields little-endian). */
const uint8_t etl_tl_provider_guid[16] = {
	0xd6, 0xd2, 0x48, 0x9c, 0x2c, 0x5a, 0x39, 0x59,
	0x86, 0x7f, 0x90, 0x8c, 0xb0, 0x9c, 0xa2, 0x8d,
};

/* TraceLogging's InType and OutType values (TraceLoggingProvider.h). */
enum {
	TLG_IN_ANSISTRING = 2,
	TLG_IN_INT8 = 3,
	TLG_IN_UINT8 = 4,
	TLG_IN_BINARY = 14,
	TLG_IN_VCCOUNT = 0x40,
	TLG_IN_CHAIN = 0x80,       /* an OutType byte follows                 */
	TLG_OUT_HEX = 4,
};

/* ---------------------------------------------------------------- schema */

/* InType of an integer of `size` bytes: INT8 3, UINT8 4, INT16 5 ...
 * UINT64 10. */
static uint8_t int_type(unsigned size, bool is_signed)
{
	unsigned step = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;

	return (uint8_t)((is_signed ? TLG_IN_INT8 : TLG_IN_UINT8) + 2 * step);
}

struct bytes {
	uint8_t *b;
	size_t n, cap;
};

static void put(struct bytes *s, const void *p, size_t n)
{
	if (s->n + n > s->cap) {
		s->cap = (s->n + n) * 2 + 64;
		s->b = kp_xrealloc(s->b, s->cap, 1);
	}
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void put_u8(struct bytes *s, uint8_t v)
{
	put(s, &v, 1);
}

static void put_name(struct bytes *s, const char *name, uint8_t in, bool hex)
{
	put(s, name, strlen(name) + 1);
	put_u8(s, hex ? (uint8_t)(in | TLG_IN_CHAIN) : in);
	if (hex)
		put_u8(s, TLG_OUT_HEX);
}

static void schema_field(struct bytes *s, const struct kp_field *f)
{
	switch (f->kind) {
	case KP_CHARS:
		put_name(s, f->name, TLG_IN_ANSISTRING, false);
		break;
	case KP_SIGNED:
		put_name(s, f->name, int_type(f->size, true), false);
		break;
	case KP_POINTER:
	case KP_HEX:
		put_name(s, f->name, int_type(f->size, false), true);
		break;
	default: /* KP_UNSIGNED, KP_BITS */
		put_name(s, f->name, int_type(f->size, false), false);
		break;
	}
}

static void schema_tail(struct bytes *s, const struct kp_event *e)
{
	if (e->tail == KP_TAIL_ADDRESSES)
		put_name(s, e->tail_name, TLG_IN_VCCOUNT | int_type(8, false), true);
	else if (e->tail == KP_TAIL_COUNTS)
		put_name(s, e->tail_name, TLG_IN_VCCOUNT | int_type(4, false), false);
	else if (e->tail == KP_TAIL_BYTES)
		put_name(s, e->tail_name, TLG_IN_BINARY, false);
}

/* One extended data item: its header, data, padding to 8. */
static void put_item(struct bytes *s, uint16_t type, bool more, const struct bytes *data)
{
	struct event_extended_item h = {
		.ItemSize = (uint16_t)ETL_ALIGN_UP(sizeof(h) + data->n),
		.ExtType = type,
		.Linkage = more,
		.DataSize = (uint16_t)data->n,
	};

	put(s, &h, sizeof(h));
	put(s, data->b, data->n);
	put(s, "\0\0\0\0\0\0\0", h.ItemSize - sizeof(h) - data->n);
}

static void make_schema(struct etl_tl_schema *sc, const char *name, const struct kp_event *e)
{
	struct bytes traits = { 0 }, meta = { 0 }, items = { 0 };
	uint16_t n;

	put(&traits, "\0\0", 2);
	put(&traits, ETL_TL_PROVIDER, sizeof(ETL_TL_PROVIDER));
	n = (uint16_t)traits.n;
	memcpy(traits.b, &n, 2);

	put(&meta, "\0\0", 2);
	put_u8(&meta, 0); /* no tags */
	put(&meta, name, strlen(name) + 1);
	for (unsigned i = 0; i < e->nfields; i++)
		schema_field(&meta, &e->fields[i]);
	schema_tail(&meta, e);
	n = (uint16_t)meta.n;
	memcpy(meta.b, &n, 2);

	put_item(&items, EVENT_HEADER_EXT_TYPE_PROV_TRAITS, true, &traits);
	put_item(&items, EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL, false, &meta);
	free(traits.b);
	free(meta.b);
	sc->b = items.b;
	sc->n = (uint16_t)items.n;
	sc->made = true;
}

/* ---------------------------------------------------------------- records */

void etl_tl_init(struct etl_tl *tl, const struct kp_log *log)
{
	*tl = (struct etl_tl){ .log = log };
	tl->known = kp_xrealloc(NULL, kp_nevents, sizeof(*tl->known));
	memset(tl->known, 0, kp_nevents * sizeof(*tl->known));
	tl->user = kp_xrealloc(NULL, KPROF_EVENT_MAX_TYPES + 1, sizeof(*tl->user));
	memset(tl->user, 0, (KPROF_EVENT_MAX_TYPES + 1) * sizeof(*tl->user));
}

void etl_tl_free(struct etl_tl *tl)
{
	for (size_t i = 0; i < kp_nevents; i++)
		free(tl->known[i].b);
	for (size_t i = 0; i <= KPROF_EVENT_MAX_TYPES; i++)
		free(tl->user[i].b);
	free(tl->known);
	free(tl->user);
	free(tl->tids);
	free(tl->pids);
	kp_index_free(&tl->thread_ix);
}

bool etl_tl_carries(const struct etl_tl *tl, const struct kp_record *r)
{
	uint16_t hook = r->h.HookId;

	if ((hook & 0xFF00) != EVENT_TRACE_GROUP_KPROF || hook == KPROF_LOG_TYPE_THREAD ||
	    hook == KPROF_LOG_TYPE_RECORDS_LOST || hook == KPROF_LOG_TYPE_EVENT_TYPE)
		return false;
	const struct kp_event *e = kp_record_event(tl->log, r);
	return e && r->payload_size >= e->fixed_size; /* shorter: decoded raw, not described */
}

/* The description of r, its schema (made on first use) and its user
 * type (NULL for kprof's own kinds). */
static const struct kp_event *describe(struct etl_tl *tl, const struct kp_record *r, const struct etl_tl_schema **sc,
				       const struct kp_user_type **type)
{
	const struct kp_user_type *t = kp_user_type_of(tl->log, r);
	const struct kp_event *e = t ? &t->ev : kp_record_event(tl->log, r);
	struct etl_tl_schema *s;

	if (t)
		s = &tl->user[t->id];
	else
		s = &tl->known[e - kp_events];
	if (!s->made)
		make_schema(s, t ? t->name : e->name, e);
	*sc = s;
	*type = t;
	return e;
}

static size_t chars_len(const uint8_t *p, size_t room)
{
	size_t n = 0;

	while (n < room && p[n])
		n++;
	return n;
}

/* The bytes of the tail after the fixed part, whole items only. */
static size_t tail_bytes(const struct kp_event *e, const struct kp_record *r)
{
	size_t n = r->payload_size > e->fixed_size ? r->payload_size - e->fixed_size : 0;

	if (e->tail == KP_TAIL_ADDRESSES)
		return n / 8 * 8;
	if (e->tail == KP_TAIL_COUNTS)
		return n / 4 * 4;
	return e->tail == KP_TAIL_BYTES ? n : 0;
}

static uint32_t data_size(const struct kp_event *e, const struct kp_record *r)
{
	uint32_t n = 0;

	for (unsigned i = 0; i < e->nfields; i++) {
		const struct kp_field *f = &e->fields[i];
		n += f->kind == KP_CHARS ? (uint32_t)chars_len(r->payload + f->offset, f->size) + 1 : f->size;
	}
	if (e->tail != KP_TAIL_NONE)
		n += 2 + (uint32_t)tail_bytes(e, r);
	return n;
}

uint32_t etl_tl_size(struct etl_tl *tl, const struct kp_record *r)
{
	const struct etl_tl_schema *sc;
	const struct kp_user_type *t;
	const struct kp_event *e;

	if (!etl_tl_carries(tl, r))
		return 0;
	e = describe(tl, r, &sc, &t);
	return (uint32_t)sizeof(struct event_header) + sc->n + data_size(e, r);
}

static uint32_t pid_of(const struct etl_tl *tl, uint32_t tid)
{
	size_t it, at;

	for (at = kp_index_first(&tl->thread_ix, kp_hash_u64(tid, 0), &it); at != KP_INDEX_NONE;
	     at = kp_index_next(&tl->thread_ix, kp_hash_u64(tid, 0), &it))
		if (tl->tids[at] == tid)
			return tl->pids[at];
	return 0;
}

void etl_tl_thread(struct etl_tl *tl, uint32_t tid, uint32_t pid)
{
	size_t it, at;

	for (at = kp_index_first(&tl->thread_ix, kp_hash_u64(tid, 0), &it); at != KP_INDEX_NONE;
	     at = kp_index_next(&tl->thread_ix, kp_hash_u64(tid, 0), &it))
		if (tl->tids[at] == tid) {
			tl->pids[at] = pid;
			return;
		}
	if (tl->nthreads == tl->cap) {
		tl->cap = tl->cap ? tl->cap * 2 : 64;
		tl->tids = kp_xrealloc(tl->tids, tl->cap, sizeof(*tl->tids));
		tl->pids = kp_xrealloc(tl->pids, tl->cap, sizeof(*tl->pids));
	}
	tl->tids[tl->nthreads] = tid;
	tl->pids[tl->nthreads] = pid;
	kp_index_add(&tl->thread_ix, kp_hash_u64(tid, 0), tl->nthreads++);
}

/* A span's Begin is a Start, its End a Stop: WPA pairs them into regions. */
static uint8_t opcode_of(const struct kp_user_type *t, const struct kp_record *r)
{
	KPROF_USER_EVENT h;

	if (!t || t->kind != KprofEventKindSpan || r->payload_size < sizeof(h))
		return ETL_TL_OPCODE_INFO;
	memcpy(&h, r->payload, sizeof(h));
	return h.Phase == KprofEventBegin ? ETL_TL_OPCODE_START
	     : h.Phase == KprofEventEnd   ? ETL_TL_OPCODE_STOP
	                                  : ETL_TL_OPCODE_INFO;
}

void etl_tl_event(struct etl_tl *tl, const struct kp_record *r, uint32_t size, uint32_t tid, struct etl_queue *q)
{
	const struct etl_tl_schema *sc;
	const struct kp_user_type *t;
	const struct kp_event *e = describe(tl, r, &sc, &t);
	struct event_header h = {
		.Size = (uint16_t)size,
		.HeaderType = EVENT_HEADER_EVENT64,
		.MarkerFlags = (uint8_t)((TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE) >> 24),
		.Flags = EVENT_HEADER_FLAG_EXTENDED_INFO,
		.ThreadId = tid,
		.ProcessId = pid_of(tl, tid),
		.TimeStamp = r->h.TimeStamp,
		.Channel = ETL_TL_CHANNEL,
		.Level = ETL_TL_LEVEL,
		.Opcode = opcode_of(t, r),
	};

	memcpy(h.ProviderId, etl_tl_provider_guid, sizeof(h.ProviderId));
	etl_queue_push(q, &h, sizeof(h));
	etl_queue_push(q, sc->b, sc->n);
	for (unsigned i = 0; i < e->nfields; i++) {
		const struct kp_field *f = &e->fields[i];
		if (f->kind == KP_CHARS) {
			size_t n = chars_len(r->payload + f->offset, f->size);
			etl_queue_push(q, r->payload + f->offset, n);
			etl_queue_push(q, "", 1);
		} else {
			uint64_t v = kp_field_value(f, r->payload); /* little-endian: its low bytes */
			etl_queue_push(q, &v, f->size);
		}
	}
	if (e->tail != KP_TAIL_NONE) {
		size_t n = tail_bytes(e, r);
		uint16_t count = (uint16_t)(e->tail == KP_TAIL_ADDRESSES ? n / 8 : e->tail == KP_TAIL_COUNTS ? n / 4 : n);
		etl_queue_push(q, &count, 2);
		etl_queue_push(q, r->payload + e->fixed_size, n);
	}
	etl_queue_push(q, "\0\0\0\0\0\0\0", ETL_ALIGN_UP(size) - size);
}
