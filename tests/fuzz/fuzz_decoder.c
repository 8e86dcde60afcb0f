/*
 * fuzz_decoder.c - libFuzzer target for the kprof log decoder
 * (tools/kprof/read/log.c and records.c, which has kp_totals();
 * tools/kprof/export/decode.c and tools/kprof/read/fields.c for printing
 * records).
 *
 * What it proves, for every input, under ASan and UBSan:
 *
 *  - kp_log_scan(), the record cursors, the time merge, kp_totals() and
 *    the text/JSON record printers never crash, read out of bounds or hit
 *    undefined behaviour, whatever the log holds (the log is handed over in
 *    a buffer of exactly its size, so one byte too far is an ASan report);
 *  - every frame that is still byte-identical and contiguous in the damaged
 *    log is found, at its new offset, and all its records decode (unless
 *    it overlaps another good frame, see reachable());
 *  - nothing is accepted as a frame unless both its CRCs really hold (this
 *    file checks them with its own CRC-32 and header parsing, not log.c's),
 *    and the frame count is exactly the number of such frames;
 *  - every corrupt, bad-header, truncated and bad-record issue points at a
 *    byte offset where that damage really is;
 *  - when the damaged log holds only copies of original frames, each once
 *    and in their original order, "missing" issues name exactly the frames
 *    that are gone (none that arrived, every gap before a later frame of
 *    the same CPU), there is no "duplicate" issue, and the "incomplete"
 *    issues are exactly one per absent run header, CPU end and run end;
 *  - walking the records a second time adds no issue (a malformed record
 *    is reported once per buffer);
 *  - both wire versions: v1 buffer frames and v2 chunk frames (make fuzz
 *    runs on a log of each); each CPU's buffers and chunks are kept in
 *    sequence order, none twice (a frame that arrives again is dropped),
 *    and every valid frame is either decoded or counted as another run's.
 *
 * The input is not a log but a list of damage instructions applied to a
 * copy of a real log (the golden 2-CPU log, or $KPROF_FUZZ_LOG), whose
 * frames are indexed at start-up by the small parser below.  That keeps
 * the fuzzer close to real logs, where the interesting code is, and lets
 * it know which frames survived.  Layout:
 *
 *   byte 0      mode: 0xFE = raw mode (below); otherwise flags: bit 0
 *               print records as text, bit 1 as JSON (the first ones,
 *               and all of buffers that are not original frames)
 *   then        4-byte instructions {op, x, y, z}, at most MAX_OPS
 *
 *   op & 0x0F   what: enum op_kind (bit flips, deletions, garbage with
 *               0xFE and magics, fake and forged headers, forged frames
 *               with good CRCs and odd contents, duplicates, truncation)
 *   op >> 4     where: bit 3 set: absolute, at (x << 8 | y) / 65536 of
 *               the current log; bit 3 clear: frame x % nframes of the
 *               original log (wherever its first byte is now), at its
 *               start, or its end if bit 0, plus (int8_t)y << (2 * bits 1-2)
 *   z           length or value
 *
 * Raw mode (byte 0 = 0xFE): the rest of the input is the log itself, for
 * garbage resilience; every check that does not need the original log
 * still runs.  -timeout catches anything worse than linear-ish time.
 *
 * Damage is tracked in a piece table (runs of original bytes and of new
 * bytes), so which original frames are intact, and where, falls out of the
 * pieces; it is cross-checked against a byte comparison.
 *
 * To see what an input does: KPROF_FUZZ_VERBOSE= fuzz_decoder INPUT lists
 * the instructions and the frames left intact; KPROF_FUZZ_VERBOSE=FILE
 * also writes the damaged log to FILE, for `kprof check FILE`.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/kprof/wire.h"
#include "tools/kprof/export/decode.h"
#include "tools/kprof/read/log.h"
#include "tools/kprof/read/records.h"

#define MAX_OPS     64
#define RAW_MODE    0xFE
#define HDR         KPROF_FRAME_HEADER_SIZE
#define DEFAULT_LOG "tests/golden/tracetest-2cpu.log"

/* ------------------------------------------------------------ own parsing */

static uint32_t crc_tab[256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & -(c & 1));
		crc_tab[i] = c;
	}
}

static uint32_t crc(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;

	while (n--)
		c = crc_tab[(c ^ *p++) & 0xFF] ^ (c >> 8);
	return ~c;
}

static uint32_t rd32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static const uint8_t magic[4] = { 0xFE, 'K', 'P', 'F' };

/* A frame as this file sees it. */
struct frame {
	size_t off;       /* of its header                              */
	size_t len;       /* header + payload                           */
	uint8_t type;
	uint16_t cpu;
	uint32_t seq;
	uint32_t records; /* buffer frames: the count in their header   */
	int orig;         /* index in orig[] when byte-identical, or -1 */
	bool reach;       /* a scanner gets to it (see reachable())     */
};

static bool magic_at(const uint8_t *b, size_t size, size_t p)
{
	return size - p >= 4 && !memcmp(b + p, magic, 4);
}

