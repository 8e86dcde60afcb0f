/*
 * config.h - the typed configuration parsed once from the command line.
 *
 * Every field has a default (cmdline.c: config_defaults) and is set only by
 * cmdline_parse(); the rest of the kernel reads kconfig and never parses
 * text.  README.md lists every key; kernel/cmdline_keys.c is the table.
 */
#ifndef KPROF_KERNEL_CONFIG_H
#define KPROF_KERNEL_CONFIG_H

#include <stdint.h>

#define KPROF_MAX_CPUS 256 /* logical CPUs the kernel is built for */

enum kprof_scenario {
	SCENARIO_BOOT,     /* bring the machine up, print what was found, end */
	SCENARIO_COUNT
};

enum kprof_selftest {
	SELFTEST_NONE,     /* no deliberate failure                           */
	SELFTEST_FAULT,    /* page fault on an unmapped address, 3 calls deep  */
	SELFTEST_UD,       /* invalid opcode (ud2)                             */
	SELFTEST_PANIC,    /* bug check MANUALLY_INITIATED_CRASH               */
	SELFTEST_STACK,    /* run off the end of the kernel stack (guard page) */
	SELFTEST_IRQL,     /* lower IRQL to a higher level: bug check          */
	SELFTEST_COUNT
};

enum kprof_timer_mode {
	TIMER_AUTO,        /* TSC-deadline when the CPU has it, else one-shot */
	TIMER_DEADLINE,
	TIMER_ONESHOT,
	TIMER_PERIODIC,
	TIMER_MODE_COUNT
};

enum kprof_tsc_source {
	TSC_SOURCE_AUTO,   /* CPUID when it states the rate, else HPET, else PM */
	TSC_SOURCE_CPUID,
	TSC_SOURCE_HPET,
	TSC_SOURCE_PMTIMER,
	TSC_SOURCE_COUNT
};

struct kconfig {
	uint32_t scenario;   /* enum kprof_scenario                          */
	uint32_t cpus;       /* CPUs to start; 0 = every enabled CPU         */
	uint32_t selftest;   /* enum kprof_selftest                          */
	uint32_t timer;      /* enum kprof_timer_mode                        */
	uint32_t tick_hz;    /* clock interrupts per second per CPU          */
	uint32_t tsc_source; /* enum kprof_tsc_source                        */
};

extern struct kconfig kconfig;

#endif /* KPROF_KERNEL_CONFIG_H */
