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
 *
 * User event: a workload's own event of the same size (72 bytes: the
 * 4-byte user event header and 52 bytes of values, the SpinLock payload's
 * fields declared as user event fields) written through
 * kernel/trace/user_event.h, value by value, against the SpinLock record
 * in the same run (goal: at most 1.1x).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "include/kprof/wmi.h"
#include "kernel/ke/prcb.h"
#include "kernel/trace/trace.h"
#include "kernel/trace/user_event.h"

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

/* Cycles per record of RECORDS calls of write_one into a fresh ring
 * (inlined with its argument, so the loop calls no function pointer). */
static inline __attribute__((always_inline)) double timed(void (*write_one)(uint64_t i))
{
	tracebuf_init(&tc, 0, ring, subs, SUBBUF_SHIFT, NSUB);
	uint64_t t0 = __rdtsc();
	for (uint64_t i = 0; i < RECORDS; i++)
		write_one(i);
	uint64_t t1 = __rdtsc();
	if (tc.records != RECORDS) {
		fprintf(stderr, "bench: only %llu records written\n", (unsigned long long)tc.records);
		exit(1);
	}
	return (double)(t1 - t0) / RECORDS;
}

static inline __attribute__((always_inline)) void spinlock_record(uint64_t i)
{
	WMI_SPINLOCK p;
	make_payload(&p, i);
	trace_log(PERF_SPINLOCK, PERFINFO_LOG_TYPE_SPINLOCK, SPINLOCK_VERSION, &p, sizeof(p));
}

static double run_ours(void)
{
	return timed(spinlock_record);
}

/* WMI_SPINLOCK's fields as a user event type: 52 bytes of values. */
static const struct user_event_field lock_fields[] = {
	USER_EVENT_POINTER("SpinLockAddress"), USER_EVENT_POINTER("CallerAddress"),
	USER_EVENT_UNSIGNED("AcquireTime", 8),  USER_EVENT_UNSIGNED("ReleaseTime", 8),
	USER_EVENT_UNSIGNED("WaitTimeInCycles", 4), USER_EVENT_UNSIGNED("SpinCount", 4),
	USER_EVENT_UNSIGNED("ThreadId", 4),      USER_EVENT_UNSIGNED("InterruptCount", 4),
	USER_EVENT_UNSIGNED("Irql", 1),          USER_EVENT_UNSIGNED("AcquireDepth", 1),
	USER_EVENT_UNSIGNED("Flags", 1),         USER_EVENT_UNSIGNED("Reserved", 1),
};
static struct user_event_type lock_type = USER_EVENT_TYPE("bench_lock", KprofEventKindInstant, lock_fields);
_Static_assert(sizeof(PERFINFO_TRACE_HEADER) + sizeof(KPROF_USER_EVENT) + 52 ==
		       sizeof(PERFINFO_TRACE_HEADER) + sizeof(WMI_SPINLOCK), "the same record size");

/* The values in place: WMI_SPINLOCK's fields, packed (52 bytes). */
struct lock_values {
	uint64_t SpinLockAddress, CallerAddress, AcquireTime, ReleaseTime;
	uint32_t WaitTimeInCycles, SpinCount, ThreadId, InterruptCount;
	uint8_t Irql, AcquireDepth, Flags, Reserved;
} __attribute__((packed));
_Static_assert(sizeof(struct lock_values) == 52, "the type's values");

static inline __attribute__((always_inline)) void user_values(uint64_t i)
{
	struct user_event e;
	if (!user_event_begin(&e, &lock_type, KprofEventInstant))
		return;
	struct lock_values *v = USER_EVENT_VALUES(&e, struct lock_values);
	if (v) {
		v->SpinLockAddress = 0xffffc00000001000ULL + (i & 7) * 64;
		v->CallerAddress = 0xffffffff80212345ULL;
		v->AcquireTime = i * 100;
		v->ReleaseTime = i * 100 + 40;
		v->WaitTimeInCycles = (uint32_t)(i & 255);
		v->SpinCount = (uint32_t)(i & 15);
		v->ThreadId = 7;
		v->InterruptCount = 0;
		v->Irql = DISPATCH_LEVEL;
		v->AcquireDepth = 1;
		v->Flags = 0;
		v->Reserved = 0;
	}
	user_event_commit(&e);
}

