/*
 * tracefit.h - do the trace buffers of every CPU fit in free memory?
 *
 * Checked once the CPUs are up and before anything runs
 * (trace_configure.c): a trace.buffer_kb the user gave that does
 * not fit is refused like any probe-time key; one left at its default
 * (trace.buffer_fit=shrink) is made smaller.  Pure arithmetic, so the unit
 * tests run it on the host.
 */
#ifndef KPROF_KERNEL_TRACEFIT_H
#define KPROF_KERNEL_TRACEFIT_H

#include <stdint.h>

/* Memory left free after the buffers, for what the kernel allocates once
 * the run has started: every thread's stack and its objects, the
 * workloads' own allocations, stream mode's logger.  Measured as the
 * lowest free memory during scenario=mix against free memory right after
 * the buffers: 0.4 MiB on 2 CPUs, 5.9 MiB on 64 (about 90 KiB a CPU);
 * this keeps 16.5 and 32 MiB, several times that. */
#define TRACE_FIT_RESERVE_KB         (16u * 1024) /* whatever the CPU count */
#define TRACE_FIT_RESERVE_KB_PER_CPU 256u         /* and this for each CPU  */

/* The largest trace.buffer_kb (a whole number of sub-buffers, at most
 * max_kb) whose buffers and bookkeeping for ncpu CPUs fit in free_kb less
 * the reserve; 0 if not even the smallest ring (TRACE_MIN_SUBBUFS
 * sub-buffers) fits. */
uint32_t trace_fit_most_kb(uint64_t free_kb, uint32_t ncpu, uint32_t subbuf_kb, uint32_t max_kb);

/* What one CPU's ring of buffer_kb costs, KiB: the data and the
 * sub-buffer table beside it (trace.c: alloc_cpu). */
uint64_t trace_fit_cpu_kb(uint32_t buffer_kb, uint32_t subbuf_kb);

/* The reserve for ncpu CPUs, KiB. */
uint64_t trace_fit_reserve_kb(uint32_t ncpu);

#endif /* KPROF_KERNEL_TRACEFIT_H */