/* Header with a good CRC, version and length at p (payload not checked). */
static bool header_ok(const uint8_t *b, size_t size, size_t p)
{
	const uint8_t *h = b + p;


	/* The decoder also refuses CPU numbers above 4096 (KP_MAX_CPUS). */
	return size - p >= HDR && magic_at(b, size, p) && (h[4] == KPROF_FRAME_VERSION || h[4] == KPROF_FRAME_VERSION_1) &&
	       rd32(h + 12) <= KPROF_FRAME_MAX_PAYLOAD && crc(h, 20) == rd32(h + 20) &&
	       ((h[6] | h[7] << 8) < 4096 || (h[6] | h[7] << 8) == KPROF_FRAME_CPU_NONE);
}

/* A whole frame whose two CRCs hold at p. */
static bool frame_at(const uint8_t *b, size_t size, size_t p, struct frame *f)
{
	if (!header_ok(b, size, p))
		return false;
	const uint8_t *h = b + p;
	uint32_t len = rd32(h + 12);
	if (size - p - HDR < len || crc(h + HDR, len) != rd32(h + 16))
		return false;
	*f = (struct frame){ .off = p, .len = HDR + (size_t)len, .type = h[5], .cpu = h[6] | h[7] << 8,
			     .seq = rd32(h + 8), .orig = -1 };
	if (f->type == KPROF_FRAME_BUFFER && len >= sizeof(struct kprof_buffer_header))
		f->records = rd32(h + HDR + 8);
	if (f->type == KPROF_FRAME_CHUNK && len >= sizeof(struct kprof_chunk_header))
		f->records = h[HDR + 8] | h[HDR + 9] << 8;
	return true;
}

/* ---------------------------------------------------------- the original */

static uint8_t *orig_log;
static size_t orig_size;
static struct frame *orig;
static size_t norig;
static FILE *devnull;
static bool verbose;            /* $KPROF_FUZZ_VERBOSE: say what is done */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("KPROF_FUZZ_LOG");
	if (!path || !*path)
		path = DEFAULT_LOG;
	crc_init();
	FILE *f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (long)(orig_size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "fuzz_decoder: cannot read %s (set KPROF_FUZZ_LOG or run from the repo root)\n", path);
		exit(1);
	}
	orig_log = malloc(orig_size + 1);
	if (!orig_log || fread(orig_log, 1, orig_size, f) != orig_size) {
		fprintf(stderr, "fuzz_decoder: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	orig = calloc(orig_size / HDR + 1, sizeof(*orig));
	for (size_t p = 0; p < orig_size;) {
		if (frame_at(orig_log, orig_size, p, &orig[norig])) {
			orig[norig].orig = (int)norig;
			p += orig[norig++].len;
		} else {
			p++;
		}
	}
	if (!norig) {
		fprintf(stderr, "fuzz_decoder: %s holds no frame\n", path);
		exit(1);
	}
	devnull = fopen("/dev/null", "w");
	verbose = getenv("KPROF_FUZZ_VERBOSE") != NULL;
	fprintf(stderr, "fuzz_decoder: %s: %zu bytes, %zu frames\n", path, orig_size, norig);
	return 0;
}

/* -------------------------------------------------------- the piece table */

struct piece {
	size_t off;     /* in orig_log, or in pool when from_pool */
	size_t len;
	bool from_pool;
};

static struct piece *pieces;
static size_t npieces, pieces_cap;
static uint8_t *pool;
static size_t pool_len, pool_cap;
static size_t cur_size;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		abort();
	return p;
}

static void pieces_reset(void)
{
	if (!pieces_cap)
		pieces = xrealloc(NULL, (pieces_cap = 64) * sizeof(*pieces));
	pieces[0] = (struct piece){ .off = 0, .len = orig_size };
	npieces = 1;
	pool_len = 0;
	cur_size = orig_size;
}

static void piece_insert_slot(size_t i)
{
	if (npieces == pieces_cap)
		pieces = xrealloc(pieces, (pieces_cap *= 2) * sizeof(*pieces));
	memmove(&pieces[i + 1], &pieces[i], (npieces - i) * sizeof(*pieces));
	npieces++;
}

/* Index of the piece starting at pos (npieces when pos is the end). */
static size_t split_at(size_t pos)
{
	size_t at = 0;

	for (size_t i = 0; i < npieces; i++) {
		if (at == pos)
			return i;
		if (pos < at + pieces[i].len) {
			piece_insert_slot(i + 1);
			pieces[i + 1] = pieces[i];
			pieces[i].len = pos - at;
			pieces[i + 1].off += pos - at;
			pieces[i + 1].len -= pos - at;
			return i + 1;
		}
		at += pieces[i].len;
	}
	return npieces;
}

static void del(size_t pos, size_t n)
{
	if (pos >= cur_size)
		return;
	if (n > cur_size - pos)
		n = cur_size - pos;
	size_t a = split_at(pos), b = split_at(pos + n);
	memmove(&pieces[a], &pieces[b], (npieces - b) * sizeof(*pieces));
	npieces -= b - a;
	cur_size -= n;
}

static void ins(size_t pos, const uint8_t *bytes, size_t n)
{
	if (!n || pos > cur_size)
		return;
	if (pool_len + n > pool_cap) {
		while (pool_len + n > pool_cap)
			pool_cap = pool_cap ? pool_cap * 2 : 65536;
		pool = xrealloc(pool, pool_cap);
	}
	memcpy(pool + pool_len, bytes, n);
	size_t i = split_at(pos);
	piece_insert_slot(i);
	pieces[i] = (struct piece){ .off = pool_len, .len = n, .from_pool = true };
	pool_len += n;
	cur_size += n;
}

