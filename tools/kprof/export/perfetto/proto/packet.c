/*
 * packet.c - a TracePacket's start and end on a track's sequence
 * (proto.h): its timestamp the nanoseconds since the packet before on the
 * sequence (clock 64, incremental).  Packets are gathered in w->out and
 * written out a megabyte at a time.  The descriptors (tracks.c) and the
 * events (write.c) both open and close packets here, so neither calls the
 * other.
 */
#include <stdio.h>

#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/export/perfetto/proto/schema.h"

#define FLUSH_AT (1u << 20)

size_t pb_packet_open(struct pb_writer *w, uint32_t track, uint64_t ts)
{
	size_t start = pb_open(&w->out);

	pb_uint(&w->out, PACKET_TIMESTAMP, ts - w->last[track]);
	pb_uint(&w->out, PACKET_SEQUENCE_ID, track);
	w->last[track] = ts;
	return start;
}

void pb_packet_close(struct pb_writer *w, size_t start)
{
	pb_close(&w->out, TRACE_PACKET, start);
	if (w->out.n >= FLUSH_AT) {
		fwrite(w->out.d, 1, w->out.n, w->pf.f);
		w->out.n = 0;
	}
}
