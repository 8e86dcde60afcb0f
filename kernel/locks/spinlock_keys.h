/*
 * spinlock_keys.h - the spin-lock sampling keys (spinlock.*=), the
 * EVENT_TRACE_SPINLOCK_INFORMATION the kernel applies at boot through
 * nt_set_system_information(), which checks the minimums
 * (spinlock_params.h).  Filled by config_parse() (spinlock_keys.c);
 * read-only afterwards through the const view spinlock_config.
 */
#ifndef KPROF_KERNEL_LOCKS_SPINLOCK_KEYS_H
#define KPROF_KERNEL_LOCKS_SPINLOCK_KEYS_H

#include <stdint.h>

struct spinlock_config {
	uint32_t spin_threshold;
	uint32_t acquire_sample_rate;
	uint32_t contention_sample_rate;
	uint32_t hold_threshold;
};

extern const struct spinlock_config *const spinlock_config;

#endif /* KPROF_KERNEL_LOCKS_SPINLOCK_KEYS_H */
