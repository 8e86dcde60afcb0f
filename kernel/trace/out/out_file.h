/*
 * out_file.h - the file form of the stream (include/kprof/wire_file.h):
 * which frames a trace file of fixed size keeps, and the file's own end
 * frames that say what it lacks.
 *
 * Rules: frames are kept whole, in order, from the start; the first frame
 * that does not fit (leaving room for the end frames) is not kept, nor is
 * anything after it except the end frames, whose room is reserved from
 * the start, so the file always ends with every CPU end frame and the run
 * end.  The records of each chunk frame not kept are counted per CPU and
 * given in the file's end frames (struct kprof_file_tail).
 *
 * Bytes kept go to a write callback in order (out_stick.c stages them
 * into blocks); the first error it returns stops the file for good.
 * Used by one sender at a time (out.h); no locks, no allocation.
 */
#ifndef KPROF_TRACE_OUT_FILE_H
#define KPROF_TRACE_OUT_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "include/kprof/wire_file.h"
#include "kernel/ke/cpus.h"
#include "kernel/trace/out/out_sink.h"

/* Append len bytes to the file; 0, or a negative error that stops it. */
typedef int (*out_file_write_fn)(void *ctx, const void *p, uint32_t len);

struct out_file_cpu {
	uint32_t chunks;         /* chunk frames kept: seq 0 .. chunks-1         */
	uint64_t records_lost;   /* records in this CPU's chunks not kept        */
};

struct out_file {
	uint64_t capacity;       /* bytes the frames may take                    */
	uint64_t used;           /* bytes of frames kept so far                  */
	uint64_t reserve;        /* bytes kept back for the end frames           */
	bool full;               /* a frame did not fit: only end frames now     */
	int error;               /* the write error that stopped the file, or 0  */
	uint32_t ncpu;           /* CPUs traced (at most KPROF_MAX_CPUS)         */
	uint32_t run_frames;     /* run-level frames kept                        */
	uint64_t records;        /* records in the chunks kept                   */
	uint64_t records_lost;   /* records in the chunks not kept               */
	out_file_write_fn write;
	void *ctx;
	struct out_file_cpu cpu[KPROF_MAX_CPUS];
};

/* Bytes the end frames of a run of ncpu CPUs take in the file form. */
uint64_t out_file_end_bytes(uint32_t ncpu);

/* Start an empty file of capacity bytes (at least out_file_end_bytes). */
void out_file_init(struct out_file *f, uint64_t capacity, uint32_t ncpu, out_file_write_fn write, void *ctx);

/* One frame: kept (written through the callback) or counted as left out.
 * Returns the callback's error, or 0. */
int out_file_frame(struct out_file *f, const struct trace_out_frame *fr);

#endif /* KPROF_TRACE_OUT_FILE_H */
