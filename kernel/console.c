/*
 * console.c - the kernel console: formatted text to every sink.
 *
 * Invariant: sinks are written only with console_lock held, or by the one
 * CPU that entered panic mode (console_enter_panic), after which no other
 * CPU writes again.  kprintf() formats into a bounded buffer on the stack
 * first, so the lock is held only for the output itself.
 */
#include "kernel/console.h"

#include "kernel/libk.h"
#include "kernel/printf.h"
#include "kernel/rawlock.h"

#include <stdbool.h>

#define KPRINTF_BUF 512          /* longer messages are cut, marked with "..." */
#define CONSOLE_BACKLOG 16384    /* the most recent text, for late sinks */

static struct console_sink *console_sinks; /* registration order */
static char backlog[CONSOLE_BACKLOG];      /* ring of everything written */
static uint64_t backlog_total;             /* bytes ever written          */
static raw_lock_t console_raw_lock = RAW_LOCK_INIT;
static volatile bool console_panicking;    /* set once, never cleared */

static void link_sink(struct console_sink *sink)
{
	struct console_sink **pp = &console_sinks;

	while (*pp)
		pp = &(*pp)->next;
	sink->next = 0;
	*pp = sink;
}

void console_register(struct console_sink *sink)
{
	unsigned long flags = console_lock();
	link_sink(sink);
	console_unlock(flags);
}

void console_register_replay(struct console_sink *sink)
{
	unsigned long flags = console_lock();
	uint64_t kept = backlog_total < CONSOLE_BACKLOG ? backlog_total : CONSOLE_BACKLOG;
	size_t start = (size_t)((backlog_total - kept) % CONSOLE_BACKLOG);
	size_t first = MIN((size_t)kept, CONSOLE_BACKLOG - start);

	if (backlog_total > kept) {
		static const char cut[] = "[earlier console output not kept]\n";
		sink->write(sink, cut, sizeof(cut) - 1);
	}
	sink->write(sink, backlog + start, first);
	sink->write(sink, backlog, (size_t)kept - first);
	link_sink(sink);
	console_unlock(flags);
}

void console_unregister(struct console_sink *sink)
{
	unsigned long flags = console_lock();
	for (struct console_sink **pp = &console_sinks; *pp; pp = &(*pp)->next) {
		if (*pp == sink) {
			*pp = sink->next;
			break;
		}
	}
	console_unlock(flags);
}

unsigned long console_lock(void)
{
	if (console_panicking)
		return arch_irq_save();
	return raw_lock_irqsave(&console_raw_lock);
}

void console_unlock(unsigned long flags)
{
	if (console_panicking) {
		arch_irq_restore(flags);
		return;
	}
	raw_unlock_irqrestore(&console_raw_lock, flags);
}

static void console_emit(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		backlog[(backlog_total + i) % CONSOLE_BACKLOG] = s[i];
	backlog_total += n;
	for (struct console_sink *c = console_sinks; c; c = c->next)
		c->write(c, s, n);
}

void console_write(const char *s, size_t n)
{
	unsigned long flags = console_lock();
	console_emit(s, n);
	console_unlock(flags);
}

void kvprintf(const char *fmt, va_list ap)
{
	char buf[KPRINTF_BUF];
	int n = kvsnprintf(buf, sizeof(buf), fmt, ap);

	if (n >= (int)sizeof(buf)) {
		/* Truncated: say so, and keep the line ending. */
		n = sizeof(buf) - 1;
		buf[n - 4] = '.';
		buf[n - 3] = '.';
		buf[n - 2] = '.';
		buf[n - 1] = '\n';
	}
	if (n > 0)
		console_write(buf, (size_t)n);
}

void kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}

void console_enter_panic(void)
{
	console_panicking = true;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
