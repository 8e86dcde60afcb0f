/*
 * trace_configure.h - what the trace makes of its keys once the machine
 * is probed: its settings for the run.
 *
 * trace_configure() runs once, on the boot CPU at probe time (after the
 * CPUs are started, before trace_start), from the parsed keys
 * (trace_keys.h) and what probing found: the CPUs started, the memory
 * left free, the stick the loader describes.  It resolves trace.out=auto,
 * applies trace.buffer_fit= (refusing a size the user gave that does not
 * fit, or shrinking a default one, and saying so) and derives the ring's
 * shape.  The parsed keys are never written: the rest of the trace reads
 * trace_settings.
 */
#ifndef KPROF_KERNEL_TRACE_CONFIGURE_H
#define KPROF_KERNEL_TRACE_CONFIGURE_H

#include <stdint.h>

#include "boot/bootinfo.h"
#include "kernel/trace/config/trace_keys.h"

/* What probing found, as the trace needs it. */
struct trace_probe {
	uint32_t ncpu;                      /* CPUs started                        */
	uint64_t free_kb;                   /* free memory once they are up, KiB   */
	const struct bootinfo_stick *stick; /* the kernel's bootinfo copy, kept    */
};

/* The trace's settings for the run: the keys as resolved. */
struct trace_settings {
	uint32_t items;     /* trace=: bits of enum kprof_trace_item          */
	uint32_t mode;      /* enum kprof_trace_mode                           */
	uint32_t out;       /* TRACE_OUT_SERIAL, _USB or _BOTH: never AUTO     */
	uint32_t buffer_kb; /* per CPU: trace.buffer_kb, or shrunk to fit      */
	uint32_t subbuf_kb; /* one sub-buffer                                  */
	uint32_t nsub;      /* sub-buffers per CPU: buffer_kb / subbuf_kb      */
	uint32_t compress;  /* 1: chunks delta + LZ4 when that pays            */
};

/* Zero until trace_configure() has run. */
extern const struct trace_settings *const trace_settings;

/* Resolve cfg (the parsed keys) against what probing found.  A value the
 * machine cannot take is refused with cmdline_refuse_at_probe() (the run
 * then ends before any scenario); the settings are still filled, as if
 * the key had its default. */
void trace_configure(const struct trace_config *cfg, const struct trace_probe *p);

#endif /* KPROF_KERNEL_TRACE_CONFIGURE_H */
