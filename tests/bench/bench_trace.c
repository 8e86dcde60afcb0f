/*
 * bench_trace.c - cost of writing one trace record, against a floor.
 *
 * Ours: trace_log() of a WMI_SPINLOCK record (72 bytes with its header)
 * through the kernel's own writer.c and tracebuf.c, compiled for the host
 * against the shadow arch headers (the CPU-local atomics are the kernel's
 * instructions), at DISPATCH_LEVEL as a spin-lock release writes it.
 * Floor: rdtsc plus the same 72 bytes written in place into a ring (and,
 * for comparison, the floor used before: built on the stack and copied).
 * Both build the same payload from the loop counter.  The ratio of the
 * medians of cycles per record is reported with its 95% interval
 * (bench_stats.h; goal: at most 1.10x the floor), beside the cost of one
 * time read measured in the same rounds.  Ours again after a slew of the
 * clock's correction that is over (the TSC watchdog's): the writer's
 * inline path must hold there too (it left every record to the slow path
 * once: 54 cycles against 46).
 *
 * User event: a workload's own event of the same size (72 bytes: the
 * 4-byte user event header and 52 bytes of values, the SpinLock payload's
 * fields declared as user event fields) written through
 * kernel/trace/user_event.h in its forms - values in place and value by
 * value (user_event_u64/u32/u8), each begun with user_event_begin or with
 * user_event_begin_values, and field by field (user_event_int) - against
 * the SpinLock record written as the kernel writes it
 * (kernel/locks/lockstat.c: group check, trace_record_begin, the fields
 * filled in place, trace_record_commit): the same buffer path with the
 * same bytes.  (trace_log, which copies a payload built beforehand, costs
 * the same or more, and would flatter the user event.)  The goal: at most 1.1x for
 * the in-place and value-by-value forms.
 *
 * Every writer runs in each of ROUNDS rounds: BLOCKS blocks of RECORDS
 * records each, interleaved with the other writers' in an order that turns
 * round by round (none always follows the same one), at each of CODE_PLACES
 * places of its code (bench_places.h: where the code falls moved a cost
 * by a tenth); a round counts each writer's fastest block at each place
 * (the one the other work on a shared host disturbed least) and their
 * mean over the places; the process is pinned to one CPU, and each ratio
 * is of the medians of the rounds, with its interval over the rounds.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "tests/bench/bench_places.h"
#include "tests/bench/bench_stats.h"

/* From here to the writers' table, the kernel's instruction set: general
 * registers only (-mgeneral-regs-only, which the file as a whole cannot
 * have: its statistics are floating point), so that the writer, the
 * user event's forms and the floors are the instructions the kernel runs
 * (a payload copied 8 bytes at a time, not with SSE).  The timed
 * functions return whole cycles; the rounds below divide. */
#pragma GCC push_options
#pragma GCC target("general-regs-only")

#include "include/kprof/wmi.h"
#include "kernel/ke/prcb.h"
#include "kernel/trace/trace.h"
#include "kernel/trace/user_event.h"

#define RECORDS 10000 /* 720 KB a block: the ring stays in the caches, ours and the floor alike */
#define ROUNDS 61
#define BLOCKS 5 /* of each writer in a round, interleaved: the fastest counts */
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

/* Cycles of RECORDS calls of write_one into a fresh ring
 * (inlined with its argument, so the loop calls no function pointer);
 * slew_over: with a slew of the clock's correction set that is over (the
 * TSC watchdog's, kernel/timekeep/watchdog.c: its line keeps a slope). */
static inline __attribute__((always_inline)) uint64_t timed_with(void (*write_one)(uint64_t i), bool slew_over)
{
	tracebuf_init(&tc, 0, ring, subs, SUBBUF_SHIFT, NSUB);
	if (slew_over) {
		struct trace_clock_line none = { 0 };
		struct trace_clock_line l = trace_clock_slew(&none, -1000, __rdtsc() - 200000, 100000);
		tracebuf_set_line(&tc, &l, 0);
	}
	uint64_t t0 = __rdtsc();
	for (uint64_t i = 0; i < RECORDS; i++)
		write_one(i);
	uint64_t t1 = __rdtsc();
	if (tc.records != RECORDS) {
		fprintf(stderr, "bench: only %llu records written\n", (unsigned long long)tc.records);
		exit(1);
	}
	return t1 - t0;
}

