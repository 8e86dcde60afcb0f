/*
 * profile_trace.h - the built-in callback objects behind trace=profile,
 * trace=pmc and trace=stack (profile_trace.c).
 */
#ifndef KPROF_KERNEL_PROFILE_PROFILE_TRACE_H
#define KPROF_KERNEL_PROFILE_PROFILE_TRACE_H

#include <stdbool.h>
#include <stdint.h>

/* After trace_start(), in a thread: start the objects the enabled groups
 * ask for, reporting each source that cannot be provided. */
void ke_profile_trace_start(void);
/* Before trace_finish(): stop and delete them. */
void ke_profile_trace_stop(void);

struct _KPROFILE;
/* A stopped basic profile object's KprofProfileObject record (its range,
 * CPUs, process and buckets), under PERF_PROFILE.  False if not written
 * (group off, not a basic object, or dropped). */
bool ke_profile_trace_object(const struct _KPROFILE *profile);
/* Cycles the last SampledProfile (and StackWalk) write took on this CPU,
 * for the profile-interrupt cost measurement. */
uint64_t ke_profile_trace_last_write_cycles(void);

#endif
