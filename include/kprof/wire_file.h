/*
 * wire_file.h - the file form of the wire stream: what the kernel writes
 * to a trace file of fixed size (\kprof\trace.bin on the USB stick it
 * booted from) rather than to the serial port.  docs/wire-format.md,
 * section 6, says the same for someone writing a decoder.
 *
 * The file holds the serial stream's frames, byte for byte and in the
 * same order, without the console text, up to the first frame that did
 * not fit whole (nothing after it is written either), then each CPU's end
 * frame and the run end frame, whose room the kernel reserved from the
 * start, so a file always ends cleanly.  After the run end comes the
 * file's fill (zeros, or what an earlier run left there): a decoder stops
 * at the run end of a file.
 *
 * Those end frames are the file's own: each is the serial stream's end
 * frame with this tail appended to its payload (header CRCs and length
 * made anew), saying what the file lacks.  A decoder recognises the tail
 * by its magic in the last 24 bytes of a CPU end or run end payload that
 * is at least 24 bytes longer than the serial one.  Shared by the kernel
 * (kernel/trace/out/out_file.c) and the host tool (tools/kprof/read/log.c).
 */
#ifndef KPROF_WIRE_FILE_H
#define KPROF_WIRE_FILE_H

#include <stdint.h>

#define KPROF_FILE_TAIL_MAGIC 0x454C4946u /* "FILE" little-endian */

struct kprof_file_tail {
	uint32_t magic;          /* KPROF_FILE_TAIL_MAGIC                        */
	uint32_t frames;         /* CPU end: this CPU's chunk frames in the file,
	                            seq 0 .. frames-1 (the rest, up to the end
	                            frame's seq, did not fit); run end: run-level
	                            frames before it in the file, likewise      */
	uint64_t records_lost;   /* CPU end: records in this CPU's chunks that
	                            are not in the file; run end: the sum over
	                            every CPU                                    */
	uint32_t flags;          /* KPROF_FILE_*                                  */
	uint32_t reserved;       /* 0                                             */
};
#define KPROF_FILE_FULL 0x1u /* a frame did not fit: the file is cut there     */
_Static_assert(sizeof(struct kprof_file_tail) == 24, "file tail size");

#endif /* KPROF_WIRE_FILE_H */
