/*
 * tracefit.c - the arithmetic of fitting every CPU's trace buffer in free
 * memory (tracefit.h).  A CPU's ring is trace.buffer_kb rounded down to
 * whole sub-buffers (trace.c: trace_start), allocated as one run of pages,
 * plus its struct trace_cpu and sub-buffer table from the heap.
 */
#include "kernel/trace/config/tracefit.h"

#include "kernel/trace/trace.h"
#include "kernel/trace/tracebuf.h"
#include "kernel/lib/libk.h"

#define PAGE_KB 4u

uint64_t trace_fit_cpu_kb(uint32_t buffer_kb, uint32_t subbuf_kb)
{
	uint64_t nsub = buffer_kb / subbuf_kb;
	/* trace.c: kzalloc(sizeof(tc) + nsub table entries + 64); the heap
	 * takes whole pages for anything this large, plus its header. */
	uint64_t table = sizeof(struct trace_cpu) + nsub * sizeof(struct trace_subbuf) + 64 + 16;
	return nsub * subbuf_kb + (table + PAGE_KB * 1024 - 1) / (PAGE_KB * 1024) * PAGE_KB;
}

uint64_t trace_fit_reserve_kb(uint32_t ncpu)
{
	return TRACE_FIT_RESERVE_KB + (uint64_t)ncpu * TRACE_FIT_RESERVE_KB_PER_CPU;
}

uint32_t trace_fit_most_kb(uint64_t free_kb, uint32_t ncpu, uint32_t subbuf_kb, uint32_t max_kb)
{
	uint64_t reserve = trace_fit_reserve_kb(ncpu);
	if (!ncpu || !subbuf_kb || free_kb <= reserve)
		return 0;
	uint64_t per_cpu = (free_kb - reserve) / ncpu;
	/* Whole sub-buffers; the table grows with them, so step down from
	 * the data-only estimate until data and table fit (a few steps). */
	uint64_t n = MIN(per_cpu, (uint64_t)max_kb) / subbuf_kb;
	while (n >= TRACE_MIN_SUBBUFS && trace_fit_cpu_kb((uint32_t)(n * subbuf_kb), subbuf_kb) > per_cpu)
		n--;
	return n >= TRACE_MIN_SUBBUFS ? (uint32_t)(n * subbuf_kb) : 0;
}