static void overwrite(size_t pos, const uint8_t *bytes, size_t n)
{
	if (pos >= cur_size)
		return;
	if (n > cur_size - pos)
		n = cur_size - pos;
	del(pos, n);
	ins(pos, bytes, n);
}

/* Where original byte `off` is now, or -1 if it is gone. */
static long map_orig(size_t off)
{
	size_t at = 0;

	for (size_t i = 0; i < npieces; at += pieces[i++].len)
		if (!pieces[i].from_pool && off >= pieces[i].off && off < pieces[i].off + pieces[i].len)
			return (long)(at + off - pieces[i].off);
	return -1;
}

static uint8_t *materialize(void)
{
	uint8_t *b = malloc(cur_size ? cur_size : 1), *p = b;

	if (!b)
		abort();
	for (size_t i = 0; i < npieces; p += pieces[i++].len)
		memcpy(p, (pieces[i].from_pool ? pool : orig_log) + pieces[i].off, pieces[i].len);
	return b;
}

/* ------------------------------------------------------------ the damage */

enum op_kind {
	OP_FLIP,         /* xor one byte with z (or 1)                       */
	OP_SET,          /* set one byte to z                                 */
	OP_DEL,          /* delete z + 1 bytes                                */
	OP_DEL_BIG,      /* delete (z + 1) * 32 bytes                         */
	OP_GARBAGE,      /* insert z + 1 bytes of garbage (0xFE, magic, text) */
	OP_FAKE_MAGIC,   /* insert "\xFEKPF" and z % 40 bytes of junk         */
	OP_HEADER_COPY,  /* insert the header of frame z (payload CRC wrong)  */
	OP_FORGED_HDR,   /* insert a header with a good CRC, made-up fields   */
	OP_FORGED_FRAME, /* insert a whole frame with good CRCs, odd contents */
	OP_FRAME_COPY,   /* insert a copy of frame z (a duplicate)            */
	OP_TRUNCATE,     /* cut the log here                                  */
	OP_OVERWRITE,    /* overwrite z + 1 bytes with garbage                */
	OP_DEL_FRAME,    /* delete frame x whole                              */
	OP_CUT_TAIL,     /* frame x loses its payload after y/256 of it       */
	OP_KINDS_USED
};

static uint64_t rng;

static uint32_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 32);
}

static void garbage(uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t r = rnd();
		switch (r % 16) {
		case 0:
		case 1:
			out[i] = 0xFE;
			break;
		case 2:
			if (n - i >= 4) {
				memcpy(out + i, magic, 4);
				i += 3;
				break;
			}
			/* fall through */
		case 3:
			out[i] = r >> 8;
			break;
		default:
			out[i] = 32 + (r >> 8) % 95; /* console text */
			break;
		}
	}
}

/* A CPU number for a made-up frame: the original's, a small one, the run
 * frames' 0xFFFF, or one beyond the run's CPUs.  Not in the thousands: the
 * decoder keeps a slot and an "incomplete" issue per CPU number, so such
 * inputs only make runs slow (a run header's cpu_count still can). */
static uint16_t some_cpu(uint16_t like)
{
	uint32_t r = rnd();
	switch (r % 64) {
	case 0 ... 3:
		return 4 + (r >> 16) % 252;
	case 4 ... 7:
		return KPROF_FRAME_CPU_NONE;
	case 8 ... 19:
		return (r >> 8) % 4;
	default:
		return like;
	}
}

static uint32_t some_u32(uint32_t len)
{
	static const uint32_t v[] = { 0, 1, 2, 7, 8, 16, 24, 32, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF };
	uint32_t r = rnd();
	switch (r % 4) {
	case 0:
		return v[(r >> 8) % (sizeof(v) / sizeof(v[0]))];
	case 1:
		return len - 32 + (r >> 8) % 3 - 1;
	case 2:
		return len + (r >> 8) % 3 - 1;
	default:
		return rnd();
	}
}

static void finish_header(uint8_t *h, uint32_t len, uint32_t payload_crc)
{
	wr32(h + 12, len);
	wr32(h + 16, payload_crc);
	wr32(h + 20, crc(h, 20));
}

/* A header whose own CRC holds but which is no frame: its payload CRC is
 * made up (never that of an empty payload, so never right by accident). */
static void forged_header(uint8_t *h, const struct frame *like)
{
	uint32_t len;

	memcpy(h, orig_log + like->off, HDR);
	if (rnd() % 8 == 0)
		h[4] = rnd();
	h[5] = rnd() % 8;
	uint16_t cpu = some_cpu(like->cpu);
	h[6] = cpu;
	h[7] = cpu >> 8;
	wr32(h + 8, rnd() % 4 ? rnd() % 8 : rnd());
	switch (rnd() % 4) {
	case 0:
		len = 1 + rnd() % 64;
		break;
	case 1:
		len = 1 + rnd() % 8192;
		break;
	case 2:
		len = 1 + rnd() % KPROF_FRAME_MAX_PAYLOAD;
		break;
	default:
		len = KPROF_FRAME_MAX_PAYLOAD + rnd() % 4;
		break;
	}
	finish_header(h, len, rnd() | 1);
}

/* A whole frame with good CRCs: a copy of `like` with a few fields or
 * bytes changed.  Returns its length. */
