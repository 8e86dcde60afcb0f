/*
 * shadow arch/dev/timer.h - a timer that records what it was asked to do.
 */
#ifndef KPROF_SHADOW_ARCH_TIMER_H
#define KPROF_SHADOW_ARCH_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/interrupt.h>

enum arch_timer_mode { ARCH_TIMER_DEADLINE, ARCH_TIMER_ONESHOT, ARCH_TIMER_PERIODIC };
extern __thread uint64_t shadow_timer_armed;     /* last deadline armed */
extern __thread uint64_t shadow_timer_period;    /* last period started */
extern enum arch_timer_mode shadow_timer_mode;

static inline bool arch_timer_mode_supported(enum arch_timer_mode m) { return m != ARCH_TIMER_DEADLINE; }
static inline const char *arch_timer_mode_name(enum arch_timer_mode m)
{
	return m == ARCH_TIMER_DEADLINE ? "TSC-deadline" : m == ARCH_TIMER_ONESHOT ? "one-shot" : "periodic";
}
static inline void arch_timer_set_mode(enum arch_timer_mode m) { shadow_timer_mode = m; }
static inline enum arch_timer_mode arch_timer_get_mode(void) { return shadow_timer_mode; }
static inline void arch_timer_enable(void) {}
static inline uint64_t arch_timer_calibrate(void) { return 1000000000; }
static inline void arch_timer_arm(uint64_t d) { shadow_timer_armed = d; }
extern __thread enum arch_interrupt shadow_timer_armed_for; /* purpose of the last arm */
static inline void arch_timer_arm_for(uint64_t d, enum arch_interrupt w)
{
	shadow_timer_armed = d;
	shadow_timer_armed_for = w;
}
static inline void arch_timer_start_periodic(uint64_t p) { shadow_timer_period = p; }
static inline void arch_timer_stop(void) {}

#endif