static inline __attribute__((always_inline)) uint64_t timed(void (*write_one)(uint64_t i))
{
	return timed_with(write_one, false);
}

static inline __attribute__((always_inline)) void spinlock_record(uint64_t i)
{
	WMI_SPINLOCK p;
	make_payload(&p, i);
	trace_log(PERF_SPINLOCK, PERFINFO_LOG_TYPE_SPINLOCK, SPINLOCK_VERSION, &p, sizeof(p));
}

PLACED(uint64_t, run_ours, timed(spinlock_record))

/* The same after a slew of the clock's correction that is over: the
 * writer's inline path must not leave every record to the slow one. */
PLACED(uint64_t, run_ours_after_slew, timed_with(spinlock_record, true))

/* The SpinLock record as the kernel writes it (lockstat.c): reserved,
 * filled in place, committed. */
static inline __attribute__((always_inline)) void spinlock_in_place(uint64_t i)
{
	struct trace_record rec;
	if (!trace_enabled(PERF_SPINLOCK))
		return;
	WMI_SPINLOCK *w = trace_record_begin(&rec, PERFINFO_LOG_TYPE_SPINLOCK, SPINLOCK_VERSION, sizeof(*w));
	if (!w)
		return;
	make_payload(w, i);
	trace_record_commit(&rec);
}

PLACED(uint64_t, run_kernel, timed(spinlock_in_place))

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

/* Every event begins one of two ways: user_event_begin (the values'
 * bounds checked as they are written) or user_event_begin_values with the
 * values' size (checked there, once). */
static inline __attribute__((always_inline)) bool begin(struct user_event *e, bool sized)
{
	return sized ? user_event_begin_values(e, &lock_type, KprofEventInstant, 52)
		     : user_event_begin(e, &lock_type, KprofEventInstant);
}

