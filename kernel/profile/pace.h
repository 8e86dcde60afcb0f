/*
 * pace.h - the ProfileTime interval a machine can afford: the default
 * (1 ms), or a longer one where an interrupt costs so much that the
 * default's interrupts would take more than a share of every CPU (KVM
 * with software paging: an interrupt round trip of 0.7 ms, so 1000 profile
 * interrupts a second left the virtual CPUs almost nothing, and every
 * workload ran 6 to 25 times its length).  An interval the user gave
 * (profile.interval=) is kept whatever it costs.
 */
#ifndef KPROF_KERNEL_PROFILE_PACE_H
#define KPROF_KERNEL_PROFILE_PACE_H

#include <stdbool.h>
#include <stdint.h>

/* Profile interrupts may take at most 1/PROFILE_PACE_SHARE of a CPU. */
#define PROFILE_PACE_SHARE 10
/* A paced interval is a whole number of these (100 ns units: 100 us). */
#define PROFILE_PACE_STEP 1000u

/* The interval (100 ns units) to use: `asked` when the user gave it
 * (given) or when PROFILE_PACE_SHARE interrupt round trips of
 * round_trip_ns fit in it; else the shortest multiple of
 * PROFILE_PACE_STEP they fit in, at most PROFILE_TIME_MAX_INTERVAL. */
uint32_t ki_profile_paced_interval(uint32_t asked, bool given, uint64_t round_trip_ns);

#endif /* KPROF_KERNEL_PROFILE_PACE_H */
