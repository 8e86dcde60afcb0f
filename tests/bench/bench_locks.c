/*
 * bench_locks.c - kprof's spin locks against a floor measured in the same
 * process on the same CPU (pinned), interleaved round by round (ours,
 * then the floor, then the other way round), with the ratio of the
 * medians and its 95% interval (bench_stats.h) against the goals:
 *
 *   ordinary, uncontended, tracing off   <= 1.6  x ck_spinlock_fas
 *   queued, uncontended, tracing off     <= 1.0  x ck_spinlock_mcs
 *   queued hand-off between two threads  <= 1.25 x ck_spinlock_mcs
 *   traced acquisition (every one recorded)
 *                                        <= 1.15 x ck_spinlock_fas + the
 *        time reads its record needs + the record's write (floor_traced)
 *   timed, not recorded                  <= 1.15 x ck_spinlock_fas + its
 *        time reads (floor_timed)
 *
 * The time reads a record needs: an uncontended acquisition's WMI_SPINLOCK
 * has AcquireTime (the lock taken at its first test: the first read), and
 * ReleaseTime (the second); WaitTimeInCycles is 0 and needs no read; the
 * record's own TimeStamp can be its ReleaseTime.  Two reads.  (A contended
 * one needs a third, before its first test, for WaitTimeInCycles.)  A
 * timed acquisition not recorded needs its AcquireTime and ReleaseTime too
 * (HoldThreshold compares them): two reads.  The cost of one read is
 * measured and printed in the same run.
 *
 * "Uncontended" is one thread taking and releasing a free lock; the
 * at-DISPATCH_LEVEL entry points are measured (the IRQL change of the
 * raising ones is CR8 on hardware, a thread-local here).  A hand-off is
 * the lock passing from one thread to the other: two threads on two cores
 * take the lock in turn, each holding it until the other waits behind it
 * (the queue's tail is the other's entry), so that every acquisition but
 * the first is a hand-off through the queue, for ours as for
 * ck_spinlock_mcs; cycles per hand-off = elapsed / hand-offs.  (Counting
 * only the owner's changes of a free-running loop made the two locks'
 * denominators differ: 78 to 98% of ours were hand-offs, 68 to 74% of
 * ck's, a thread often taking the lock again before the other queued.)  Its
 * lines move through fresh pages round by round (PLACES, below): where
 * they sit in memory moved the ratio more than the locks did.  The
 * traced case forces every acquisition to be recorded (the sample rates
 * set to 1 directly, below the minimums the kernel call enforces), so each
 * one takes its three time stamps and writes a WMI_SPINLOCK record.
 * Every timed loop but the hand-off's, ours and the floors alike, runs at
 * CODE_PLACES places of its code (bench_places.h), and a round's figure
 * is the mean over them.  Cycles are TSC cycles.  Benchmarks report; they
 * do not fail.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

#include "tests/bench/bench_places.h"
#include "tests/bench/bench_stats.h"

/* What a timed function returns: whole cycles over ops operations (the
 * per-operation figure is divided out below, in floating point). */
struct bench_cycles {
	uint64_t cycles, ops;
};

/* From here to the pairs' table, the kernel's instruction set: general
 * registers only (-mgeneral-regs-only, which the file as a whole cannot
 * have: its statistics are floating point; the kernel's .c files are
 * compiled with it, tests/bench/bench.mk), for ours and for the floors and
 * Concurrency Kit's locks alike. */
#pragma GCC push_options
#pragma GCC target("general-regs-only")

#include <ck_spinlock.h>

#include "kernel/locks/lockstat.h"
#include "kernel/locks/spinlock.h"
#include "kernel/ke/prcb.h"
#include "kernel/sched/sched.h"
#include "kernel/trace/trace.h"

/* PAUSE, as _mm_pause (an SSE intrinsic, refused in this part). */
static inline __attribute__((always_inline)) void spin_pause(void)
{
	__asm__ volatile("pause" ::: "memory");
}

#define ROUNDS 61
#define BLOCKS 3 /* of each side of a pair in a round: the fastest counts */
#define OPS 20000 /* 1.4 MB of records a round: the ring stays in the caches */
#define HANDOFFS 5000 /* in each placement (PLACES a round) */
#define SUBBUF_SHIFT 16
#define NSUB 32 /* 2 MiB per CPU: one round of traced records without flushing */

