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
	SELFTEST_COUNT
};

/* Run the chosen failure; returns only for SELFTEST_NONE. */
void selftest_run(enum kprof_selftest which);

#endif
