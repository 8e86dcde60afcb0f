/*
 * console.c - the kernel console: formatted text to every sink.
 *
 * Invariant: sinks are written only with the console lock held, or by the
 * one CPU that entered panic mode (console_enter_panic), after which no
 * other CPU writes again.  kprintf() formats into a bounded buffer on the
 * stack first, so the lock is held only for the output itself.
 *
 * The console lock is held at DISPATCH_LEVEL with interrupts enabled, so
 * interrupts (the clock, IPIs) never wait for a line of text.  Code above
 * DISPATCH_LEVEL (an interrupt handler) cannot wait for the lock: it takes
 * it only if it is free, and otherwise leaves its text in the deferred
 * buffer, which every holder writes out before it releases the lock.
 *
 * A binary trace frame can take seconds on a real 115200-baud port, far
 * too long to hold anything at DISPATCH_LEVEL.  So a frame sender claims
 * the output instead (console_claim_output) and writes at its own IRQL,
 * normally PASSIVE_LEVEL in the trace logger thread, preemptible and with
 * DPCs running.  While the output is claimed, text from everyone else goes
 * to the deferred buffer and comes out after the frame; no text lands
 * inside a frame.  Lock order: console lock, then the deferred lock.
 */
#include "kernel/console/console.h"

#include "kernel/ke/irql.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"
#include "kernel/ke/rawlock.h"

#include <stdbool.h>

#include <arch/barrier.h>

#define KPRINTF_BUF (KPRINTF_MAX + 1) /* longer messages are cut, marked with "..." */
#define CONSOLE_BACKLOG 16384    /* the most recent text, for late sinks */

static struct console_sink *console_sinks; /* registration order */
static char backlog[CONSOLE_BACKLOG];      /* ring of everything written */
static uint64_t backlog_total;             /* bytes ever written          */
/* Held at DISPATCH, interrupts on; never spun for while holding another raw
 * lock (docs/locking.md), only tried from above DISPATCH_LEVEL. */
static raw_lock_t console_raw_lock = RAW_LOCK_INIT;
static volatile bool console_panicking;    /* set once, never cleared */

static volatile bool output_claimed;       /* a frame is being sent; under the lock */

#define CONSOLE_DEFERRED 16384
static struct {
	char buf[CONSOLE_DEFERRED];  /* text from above DISPATCH_LEVEL or during a frame */
	uint32_t len;
	uint32_t dropped;            /* bytes that did not fit         */
	raw_lock_t lock;             /* interrupts off, short; a leaf  */
} deferred;

#define CONSOLE_TOKEN_PANIC (1UL << 63) /* console_lock() in panic mode */

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
		return arch_irq_save() | CONSOLE_TOKEN_PANIC;
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	raw_lock_spin(&console_raw_lock);
	return old;
}

static void console_emit(const char *s, size_t n);

/* With the console lock held: write out what interrupts left behind. */
static void drain_deferred(void)
{
	static char buf[CONSOLE_DEFERRED]; /* under the console lock: too big for a stack */
	uint32_t len, dropped;
	unsigned long flags = raw_lock_irqsave(&deferred.lock);

	len = deferred.len;
	dropped = deferred.dropped;
	memcpy(buf, deferred.buf, len);
	deferred.len = deferred.dropped = 0;
	raw_unlock_irqrestore(&deferred.lock, flags);
	if (len)
		console_emit(buf, len);
	if (dropped) {
		char note[64];
		int n = ksnprintf(note, sizeof(note), "[%u bytes of console text lost]\n", dropped);
		console_emit(note, (size_t)n);
	}
}

void console_unlock(unsigned long token)
{
	if (token & CONSOLE_TOKEN_PANIC) {
		arch_irq_restore(token & ~CONSOLE_TOKEN_PANIC);
		return;
	}
	if (!output_claimed)
		drain_deferred();
	raw_unlock(&console_raw_lock);
	ke_lower_irql((KIRQL)token);
}

void console_claim_output(void)
{
	if (console_panicking)
		return; /* the panicking CPU owns everything */
	for (;;) {
		unsigned long token = console_lock();
		bool mine = !output_claimed;
		output_claimed = true;
		console_unlock(token);
		if (mine)
			return;
		arch_cpu_relax(); /* trace.c has one sender at a time; a second waits here */
	}
}

void console_release_output(void)
{
	if (console_panicking)
		return;
	unsigned long token = console_lock();
	output_claimed = false;
	console_unlock(token); /* writes out the text that waited */
}

static void console_emit(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		backlog[(backlog_total + i) % CONSOLE_BACKLOG] = s[i];
	backlog_total += n;
	for (struct console_sink *c = console_sinks; c; c = c->next)
		c->write(c, s, n);
}

static void defer(const char *s, size_t n)
{
	unsigned long flags = raw_lock_irqsave(&deferred.lock);
	size_t room = CONSOLE_DEFERRED - deferred.len, take = MIN(n, room);
	memcpy(deferred.buf + deferred.len, s, take);
	deferred.len += (uint32_t)take;
	deferred.dropped += (uint32_t)(n - take);
	raw_unlock_irqrestore(&deferred.lock, flags);
}

static void console_write_clean(const char *s, size_t n);

/*
 * The byte 0xFE starts a trace frame on the serial port (docs/wire-format.md),
 * so text never carries it: text that does (a refused command line echoed
 * back, say) goes out with '?' in its place.
 */
void console_write(const char *s, size_t n)
{
	char clean[128];
	size_t i = 0;

	while (i < n && (uint8_t)s[i] != 0xFE)
		i++;
	if (i == n) {
		console_write_clean(s, n);
		return;
	}
	while (n) {
		size_t take = MIN(n, sizeof(clean));
		for (size_t i = 0; i < take; i++)
			clean[i] = (uint8_t)s[i] == 0xFE ? '?' : s[i];
		console_write_clean(clean, take);
		s += take;
		n -= take;
	}
}

static void console_write_clean(const char *s, size_t n)
{
	if (console_panicking) {
		unsigned long flags = arch_irq_save();
		console_emit(s, n);
		arch_irq_restore(flags);
		return;
	}
	if (ke_get_current_irql() > DISPATCH_LEVEL) {
		/* An interrupt handler: it must not wait for the lock. */
		if (raw_trylock(&console_raw_lock)) {
			if (output_claimed) {
				defer(s, n);
			} else {
				drain_deferred();
				console_emit(s, n);
			}
			raw_unlock(&console_raw_lock);
		} else {
			defer(s, n);
		}
		return;
	}
	unsigned long token = console_lock();
	if (output_claimed)
		defer(s, n);
	else
		console_emit(s, n);
	console_unlock(token);
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
	/* The flag visible to every CPU before this one reads anything more
	 * (the console's lock and claim, on its way to printing without them):
	 * a store, then loads, which only a full barrier orders.  The other
	 * CPUs read the flag before they take the lock. */
	arch_smp_mb();
}
