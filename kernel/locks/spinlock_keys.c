/*
 * spinlock_keys.c - spinlock.*= (spinlock_keys.h), order 100 among every
 * subsystem's tables (docs/cmdline.md).  The minimums are a rule
 * (cmdline_rules.c), so that the four values are refused together, as
 * NtSetSystemInformation refuses them.
 */
#include "kernel/locks/spinlock_keys.h"

#include "kernel/lib/cmdline_key.h"
#include "kernel/lib/libk.h"
#include "kernel/locks/spinlock_params.h"

#include <stddef.h>

static struct spinlock_config parsed_config;
const struct spinlock_config *const spinlock_config = &parsed_config;

static const struct spinlock_config defaults = {
	.spin_threshold = SPINLOCK_MIN_SPIN_THRESHOLD,
	.acquire_sample_rate = SPINLOCK_MIN_ACQUIRE_SAMPLE_RATE,
	.contention_sample_rate = SPINLOCK_MIN_CONTENTION_SAMPLE_RATE,
	.hold_threshold = SPINLOCK_MIN_HOLD_THRESHOLD,
};

#define FIELD(f) .offset = offsetof(struct spinlock_config, f)

static const struct cmdline_key keys[] = {
	{ .name = "spinlock.spin_threshold", .type = CMDLINE_UINT, FIELD(spin_threshold),
	  .min = SPINLOCK_MIN_SPIN_THRESHOLD, .max = UINT32_MAX, .min_in_rule = true, .used_by = "trace=spinlock",
	  .help = "spins from which an acquisition counts as contended (NtSetSystemInformation)" },
	{ .name = "spinlock.acquire_sample_rate", .type = CMDLINE_UINT, FIELD(acquire_sample_rate),
	  .min = SPINLOCK_MIN_ACQUIRE_SAMPLE_RATE, .max = UINT32_MAX, .min_in_rule = true, .used_by = "trace=spinlock",
	  .help = "one uncontended acquisition in N is traced (NtSetSystemInformation)" },
	{ .name = "spinlock.contention_sample_rate", .type = CMDLINE_UINT, FIELD(contention_sample_rate),
	  .min = SPINLOCK_MIN_CONTENTION_SAMPLE_RATE, .max = UINT32_MAX, .min_in_rule = true,
	  .used_by = "trace=spinlock", .help = "one contended acquisition in N is traced (NtSetSystemInformation)" },
	{ .name = "spinlock.hold_threshold", .type = CMDLINE_UINT, FIELD(hold_threshold),
	  .min = SPINLOCK_MIN_HOLD_THRESHOLD, .max = UINT32_MAX, .or_zero = true, .min_in_rule = true,
	  .used_by = "trace=spinlock",
	  .help = "holds of at least N cycles are always traced; 0: off (NtSetSystemInformation)" },
};

CMDLINE_TABLE(spinlock_table, .keys = keys, .count = ARRAY_SIZE(keys), .config = &parsed_config,
	      .defaults = &defaults, .size = sizeof(parsed_config), .owner = "locks", .order = 100);