static size_t forged_frame(uint8_t *out, const struct frame *like)
{
	uint8_t *h = out, *payload = out + HDR;
	uint32_t len = like->len - HDR;

	memcpy(out, orig_log + like->off, like->len);
	for (int n = 1 + rnd() % 3; n--;) {
		switch (rnd() % 6) {
		case 0:
			h[5] = rnd() % 8;
			break;
		case 1: {
			uint16_t cpu = some_cpu(like->cpu);
			h[6] = cpu;
			h[7] = cpu >> 8;
			break;
		}
		case 2:
			wr32(h + 8, rnd() % 2 ? rd32(h + 8) + rnd() % 5 - 2 : rnd());
			break;
		case 3:
			len = rnd() % (len + 1);
			break;
		case 4:
			if (len >= 4) {
				size_t at = (rnd() % (len < 128 ? len / 4 : 32)) * 4;
				wr32(payload + at, some_u32(len));
			}
			break;
		default:
			if (len)
				payload[rnd() % len] = rnd();
			break;
		}
	}
	finish_header(h, len, crc(payload, len));
	return HDR + len;
}

static size_t where(uint8_t op, uint8_t x, uint8_t y)
{
	unsigned a = op >> 4;

	if (!(a & 8)) {
		const struct frame *f = &orig[x % norig];
		long base = (a & 1) ? map_orig(f->off + f->len - 1) : map_orig(f->off);
		if (base >= 0) {
			long p = base + (a & 1) + (long)((int8_t)y * (1 << (2 * ((a >> 1) & 3))));
			return p < 0 ? 0 : (size_t)p > cur_size ? cur_size : (size_t)p;
		}
	}
	return (size_t)((((uint64_t)x << 8 | y) * (cur_size + 1)) >> 16);
}

static const char *const op_names[16] = {
	"flip", "set", "del", "del-big", "garbage", "fake-magic", "header-copy", "forged-header",
	"forged-frame", "frame-copy", "truncate", "overwrite", "del-frame", "cut-tail", "flip", "flip",
};

static void apply(unsigned idx, const uint8_t *in)
{
	uint8_t op = in[0], x = in[1], y = in[2], z = in[3];
	uint8_t tmp[HDR + 8192];
	const struct frame *fz = &orig[z % norig], *fx = &orig[x % norig];
	size_t pos = where(op, x, y);
	long p;

	rng = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)idx << 32) ^ rd32(in);
	rnd();
	if (verbose)
		fprintf(stderr, "op %u: %02x %02x %02x %02x %s at %zu (frame x %zu, frame z %zu), log %zu bytes\n", idx,
			op, x, y, z, op_names[op & 0x0F], pos, (size_t)(x % norig), (size_t)(z % norig), cur_size);
	switch (op & 0x0F) {
	case OP_SET:
		tmp[0] = z;
		overwrite(pos, tmp, 1);
		break;
	case OP_DEL:
		del(pos, z + 1u);
		break;
	case OP_DEL_BIG:
		del(pos, (z + 1u) * 32);
		break;
	case OP_GARBAGE:
		garbage(tmp, z + 1u);
		ins(pos, tmp, z + 1u);
		break;
	case OP_FAKE_MAGIC:
		memcpy(tmp, magic, 4);
		garbage(tmp + 4, z % 40);
		ins(pos, tmp, 4 + z % 40);
		break;
	case OP_HEADER_COPY:
		ins(pos, orig_log + fz->off, HDR);
		break;
	case OP_FORGED_HDR:
		forged_header(tmp, fz);
		ins(pos, tmp, HDR);
		break;
	case OP_FORGED_FRAME:
		if (fz->len <= sizeof(tmp))
			ins(pos, tmp, forged_frame(tmp, fz));
		break;
	case OP_FRAME_COPY:
		ins(pos, orig_log + fz->off, fz->len);
		break;
	case OP_TRUNCATE:
		del(pos, cur_size);
		break;
	case OP_OVERWRITE:
		garbage(tmp, z + 1u);
		overwrite(pos, tmp, z + 1u);
		break;
	case OP_DEL_FRAME:
		if ((p = map_orig(fx->off)) >= 0)
			del((size_t)p, fx->len);
		break;
	case OP_CUT_TAIL:
		if ((p = map_orig(fx->off)) >= 0) {
			size_t keep = HDR + (fx->len - HDR) * y / 256;
			del((size_t)p + keep, fx->len - keep);
		}
		break;
	default: /* OP_FLIP and the unused codes: the commonest damage */
		if (pos < cur_size) {
			size_t at = 0, i = 0;
			while (at + pieces[i].len <= pos)
				at += pieces[i++].len;
			tmp[0] = ((pieces[i].from_pool ? pool : orig_log) + pieces[i].off)[pos - at] ^ (z ? z : 1);
			overwrite(pos, tmp, 1);
		}
		break;
	}
}

/* Original frames still byte-identical and contiguous, by the pieces:
 * intact[i] is frame i's new offset, or -1. */
static void intact_frames(long *intact)
{
	size_t at = 0;

	for (size_t i = 0; i < norig; i++)
		intact[i] = -1;
	for (size_t i = 0; i < npieces;) {
		if (pieces[i].from_pool) {
			at += pieces[i++].len;
			continue;
		}
		/* A run of pieces that continue each other in the original. */
		size_t start = at, off = pieces[i].off, len = 0;
		while (i < npieces && !pieces[i].from_pool && pieces[i].off == off + len) {
			len += pieces[i].len;
			at += pieces[i++].len;
		}
		for (size_t k = 0; k < norig; k++)
			if (orig[k].off >= off && orig[k].off + orig[k].len <= off + len && intact[k] < 0)
				intact[k] = (long)(start + orig[k].off - off);
	}
}

