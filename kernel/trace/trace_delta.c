/*
 * trace_delta.c - TSC differences in place of TSC values, before LZ4.
 *
 * Why: a record's 8-byte TimeStamp differs from every earlier one, so in a
 * run of same-type records it breaks what would be one long LZ4 match into
 * a short match, 3-4 fresh literal bytes and another match.  As a
 * difference from the previous record's TimeStamp its top 5 bytes are
 * zero, and for periodic events (profile samples, clock ticks) the low
 * bytes repeat too.  Payload TSC fields (a spin lock's acquire and release
 * times, a resource's acquire time, a stack walk's event time, a late
 * clock's due time) become differences from the record's own TimeStamp.
 *
 * What it buys (tests/bench/bench_lz4.c, the mixed logs in tests/golden):
 * wire bytes per record byte with 1 KiB chunks 0.521 -> 0.507, 2 KiB
 * 0.462 -> 0.440, 4 KiB 0.426 -> 0.398, 16 KiB 0.390 -> 0.351; about 1%
 * at 512 bytes, where most of a chunk is its first sight of each record
 * type.  Sched-heavy logs gain most (4 KiB: 0.392 -> 0.353), resource-
 * heavy ones least (0.480 -> 0.471).  It costs about 12% of the
 * compression time, a microsecond or two per chunk.
 *
 * kprof's tracetest pattern records (hook 0xFE01) count a Sequence per
 * CPU and writer: as a difference from the previous such record's of the
 * same writer (thread or interrupt: Writer bit 0) it is 1 in almost every
 * record, where the value itself put 1-2 fresh bytes in each.  On a 4-CPU
 * tracetest run (tests/bench/wire_bytes.py) that takes the wire from 0.526
 * to 0.475-0.478 bytes per record byte.  That rule is TD_RULES_2 (wire
 * encoding 2); logs compressed before it say encoding 1 and decode with
 * TD_RULES_1, so they stay exact.
 *
 * Exactness: all arithmetic is modulo 2^64, applied in record order by the
 * encoder with the original values and undone in the same order by the
 * decoder, which recovers each TimeStamp before the payload fields that
 * refer to it.  Marker, Size and HookId are not changed, so the decoder
 * finds the same records and the same types.  Record validity is the
 * wire format's (docs/wire-format.md section 4).
 */
#include "kernel/trace/trace_delta.h"

#include "include/kprof/wmi.h"

#define TD_HEADER 16u

static inline uint64_t td_get(const uint8_t *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
}

static inline void td_put(uint8_t *p, uint64_t v)
{
	__builtin_memcpy(p, &v, 8);
}

/* Offsets from the record start of the payload TSC fields of a hook, or
 * 0: at most two each.  need is the record size that holds them. */
static unsigned td_fields(uint16_t hook, unsigned off[2], unsigned *need)
{
	switch (hook) {
	case PERFINFO_LOG_TYPE_SPINLOCK:    /* AcquireTime, ReleaseTime */
		off[0] = TD_HEADER + 0x10;
		off[1] = TD_HEADER + 0x18;
		*need = TD_HEADER + 0x20;
		return 2;
	case PERFINFO_LOG_TYPE_RESOURCE:    /* AcquireTime */
	case PERFINFO_LOG_TYPE_STACKWALK:   /* EventTimeStamp */
	case KPROF_LOG_TYPE_CLOCK_LATE:     /* DueTime */
		off[0] = TD_HEADER;
		*need = TD_HEADER + 8;
		return 1;
	default:
		return 0;
	}
}

/*
 * A payload TSC field v of a record at TimeStamp ts: ts + 1 - v, which is
 * small when v is a little before ts, except that 0 (not set, as in a
 * resource's first initialisation) and ts + 1 stay as they are, so 0 does
 * not become a large number.  g(v) = ts + 1 - v is an involution swapping
 * 0 and ts + 1; fixing those two keeps it one, so this is its own inverse.
 */
