/*
 * source.h - the profile interrupt sources behind profile objects: which
 * KPROFILE_SOURCE values this machine provides, their intervals, and
 * starting and stopping them on CPUs.
 *
 * ProfileTime is the local interrupt timer, multiplexed with the clock
 * (kernel/profile/profile_timer.c); the others are performance counters
 * (arch/dev/pmu.h).  A source runs on a CPU while its use count there is
 * above zero; profile.c takes one use per CPU of a started object's
 * affinity.
 *
 * Calls at PASSIVE_LEVEL in a thread (they run code on every CPU and wait).
 */
#ifndef KPROF_KERNEL_PROFILE_SOURCE_H
#define KPROF_KERNEL_PROFILE_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/ke/affinity.h"
#include "kernel/ke/ntstatus.h"

/* ProfileTime interval in 100 ns units (as NtSetIntervalProfile). */
#define PROFILE_TIME_MIN_INTERVAL     1221u     /* 122.1 us, Windows' minimum */
#define PROFILE_TIME_DEFAULT_INTERVAL 10000u    /* 1 ms                     */
#define PROFILE_TIME_MAX_INTERVAL     10000000u /* 1 s                      */
#define PROFILE_TIME_UNITS_PER_MS     10000u    /* 100 ns units in 1 ms     */
/* Counter sources: events between interrupts. */
#define PROFILE_PMC_MIN_INTERVAL     1000u
#define PROFILE_PMC_DEFAULT_INTERVAL 1000000u

/* Source < ProfileMaximum and this machine provides it now: ProfileTime
 * unless the timer runs in periodic mode; a counter source when the PMU
 * counts it. */
bool ki_profile_source_supported(int16_t Source);
/* Why not, for messages ("no performance counters: CPUID leaf 0xA reports
 * version 0 ..."), or NULL when it is provided. */
const char *ki_profile_source_why_unsupported(int16_t Source);

/* Take one use of Source on each CPU in Cpus (starting it where it was
 * not running).  All or nothing: on failure no use is taken.
 *   STATUS_NOT_SUPPORTED       not provided here
 *   STATUS_PROFILING_AT_LIMIT  a CPU already counts ARCH_PMU_MAX_SOURCES
 *                              other counter sources (or has no counter
 *                              left that can count this one) */
NTSTATUS ki_profile_source_acquire(int16_t Source, const KAFFINITY_EX *Cpus);
/* Give back what acquire took. */
void ki_profile_source_release(int16_t Source, const KAFFINITY_EX *Cpus);

/* The interval now in force for Source (its default until set). */
uint32_t ki_profile_source_interval(int16_t Source);
/*   STATUS_INVALID_PARAMETER   unknown source, or Interval outside
 *                              [min, max] (ProfileTime: the constants
 *                              above; counters: PROFILE_PMC_MIN_INTERVAL
 *                              to arch_pmu_max_interval())
 *   STATUS_NOT_SUPPORTED       not provided here
 * A rejected interval is not used. */
NTSTATUS ki_profile_source_set_interval(int16_t Source, uint32_t Interval);

/* Boot CPU, once, before other CPUs start and after the clock's mode is
 * chosen: find the performance counters (printing what was found, or why
 * there are none) and connect the profile and counter interrupts. */
void ki_profile_source_init(void);
/* Every CPU as it starts: put its counters in a known (stopped) state. */
void ki_profile_source_start_cpu(void);

#endif /* KPROF_KERNEL_PROFILE_SOURCE_H */
