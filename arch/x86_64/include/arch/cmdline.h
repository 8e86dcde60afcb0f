/*
 * arch/cmdline.h - the architecture's own command-line keys and the struct
 * they fill (x86-64: tsc_source=, where the TSC rate comes from).
 *
 * The table is registered like every subsystem's (CMDLINE_TABLE,
 * kernel/lib/cmdline_key.h), last of all, so the generic parser walks it
 * with the kernel's, the keys look the same to the user and
 * docs/cmdline.md lists them all (the table's owner is "arch"); the
 * values land in the struct behind arch_config, a const view that only
 * arch code reads.  Generic code uses nothing here (the unit tests read
 * the view and the enum).
 */
#ifndef KPROF_ARCH_CMDLINE_H
#define KPROF_ARCH_CMDLINE_H

#include <stdint.h>

/* tsc_source=: where the TSC rate comes from (arch/x86_64/time/time_x86.c). */
enum x86_tsc_source {
	TSC_SOURCE_AUTO,    /* CPUID when it states the rate, else HPET, else PM */
	TSC_SOURCE_CPUID,   /* CPUID leaf 0x15 or 0x16                           */
	TSC_SOURCE_HPET,    /* measured against the HPET                         */
	TSC_SOURCE_PMTIMER, /* measured against the ACPI PM timer                */
	TSC_SOURCE_COUNT
};

struct arch_config {
	uint32_t tsc_source; /* enum x86_tsc_source */
};

/* Filled once on the boot CPU by config_parse(), before the platform is
 * brought up; read-only afterwards, through this view. */
extern const struct arch_config *const arch_config;

/* tsc_source= names, indexed by enum x86_tsc_source (NULL-terminated). */
extern const char *const x86_tsc_source_names[TSC_SOURCE_COUNT + 1];

#endif /* KPROF_ARCH_CMDLINE_H */
