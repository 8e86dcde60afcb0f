/*
 * profile_timer.h - the ProfileTime source on each CPU (profile_timer.c).
 */
#ifndef KPROF_KERNEL_PROFILE_PROFILE_TIMER_H
#define KPROF_KERNEL_PROFILE_PROFILE_TIMER_H

#include <stdint.h>

/* Boot CPU, once: connect the profile interrupt. */
void ki_profile_timer_init(void);
/* On the calling CPU, at DISPATCH_LEVEL or above: a profile interrupt
 * every period_tsc cycles from now on (a running timer restarts with the
 * new period), or none. */
void ki_profile_timer_start_cpu(uint64_t period_tsc);
void ki_profile_timer_stop_cpu(void);
/* The CPU's next profile deadline (TSC), 0 when its timer is off.  Read
 * on that CPU with interrupts off (kernel/ke/time/clock.c). */
uint64_t ki_profile_timer_due(uint32_t cpu);
/* Profile timer interrupts a CPU took and periods it missed. */
void ki_profile_timer_stats(uint32_t cpu, uint64_t *fired, uint64_t *missed);

/* In a ProfileTime dispatch on this CPU: how many periods this interrupt
 * stands for (1, plus the periods missed just before it), for the
 * SampledProfile record's Count. */
uint32_t ki_profile_timer_weight(void);

#endif
