/*
 * config.h - the typed configuration parsed once from the command line.
 *
 * Every field has a default (cmdline_keys.c: config_defaults) and is set
 * only by config_parse(); the rest of the kernel reads kconfig and never
 * parses text.  kernel/init/cmdline_keys.c is the table of keys and
 * docs/cmdline.md, generated from it (make docs), lists every key.  The
 * architecture's own keys fill its own struct (<arch/cmdline.h>).
 */
#ifndef KPROF_KERNEL_CONFIG_H
#define KPROF_KERNEL_CONFIG_H

#include <stdint.h>

#include "include/kprof/scenario.h" /* enum kprof_scenario */

#include "kernel/ke/cpus.h" /* KPROF_MAX_CPUS */

enum kprof_selftest {
	SELFTEST_NONE,     /* no deliberate failure                           */
	SELFTEST_FAULT,    /* page fault on an unmapped address, 3 calls deep  */
	SELFTEST_UD,       /* invalid opcode (ud2)                             */
	SELFTEST_PANIC,    /* bug check MANUALLY_INITIATED_CRASH               */
	SELFTEST_STACK,    /* run off the end of the kernel stack (guard page) */
	SELFTEST_IRQL,     /* lower IRQL to a higher level: bug check          */
	SELFTEST_COUNT
};

enum kprof_timer_mode {
	TIMER_AUTO,        /* TSC-deadline when the CPU has it, else one-shot */
	TIMER_DEADLINE,
	TIMER_ONESHOT,
	TIMER_PERIODIC,
	TIMER_MODE_COUNT
};

/* rawlock=: the discipline of the kernel's own spin locks (rawlock.h). */
enum kprof_rawlock_mode {
	RAWLOCK_AUTO,   /* test-and-set under a hypervisor, else ticket */
	RAWLOCK_TICKET,
	RAWLOCK_TAS,
	RAWLOCK_MODE_COUNT
};

/* trace= items (bits of kconfig.trace); kernel/trace/trace.c maps them
 * to group masks. */
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
 * memory (kernel/trace/tracefit.h).  config_parse() turns AUTO into one of
 * the other two, so the rest of the kernel never sees it. */
enum kprof_trace_fit {
	TRACE_FIT_AUTO,   /* SHRINK if trace.buffer_kb was left at its default, else REFUSE */
	TRACE_FIT_REFUSE, /* refuse the run at probe time (exit CONFIG)   */
	TRACE_FIT_SHRINK, /* make the buffers smaller, and say so         */
	TRACE_FIT_COUNT
};

/* trace.out=: where the trace's frames go (kernel/trace/out.h).  The
 * output layer turns AUTO into SERIAL or BOTH at probe time
 * (trace_out_configure), from what the loader found (bootinfo stick). */
enum kprof_trace_out {
	TRACE_OUT_AUTO,   /* BOTH when booted from a USB stick with a usable trace file, else SERIAL */
	TRACE_OUT_SERIAL, /* the serial port only                                      */
	TRACE_OUT_USB,    /* the trace file on the USB stick only                      */
	TRACE_OUT_BOTH,   /* both, the same frames in the same order                   */
	TRACE_OUT_COUNT
};

struct kconfig {
	uint32_t scenario;   /* enum kprof_scenario                          */
	uint32_t cpus;       /* CPUs to start; 0 = every enabled CPU         */
	uint32_t selftest;   /* enum kprof_selftest                          */
	uint32_t timer;      /* enum kprof_timer_mode                        */
	uint32_t tick_hz;    /* clock interrupts per second per CPU          */
	uint32_t trace;      /* bits of enum kprof_trace_item                */
	uint32_t trace_mode; /* enum kprof_trace_mode (include/kprof/wire.h) */
	uint32_t trace_buffer_kb; /* per CPU, all sub-buffers together       */
	uint32_t trace_subbuf_kb; /* one sub-buffer (a power of two)         */
	uint32_t trace_buffer_fit; /* enum kprof_trace_fit                   */
	uint32_t trace_compress;  /* 1: chunks go out delta + LZ4 (wire.h)   */
	uint32_t trace_out;       /* enum kprof_trace_out                    */
	uint32_t tracetest_records; /* scenario=tracetest: records per CPU   */
	uint32_t sched_ms;   /* scenario=sched: how long the mix runs        */
	uint32_t rawlock;    /* enum kprof_rawlock_mode                      */
	/* EVENT_TRACE_SPINLOCK_INFORMATION, applied at boot through
	 * nt_set_system_information(), which checks the minimums */
	uint32_t spin_threshold;
	uint32_t acquire_sample_rate;
	uint32_t contention_sample_rate;
	uint32_t hold_threshold;
	uint32_t locks_ms;        /* scenario=locks: how long it runs           */
	uint32_t locks_hold_ns;   /* scenario=locks: a typical hold             */
	uint32_t locks_think_ns;  /* scenario=locks: time between acquisitions  */
	uint32_t resources_ms;    /* scenario=resources: how long it runs       */
	uint32_t resource_timeout_ms; /* ERESOURCE waits: the excessive-wait interval */
	uint32_t profile_interval; /* ProfileTime interval, 100 ns units     */
	uint32_t pmc_sources;     /* bits (1 << KPROFILE_SOURCE) for trace=pmc  */
	uint32_t pmc_interval;    /* events between PMC interrupts             */
	uint32_t profile_ms;      /* scenario=profile: how long it runs        */
	uint32_t mix_ms;          /* scenario=mix: how long each workload runs */
	uint32_t usb_probe;       /* usb.probe=on: list USB devices (kernel/usb/probe.c) */
	uint32_t usb_stick_port;  /* usb.stick_port=N: the stick's root port instead
				   * of the loader's (0: the loader's) */
};

extern struct kconfig kconfig;

#endif /* KPROF_KERNEL_CONFIG_H */
