/*
 * noise.h - what the files of scenario=noise share (noise.c, timer.c).
 */
#ifndef KPROF_KERNEL_NOISE_H
#define KPROF_KERNEL_NOISE_H

#include <stdint.h>

/* Write one of the workload's records, with trace=clock or else with the
 * thread names (as the SMI count). */
void noise_log(uint16_t hook, uint8_t version, const void *k, uint16_t size);

/* The timer latency pass (timer.c): every CPU's timer every period_us
 * for ms. */
void noise_timer_pass(uint32_t ms, uint32_t period_us);

#endif /* KPROF_KERNEL_NOISE_H */