KPRCB *KiProcessorBlock[KPROF_MAX_CPUS];
volatile uint32_t ke_number_processors = 2;
static KPRCB prcbs[2];
static KTHREAD thread0 = { .ThreadId = 8 };
static struct trace_cpu tcs[2];
static struct trace_subbuf subs[2][NSUB];
static uint8_t *rings[2];

void trace_subbuffer_filled(void)
{
}

KTHREAD *ke_get_current_thread(void)
{
	return &thread0;
}

static void become_cpu(int n)
{
	arch_percpu_set(&prcbs[n]);
	arch_set_irql(DISPATCH_LEVEL);
}

static void pin(int core)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(core, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* ---------------------------------------------------------------- uncontended */

static KSPIN_LOCK our_lock;
static ck_spinlock_fas_t fas = CK_SPINLOCK_FAS_INITIALIZER;
static struct ck_spinlock_mcs *mcs_lock = CK_SPINLOCK_MCS_INITIALIZER;

static inline __attribute__((always_inline)) struct bench_cycles ours_ordinary_loop(void)
{
	uint64_t t0 = __rdtsc();
	for (int i = 0; i < OPS; i++) {
		ke_acquire_spin_lock_at_dpc_level(&our_lock);
		__asm__ volatile("" ::: "memory");
		ke_release_spin_lock_from_dpc_level(&our_lock);
	}
	return (struct bench_cycles){ __rdtsc() - t0, OPS };
}
PLACED(struct bench_cycles, ours_ordinary, ours_ordinary_loop())

static inline __attribute__((always_inline)) struct bench_cycles ck_fas_loop(void)
{
	uint64_t t0 = __rdtsc();
	for (int i = 0; i < OPS; i++) {
		ck_spinlock_fas_lock(&fas);
		__asm__ volatile("" ::: "memory");
		ck_spinlock_fas_unlock(&fas);
	}
	return (struct bench_cycles){ __rdtsc() - t0, OPS };
}
PLACED(struct bench_cycles, ck_fas, ck_fas_loop())

static inline __attribute__((always_inline)) struct bench_cycles ours_queued_loop(void)
{
	KLOCK_QUEUE_HANDLE h;
	uint64_t t0 = __rdtsc();
	for (int i = 0; i < OPS; i++) {
		ke_acquire_in_stack_queued_spin_lock_at_dpc_level(&our_lock, &h);
		__asm__ volatile("" ::: "memory");
		ke_release_in_stack_queued_spin_lock_from_dpc_level(&h);
	}
	return (struct bench_cycles){ __rdtsc() - t0, OPS };
}
PLACED(struct bench_cycles, ours_queued, ours_queued_loop())

static inline __attribute__((always_inline)) struct bench_cycles ck_mcs_loop(void)
{
	struct ck_spinlock_mcs node;
	uint64_t t0 = __rdtsc();
	for (int i = 0; i < OPS; i++) {
		ck_spinlock_mcs_lock(&mcs_lock, &node);
		__asm__ volatile("" ::: "memory");
		ck_spinlock_mcs_unlock(&mcs_lock, &node);
	}
	return (struct bench_cycles){ __rdtsc() - t0, OPS };
}
PLACED(struct bench_cycles, ck_mcs, ck_mcs_loop())

static inline __attribute__((always_inline)) struct bench_cycles ours_traced_loop(void)
{
	tracebuf_init(&tcs[0], 0, rings[0], subs[0], SUBBUF_SHIFT, NSUB);
	perfinfo_group_set(&trace_groups, PERF_SPINLOCK);
	uint64_t records = tcs[0].records;
	uint64_t t0 = __rdtsc();
	for (int i = 0; i < OPS; i++) {
		ke_acquire_spin_lock_at_dpc_level(&our_lock);
		__asm__ volatile("" ::: "memory");
		ke_release_spin_lock_from_dpc_level(&our_lock);
	}
	uint64_t t1 = __rdtsc();
	memset(&trace_groups, 0, sizeof(trace_groups));
	if (tcs[0].records - records != OPS) {
		fprintf(stderr, "bench_locks: traced %llu of %d acquisitions\n",
			(unsigned long long)(tcs[0].records - records), OPS);
		exit(1);
	}
	return (struct bench_cycles){ t1 - t0, OPS };
}
PLACED(struct bench_cycles, ours_traced, ours_traced_loop())

static inline __attribute__((always_inline)) struct bench_cycles ours_instrumented_unsampled_loop(void)
{
	lockstat_params.AcquireSampleRate = 1000000000; /* timed, almost never written */
	perfinfo_group_set(&trace_groups, PERF_SPINLOCK);
	uint64_t t0 = __rdtsc();
	for (int i = 0; i < OPS; i++) {
		ke_acquire_spin_lock_at_dpc_level(&our_lock);
		__asm__ volatile("" ::: "memory");
		ke_release_spin_lock_from_dpc_level(&our_lock);
	}
	uint64_t t1 = __rdtsc();
	memset(&trace_groups, 0, sizeof(trace_groups));
	lockstat_params.AcquireSampleRate = 1;
	return (struct bench_cycles){ t1 - t0, OPS };
}
PLACED(struct bench_cycles, ours_instrumented_unsampled, ours_instrumented_unsampled_loop())

/* The floors: ck_spinlock_fas with the time reads a record needs
 * (AcquireTime at the first test, ReleaseTime before the release), kept
 * where the lock code keeps them (the CPU's stack entry), and for the
 * traced one the record of 72 bytes written in place in a ring, stamped
 * with its ReleaseTime. */
static struct {
	uint64_t acquire, release;
} floor_hold;
struct floor_record {
	PERFINFO_TRACE_HEADER h;
	WMI_SPINLOCK p;
};
static uint8_t floor_ring[OPS * sizeof(struct floor_record)] __attribute__((aligned(64)));

/* The lock taken and released with its two time reads. */
static inline __attribute__((always_inline)) void floor_hold_once(void)
{
	ck_spinlock_fas_lock(&fas);
	floor_hold.acquire = __rdtsc();
	__asm__ volatile("" ::: "memory");
	floor_hold.release = __rdtsc();
	ck_spinlock_fas_unlock(&fas);
}

static inline __attribute__((always_inline)) struct bench_cycles floor_timed_loop(void)
{
	uint64_t t0 = __rdtsc();
	for (int i = 0; i < OPS; i++) {
		floor_hold_once();
	}
	return (struct bench_cycles){ __rdtsc() - t0, OPS };
}
PLACED(struct bench_cycles, floor_timed, floor_timed_loop())

static inline __attribute__((always_inline)) struct bench_cycles floor_traced_loop(void)
{
	size_t off = 0;
	uint64_t t0 = __rdtsc();
	for (int i = 0; i < OPS; i++) {
		floor_hold_once();
		struct floor_record *w = (struct floor_record *)(floor_ring + off); /* written in place */
		/* field by field: a compound literal assigned to the packed
		 * record is a rep stos and then the fields (docs/testing.md) */
		w->h = (PERFINFO_TRACE_HEADER){ .TimeStamp = floor_hold.release, .Size = sizeof(*w),
						.HookId = PERFINFO_LOG_TYPE_SPINLOCK };
		w->p.SpinLockAddress = (uint64_t)(uintptr_t)&fas;
		w->p.CallerAddress = 0xffffffff80212345ULL; /* a return address */
		w->p.AcquireTime = floor_hold.acquire;
		w->p.ReleaseTime = floor_hold.release;
		w->p.WaitTimeInCycles = 0;
		w->p.SpinCount = 0;
		w->p.ThreadId = thread0.ThreadId;
		w->p.InterruptCount = 0;
		w->p.Irql = DISPATCH_LEVEL;
		w->p.AcquireDepth = 1;
		w->p.Flags = 0;
		memset(w->p.Reserved, 0, sizeof(w->p.Reserved));
		__asm__ volatile("" ::: "memory");
		off += sizeof(*w);
	}
	return (struct bench_cycles){ __rdtsc() - t0, OPS };
}
PLACED(struct bench_cycles, floor_traced, floor_traced_loop())

/* ---------------------------------------------------------------- hand-off */

/* Where a hand-off's lines live.  The ratio of the two locks depends on
 * the physical pages under them: one process's lines gave 0.84 round after
 * round, another's 1.16 (a scratch copy that moved the same lines through
 * eight sets of pages in one process), so a program run with one set of
 * pages measured its pages more than the locks (0.81 to 1.01 from run to
 * run).  Each round's hand-offs move through PLACES sets of fresh pages,
 * the same sets for ours and ck's, every round other ones: a run's
 * medians are over ROUNDS x PLACES placements.  In a placement the lock,
 * the two queue entries and the control words (the start, what the holder
 * writes: last, what it reads while it waits: done) are each on a page
 * of their own; the lock word and each entry are the same line for ours
 * and ck's (their words are both a tail pointer, free at 0). */
#define PLACES 8
#define PAGE 4096

union ho_lock {
	KSPIN_LOCK ours;
	struct ck_spinlock_mcs *ck;
};
union ho_node {
	KLOCK_QUEUE_HANDLE ours;
	struct ck_spinlock_mcs ck;
};
struct ho_control {
	volatile int go, ready;
	volatile int last __attribute__((aligned(128)));
	volatile int done[2] __attribute__((aligned(128)));
	uint64_t handoffs[2];
	int use_ck;
};
enum { HO_LOCK, HO_NODE0, HO_NODE1, HO_CONTROL, HO_PAGES };

static uint8_t *ho_pages;           /* ROUNDS x PLACES placements of HO_PAGES pages */
static int ho_round;                /* the round being measured                    */
static union ho_lock *ho_lock;      /* the placement being measured                */
static union ho_node *ho_node[2];
static struct ho_control *ho;

static void ho_place(int n)
{
	uint8_t *b = ho_pages + (size_t)n * HO_PAGES * PAGE;

	memset(b, 0, HO_PAGES * PAGE);
	ho_lock = (union ho_lock *)(b + HO_LOCK * PAGE);
	ho_node[0] = (union ho_node *)(b + HO_NODE0 * PAGE);
	ho_node[1] = (union ho_node *)(b + HO_NODE1 * PAGE);
	ho = (struct ho_control *)(b + HO_CONTROL * PAGE);
}

static void handoff_loop(int me)
{
	KLOCK_QUEUE_HANDLE *h = &ho_node[me]->ours;
	struct ck_spinlock_mcs *node = &ho_node[me]->ck;
	uint64_t n = 0;
	for (int i = 0; i < HANDOFFS; i++) {
		if (ho->use_ck)
			ck_spinlock_mcs_lock(&ho_lock->ck, node);
		else
			ke_acquire_in_stack_queued_spin_lock_at_dpc_level(&ho_lock->ours, h);
		if (ho->last != me) {
			n++;
			ho->last = me;
		}
		/* Held until the other waits behind (its entry the queue's
		 * tail), unless it is done: every acquisition a hand-off. */
		if (ho->use_ck)
			while (__atomic_load_n(&ho_lock->ck, __ATOMIC_ACQUIRE) == node && !ho->done[!me])
				spin_pause();
		else
			while (__atomic_load_n(&ho_lock->ours, __ATOMIC_ACQUIRE) == (uintptr_t)&h->LockQueue && !ho->done[!me])
				spin_pause();
		if (ho->use_ck)
			ck_spinlock_mcs_unlock(&ho_lock->ck, node);
		else
			ke_release_in_stack_queued_spin_lock_from_dpc_level(h);
	}
	ho->handoffs[me] = n;
	ho->done[me] = 1;
}

static void *handoff_peer(void *arg)
{
	pin(1);
	become_cpu(1);
	__atomic_fetch_add(&ho->ready, 1, __ATOMIC_ACQ_REL);
	while (!ho->go)
		spin_pause();
	handoff_loop(1);
	return NULL;
}

/* Cycles per hand-off over the round's placements. */
static struct bench_cycles handoff(int use_ck)
{
	uint64_t cycles = 0, n = 0;

	for (int k = 0; k < PLACES; k++) {
		pthread_t peer;
		ho_place(ho_round * PLACES + k);
		ho->use_ck = use_ck;
		ho->last = -1;
		pthread_create(&peer, NULL, handoff_peer, NULL);
		while (!ho->ready)
			spin_pause();
		uint64_t t0 = __rdtsc();
		ho->go = 1;
		handoff_loop(0);
		pthread_join(peer, NULL);
		cycles += __rdtsc() - t0;
		n += ho->handoffs[0] + ho->handoffs[1];
	}
	return (struct bench_cycles){ cycles, n };
}

/* ---------------------------------------------------------------- main */

#pragma GCC pop_options

struct pair {
	const char *name;
	struct bench_cycles (*ours[CODE_PLACES])(void); /* at each place of its code */
	struct bench_cycles (*theirs[CODE_PLACES])(void);
	const char *baseline;
	double goal;
};

static struct bench_cycles ours_handoff(void)
{
	return handoff(0);
}

static struct bench_cycles ck_handoff(void)
{
	return handoff(1);
}

int main(void)
{
	shadow_relax_yields = false; /* two threads on two cores: spin like hardware */
	int cpu = bench_pin(0);
	for (int i = 0; i < 2; i++) {
		prcbs[i].Self = &prcbs[i];
		prcbs[i].Number = (uint32_t)i;
		rings[i] = aligned_alloc(64, (size_t)NSUB << SUBBUF_SHIFT);
		tracebuf_init(&tcs[i], (uint32_t)i, rings[i], subs[i], SUBBUF_SHIFT, NSUB);
		prcbs[i].TraceCpu = &tcs[i];
		prcbs[i].CurrentThread = &thread0;
		KiProcessorBlock[i] = &prcbs[i];
	}
	become_cpu(0);
	ho_pages = mmap(NULL, (size_t)ROUNDS * PLACES * HO_PAGES * PAGE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (ho_pages == MAP_FAILED) {
		perror("bench locks: mmap");
		return 1;
	}
	/* Every traced acquisition written: below the kernel call's minimums on purpose. */
	lockstat_params = (struct spinlock_params){ 1, 1, 1, 0 };

	const struct pair pairs[] = {
		{ "ordinary spin lock, uncontended, tracing off", PLACES_OF(ours_ordinary), PLACES_OF(ck_fas),
		  "ck_spinlock_fas", 1.6 },
		{ "queued spin lock, uncontended, tracing off", PLACES_OF(ours_queued), PLACES_OF(ck_mcs),
		  "ck_spinlock_mcs", 1.0 },
		/* one place: the hand-off's time is the lines', not the code's */
		{ "queued spin lock, hand-off between two threads", { ours_handoff }, { ck_handoff }, "ck_spinlock_mcs",
		  1.25 },
		{ "ordinary spin lock, traced (every acquisition recorded)", PLACES_OF(ours_traced),
		  PLACES_OF(floor_traced), "floor: ck_spinlock_fas + 2 time reads + the 72-byte record", 1.15 },
		{ "ordinary spin lock, timed but not recorded (tracing on)", PLACES_OF(ours_instrumented_unsampled),
		  PLACES_OF(floor_timed), "floor: ck_spinlock_fas + 2 time reads", 1.15 },
		{ "ordinary spin lock, traced, against ck_spinlock_fas alone", PLACES_OF(ours_traced), PLACES_OF(ck_fas),
		  "ck_spinlock_fas", 0 },
	};
	double tsc[ROUNDS];
	for (int r = 0; r < ROUNDS; r++)
		tsc[r] = bench_tsc_read_cost();
	printf("bench locks (CPU %d, %d interleaved rounds, medians): one time read (rdtsc) %.1f cycles\n", cpu,
	       ROUNDS, bench_median(tsc, ROUNDS));
	/* Every pair in every round, in an order that turns round by round,
	 * ours and the floor alternating which goes first, at each place of
	 * their code (bench_places.h), each the fastest of BLOCKS blocks (the
	 * one the host's other work disturbed least; the hand-off, a thread
	 * started each time, once), and a round's figure the mean over the
	 * places: a slow spell of the host falls on a few rounds of every
	 * pair, and the medians of the rounds pass over it. */
	enum { PAIRS = sizeof(pairs) / sizeof(pairs[0]) };
	static double a[PAIRS][ROUNDS], b[PAIRS][ROUNDS];
	for (int r = 0; r < ROUNDS; r++)
		for (int k = 0; k < PAIRS; k++) {
			int p = (r + k) % PAIRS, places = pairs[p].ours[1] ? CODE_PLACES : 1;
			int blocks = places > 1 ? BLOCKS : 1;
			double best[2][CODE_PLACES];
			for (int q = 0; q < places; q++)
				best[0][q] = best[1][q] = 1e12;
			ho_round = r;
			for (int n = 0; n < blocks; n++)
				for (int j = 0; j < places; j++)
					for (int side = 0; side < 2; side++) {
						int q = (r + n + j) % places;
						bool theirs = ((r + n + j) & 1) != side;
						struct bench_cycles x = theirs ? pairs[p].theirs[q]() : pairs[p].ours[q]();
						double c = x.ops ? (double)x.cycles / x.ops : 0;
						if (c < best[theirs][q])
							best[theirs][q] = c;
					}
			a[p][r] = b[p][r] = 0;
			for (int q = 0; q < places; q++) {
				a[p][r] += best[0][q] / places;
				b[p][r] += best[1][q] / places;
			}
		}
	for (int p = 0; p < PAIRS; p++) {
		struct bench_ratio q = bench_ratio_of(a[p], b[p], ROUNDS);
		printf("bench locks: %s: ours %.1f cycles, %s %.1f: ", pairs[p].name, q.ours, pairs[p].baseline,
		       q.floor);
		bench_print_ratio(&q, pairs[p].goal);
	}
	return 0;
}
