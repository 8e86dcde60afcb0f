/*
 * profile_keys.h - the profile's keys (profile.interval=, pmc.sources=,
 * pmc.interval=), applied at boot through NtSetIntervalProfile, and the
 * struct they fill (profile_keys.c); read-only after config_parse()
 * through the const view profile_config.
 */
#ifndef KPROF_KERNEL_PROFILE_KEYS_H
#define KPROF_KERNEL_PROFILE_KEYS_H

#include <stdint.h>

struct profile_config {
	uint32_t interval;     /* ProfileTime interval, 100 ns units         */
	uint32_t pmc_sources;  /* bits (1 << KPROFILE_SOURCE) for trace=pmc  */
	uint32_t pmc_interval; /* events between PMC interrupts              */
	uint32_t interval_given; /* not a key: 1 if profile.interval= was on the
				  * command line (cmdline_rules.c), else the
				  * default, which a slow machine may lengthen
				  * (pace.h) */
};

extern const struct profile_config *const profile_config;

#endif /* KPROF_KERNEL_PROFILE_KEYS_H */