static double run_user_values(void)
{
	return timed(user_values);
}

static inline __attribute__((always_inline)) void user_one_by_one(uint64_t i)
{
	struct user_event e;
	if (!user_event_begin(&e, &lock_type, KprofEventInstant))
		return;
	user_event_u64(&e, 0xffffc00000001000ULL + (i & 7) * 64);
	user_event_u64(&e, 0xffffffff80212345ULL);
	user_event_u64(&e, i * 100);
	user_event_u64(&e, i * 100 + 40);
	user_event_u32(&e, (uint32_t)(i & 255));
	user_event_u32(&e, (uint32_t)(i & 15));
	user_event_u32(&e, 7);
	user_event_u32(&e, 0);
	user_event_u8(&e, DISPATCH_LEVEL);
	user_event_u8(&e, 1);
	user_event_u8(&e, 0);
	user_event_u8(&e, 0);
	user_event_commit(&e);
}

static double run_user(void)
{
	return timed(user_one_by_one);
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
	double ours[ROUNDS], base[ROUNDS], user[ROUNDS], pair[ROUNDS], inplace[ROUNDS], ipair[ROUNDS];

	prcb.Self = &prcb;
	prcb.TraceCpu = &tc;
	KiProcessorBlock[0] = &prcb;
	arch_percpu_set(&prcb);
	arch_set_irql(DISPATCH_LEVEL);
	perfinfo_group_set(&trace_groups, PERF_SPINLOCK);
	perfinfo_group_set(&trace_groups, PERF_KPROF_USER);
	if (user_event_declare(&lock_type) || lock_type.data_size != 52) {
		fprintf(stderr, "bench: the user event type was refused\n");
		return 1;
	}

	run_ours(); /* warm the caches and the page tables */
	run_floor();
	run_user();
	for (int r = 0; r < ROUNDS; r++) {
		ours[r] = run_ours();
		base[r] = run_floor();
		user[r] = run_user();
		inplace[r] = run_user_values();
		pair[r] = user[r] / ours[r]; /* the same round: the host's load alike */
		ipair[r] = inplace[r] / ours[r];
	}
	qsort(ours, ROUNDS, sizeof(double), cmp);
	qsort(base, ROUNDS, sizeof(double), cmp);
	qsort(user, ROUNDS, sizeof(double), cmp);
	qsort(pair, ROUNDS, sizeof(double), cmp);
	qsort(inplace, ROUNDS, sizeof(double), cmp);
	qsort(ipair, ROUNDS, sizeof(double), cmp);
	double ratio = ours[ROUNDS / 2] / base[ROUNDS / 2];
	printf("bench trace-write: ours %.1f cycles/record (spread %.1f..%.1f), floor (rdtsc + copy of 72 bytes) "
	       "%.1f (spread %.1f..%.1f): ratio %.2f, goal <= 2.00: %s\n",
	       ours[ROUNDS / 2], ours[0], ours[ROUNDS - 1], base[ROUNDS / 2], base[0], base[ROUNDS - 1], ratio,
	       ratio <= 2.0 ? "met" : "MISSED");
	double uratio = ipair[ROUNDS / 2];
	printf("bench user-event: a user event of 72 bytes, values in place %.1f cycles (spread %.1f..%.1f), the "
	       "SpinLock record of 72 bytes %.1f: ratio %.2f (median of the rounds' ratios, spread %.2f..%.2f), goal "
	       "<= 1.10: %s; value by value (user_event_u64/u32/u8) %.1f cycles, ratio %.2f\n",
	       inplace[ROUNDS / 2], inplace[0], inplace[ROUNDS - 1], ours[ROUNDS / 2], uratio, ipair[0],
	       ipair[ROUNDS - 1], uratio <= 1.1 ? "met" : "MISSED", user[ROUNDS / 2], pair[ROUNDS / 2]);
	return 0;
}