static inline __attribute__((always_inline)) void user_in_place(uint64_t i, bool sized)
{
	struct user_event e;
	if (!begin(&e, sized))
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

/* The values one by one (user_event_u64/u32/u8). */
static inline __attribute__((always_inline)) void user_one_by_one(uint64_t i, bool sized)
{
	struct user_event e;
	if (!begin(&e, sized))
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

/* One writer function per form and begin (no argument left to test in
 * the timed loop). */
#define USER_WRITER(form, sized, name)                                           \
	static inline __attribute__((always_inline)) void name##_one(uint64_t i) \
	{                                                                        \
		form(i, sized);                                                  \
	}                                                                        \
	PLACED(uint64_t, name, timed(name##_one))
USER_WRITER(user_in_place, false, run_in_place)
USER_WRITER(user_in_place, true, run_in_place_sized)
USER_WRITER(user_one_by_one, false, run_one_by_one)
USER_WRITER(user_one_by_one, true, run_one_by_one_sized)
#undef USER_WRITER

/* Field by field through the type (user_event_int): each value looks its
 * field up. */
static inline __attribute__((always_inline)) void user_fields(uint64_t i)
{
	struct user_event e;
	if (!user_event_begin(&e, &lock_type, KprofEventInstant))
		return;
	user_event_int(&e, 0xffffc00000001000ULL + (i & 7) * 64);
	user_event_int(&e, 0xffffffff80212345ULL);
	user_event_int(&e, i * 100);
	user_event_int(&e, i * 100 + 40);
	user_event_int(&e, i & 255);
	user_event_int(&e, i & 15);
	user_event_int(&e, 7);
	user_event_int(&e, 0);
	user_event_int(&e, DISPATCH_LEVEL);
	user_event_int(&e, 1);
	user_event_int(&e, 0);
	user_event_int(&e, 0);
	user_event_commit(&e);
}

PLACED(uint64_t, run_user_fields, timed(user_fields))

/* The floor's record is written in place in its ring, not built on the
 * stack and copied: where the stack falls (moved round by round, and by
 * the environment's size, which changes from run to run) moved a copy's
 * cost between two levels, and the ratio with it. */
struct floor_record {
	PERFINFO_TRACE_HEADER h;
	WMI_SPINLOCK p;
};

static inline __attribute__((always_inline)) uint64_t floor_in_place(void)
{
	size_t off = 0;
	uint64_t t0 = __rdtsc();
	for (uint64_t i = 0; i < RECORDS; i++) {
		struct floor_record *w = (struct floor_record *)(floor_ring + off);
		make_payload(&w->p, i);
		w->h = (PERFINFO_TRACE_HEADER){ .TimeStamp = __rdtsc(), .Size = sizeof(*w) };
		__asm__ volatile("" ::: "memory");
		off += sizeof(*w);
	}
	uint64_t t1 = __rdtsc();
	return t1 - t0;
}

/* The floor as it was measured before: the record built on the stack and
 * copied (printed for comparison; its cost moves with the stack's place). */
static inline __attribute__((always_inline)) uint64_t floor_copied(void)
{
	size_t off = 0;
	uint64_t t0 = __rdtsc();
	for (uint64_t i = 0; i < RECORDS; i++) {
		struct floor_record rec;
		make_payload(&rec.p, i);
		rec.h = (PERFINFO_TRACE_HEADER){ .TimeStamp = __rdtsc(), .Size = sizeof(rec) };
		memcpy(floor_ring + off, &rec, sizeof(rec));
		__asm__ volatile("" ::: "memory");
		off += sizeof(rec);
	}
	uint64_t t1 = __rdtsc();
	return t1 - t0;
}
PLACED(uint64_t, run_floor, floor_in_place())
PLACED(uint64_t, run_floor_copy, floor_copied())

/* The writers, run BLOCKS times each per round in a turning order, each
 * at its CODE_PLACES places. */
enum { OURS, FLOOR, KERNEL, IN_PLACE, IN_PLACE_SIZED, ONE_BY_ONE, ONE_BY_ONE_SIZED, FIELDS, FLOOR_COPY, AFTER_SLEW,
       WRITERS };
static uint64_t (*const run[WRITERS][CODE_PLACES])(void) = {
	PLACES_OF(run_ours),	   PLACES_OF(run_floor),	    PLACES_OF(run_kernel),
	PLACES_OF(run_in_place),   PLACES_OF(run_in_place_sized),   PLACES_OF(run_one_by_one),
	PLACES_OF(run_one_by_one_sized), PLACES_OF(run_user_fields), PLACES_OF(run_floor_copy),
	PLACES_OF(run_ours_after_slew),
};

#pragma GCC pop_options

/* Each writer at each place: per record, each round's fastest block. */
static double at_place[WRITERS][CODE_PLACES][ROUNDS];

/* Round r: each writer's fastest of BLOCKS blocks at each of its places,
 * per record, in at_place; in cycles[w][r] their mean over the places. */
static void __attribute__((noinline)) round_at(int r, double (*cycles)[ROUNDS])
{
	for (int w = 0; w < WRITERS; w++)
		for (int p = 0; p < CODE_PLACES; p++)
			at_place[w][p][r] = 1e9;
	for (int b = 0; b < BLOCKS; b++)
		for (int k = 0; k < WRITERS; k++)
			for (int j = 0; j < CODE_PLACES; j++) {
				int w = (r + k) % WRITERS, p = (r + b + j) % CODE_PLACES;
				double c = (double)run[w][p]() / RECORDS;
				if (c < at_place[w][p][r])
					at_place[w][p][r] = c; /* the block the host's other work disturbed least */
			}
	for (int w = 0; w < WRITERS; w++) {
		double sum = 0;
		for (int p = 0; p < CODE_PLACES; p++)
			sum += at_place[w][p][r];
		cycles[w][r] = sum / CODE_PLACES;
	}
}

/* The median of each of writer w's places over the rounds. */
static void print_places(const char *what, int w)
{
	printf("  %s at its %d places (8 bytes apart in a 64-byte line):", what, CODE_PLACES);
	for (int p = 0; p < CODE_PLACES; p++)
		printf(" %.1f", bench_median(at_place[w][p], ROUNDS));
	printf(" cycles\n");
}

/* Round r with the writers' stack moved by a different multiple of 16
 * bytes each round: where a writer's locals fall against the ring and the
 * cache lines moves its cost by up to a tenth, and the environment's size
 * alone decides it for a fixed stack; over the rounds, the medians are of
 * every placement. */
static void __attribute__((noinline)) round_shifted(int r, double (*cycles)[ROUNDS])
{
	volatile char *pad = __builtin_alloca(16 + (unsigned)r * 1328 % 4096);

	pad[0] = 0;
	round_at(r, cycles);
}

/* One user event form against the kernel's record, in the same rounds. */
static void print_form(const char *form, const double *cycles, const double *kernel, bool goal)
{
	struct bench_ratio q = bench_ratio_of(cycles, kernel, ROUNDS);

	printf("  %-50s %5.1f cycles: ", form, q.ours);
	bench_print_ratio(&q, goal ? 1.10 : 0);
}

int main(void)
{
	static double cycles[WRITERS][ROUNDS];

	int cpu = bench_pin(-1);
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

	for (int w = 0; w < WRITERS; w++)
		for (int p = 0; p < CODE_PLACES; p++)
			run[w][p](); /* warm the caches and the page tables */
	double tsc[ROUNDS];
	for (int r = 0; r < ROUNDS; r++) {
		round_shifted(r, cycles);
		tsc[r] = bench_tsc_read_cost();
	}
	struct bench_ratio q = bench_ratio_of(cycles[OURS], cycles[FLOOR], ROUNDS);
	printf("bench trace-write (CPU %d, %d interleaved rounds, medians, each writer the mean of %d code places): "
	       "one time read (rdtsc) %.1f cycles; ours %.1f cycles/record, floor (rdtsc + the 72 bytes written in "
	       "place) %.1f: ",
	       cpu, ROUNDS, CODE_PLACES, bench_median(tsc, ROUNDS), q.ours, q.floor);
	bench_print_ratio(&q, 1.10);
	print_places("ours", OURS);
	print_places("floor", FLOOR);
	struct bench_ratio c = bench_ratio_of(cycles[OURS], cycles[FLOOR_COPY], ROUNDS);
	printf("  against the floor measured before (the record built on the stack and copied) %.1f: ", c.floor);
	bench_print_ratio(&c, 0);
	struct bench_ratio a = bench_ratio_of(cycles[AFTER_SLEW], cycles[FLOOR], ROUNDS);
	printf("  after a slew of the clock's correction, over: ours %.1f cycles/record: ", a.ours);
	bench_print_ratio(&a, 1.10);
	printf("bench user-event: a user event of 72 bytes against the SpinLock record of 72 bytes filled in place "
	       "(%.1f cycles), the same rounds:\n",
	       bench_median(cycles[KERNEL], ROUNDS));
	print_form("in place (USER_EVENT_VALUES), user_event_begin", cycles[IN_PLACE], cycles[KERNEL], true);
	print_form("in place, user_event_begin_values", cycles[IN_PLACE_SIZED], cycles[KERNEL], true);
	print_form("value by value (_u64/u32/u8), user_event_begin", cycles[ONE_BY_ONE], cycles[KERNEL], true);
	print_form("value by value, user_event_begin_values", cycles[ONE_BY_ONE_SIZED], cycles[KERNEL], true);
	print_form("field by field (user_event_int)", cycles[FIELDS], cycles[KERNEL], false);
	struct bench_ratio l = bench_ratio_of(cycles[IN_PLACE], cycles[OURS], ROUNDS),
			   v = bench_ratio_of(cycles[ONE_BY_ONE], cycles[OURS], ROUNDS);
	printf("  (against the same record through trace_log, ours above: in place %.2f, value by value %.2f, "
	       "after user_event_begin)\n",
	       l.ratio, v.ratio);
	return 0;
}
