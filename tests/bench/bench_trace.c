/*
 * bench_trace.c - cost of writing one trace record, against a floor.
 *
 * Ours: trace_log() of a WMI_SPINLOCK record (72 bytes with its header)
 * through the kernel's own writer.c and tracebuf.c, compiled for the host
 * against the shadow arch headers (the CPU-local atomics are the kernel's
 * instructions), at DISPATCH_LEVEL as a spin-lock release writes it.
 * Floor: rdtsc plus a plain copy of the same 72 bytes into a ring.
 * Both build the same payload from the loop counter.  Blocks of each are
 * interleaved, ROUNDS times; medians of cycles per record are reported
 * with their spread and the ratio (goal: at most 2x the floor).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "include/kprof/wmi.h"
#include "kernel/ke/prcb.h"
#include "kernel/trace/trace.h"

#define RECORDS 100000
#define ROUNDS 31
#define SUBBUF_SHIFT 16
#define NSUB 128 /* 8 MiB: a whole block without flushing */

KPRCB *KiProcessorBlock[KPROF_MAX_CPUS];
volatile uint32_t ke_number_processors = 1;
static unsigned long filled;

void trace_subbuffer_filled(void)
{
	filled++;
}

static uint8_t ring[NSUB << SUBBUF_SHIFT] __attribute__((aligned(64)));
static uint8_t floor_ring[NSUB << SUBBUF_SHIFT] __attribute__((aligned(64)));
static struct trace_subbuf subs[NSUB];
static struct trace_cpu tc;
static KPRCB prcb;

static void make_payload(WMI_SPINLOCK *p, uint64_t i)
{
	p->SpinLockAddress = 0xffffc00000001000ULL + (i & 7) * 64;
	p->CallerAddress = 0xffffffff80212345ULL;
	p->AcquireTime = i * 100;
	p->ReleaseTime = i * 100 + 40;
	p->WaitTimeInCycles = (uint32_t)(i & 255);
	p->SpinCount = (uint32_t)(i & 15);
	p->ThreadId = 7;
	p->InterruptCount = 0;
	p->Irql = DISPATCH_LEVEL;
	p->AcquireDepth = 1;
	p->Flags = 0;
	memset(p->Reserved, 0, sizeof(p->Reserved));
}

static double run_ours(void)
{
	tracebuf_init(&tc, 0, ring, subs, SUBBUF_SHIFT, NSUB);
	uint64_t t0 = __rdtsc();
	for (uint64_t i = 0; i < RECORDS; i++) {
		WMI_SPINLOCK p;
		make_payload(&p, i);
		trace_log(PERF_SPINLOCK, PERFINFO_LOG_TYPE_SPINLOCK, SPINLOCK_VERSION, &p, sizeof(p));
	}
	uint64_t t1 = __rdtsc();
	if (tc.records != RECORDS) {
		fprintf(stderr, "bench: only %llu records written\n", (unsigned long long)tc.records);
		exit(1);
	}
	return (double)(t1 - t0) / RECORDS;
}

static double run_floor(void)
{
	size_t off = 0;
	uint64_t t0 = __rdtsc();
	for (uint64_t i = 0; i < RECORDS; i++) {
		struct {
			PERFINFO_TRACE_HEADER h;
			WMI_SPINLOCK p;
		} rec;
		make_payload(&rec.p, i);
		rec.h.TimeStamp = __rdtsc();
		rec.h.Marker = 0;
		rec.h.Size = sizeof(rec);
		rec.h.HookId = 0;
		memcpy(floor_ring + off, &rec, sizeof(rec));
		__asm__ volatile("" ::: "memory");
		off += sizeof(rec);
	}
	uint64_t t1 = __rdtsc();
	return (double)(t1 - t0) / RECORDS;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	double ours[ROUNDS], base[ROUNDS];

	prcb.Self = &prcb;
	prcb.TraceCpu = &tc;
	KiProcessorBlock[0] = &prcb;
	arch_percpu_set(&prcb);
	arch_set_irql(DISPATCH_LEVEL);
	perfinfo_group_set(&trace_groups, PERF_SPINLOCK);

	run_ours(); /* warm the caches and the page tables */
	run_floor();
	for (int r = 0; r < ROUNDS; r++) {
		ours[r] = run_ours();
		base[r] = run_floor();
	}
	qsort(ours, ROUNDS, sizeof(double), cmp);
	qsort(base, ROUNDS, sizeof(double), cmp);
	double ratio = ours[ROUNDS / 2] / base[ROUNDS / 2];
	printf("bench trace-write: ours %.1f cycles/record (spread %.1f..%.1f), floor (rdtsc + copy of 72 bytes) "
	       "%.1f (spread %.1f..%.1f): ratio %.2f, goal <= 2.00: %s\n",
	       ours[ROUNDS / 2], ours[0], ours[ROUNDS - 1], base[ROUNDS / 2], base[0], base[ROUNDS - 1], ratio,
	       ratio <= 2.0 ? "met" : "MISSED");
	return 0;
}
