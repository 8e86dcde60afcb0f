/*
 * fake_profile_source.h - a test double for kernel/profile/source.h: what
 * the unit tests can set and see of it (fake_profile_source.c).
 *
 * Every source below ProfileMaximum is supported until told otherwise;
 * acquire and release count uses per source and CPU, all or nothing, as
 * the real layer; intervals are checked against the ranges source.h gives
 * (counters: up to FAKE_PMC_MAX_INTERVAL).  Calls are expected one at a
 * time (profile.c serialises them); the counters are plain, and the calls
 * that wait in the real layer yield, so that overlapping callers show.
 */
#ifndef KPROF_TESTS_FAKE_PROFILE_SOURCE_H
#define KPROF_TESTS_FAKE_PROFILE_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/ke/affinity.h"
#include "kernel/ke/ntstatus.h"
#include "kernel/profile/source.h"

#define FAKE_PMC_MAX_INTERVAL 0x7fffffffu

struct fake_source_stats {
	uint32_t acquires;        /* successful ki_profile_source_acquire  */
	uint32_t failed_acquires; /* refused ones                          */
	uint32_t releases;        /* ki_profile_source_release calls       */
	uint32_t underflows;      /* releases of a use not held (a bug)    */
	uint32_t set_intervals;   /* ki_profile_source_set_interval calls  */
	uint64_t last_acquire_seq, last_release_seq; /* fake_seq_next() at the call */
	KAFFINITY_EX last_cpus;   /* the set of the last acquire/release   */
};
extern struct fake_source_stats fake_source;

/* Back to: everything supported, no limits, no uses, default intervals. */
void fake_source_reset(void);
void fake_source_set_supported(int16_t source, bool supported);
/* While set, an acquire of source naming cpu fails with
 * STATUS_PROFILING_AT_LIMIT (and takes nothing). */
void fake_source_set_at_limit(int16_t source, uint32_t cpu, bool at_limit);
/* Uses of source held on cpu now. */
int32_t fake_source_uses(int16_t source, uint32_t cpu);
/* Uses held on any CPU of any source. */
int64_t fake_source_total_uses(void);
/* A global order for events the tests compare (acquire, release, grace
 * periods): 1, 2, 3, ... */
uint64_t fake_seq_next(void);

#endif
