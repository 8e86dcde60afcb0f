/*
 * noise_keys.h - scenario=noise's command-line keys (noise_keys.c): the
 * struct they fill, read-only through noise_config once the one
 * configuration pass has run.
 */
#ifndef KPROF_KERNEL_NOISE_KEYS_H
#define KPROF_KERNEL_NOISE_KEYS_H

#include <stdint.h>

struct noise_config {
	uint32_t ms;           /* each pass's length, ms                        */
	uint32_t window_ms;    /* one window: interrupts off, then on           */
	uint32_t width_ms;     /* the part of each window with interrupts off   */
	uint32_t threshold_ns; /* a read-to-read step longer than this is a gap */
	uint32_t timer_us;     /* the timer latency pass's period               */
};

extern const struct noise_config *const noise_config;

#endif /* KPROF_KERNEL_NOISE_KEYS_H */
