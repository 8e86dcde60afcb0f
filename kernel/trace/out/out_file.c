/*
 * out_file.c - the file form of the stream: whole frames while they fit,
 * then only the end frames, each with the file's tail (out_file.h,
 * include/kprof/wire_file.h).
 *
 * Room: `used + reserve <= capacity` holds from out_file_init() on, where
 * reserve is the size of the end frames not yet kept; a data frame is kept
 * only if it fits with the reserve intact, so every end frame finds its
 * room.  Once one frame does not fit the file is full: frames after it are
 * not kept even if smaller (a decoder sees the file cut at one point, and
 * each CPU's chunks in the file are the prefix its end frame counts).
 *
 * Called by the stick sink (out_stick.c) for every frame, from the one
 * trace sender of the moment; no locks.
 */
#include "kernel/trace/out/out_file.h"

#include "kernel/lib/libk.h"
#include "kernel/trace/out/frame.h"

#define END_PAYLOAD_MAX 256 /* the serial end frames are 64 and 24 bytes */

static uint32_t end_frame_bytes(uint8_t type)
{
	uint32_t payload = type == KPROF_FRAME_CPU_END ? sizeof(struct kprof_cpu_end) : sizeof(struct kprof_run_end);
	return KPROF_FRAME_HEADER_SIZE + payload + sizeof(struct kprof_file_tail);
}

uint64_t out_file_end_bytes(uint32_t ncpu)
{
	return (uint64_t)ncpu * end_frame_bytes(KPROF_FRAME_CPU_END) + end_frame_bytes(KPROF_FRAME_RUN_END);
}

void out_file_init(struct out_file *f, uint64_t capacity, uint32_t ncpu, out_file_write_fn write, void *ctx)
{
	memset(f, 0, sizeof(*f));
	f->capacity = capacity;
	f->ncpu = MIN(ncpu, (uint32_t)KPROF_MAX_CPUS);
	f->reserve = out_file_end_bytes(f->ncpu);
	f->write = write;
	f->ctx = ctx;
}

static int put(struct out_file *f, const void *p, uint32_t len)
{
	int rc = f->error ? f->error : f->write(f->ctx, p, len);

	if (rc)
		f->error = rc;
	else
		f->used += len;
	return rc;
}

static int put_frame(struct out_file *f, const struct kprof_frame_header *h, const void *p1, uint32_t l1,
		     const void *p2, uint32_t l2)
{
	int rc = put(f, h, sizeof(*h));

	if (!rc)
		rc = put(f, p1, l1);
	if (!rc && l2)
		rc = put(f, p2, l2);
	return rc;
}

static uint32_t chunk_records(const struct trace_out_frame *fr)
{
	struct kprof_chunk_header c;

	if (fr->l1 < sizeof(c))
		return 0;
	memcpy(&c, fr->p1, sizeof(c));
	return c.records;
}

/* A CPU end or run end frame, made the file's own: the serial payload,
 * then the tail saying what the file lacks; header rebuilt around both. */
static int put_end(struct out_file *f, const struct trace_out_frame *fr)
{
	const struct kprof_frame_header *h = fr->h;
	struct kprof_file_tail t = { .magic = KPROF_FILE_TAIL_MAGIC, .flags = f->full ? KPROF_FILE_FULL : 0 };
	uint8_t payload[END_PAYLOAD_MAX];
	uint32_t len = fr->l1 + fr->l2;

	if (len > sizeof(payload)) /* not an end frame trace.c makes: kept as it came, if it fits */
		return f->used + sizeof(*h) + len <= f->capacity ? put_frame(f, h, fr->p1, fr->l1, fr->p2, fr->l2) : 0;
	memcpy(payload, fr->p1, fr->l1);
	if (fr->l2)
		memcpy(payload + fr->l1, fr->p2, fr->l2);
	if (h->type == KPROF_FRAME_CPU_END) {
		if (h->cpu < f->ncpu) {
			t.frames = f->cpu[h->cpu].chunks;
			t.records_lost = f->cpu[h->cpu].records_lost;
		}
	} else {
		t.frames = f->run_frames;
		t.records_lost = f->records_lost;
	}
	struct kprof_frame_header nh;
	frame_header_build(&nh, h->type, h->cpu, h->seq, payload, len, &t, sizeof(t));
	uint64_t bytes = sizeof(nh) + len + sizeof(t), room = end_frame_bytes(h->type);
	f->reserve -= MIN(room, f->reserve); /* its room is used now, or never will be */
	if (f->used + bytes > f->capacity) {
		f->full = true; /* only an end frame beyond those reserved can miss */
		return 0;
	}
	if (h->cpu == KPROF_FRAME_CPU_NONE)
		f->run_frames++;
	return put_frame(f, &nh, payload, len, &t, sizeof(t));
}

int out_file_frame(struct out_file *f, const struct trace_out_frame *fr)
{
	const struct kprof_frame_header *h = fr->h;
	bool chunk = h->type == KPROF_FRAME_CHUNK && h->cpu < f->ncpu;

	if (f->error)
		return f->error;
	if (h->type == KPROF_FRAME_CPU_END || h->type == KPROF_FRAME_RUN_END)
		return put_end(f, fr);
	uint64_t bytes = sizeof(*h) + (uint64_t)fr->l1 + fr->l2;
	if (!f->full && f->used + bytes + f->reserve <= f->capacity) {
		int rc = put_frame(f, h, fr->p1, fr->l1, fr->p2, fr->l2);
		if (rc)
			return rc;
		if (chunk) {
			f->cpu[h->cpu].chunks++;
			f->records += chunk_records(fr);
		} else if (h->cpu == KPROF_FRAME_CPU_NONE) {
			f->run_frames++;
		}
		return 0;
	}
	f->full = true;
	if (chunk) {
		uint32_t n = chunk_records(fr);
		f->cpu[h->cpu].records_lost += n;
		f->records_lost += n;
	}
	return 0;
}
