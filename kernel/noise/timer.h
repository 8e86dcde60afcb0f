/*
 * timer.h - scenario=noise's timer latency pass (timer.c), which the
 * workload (noise.c) runs after its scans.
 */
#ifndef KPROF_KERNEL_NOISE_TIMER_H
#define KPROF_KERNEL_NOISE_TIMER_H

#include <stdint.h>

/* Every CPU's timer every period_us for ms. */
void noise_timer_pass(uint32_t ms, uint32_t period_us);

#endif /* KPROF_KERNEL_NOISE_TIMER_H */
