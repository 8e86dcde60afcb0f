/*
 * progress.c - the progress line (progress.h).
 *
 * Records walked are counted over every walk of the command; a walk covers
 * the log's records once, so the count divided by the log's records gives
 * the pass and the share of it done.  The time left is the current pass's,
 * at the rate measured since the command started.  A phase after the
 * walks (kp_progress_phase) counts its own items from 0.  The first line comes
 * after a second (KPROF_PROGRESS_DELAY_MS sets another delay: the tests
 * use 0), then at most one every half second.
 */
#include "tools/kprof/progress/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define CHECK_EVERY (64u * 1024u)   /* records between looks at the clock */

uint64_t kp_progress_n, kp_progress_next = UINT64_MAX;

static struct {
	const char *what;
	uint64_t records, bytes;
	double t0, last;
	double delay;          /* s before the first line                 */
	bool shown;
	const char *phase;     /* after the walks: kp_progress_phase's     */
	const char *items;
	uint64_t total;
	double phase_t0;
} p;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void kp_progress_start(const char *what, uint64_t records, uint64_t bytes, bool quiet)
{
	kp_progress_n = 0;
	kp_progress_next = UINT64_MAX;
	if (quiet || !records || !isatty(STDERR_FILENO))
		return;
	p.what = what;
	p.records = records;
	p.bytes = bytes;
	p.t0 = p.last = now();
	p.shown = false;
	p.phase = NULL;
	const char *env = getenv("KPROF_PROGRESS_DELAY_MS");
	p.delay = env && *env ? atof(env) / 1000.0 : 1.0;
	kp_progress_next = CHECK_EVERY;
}

void kp_progress_slow(uint64_t log_offset)
{
	double t = now(), elapsed = t - p.t0;

	kp_progress_next = kp_progress_n + CHECK_EVERY;
	if (elapsed < p.delay || (p.shown && t - p.last < 0.5))
		return;
	p.last = t;
	p.shown = true;
	if (p.phase) {
		double rate = (double)kp_progress_n / (t - p.phase_t0 > 0 ? t - p.phase_t0 : 1e-9);
		double left = rate > 0 && p.total > kp_progress_n ? (double)(p.total - kp_progress_n) / rate : 0;
		fprintf(stderr, "\r\033[Kkprof %s: %s: %.1f of %.1f M %s, %.2f M %s/s, %.0f s left", p.what, p.phase,
			(double)kp_progress_n / 1e6, (double)p.total / 1e6, p.items, rate / 1e6, p.items, left);
		fflush(stderr);
		return;
	}
	uint64_t pass = kp_progress_n / p.records + 1, done = kp_progress_n % p.records;
	double rate = (double)kp_progress_n / elapsed;
	double left = rate > 0 ? (double)(p.records - done) / rate : 0;
	fprintf(stderr, "\r\033[Kkprof %s: pass %llu: %.1f of %.1f M records, %.0f of %.0f MB, %.2f M records/s, %.0f s left",
		p.what, (unsigned long long)pass, (double)done / 1e6, (double)p.records / 1e6, (double)log_offset / 1e6,
		(double)p.bytes / 1e6, rate / 1e6, left);
	fflush(stderr);
}

void kp_progress_phase(const char *phase, const char *items, uint64_t total)
{
	if (kp_progress_next == UINT64_MAX)
		return; /* no line */
	p.phase = phase;
	p.items = items;
	p.total = total;
	p.phase_t0 = now();
	p.last = 0; /* the phase's first look shows it */
	kp_progress_n = 0;
	kp_progress_next = CHECK_EVERY;
}

void kp_progress_end(void)
{
	kp_progress_next = UINT64_MAX;
	if (p.shown)
		fprintf(stderr, "\r\033[K");
	p.shown = false;
}
