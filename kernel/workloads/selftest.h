/*
 * selftest.h - deliberate failures (selftest=...) that prove the fault path.
 */
#ifndef KPROF_KERNEL_SELFTEST_H
#define KPROF_KERNEL_SELFTEST_H

enum kprof_selftest {
	SELFTEST_NONE,     /* no deliberate failure                           */
	SELFTEST_FAULT,    /* page fault on an unmapped address, 3 calls deep  */
	SELFTEST_UD,       /* invalid opcode (ud2)                             */
	SELFTEST_PANIC,    /* bug check MANUALLY_INITIATED_CRASH               */
	SELFTEST_STACK,    /* run off the end of the kernel stack (guard page) */
	SELFTEST_IRQL,     /* lower IRQL to a higher level: bug check          */
	SELFTEST_CHECK,    /* the scenario runs, then its checks are failed    */
	SELFTEST_COUNT
};

#include "kprof/exit_status.h"

/* Run the chosen failure before the scenario; returns only for
 * SELFTEST_NONE and SELFTEST_CHECK (whose failure comes after it). */
void selftest_run(enum kprof_selftest which);

/* The run's status after the scenario: SELFTEST_CHECK turns a success
 * into KPROF_EXIT_FAILURE (a check that failed, said on the console), so
 * that status can be reached on purpose; any other value returns
 * `status` unchanged. */
enum kprof_exit_status selftest_after(enum kprof_selftest which, enum kprof_exit_status status);

#endif
