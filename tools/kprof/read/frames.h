/*
 * frames.h - what each valid frame adds to the log being read (frames.c),
 * for the scanner (log.c).
 */
#ifndef KPROF_TOOL_FRAMES_H
#define KPROF_TOOL_FRAMES_H

#include <stdint.h>

#include "tools/kprof/read/log.h"

#define KP_MAX_CPUS 4096 /* frames naming a higher CPU are treated as damaged */

/* A frame whose header and payload CRCs hold, at byte offset. */
void kp_take_frame(struct kp_log *log, const struct kprof_frame_header *h, const uint8_t *payload, uint64_t offset);
/* CPU cpu's entry, cpus[] grown to hold it (cpu < KP_MAX_CPUS). */
struct kp_cpu *kp_cpu_slot(struct kp_log *log, uint32_t cpu);
/* A whole number from the environment variable `name`: dflt when it is
 * not set (or empty); one that is not a whole number from min to max is
 * reported on stderr, naming what is accepted, and dflt used (a caller
 * reads each variable once). */
size_t kp_env_number(const char *name, size_t dflt, size_t min, size_t max);
/* The ring compressed chunks are decoded into, let go. */
void kp_chunk_ring_free(struct kp_log *log);
/* Before the log is read, from its size: a log bigger than the budget
 * keeps no decoded records.  Once it is read: its decoded records kept
 * only if all of them were (a small log); the first ones let go if not. */
void kp_kept_plan(struct kp_log *log, uint64_t log_bytes);
void kp_kept_settle(struct kp_log *log);
/* Frames first..last of a CPU (or KPROF_FRAME_CPU_NONE) missing. */
void kp_gap_add(struct kp_log *log, uint32_t cpu, uint32_t first, uint32_t last, uint64_t offset);

#endif
