/*
 * ticketlock_keys.h - the example's keys (ticketlock_keys.c): the struct
 * they fill, read-only through ticketlock_config once the configuration
 * pass has run.
 */
#ifndef EXAMPLE_TICKETLOCK_KEYS_H
#define EXAMPLE_TICKETLOCK_KEYS_H

#include <stdint.h>

#define TICKETLOCK_MAX_THREADS 64

struct ticketlock_config {
	uint32_t ms;       /* each lock's phase, ms                        */
	uint32_t threads;  /* contending threads; 0: one per CPU           */
	uint32_t hold_ns;  /* a hold                                       */
	uint32_t think_ns; /* between acquisitions                         */
};

extern const struct ticketlock_config *const ticketlock_config;

#endif /* EXAMPLE_TICKETLOCK_KEYS_H */
