/*
 * out_sink.h - what the output layer (out.c) asks of a sink: take one
 * whole frame, and at the end write what is held and say what was kept.
 *
 * Two sinks exist: the serial port (out_serial.c, always built) and the
 * trace file on the USB stick (out_stick.c, on the USB stack in
 * kernel/usb/).  out.c reaches the stick only through out_stick_open().
 *
 * Invariants: a sink gets every frame in the order sent, or stops for
 * good (stopped = true, having printed why); a stopped sink is not called
 * again except for finish().  Called only by out.c, from the one trace
 * sender of the moment (see out.h); no locks.
 */
#ifndef KPROF_TRACE_OUT_SINK_H
#define KPROF_TRACE_OUT_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/bootinfo.h"
#include "include/kprof/wire.h"

/* One frame as trace.c sent it: the header built once, the payload in up
 * to two pieces (p2 NULL when l2 is 0). */
struct trace_out_frame {
	const struct kprof_frame_header *h; /* type, cpu, seq, length, CRCs    */
	const void *p1;                     /* payload, first piece            */
	uint32_t l1;
	const void *p2;                     /* payload, second piece, or NULL  */
	uint32_t l2;
};

struct trace_sink {
	const char *name;   /* "serial", "USB stick", for messages           */
	/* One whole frame; may set stopped (the sink prints why). */
	void (*frame)(struct trace_sink *s, const struct trace_out_frame *f);
	/* After the run end frame (or a stop): write what is held, sync,
	 * print one line saying what was kept; may be NULL. */
	void (*finish)(struct trace_sink *s);
	/* After a stop: the whole frames it took but does not hold, in their
	 * serial form, in order (serial carries them); 0 if none.  May be
	 * NULL (serial never stops). */
	uint32_t (*unsent)(struct trace_sink *s, const uint8_t **p);
	/* ... and how many bytes of frames before those it holds (0: none,
	 * so serial carrying from there has the whole trace). */
	uint64_t (*held)(struct trace_sink *s);
	/* After finish() and unsent(): free what the sink holds; may be NULL. */
	void (*release)(struct trace_sink *s);
	bool stopped;       /* failed: takes no more frames                  */
	/* Kept by out.c: bytes handed to frame(), TSC cycles in frame() and
	 * finish() (for the end line's throughput). */
	uint64_t bytes, cycles;
};

/* Milliseconds since the workload ended (trace_out_workload_ended), or
 * -1 when it was not marked (the bug check path). */
int64_t trace_out_since_end_ms(void);

extern struct trace_sink out_serial_sink;

/* Bytes of whole frames straight to the port (what a stopped sink did
 * not keep), with the console output claimed as for a frame. */
void out_serial_raw(const void *p, uint32_t len);

/* The stick sink (out_stick.c): open the stick described by bootinfo and
 * its trace file, for a run of ncpu CPUs.  NULL when it cannot be used,
 * after one console line with the reason (and the sense data). */
struct trace_sink *out_stick_open(const struct bootinfo_stick *bs, uint32_t ncpu);

#endif /* KPROF_TRACE_OUT_SINK_H */
