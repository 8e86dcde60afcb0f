/*
 * ke_keys.h - the keys the kernel core owns (cpus=, timer=, tick_hz=,
 * clock.fault_ppm=, rawlock=) and the struct they fill (ke_keys.c registers the tables).
 *
 * Filled once by config_parse() on the boot CPU before anything reads it;
 * read-only afterwards, through the const view ke_config.
 */
#ifndef KPROF_KERNEL_KE_KEYS_H
#define KPROF_KERNEL_KE_KEYS_H

#include <stdint.h>

enum kprof_timer_mode {
	TIMER_AUTO,        /* TSC-deadline when the CPU has it, else one-shot */
	TIMER_DEADLINE,
	TIMER_ONESHOT,
	TIMER_PERIODIC,
	TIMER_MODE_COUNT
};

/* rawlock=: the discipline of the kernel's own spin locks (rawlock.h). */
enum kprof_rawlock_mode {
	RAWLOCK_AUTO,   /* test-and-set under a hypervisor, else ticket */
	RAWLOCK_TICKET,
	RAWLOCK_TAS,
	RAWLOCK_MODE_COUNT
};

struct ke_config {
	uint32_t cpus;    /* CPUs to start; 0 = every enabled CPU    */
	uint32_t timer;   /* enum kprof_timer_mode                    */
	uint32_t tick_hz; /* clock interrupts per second per CPU      */
	uint32_t rawlock; /* enum kprof_rawlock_mode                  */
	uint32_t clock_fault_ppm; /* the watchdog sees TSCs run this fast */
};

extern const struct ke_config *const ke_config;

#endif /* KPROF_KERNEL_KE_KEYS_H */
