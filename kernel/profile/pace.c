/*
 * pace.c - the ProfileTime interval a machine can afford (pace.h).
 *
 * A profile interrupt costs about an empty interrupt round trip (the
 * timer's delivery and end of interrupt; its record write is small beside
 * a VM exit), so PROFILE_PACE_SHARE round trips must fit in an interval.
 * The round trip is the caller's measurement (kernel/init/main.c, before
 * the trace starts); on bare metal and under TCG it is one to a few
 * microseconds and the default stands.
 */
#include "kernel/profile/pace.h"

#include "kernel/profile/source.h"

uint32_t ki_profile_paced_interval(uint32_t asked, bool given, uint64_t round_trip_ns)
{
	if (given)
		return asked;
	if (round_trip_ns >= (uint64_t)PROFILE_TIME_MAX_INTERVAL * 100) /* and no overflow below */
		return PROFILE_TIME_MAX_INTERVAL;
	/* 100 ns units: the interval must hold SHARE round trips. */
	uint64_t need = (round_trip_ns * PROFILE_PACE_SHARE + 99) / 100;
	if (need <= asked)
		return asked;
	need = (need + PROFILE_PACE_STEP - 1) / PROFILE_PACE_STEP * PROFILE_PACE_STEP;
	return need > PROFILE_TIME_MAX_INTERVAL ? PROFILE_TIME_MAX_INTERVAL : (uint32_t)need;
}
