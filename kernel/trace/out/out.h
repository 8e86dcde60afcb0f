/*
 * out.h - the trace output layer: where the frames of the trace go
 * (docs/trace-out.md).
 *
 * trace.c hands every frame to trace_out_frame() instead of writing it to
 * the serial port; the layer builds the frame header once and gives the
 * same bytes, in the same order, to each selected sink: the serial port
 * (out_serial.c), the trace file on the USB stick the kernel booted from
 * (out_stick.c, through the file form of out_file.c), or both
 * (trace.out=, resolved at probe time by trace_out_configure(), through
 * trace_configure()).
 *
 * Invariants: every sink sees the frames in the order trace.c sends
 * them; a sink that fails stops on its own (saying why) and never stops
 * another; if the stick fails for good (its recovery spent), serial
 * carries the trace from then on even when trace.out=usb, starting with
 * every frame the stick does not hold whole, so the trace always has a
 * way out and nothing sent is lost between the two.
 *
 * Callers and context: trace_out_configure() once, from trace_configure()
 * on the boot CPU at probe time (after the CPUs are started, before
 * trace_start);
 * trace_out_start(), trace_out_frame() and trace_out_finish() only from
 * the one trace sender of the moment (trace_start, the logger thread,
 * trace_finish; all at PASSIVE_LEVEL), or from the bug check path, where
 * the stick is no longer written (the USB stack is polled, slow, and may
 * have been stopped mid-transfer).  No locks: one sender at a time.
 */
#ifndef KPROF_TRACE_OUT_H
#define KPROF_TRACE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/bootinfo.h"
#include "include/kprof/exit_status.h"

/* Probe time (trace_configure): the output for trace.out=requested (enum
 * kprof_trace_out), returned and kept for trace_out_start: auto becomes
 * serial or usb (the stick alone) from what the loader found; usb or both without a
 * usable stick is refused (cmdline_refuse_at_probe), saying why, and
 * serial returned.  stick stays referenced for the run (the kernel's own
 * copy of bootinfo). */
uint32_t trace_out_configure(const struct bootinfo_stick *stick, uint32_t ncpu, uint32_t requested);

/* Trace start, before the run header: open the selected sinks.  A stick
 * that cannot be opened is reported in one line (with its sense data)
 * and the trace goes to serial. */
void trace_out_start(uint32_t ncpu);

/* One frame: its header is built here (frame.c) from the payload, given
 * in up to two pieces (p2 may be NULL with l2 0). */
void trace_out_frame(uint8_t type, uint16_t cpu, uint32_t seq, const void *p1, uint32_t l1, const void *p2,
		     uint32_t l2);

/* What the serial port has taken so far: TSC cycles spent in it and
 * bytes, for trace.c's choice of compression; true only while serial is
 * the one sink taking frames (a stick keeps compression: its file's size
 * is what bounds the trace there). */
bool trace_out_link_cost(uint64_t *cycles, uint64_t *bytes);

/* The workload has ended (trace_finish, before the dump or the last
 * buffers are sent): the end line's times count from here. */
void trace_out_workload_ended(void);

/* The dump (trace_finish, once the writers have stopped): `bytes` of
 * records are held to be sent.  trace_out_dump_sent() after each chunk
 * of them adds its bytes; every 10 s one console line says how far the
 * dump is, how fast it goes and about how long the rest will take. */
void trace_out_dump_begin(uint64_t bytes);
void trace_out_dump_sent(uint64_t bytes);

/* That line for `done` of `total` bytes sent in `ms` milliseconds, into
 * buf (ksnprintf's truncation and return): "trace: 12.3 MB of the 40.1 MB
 * of records sent in 30 s (0.4 MB/s), about 68 s left" (KB below 1 MB). */
int trace_out_progress_format(char *buf, size_t size, uint64_t done, uint64_t total, uint64_t ms);

/* After the run end frame: each sink writes what it holds and says on the
 * console what it kept (the stick: "trace: N records, X MB saved to ...
 * in T s", or why not); then, after trace_out_workload_ended, one line
 * with each sink's bytes, time and throughput.  Once; later calls do
 * nothing. */
void trace_out_finish(void);

/* The run's exit status given the scenario's: KPROF_EXIT_TRACE_SPLIT
 * instead of success when the stick failed mid-run and serial took over
 * (no output holds the whole trace), with one line saying so. */
enum kprof_exit_status trace_out_exit_status(enum kprof_exit_status status);

#endif /* KPROF_TRACE_OUT_H */
