/*
 * progress.h - a progress line for long conversions, on a terminal only.
 *
 * A command that walks a big log shows, on stderr when it is a terminal
 * (isatty) and --quiet was not given, one line rewritten in place at most
 * twice a second: the walk over the records (pass 1, 2, ... - building the
 * model is one, writing the output another), records and MB of the log
 * done, the rate, and the time the pass has left.  Nothing is printed in
 * the first second (short runs stay quiet), and never into a file or a
 * pipe: scripts and tests see the same stderr as before.  The line is
 * erased before the summary (kp_progress_end), so what follows is
 * unchanged.
 *
 * Cost: kp_progress_record() is an increment and a compare per record; the
 * clock is read once every 64 Ki records.
 */
#ifndef KPROF_TOOL_PROGRESS_H
#define KPROF_TOOL_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

extern uint64_t kp_progress_n, kp_progress_next;

/* Starts the line for command `what` over a log of `records` records and
 * `bytes` bytes; does nothing (and the ticks stay idle) unless stderr is a
 * terminal and !quiet. */
void kp_progress_start(const char *what, uint64_t records, uint64_t bytes, bool quiet);
/* After the walks over the records, a phase of the command's own over
 * `total` items (the protobuf writer's thread facts, then its events):
 * the line reads "kprof perfetto: writing: 12.3 of 45.0 M events, 3.21 M
 * events/s, 4 s left", and each item is a kp_progress_record() (its
 * log_offset unused).  Nothing when the line is not shown. */
void kp_progress_phase(const char *phase, const char *items, uint64_t total);
/* Erases the line, if shown; later ticks do nothing. */
void kp_progress_end(void);
void kp_progress_slow(uint64_t log_offset);

/* One record walked, at log_offset in the log. */
static inline void kp_progress_record(uint64_t log_offset)
{
	if (++kp_progress_n >= kp_progress_next)
		kp_progress_slow(log_offset);
}

#endif
