/*
 * arch/cmdline.h - the architecture's own command-line keys and the struct
 * they fill (x86-64: tsc_source=, where the TSC rate comes from).
 *
 * The generic parser walks arch_cmdline_keys[] together with the kernel's
 * table (kernel/init/cmdline.h: config_parse), so the keys look the same
 * to the user and docs/cmdline.md lists them all; the values land in
 * arch_config, which only arch code reads.  Generic code uses nothing
 * here but the table, its count, arch_config and arch_config_defaults().
 */
#ifndef KPROF_ARCH_CMDLINE_H
#define KPROF_ARCH_CMDLINE_H

#include <stdint.h>

#include "kernel/init/cmdline_key.h"

/* tsc_source=: where the TSC rate comes from (arch/x86_64/time_x86.c). */
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
 * brought up; read-only afterwards. */
extern struct arch_config arch_config;

extern const struct cmdline_key arch_cmdline_keys[];
extern const size_t arch_cmdline_key_count;
/* tsc_source= names, indexed by enum x86_tsc_source (NULL-terminated). */
extern const char *const x86_tsc_source_names[TSC_SOURCE_COUNT + 1];

void arch_config_defaults(struct arch_config *cfg);

#endif /* KPROF_ARCH_CMDLINE_H */
