/*
 * noise.h - scenario=noise's records gathered per pass and CPU (noise.c):
 * what the report's Noise section prints and `kprof assert`'s noise and
 * timer rules measure (assert/eval.c), from the same figures.
 */
#ifndef KPROF_TOOL_NOISE_H
#define KPROF_TOOL_NOISE_H

#include <stdbool.h>
#include <stdint.h>

#include "include/kprof/wmi.h"
#include "tools/kprof/read/log.h"

#define KP_NOISE_PASSES 2
#define KP_NOISE_BUCKETS 40 /* log2 of ns: bucket b holds [2^b, 2^(b+1)) */

struct kp_noise_cpu {
	uint64_t gaps, correlated, everyone, total_ns, max_ns, smis; /* kept gaps */
	bool smi_counted, any;
	bool scanned;                 /* its KprofNoiseScan: every gap, kept or not */
	KPROF_NOISE_SCAN scan;
	bool timed;                   /* its KprofTimerLatency (in pass 1's row only) */
	KPROF_TIMER_LATENCY timer;
	uint64_t hist[KP_NOISE_BUCKETS];
};

/* Every CPU's gaps, scans and timer latency into cpus[pass - 1][cpu]
 * (each array made here, log->ncpus long; kp_noise_free gives them
 * back); false if the log has none. */
bool kp_noise_gather(struct kp_log *log, struct kp_noise_cpu *cpus[KP_NOISE_PASSES]);
void kp_noise_free(struct kp_noise_cpu *cpus[KP_NOISE_PASSES]);

/* The next KprofNoiseGap record of a CPU's cursor into *g (its other
 * records skipped); false at the end. */
struct kp_cpu_cursor;
bool kp_noise_next_gap(struct kp_cpu_cursor *c, KPROF_NOISE_GAP *g);

#endif /* KPROF_TOOL_NOISE_H */
