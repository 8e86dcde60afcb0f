/*
 * arch/dev/rtc.h - the wall clock, read once for the trace's start time.
 */
#ifndef KPROF_ARCH_RTC_H
#define KPROF_ARCH_RTC_H

#include <stdint.h>

/* Seconds since 1970-01-01 UTC from the battery-backed clock, or 0 when
 * there is none or it reads as nonsense. */
uint64_t arch_rtc_unix_time(void);

#endif
