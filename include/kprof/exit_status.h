/*
 * exit_status.h - how a kprof run ends, shared by the kernel, the UEFI loader
 * and the host scripts that run QEMU (tools/qemu.py keeps the same table).
 *
 * Under QEMU the value is written to the isa-debug-exit device at port 0xf4
 * (-device isa-debug-exit,iobase=0xf4,iosize=0x04), and QEMU's own exit
 * status becomes (value << 1) | 1.  A run that ends any other way (timeout,
 * triple fault with -no-reboot, QEMU error) is a failure.
 */
#ifndef KPROF_EXIT_STATUS_H
#define KPROF_EXIT_STATUS_H

#define KPROF_DEBUG_EXIT_PORT 0xf4

enum kprof_exit_status {
	KPROF_EXIT_SUCCESS = 0x10, /* QEMU status 33: the run did what was asked */
	KPROF_EXIT_FAILURE = 0x11, /* 35: a scenario or self-test check failed   */
	KPROF_EXIT_PANIC = 0x12,   /* 37: exception or bug check                 */
	KPROF_EXIT_CONFIG = 0x13,  /* 39: the command line was rejected          */
	KPROF_EXIT_LOADER = 0x14,  /* 41: a loader could not start the kernel or refused its command line */
	KPROF_EXIT_TRACE_SPLIT = 0x15, /* 43: the run did what was asked, but the stick failed mid-run and
					* serial took over: no output holds the whole trace */
};

#endif /* KPROF_EXIT_STATUS_H */