/* ------------------------------------------------------------- the checks */

static const uint8_t *cur_buf;
static size_t cur_len;
static struct kp_log *cur_log;
static const char *cur_mode;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\nfuzz_decoder: FAILED (%s mode, log of %zu bytes): ", cur_mode, cur_len);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cur_log) {
		fprintf(stderr, "  decoder: %zu frames, %zu issues\n", cur_log->frames, cur_log->nissues);
		for (size_t i = 0; i < cur_log->nissues && i < 40; i++) {
			const struct kp_issue *is = &cur_log->issues[i];
			fprintf(stderr, "  %s @%llu cpu %d %u..%u: %s\n", kp_issue_kind_name(is->kind),
				(unsigned long long)is->offset, is->cpu == KPROF_FRAME_CPU_NONE ? -1 : (int)is->cpu,
				is->seq_first, is->seq_last, is->what);
		}
	}
	abort();
}

/* Every frame with good CRCs in the damaged log, in log order, and which
 * original frame each is a byte-identical copy of. */
static struct frame *genuine_frames(const uint8_t *b, size_t size, size_t *n)
{
	struct frame *g = NULL, f;
	size_t cap = 0;

	*n = 0;
	for (size_t p = 0; p < size; p++) {
		const uint8_t *m = memchr(b + p, 0xFE, size - p);
		if (!m)
			break;
		p = (size_t)(m - b);
		if (!frame_at(b, size, p, &f))
			continue;
		for (size_t k = 0; k < norig && f.orig < 0; k++)
			if (orig[k].len == f.len && !memcmp(orig_log + orig[k].off, b + p, f.len))
				f.orig = (int)k;
		if (*n == cap)
			g = xrealloc(g, (cap = cap ? 2 * cap : 32) * sizeof(*g));
		g[(*n)++] = f;
	}
	return g;
}

static const struct frame *genuine_at(const struct frame *g, size_t ng, uint64_t off)
{
	size_t lo = 0, hi = ng;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ng && g[lo].off == off ? &g[lo] : NULL;
}

/*
 * Which frames with good CRCs a scanner can reach: all but one that starts
 * inside an earlier reachable frame, or inside a header whose CRC holds
 * but whose payload is bad or cut short (the decoder does not trust such a
 * header's length and resumes after the header).  Such overlaps take
 * coincidences (a payload ending in 0xFE just before "KPF..."), which is
 * what fuzzers find.  Marks them; returns how many.
 */
static size_t reachable(const uint8_t *b, size_t size, struct frame *g, size_t ng)
{
	size_t n = 0, i = 0;

	for (size_t pos = 0; pos < size;) {
		const uint8_t *m = memchr(b + pos, 0xFE, size - pos);
		if (!m)
			break;
		pos = (size_t)(m - b);
		while (i < ng && g[i].off < pos)
			i++;
		if (i < ng && g[i].off == pos) {
			g[i].reach = true;
			n++;
			pos += g[i].len;
		} else {
			pos += header_ok(b, size, pos) ? HDR : 1;
		}
	}
	return n;
}

static bool is_rejection(enum kp_issue_kind k)
{
	return k == KP_ISSUE_CORRUPT || k == KP_ISSUE_BAD_HEADER || k == KP_ISSUE_TRUNCATED;
}

static size_t frame_min_payload(uint8_t type)
{
	switch (type) {
	case KPROF_FRAME_RUN_HEADER:
		return sizeof(struct kprof_run_header);
	case KPROF_FRAME_BUFFER:
		return sizeof(struct kprof_buffer_header);
	case KPROF_FRAME_CHUNK:
		return sizeof(struct kprof_chunk_header);
	case KPROF_FRAME_RUN_INFO:
		return KPROF_RUN_INFO_V2_SIZE;
	case KPROF_FRAME_CPU_END:
		return KPROF_CPU_END_V1_SIZE;
	case KPROF_FRAME_RUN_END:
		return KPROF_RUN_END_V1_SIZE;
	default:
		return SIZE_MAX;
	}
}

