/*
 * frame.c - the frame header: magic, type, CPU, sequence, length, CRCs.
 */
#include "kernel/trace/out/frame.h"

#include "kernel/lib/codec/crc32.h"

void frame_header_build(struct kprof_frame_header *h, uint8_t type, uint16_t cpu, uint32_t seq, const void *part1,
			uint32_t len1, const void *part2, uint32_t len2)
{
	h->magic = KPROF_FRAME_MAGIC;
	h->version = KPROF_FRAME_VERSION;
	h->type = type;
	h->cpu = cpu;
	h->seq = seq;
	h->length = len1 + len2;
	h->payload_crc = crc32_update(crc32_update(0, part1, len1), part2, len2);
	h->header_crc = crc32_update(0, h, 20);
}
