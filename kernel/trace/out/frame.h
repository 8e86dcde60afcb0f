/*
 * frame.h - building wire frames (include/kprof/wire.h).
 */
#ifndef KPROF_KERNEL_TRACE_FRAME_H
#define KPROF_KERNEL_TRACE_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "include/kprof/wire.h"

/* Fill the header for a payload given in up to two parts (header struct
 * and data), computing both CRCs.  Pure: the host uses it to make logs. */
void frame_header_build(struct kprof_frame_header *h, uint8_t type, uint16_t cpu, uint32_t seq, const void *part1,
			uint32_t len1, const void *part2, uint32_t len2);

#endif
