/*
 * gap.h - the noise workload's gap detector (gap.c), pure so that the
 * host's unit tests drive it with a model clock.
 *
 * A scan reads a clock in a tight loop from `begin` (a read the caller
 * made, maybe on another CPU: a read below it is no step) until a
 * deadline; whenever two reads in a row are further apart
 * than the threshold, the time between them is a gap: something (an SMI, a hypervisor, the host's scheduler
 * under an emulator) took the CPU away.  The caller runs it with
 * interrupts off, so the kernel itself is never the cause.
 */
#ifndef KPROF_KERNEL_NOISE_GAP_H
#define KPROF_KERNEL_NOISE_GAP_H

#include <stdbool.h>
#include <stdint.h>

#define NOISE_GAPS_MAX 256 /* the longest gaps one scan keeps; the others counted */
/* A step that includes a gap's bookkeeping lengthens that gap only above
 * this many thresholds: below, it is the bookkeeping's own cost (gap.c). */
#define NOISE_BOOKKEEPING_FACTOR 16

struct noise_gap {
	uint64_t start;      /* the clock's last read before the gap          */
	uint64_t cycles;     /* length: the next read minus `start`           */
	uint64_t smi_before; /* SMI count at the scan's start or the previous gap */
	uint64_t smi_after;  /* SMI count read right after this gap           */
	uint16_t overlaps;   /* other CPUs with a gap overlapping this one    */
};

struct noise_scan {
	/* in */
	uint64_t (*now)(void *ctx); /* the clock (cycles)                       */
	uint64_t (*smi)(void *ctx); /* the SMI count, or NULL when not counted  */
	void *ctx;
	uint64_t begin;              /* the first clock read, made by the caller  */
	                             /* (maybe another CPU's)                     */
	uint64_t end;                /* scan until now() >= end                   */
	uint64_t threshold;          /* a gap is a read-to-read step > threshold  */
	/* out */
	uint64_t last;               /* the scan's last clock read (>= end)       */
	uint64_t total, max;         /* cycles in gaps, the longest gap           */
	uint32_t count;              /* gaps found (kept + unkept)                */
	uint32_t kept;               /* gaps in gap[]: the longest, by start      */
	struct noise_gap gap[NOISE_GAPS_MAX];
};

/* Run one scan: fills the outputs of *s (its inputs set beforehand). */
void noise_scan_run(struct noise_scan *s);

/* Do two gaps overlap in time (on one clock)? */
bool noise_gaps_overlap(const struct noise_gap *a, const struct noise_gap *b);

/* Count, for every kept gap of every scan, the other scans with a gap that
 * overlaps it (noise_gap.overlaps): scans[i] is CPU i's.  Each scan's kept
 * gaps in time order, as noise_scan_run leaves them: one sweep a pair. */
void noise_correlate(struct noise_scan *const *scans, uint32_t n);

#endif /* KPROF_KERNEL_NOISE_GAP_H */
