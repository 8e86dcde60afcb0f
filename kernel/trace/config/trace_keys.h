/*
 * trace_keys.h - the keys the trace owns (trace=, trace.mode=,
 * trace.buffer_kb=, trace.subbuf_kb=, trace.buffer_fit=, trace.out=,
 * trace.compress=) and the struct they fill (trace_keys.c).
 *
 * Filled once by config_parse() and read-only afterwards, through the
 * const view trace_config.  What the trace makes of them once the machine
 * is probed (trace.out=auto resolved, the buffers shrunk to fit, the
 * sub-buffer count) is not written back here: trace_configure() puts it
 * in the trace's own settings (trace_configure.h).
 */
#ifndef KPROF_KERNEL_TRACE_KEYS_H
#define KPROF_KERNEL_TRACE_KEYS_H

#include <stdint.h>

/* trace= items (bits of trace_config->items); kernel/trace/trace.c maps
 * them to group masks. */
enum kprof_trace_item {
	TRACE_ITEM_CSWITCH,   /* PERF_CONTEXT_SWITCH: WMI_CONTEXTSWAP        */
	TRACE_ITEM_SPINLOCK,  /* PERF_SPINLOCK: WMI_SPINLOCK                 */
	TRACE_ITEM_RESOURCE,  /* PERF_SYNC_OBJECTS: WMI_RESOURCE             */
	TRACE_ITEM_PROFILE,   /* PERF_PROFILE: sampled profile               */
	TRACE_ITEM_PMC,       /* PERF_PMC_PROFILE: PMC samples               */
	TRACE_ITEM_STACK,     /* a stack walk after each sample              */
	TRACE_ITEM_TRACETEST, /* scenario=tracetest pattern records          */
	TRACE_ITEM_CLOCK,     /* late clock interrupts (kprof's own record)  */
	TRACE_ITEM_NONE,      /* nothing                                     */
	TRACE_ITEM_ALL,       /* everything above                            */
	TRACE_ITEM_COUNT
};

/* trace.buffer_fit=: when every CPU's trace buffer does not fit in free
 * memory (kernel/trace/config/tracefit.h).  config_parse() turns AUTO into one of
 * the other two before it returns (it knows whether trace.buffer_kb was
 * given), so nothing after it sees AUTO. */
enum kprof_trace_fit {
	TRACE_FIT_AUTO,   /* SHRINK if trace.buffer_kb was left at its default, else REFUSE */
	TRACE_FIT_REFUSE, /* refuse the run at probe time (exit CONFIG)   */
	TRACE_FIT_SHRINK, /* make the buffers smaller, and say so         */
	TRACE_FIT_COUNT
};

/* trace.out=: where the trace's frames go (kernel/trace/out/out.h).
 * trace_configure() resolves AUTO into SERIAL or BOTH at probe time, from
 * what the loader found (bootinfo stick), in the trace's settings. */
enum kprof_trace_out {
	TRACE_OUT_AUTO,   /* BOTH when booted from a USB stick with a usable trace file, else SERIAL */
	TRACE_OUT_SERIAL, /* the serial port only                                      */
	TRACE_OUT_USB,    /* the trace file on the USB stick only                      */
	TRACE_OUT_BOTH,   /* both, the same frames in the same order                   */
	TRACE_OUT_COUNT
};

struct trace_config {
	uint32_t items;      /* trace=: bits of enum kprof_trace_item          */
	uint32_t mode;       /* enum kprof_trace_mode (include/kprof/wire.h)   */
	uint32_t buffer_kb;  /* per CPU, all sub-buffers together              */
	uint32_t subbuf_kb;  /* one sub-buffer (a power of two)                */
	uint32_t buffer_fit; /* enum kprof_trace_fit                           */
	uint32_t out;        /* enum kprof_trace_out                           */
	uint32_t compress;   /* 1: chunks go out delta + LZ4 (wire.h)          */
};

extern const struct trace_config *const trace_config;

/* trace.out= names, by enum kprof_trace_out (NULL-terminated). */
extern const char *const trace_out_names[TRACE_OUT_COUNT + 1];

#endif /* KPROF_KERNEL_TRACE_KEYS_H */
