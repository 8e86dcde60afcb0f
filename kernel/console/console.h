/*
 * console.h - kernel text output to every registered sink (serial port,
 * framebuffer).  Lines from different CPUs do not interleave: one call of
 * kprintf() is written under the console lock.
 */
#ifndef KPROF_KERNEL_CONSOLE_H
#define KPROF_KERNEL_CONSOLE_H

#include <stdarg.h>
#include <stddef.h>

struct console_sink {
	const char *name;                                         /* "serial", "fb"       */
	void (*write)(struct console_sink *, const char *, size_t); /* text, '\n' line ends */
	struct console_sink *next;                                /* registration list    */
};

void console_register(struct console_sink *sink);
/* Register, first writing the recent text (up to 16 KiB) the sink missed:
 * for a console found late, e.g. the UART the ACPI SPCR table names. */
void console_register_replay(struct console_sink *sink);
void console_unregister(struct console_sink *sink);
void console_write(const char *s, size_t n);

/* The longest text one kprintf() writes whole (bytes, its '\n' included):
 * longer text is cut and ends in "...\n".  Messages that may be longer
 * are split into lines below it (e.g. kernel/init/cmdline_report.c). */
#define KPRINTF_MAX 511

void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kvprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* The console lock: sinks and their settings change only under it.  Held
 * at DISPATCH_LEVEL with interrupts enabled; callers run at or below
 * DISPATCH_LEVEL; returns a token for unlock. */
unsigned long console_lock(void);
void console_unlock(unsigned long token);

/* Exclusive use of the raw output for a sequence of writes that must not
 * be split (a binary frame), without holding the lock: the caller stays
 * at its IRQL (PASSIVE_LEVEL in the trace logger) and may be preempted.
 * Console text written meanwhile is kept (16 KiB; beyond that it is
 * counted as lost and the count printed) and written after the release.
 * Any IRQL up to DISPATCH_LEVEL; one claimant at a time, others spin. */
void console_claim_output(void);
void console_release_output(void);

/* From now on only the calling CPU prints, without taking the lock: the
 * lock may be held by a CPU that will never release it. */
void console_enter_panic(void);

#endif /* KPROF_KERNEL_CONSOLE_H */