static inline uint64_t td_field(uint64_t ts, uint64_t v)
{
	return v == 0 || v == ts + 1 ? v : ts + 1 - v;
}

/* A tracetest record's Sequence (u32 at offset 24) as the difference from
 * the previous one of the same writer (Writer, offset 20, bit 0), modulo
 * 2^32; prev holds the original values, for both directions. */
static inline void td_sequence(uint8_t *r, size_t size, uint32_t prev[2], int encode)
{
	uint32_t writer, seq;

	if (size < TD_HEADER + 12)
		return;
	__builtin_memcpy(&writer, r + TD_HEADER + 4, 4);
	__builtin_memcpy(&seq, r + TD_HEADER + 8, 4);
	uint32_t *p = &prev[writer & 1];
	uint32_t orig = encode ? seq : seq + *p;
	seq = encode ? seq - *p : orig;
	*p = orig;
	__builtin_memcpy(r + TD_HEADER + 8, &seq, 4);
}

/* Size of the valid record at p, with limit bytes left, else 0. */
static size_t td_record(const uint8_t *p, size_t limit)
{
	uint32_t marker;
	uint16_t size;

	if (limit < TD_HEADER)
		return 0;
	__builtin_memcpy(&marker, p, 4);
	__builtin_memcpy(&size, p + 4, 2);
	if ((marker >> 16) != (PERFINFO_MARKER_64 >> 16) || size < TD_HEADER || size > limit)
		return 0;
	return size;
}

/* n bytes from src to dst, 8 at a time: one loop iteration per word
 * rather than per byte (a "rep movsb" goes a byte at a time under QEMU). */
static void td_copy(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		td_put(dst + i, td_get(src + i));
	for (; i < n; i++)
		dst[i] = src[i];
}

/* The records of src[0..n) transformed into dst (which may be src: in
 * place); the bytes from the first invalid record on are copied as they
 * are.  One pass: each record is copied, then its fields changed in dst. */
static size_t td_walk(uint8_t *dst, const uint8_t *src, size_t n, int encode, enum td_rules rules)
{
	uint64_t prev = 0;
	uint32_t seq_prev[2] = { 0, 0 };
	size_t off = 0, records = 0;

	while (off < n) {
		size_t size = td_record(src + off, n - off);
		if (!size)
			break;
		size_t span = (size + PERFINFO_RECORD_ALIGN - 1) & ~(size_t)(PERFINFO_RECORD_ALIGN - 1);
		if (span > n - off)
			span = n - off;
		if (dst != src)
			td_copy(dst + off, src + off, span);
		uint8_t *r = dst + off;
		uint16_t hook;
		__builtin_memcpy(&hook, r + 6, 2);
		uint64_t ts = td_get(r + 8);
		if (!encode)
			ts += prev; /* ts held the difference */
		td_put(r + 8, encode ? ts - prev : ts);
		prev = ts;

		unsigned f[2], need, nf = td_fields(hook, f, &need);
		for (unsigned i = 0; nf && size >= need && i < nf; i++)
			td_put(r + f[i], td_field(ts, td_get(r + f[i])));
		if (hook == KPROF_LOG_TYPE_TRACETEST && rules >= TD_RULES_2)
			td_sequence(r, size, seq_prev, encode);
		records++;
		off += span;
	}
	if (dst != src && off < n)
		td_copy(dst + off, src + off, n - off);
	return records;
}

size_t trace_delta_encode(void *buf, size_t n)
{
	return td_walk(buf, buf, n, 1, TD_RULES_2);
}

size_t trace_delta_encode_copy(void *dst, const void *src, size_t n)
{
	return td_walk(dst, src, n, 1, TD_RULES_2);
}

size_t trace_delta_decode(void *buf, size_t n)
{
	return td_walk(buf, buf, n, 0, TD_RULES_2);
}

size_t trace_delta_decode_rules(void *buf, size_t n, enum td_rules rules)
{
	return td_walk(buf, buf, n, 0, rules);
}
