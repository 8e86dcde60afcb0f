/*
 * tracebuf_fixture.h - one small trace buffer for the tracebuf tests
 * (test_tracebuf.c, test_tracebuf_loss.c): 4 sub-buffers of 256 bytes,
 * filled with 0xCC before each test, and put_r()/put() to write a record.
 * Included by one test program each (its definitions are static).
 */
#ifndef KPROF_TEST_TRACEBUF_FIXTURE_H
#define KPROF_TEST_TRACEBUF_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kernel/trace/tracebuf.h"

#define SHIFT 8 /* 256-byte sub-buffers */
#define NSUB 4
static uint8_t data[NSUB << SHIFT];
static struct trace_subbuf subs[NSUB];
static struct trace_cpu tc;

static int setup(void **state)
{
	(void)state;
	memset(data, 0xCC, sizeof(data));
	tracebuf_init(&tc, 3, data, subs, SHIFT, NSUB);
	return 0;
}

/* Write one record of `size` bytes whose header says so, tagged `tag`;
 * its reservation in *out when given.  False if dropped. */
static inline bool put_r(uint32_t size, uint16_t tag, struct trace_reservation *out)
{
	struct trace_reservation r;
	if (!tracebuf_reserve(&tc, size, &r))
		return false;
	r.hdr->Marker = PERFINFO_MARKER_64;
	r.hdr->Size = (uint16_t)size;
	r.hdr->HookId = tag;
	tracebuf_commit(&r);
	if (out)
		*out = r;
	return true;
}

static inline bool put(uint32_t size, uint16_t tag)
{
	return put_r(size, tag, NULL);
}

#endif
