/*
 * fake_profile_source.c - kernel/profile/source.h for the unit tests: a
 * table of which sources are supported, which CPUs are at their limit,
 * the uses held per source and CPU, and the intervals (see
 * fake_profile_source.h).
 *
 * Invariant: uses[s][c] is the number of acquires of s naming c minus the
 * releases naming c; a release below zero is counted as an underflow and
 * not applied.  Calls are made one at a time (profile.c's KiProfileMutex).
 * Acquire, release and set_interval yield the host CPU once, as the real
 * ones wait for every CPU: a caller that is not serialised shows up.
 */
#include "support/fake_profile_source.h"

#include <sched.h>
#include <string.h>

#include "include/kprof/wmi.h"

struct fake_source_stats fake_source;

static bool unsupported[ProfileMaximum];
static bool at_limit[ProfileMaximum][KPROF_MAX_CPUS];
static int32_t uses[ProfileMaximum][KPROF_MAX_CPUS];
static uint32_t interval[ProfileMaximum];
static uint64_t seq;

static bool known(int16_t source)
{
	return source >= 0 && source < ProfileMaximum;
}

static uint32_t default_interval(int16_t source)
{
	return source == ProfileTime ? PROFILE_TIME_DEFAULT_INTERVAL : PROFILE_PMC_DEFAULT_INTERVAL;
}

void fake_source_reset(void)
{
	memset(&fake_source, 0, sizeof(fake_source));
	memset(unsupported, 0, sizeof(unsupported));
	memset(at_limit, 0, sizeof(at_limit));
	memset(uses, 0, sizeof(uses));
	for (int16_t s = 0; s < ProfileMaximum; s++)
		interval[s] = default_interval(s);
}

void fake_source_set_supported(int16_t source, bool supported)
{
	if (known(source))
		unsupported[source] = !supported;
}

void fake_source_set_at_limit(int16_t source, uint32_t cpu, bool limit)
{
	if (known(source) && cpu < KPROF_MAX_CPUS)
		at_limit[source][cpu] = limit;
}

int32_t fake_source_uses(int16_t source, uint32_t cpu)
{
	return known(source) && cpu < KPROF_MAX_CPUS ? uses[source][cpu] : 0;
}

int64_t fake_source_total_uses(void)
{
	int64_t n = 0;
	for (int s = 0; s < ProfileMaximum; s++)
		for (uint32_t c = 0; c < KPROF_MAX_CPUS; c++)
			n += uses[s][c];
	return n;
}

uint64_t fake_seq_next(void)
{
	return __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------- source.h */

bool ki_profile_source_supported(int16_t Source)
{
	return known(Source) && !unsupported[Source];
}

const char *ki_profile_source_why_unsupported(int16_t Source)
{
	return known(Source) ? "fake: told so" : "fake: unknown source";
}

static bool any_at_limit(int16_t source, const KAFFINITY_EX *cpus)
{
	for (uint32_t c = affinity_next(cpus, 0); c < KPROF_MAX_CPUS; c = affinity_next(cpus, c + 1))
		if (at_limit[source][c])
			return true;
	return false;
}

NTSTATUS ki_profile_source_acquire(int16_t Source, const KAFFINITY_EX *Cpus)
{
	NTSTATUS st = STATUS_SUCCESS;

	sched_yield();
	fake_source.last_cpus = *Cpus;
	if (!ki_profile_source_supported(Source))
		st = STATUS_NOT_SUPPORTED;
	else if (any_at_limit(Source, Cpus))
		st = STATUS_PROFILING_AT_LIMIT;
	if (!NT_SUCCESS(st)) {
		fake_source.failed_acquires++;
		return st;
	}
	for (uint32_t c = affinity_next(Cpus, 0); c < KPROF_MAX_CPUS; c = affinity_next(Cpus, c + 1))
		uses[Source][c]++;
	fake_source.acquires++;
	fake_source.last_acquire_seq = fake_seq_next();
	return STATUS_SUCCESS;
}

void ki_profile_source_release(int16_t Source, const KAFFINITY_EX *Cpus)
{
	sched_yield();
	fake_source.last_cpus = *Cpus;
	fake_source.releases++;
	fake_source.last_release_seq = fake_seq_next();
	if (!known(Source)) {
		fake_source.underflows++;
		return;
	}
	for (uint32_t c = affinity_next(Cpus, 0); c < KPROF_MAX_CPUS; c = affinity_next(Cpus, c + 1)) {
		if (uses[Source][c] > 0)
			uses[Source][c]--;
		else
			fake_source.underflows++;
	}
}

uint32_t ki_profile_source_interval(int16_t Source)
{
	return known(Source) ? interval[Source] : 0;
}

static bool interval_ok(int16_t source, uint32_t value)
{
	if (source == ProfileTime)
		return value >= PROFILE_TIME_MIN_INTERVAL && value <= PROFILE_TIME_MAX_INTERVAL;
	return value >= PROFILE_PMC_MIN_INTERVAL && value <= FAKE_PMC_MAX_INTERVAL;
}

NTSTATUS ki_profile_source_set_interval(int16_t Source, uint32_t Interval)
{
	sched_yield();
	fake_source.set_intervals++;
	if (!known(Source))
		return STATUS_INVALID_PARAMETER;
	if (unsupported[Source])
		return STATUS_NOT_SUPPORTED;
	if (!interval_ok(Source, Interval))
		return STATUS_INVALID_PARAMETER;
	interval[Source] = Interval;
	return STATUS_SUCCESS;
}