/* Is the issue's offset somewhere that damage of its kind really is? */
static void check_issue(const struct kp_issue *is, const struct frame *g, size_t ng)
{
	const uint8_t *b = cur_buf;
	size_t size = cur_len, q = is->offset;
	const struct frame *f = genuine_at(g, ng, q);

	if (is->offset > size)
		fail("%s issue at offset %zu, past the end", kp_issue_kind_name(is->kind), q);
	switch (is->kind) {
	case KP_ISSUE_CORRUPT:
		/* Also: an intact chunk frame of encoding 1 or 2 (delta + LZ4)
		 * whose block does not decode to its raw_bytes. */
		if (f && f->type == KPROF_FRAME_CHUNK && f->len >= HDR + sizeof(struct kprof_chunk_header) &&
		    KPROF_CHUNK_COMPRESSED(b[q + HDR + offsetof(struct kprof_chunk_header, encoding)]))
			f = NULL;
		else if (!header_ok(b, size, q) || f || size - q - HDR < rd32(b + q + 12))
			fail("corrupt issue at %zu, but no intact header with a bad payload there", q);
		if (is->cpu != (uint32_t)(b[q + 6] | b[q + 7] << 8) || is->seq_first != rd32(b + q + 8))
			fail("corrupt issue at %zu names cpu %u seq %u, the header says otherwise", q, is->cpu,
			     is->seq_first);
		break;
	case KP_ISSUE_BAD_HEADER:
		/* A run header claiming more than 4096 CPUs, or a TSC rate of
		 * 0 Hz, is refused for its content although its CRCs hold. */
		if (f && f->len - HDR >= frame_min_payload(f->type) &&
		    ((f->type != KPROF_FRAME_BUFFER && f->type != KPROF_FRAME_CHUNK && f->type != KPROF_FRAME_CPU_END) ||
		     f->cpu != KPROF_FRAME_CPU_NONE) &&
		    !(f->type == KPROF_FRAME_RUN_HEADER &&
		      (rd32(b + q + HDR + 8) > 4096 ||
		       (rd32(b + q + HDR + offsetof(struct kprof_run_header, tsc_hz)) == 0 &&
			rd32(b + q + HDR + offsetof(struct kprof_run_header, tsc_hz) + 4) == 0))))
			fail("bad-header issue at %zu, but a good frame of type %u is there", q, f->type);
		if (!f && (!magic_at(b, size, q) || header_ok(b, size, q)))
			fail("bad-header issue at %zu, but no damaged header there", q);
		break;
	case KP_ISSUE_TRUNCATED:
		if (size - q < 4 ? memcmp(b + q, magic, size - q) : !magic_at(b, size, q))
			fail("truncated issue at %zu, but no frame starts there", q);
		if (size - q >= HDR && (!header_ok(b, size, q) || size - q - HDR >= rd32(b + q + 12)))
			fail("truncated issue at %zu, but the frame there is not cut short", q);
		break;
	case KP_ISSUE_BAD_RECORD: {
		bool ok = f && (f->type == KPROF_FRAME_BUFFER || f->type == KPROF_FRAME_CHUNK);
		for (uint32_t c = 0; c < cur_log->ncpus && !ok; c++)
			for (size_t i = 0; i < cur_log->cpus[c].nbuffers && !ok; i++) {
				const struct kp_buffer *kb = &cur_log->cpus[c].buffers[i];
				size_t d = (size_t)kp_buffer_log_offset(kb, 0);
				ok = q >= d && q < d + (kb->decoded ? kb->wire_bytes : kb->used);
			}
		if (!ok)
			fail("bad-record issue at %zu, outside every accepted buffer", q);
		break;
	}
	default:
		if (is->kind >= KP_ISSUE_KINDS)
			fail("issue of unknown kind %d", is->kind);
		break;
	}
}

static bool original_present(const struct frame *g, size_t ng, size_t k)
{
	for (size_t i = 0; i < ng; i++)
		if (g[i].orig == (int)k)
			return true;
	return false;
}

/* The log holds only copies of original frames, each once, in order, all
 * reachable: then sequence bookkeeping has exact answers. */
static void check_sequences(struct kp_log *log, const struct frame *g, size_t ng)
{
	int last = -1;

	for (size_t i = 0; i < ng; i++) {
		if (g[i].orig <= last || !g[i].reach)
			return;
		last = g[i].orig;
	}
	for (size_t i = 0; i < log->nissues; i++) {
		const struct kp_issue *is = &log->issues[i];
		if (is->kind == KP_ISSUE_DUPLICATE)
			fail("duplicate issue at %llu, but no frame arrived twice", (unsigned long long)is->offset);
		if (is->kind != KP_ISSUE_MISSING)
			continue;
		if (is->seq_first > is->seq_last)
			fail("missing issue with frames %u..%u", is->seq_first, is->seq_last);
		for (size_t k = 0; k < norig; k++)
			if (orig[k].cpu == (uint16_t)is->cpu && orig[k].seq >= is->seq_first &&
			    orig[k].seq <= is->seq_last && original_present(g, ng, k))
				fail("missing issue at %llu names cpu %d frame %u, which is in the log",
				     (unsigned long long)is->offset, (int)(int16_t)orig[k].cpu, orig[k].seq);
	}
	/* Every gap before a frame that did arrive is reported. */
	for (size_t k = 0; k < norig; k++) {
		if (original_present(g, ng, k))
			continue;
		bool later = false, reported = false;
		for (size_t j = k + 1; j < norig && !later; j++)
			later = orig[j].cpu == orig[k].cpu && orig[j].seq > orig[k].seq && original_present(g, ng, j);
		for (size_t i = 0; i < log->nissues && !reported; i++) {
			const struct kp_issue *is = &log->issues[i];
			reported = is->kind == KP_ISSUE_MISSING && (uint16_t)is->cpu == orig[k].cpu &&
				   is->seq_first <= orig[k].seq && orig[k].seq <= is->seq_last;
		}
		if (later && !reported)
			fail("frame %u of cpu %d is gone, a later one arrived, and no missing issue says so",
			     orig[k].seq, (int)(int16_t)orig[k].cpu);
	}
	/* Incomplete: exactly the absent run header, CPU end and run end. */
	bool have_hdr = false, have_run_end = false;
	uint32_t ncpus = 0, expect = 0, got = 0;
	for (size_t i = 0; i < ng; i++) {
		const struct frame *f = &orig[g[i].orig];
		if (f->type == KPROF_FRAME_RUN_HEADER || f->type == KPROF_FRAME_RUN_INFO) {
			have_hdr |= f->type == KPROF_FRAME_RUN_HEADER;
			uint32_t n = rd32(orig_log + f->off + HDR + (f->type == KPROF_FRAME_RUN_HEADER ? 8 : 4));
			ncpus = n > ncpus ? n : ncpus;
		} else if (f->type == KPROF_FRAME_RUN_END) {
			have_run_end = true;
		}
		if (f->cpu != KPROF_FRAME_CPU_NONE && f->cpu + 1u > ncpus)
			ncpus = f->cpu + 1u;
	}
	if (log->ncpus != ncpus)
		fail("decoder knows %u CPUs, the frames in the log name %u", log->ncpus, ncpus);
	for (uint32_t c = 0; c < ncpus; c++) {
		bool end = false;
		for (size_t i = 0; i < ng; i++)
			end |= orig[g[i].orig].type == KPROF_FRAME_CPU_END && orig[g[i].orig].cpu == c;
		expect += !end;
	}
	expect += !have_hdr + !have_run_end;
	for (size_t i = 0; i < log->nissues; i++)
		got += log->issues[i].kind == KP_ISSUE_INCOMPLETE;
	if (got != expect)
		fail("%u incomplete issues, expected %u", got, expect);
}

