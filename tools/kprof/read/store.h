/*
 * store.h - where the scanner (log.c) keeps the buffers and chunks of each
 * CPU (store.c): in linear time whatever order they arrive in.
 */
#ifndef KPROF_TOOL_STORE_H
#define KPROF_TOOL_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/kprof/read/log.h"

/* Whether a buffer or chunk of sequence number seq is stored on c. */
bool kp_store_has(const struct kp_cpu *c, uint32_t seq);
/* Keep nb on c; one whose sequence number is stored already is dropped
 * and reported (a run of them is one issue).  late: it came after a
 * higher sequence number (out of order, or seen again). */
void kp_store_add(struct kp_log *log, struct kp_cpu *c, const struct kp_buffer *nb, bool late);
/* Once every frame is in: each CPU's buffers in sequence order, and the
 * gaps that late buffers filled taken back (log->gaps). */
void kp_store_finish(struct kp_log *log);
/* Free what the store holds besides the buffers themselves. */
void kp_store_free(struct kp_cpu *c);

#endif