static void check_log(struct kp_log *log, const long *intact, bool print_text, bool print_json)
{
	const uint8_t *b = cur_buf;
	size_t size = cur_len, ng;
	struct frame *g = genuine_frames(b, size, &ng);

	/* The frame count: every reachable frame with good CRCs. */
	size_t expect = reachable(b, size, g, ng);
	if (log->frames + log->other_run_frames != expect)
		fail("decoder accepted %zu frames (and %zu of other runs), the log holds %zu with good CRCs", log->frames,
		     log->other_run_frames, expect);

	/* Each accepted buffer is a real frame at its offset. */
	for (uint32_t c = 0; c < log->ncpus; c++)
		for (size_t i = 0; i < log->cpus[c].nbuffers; i++) {
			const struct kp_buffer *kb = &log->cpus[c].buffers[i];
			const struct frame *f = genuine_at(g, ng, kb->offset);
			if (!f || (f->type != KPROF_FRAME_BUFFER && f->type != KPROF_FRAME_CHUNK) || f->cpu != c ||
			    kb->cpu != c || f->seq != kb->frame_seq)
				fail("buffer of cpu %u seq %u accepted at %llu, but no such frame with good CRCs is there",
				     c, kb->frame_seq, (unsigned long long)kb->offset);
			size_t hs = f->type == KPROF_FRAME_BUFFER ? sizeof(struct kprof_buffer_header)
								  : sizeof(struct kprof_chunk_header);
			if (kb->decoded ? (f->type != KPROF_FRAME_CHUNK || kb->wire_bytes != f->len - HDR - hs ||
					   !KPROF_CHUNK_COMPRESSED(
						   b[kb->offset + HDR + offsetof(struct kprof_chunk_header, encoding)]))
					: (kp_buffer_payload_at(kb) != kb->offset + HDR + hs || kb->used > f->len - HDR - hs))
				fail("buffer at %llu: records outside its frame", (unsigned long long)kb->offset);
			if (i && kb->frame_seq <= log->cpus[c].buffers[i - 1].frame_seq)
				fail("cpu %u: buffers not in sequence order, or one kept twice (seq %u after %u)", c,
				     kb->frame_seq, log->cpus[c].buffers[i - 1].frame_seq);
		}

	/* Every intact original frame found where it is now. */
	for (size_t k = 0; intact && k < norig; k++) {
		if (intact[k] < 0)
			continue;
		const struct frame *f = genuine_at(g, ng, (size_t)intact[k]);
		if (!f || f->orig != (int)k)
			fail("harness: frame %zu intact at %ld by the pieces but not by its bytes", k, intact[k]);
	}
	for (size_t i = 0; i < ng; i++) {
		if (g[i].orig < 0 || !g[i].reach)
			continue;
		const struct frame *o = &orig[g[i].orig];
		bool found = false;
		for (size_t j = 0; j < log->nissues; j++)
			if (is_rejection(log->issues[j].kind) && log->issues[j].offset == g[i].off)
				fail("intact frame %u of cpu %d at %zu (originally %zu) reported %s", o->seq,
				     (int)(int16_t)o->cpu, g[i].off, o->off, kp_issue_kind_name(log->issues[j].kind));
		switch (o->type) {
		case KPROF_FRAME_BUFFER:
		case KPROF_FRAME_CHUNK:
			/* Or a frame with its CPU and seq came first: it was kept,
			 * this one dropped as a duplicate. */
			for (size_t j = 0; o->cpu < log->ncpus && j < log->cpus[o->cpu].nbuffers && !found; j++)
				found = log->cpus[o->cpu].buffers[j].frame_seq == o->seq &&
					(log->cpus[o->cpu].buffers[j].offset == g[i].off || log->duplicates);
			break;
		case KPROF_FRAME_RUN_HEADER:
			found = log->have_header;
			break;
		case KPROF_FRAME_CPU_END:
			found = o->cpu < log->ncpus && log->cpus[o->cpu].have_end;
			break;
		case KPROF_FRAME_RUN_END:
			found = log->have_run_end;
			break;
		default:
			found = true;
			break;
		}
		/* Frames of another run are left out (counted): when forged
		 * frames came first and named the run, the originals may be. */
		if (!found && !log->other_run_frames)
			fail("intact frame %u of cpu %d (type %u) at %zu (originally %zu) not found", o->seq,
			     (int)(int16_t)o->cpu, o->type, g[i].off, o->off);
	}

	/* Records: all of them, every CPU; intact buffers give all theirs. */
	uint64_t total = 0;
	for (uint32_t c = 0; c < log->ncpus; c++) {
		struct kp_cpu_cursor cur;
		struct kp_record r;
		size_t nb = log->cpus[c].nbuffers;
		uint32_t *counts = calloc(nb ? nb : 1, sizeof(*counts));

		kp_cursor_init(&cur, log, c);
		while (kp_cursor_next(&cur, &r)) {
			const struct kp_buffer *kb = r.buffer;
			if (kb < log->cpus[c].buffers || kb >= log->cpus[c].buffers + nb || r.cpu != c)
				fail("record from a buffer not of cpu %u", c);
			if ((uint64_t)r.at + r.h.Size > kb->used || (!kb->decoded && r.raw != b + kp_buffer_payload_at(kb) + r.at) ||
			    !kp_buffer_held(log, kb, r.raw - r.at) ||
			    r.log_offset != kp_buffer_log_offset(kb, r.at) ||
			    r.payload != r.raw + 16 ||
			    r.payload_size != r.h.Size - 16)
				fail("record at %llu: not inside its buffer", (unsigned long long)r.log_offset);
			counts[kb - log->cpus[c].buffers]++;
			total++;
		}
		for (size_t i = 0; i < nb; i++) {
			const struct frame *f = genuine_at(g, ng, log->cpus[c].buffers[i].offset);
			if (f && f->orig >= 0 && counts[i] != orig[f->orig].records)
				fail("intact buffer frame %u of cpu %u at %zu: %u records decoded, it holds %u", f->seq, c,
				     f->off, counts[i], orig[f->orig].records);
		}
		free(counts);
	}
	size_t nissues = log->nissues;
	struct kp_totals t;
	kp_totals(log, &t, NULL);
	if (t.records != total)
		fail("kp_totals counts %llu records, the cursors %llu", (unsigned long long)t.records,
		     (unsigned long long)total);
	if (log->nissues != nissues)
		fail("walking the records again added %zu issues (a malformed record must be reported once)",
		     log->nissues - nissues);

	/* The merge, and the printers: on the first records and every record
	 * of a buffer that is not an original frame (printing them all
	 * would only make each run slow).  The merge costs records x CPU
	 * slots, so not after a frame named a CPU in the thousands. */
	if ((print_text || print_json) && log->ncpus <= 256) {
		struct kp_merge m;
		struct kp_record r;
		uint64_t n = 0;
		kp_merge_init(&m, log);
		while (kp_merge_next(&m, &r)) {
			const struct frame *f = genuine_at(g, ng, r.buffer->offset);
			if (n < 32 || !f || f->orig < 0) {
				if (print_text)
					kp_print_record_text(devnull, log, &r);
				if (print_json)
					kp_print_record_json(devnull, log, &r);
			}
			n++;
		}
		kp_merge_free(&m);
		if (n != total)
			fail("the merge gives %llu records, the cursors %llu", (unsigned long long)n,
			     (unsigned long long)total);
	}

	/* Issues (bad-record ones included, now that the records were
	 * walked): each says where damage really is. */
	for (size_t i = 0; i < log->nissues; i++)
		check_issue(&log->issues[i], g, ng);
	if (intact)
		check_sequences(log, g, ng);
	free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_log log;
	uint8_t *buf;
	size_t len;
	long intact[norig];
	bool raw = size && data[0] == RAW_MODE;

	if (raw) {
		len = size - 1;
		buf = malloc(len ? len : 1);
		if (!buf)
			abort();
		memcpy(buf, data + 1, len);
		cur_mode = "raw";
	} else {
		pieces_reset();
		unsigned nops = 0;
		for (size_t i = 1; i + 4 <= size && nops < MAX_OPS; i += 4)
			apply(nops++, data + i);
		intact_frames(intact);
		buf = materialize();
		len = cur_size;
		if (verbose) {
			for (size_t k = 0; k < norig; k++)
				fprintf(stderr, "frame %zu (cpu %d seq %u type %u, %zu bytes at %zu): %s %ld\n", k,
					(int)(int16_t)orig[k].cpu, orig[k].seq, orig[k].type, orig[k].len, orig[k].off,
					intact[k] < 0 ? "damaged" : "intact at", intact[k]);
			const char *dump = getenv("KPROF_FUZZ_VERBOSE");
			FILE *f = *dump ? fopen(dump, "wb") : NULL;
			if (f) {
				fwrite(buf, 1, len, f);
				fclose(f);
				fprintf(stderr, "damaged log written to %s\n", dump);
			}
		}
		cur_mode = "damage";
	}
	cur_buf = buf;
	cur_len = len;
	cur_log = NULL;
	kp_log_scan(&log, buf, len); /* takes buf over */
	cur_log = &log;
	check_log(&log, raw ? NULL : intact, size && (data[0] & 1) && !raw, size && (data[0] & 2) && !raw);
	kp_log_free(&log);
	cur_log = NULL;
	return 0;
}
