/*
 * recompress.c - a raw kprof log (trace.compress=off) as the kernel would
 * have sent it compressed: every raw chunk frame whose records the delta
 * transform and LZ4 make smaller becomes an encoding-2 chunk (the kernel's
 * own kernel/trace/trace_delta.c and kernel/lib/codec/lz4.c, as
 * kernel/trace/out/chunk.c uses them), with its frame's length and CRCs
 * made anew; every other frame and the console text between frames are
 * copied as they are.
 *
 * The host-tool bench needs a big compressed log (a stick's trace file is
 * one: the stick keeps compressing) and a kernel run writing tens of
 * millions of records takes hours; tests/bench/biglog.py makes a big raw
 * log from a real one and this compresses it.
 *
 * usage: recompress IN.log OUT.log
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/kprof/wire.h"
#include "kernel/lib/codec/crc32.h"
#include "kernel/lib/codec/lz4.h"
#include "kernel/trace/trace_delta.h"

static uint8_t *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (long)(*size = (size_t)ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(2);
	}
	uint8_t *b = malloc(*size ? *size : 1);
	if (!b || fread(b, 1, *size, f) != *size) {
		fprintf(stderr, "recompress: %s: cannot read it\n", path);
		exit(2);
	}
	fclose(f);
	return b;
}

/* A frame at p, whole and with a good header CRC: its payload length. */
static int frame_at(const uint8_t *p, size_t left, struct kprof_frame_header *h)
{
	if (left < sizeof(*h))
		return 0;
	memcpy(h, p, sizeof(*h));
	return h->magic == KPROF_FRAME_MAGIC && crc32_update(0, h, 20) == h->header_crc &&
	       h->length <= KPROF_FRAME_MAX_PAYLOAD && left - sizeof(*h) >= h->length;
}

int main(int argc, char **argv)
{
	static uint8_t delta[KPROF_CHUNK_BYTES], packed[2 * KPROF_CHUNK_BYTES + 64];
	static struct lz4_state st;
	size_t size, pos = 0, frames = 0, packed_n = 0, in_bytes = 0, out_bytes = 0;
	struct kprof_frame_header h;

	if (argc != 3) {
		fprintf(stderr, "usage: recompress IN.log OUT.log\n");
		return 2;
	}
	uint8_t *in = read_all(argv[1], &size);
	FILE *out = fopen(argv[2], "wb");
	if (!out) {
		perror(argv[2]);
		return 2;
	}
	while (pos < size) {
		if (!frame_at(in + pos, size - pos, &h)) {
			fputc(in[pos++], out); /* console text */
			continue;
		}
		const uint8_t *payload = in + pos + sizeof(h);
		struct kprof_chunk_header ch;
		size_t raw = h.length >= sizeof(ch) ? h.length - sizeof(ch) : 0;
		frames++;
		if (h.type == KPROF_FRAME_CHUNK && h.length >= sizeof(ch) && raw <= KPROF_CHUNK_BYTES &&
		    (memcpy(&ch, payload, sizeof(ch)), ch.encoding == KPROF_CHUNK_RAW) && raw) {
			trace_delta_encode_copy(delta, payload + sizeof(ch), raw);
			size_t n = lz4_compress_block(delta, raw, packed, sizeof(packed), &st);
			if (n && n < raw) {
				ch.encoding = KPROF_CHUNK_DELTA2_LZ4;
				ch.raw_bytes = (uint16_t)raw;
				h.length = (uint32_t)(sizeof(ch) + n);
				h.payload_crc = crc32_update(crc32_update(0, &ch, sizeof(ch)), packed, n);
				h.header_crc = crc32_update(0, &h, 20);
				fwrite(&h, sizeof(h), 1, out);
				fwrite(&ch, sizeof(ch), 1, out);
				fwrite(packed, n, 1, out);
				pos += sizeof(h) + sizeof(ch) + raw;
				packed_n++;
				in_bytes += raw;
				out_bytes += n;
				continue;
			}
		}
		fwrite(in + pos, sizeof(h) + h.length, 1, out);
		pos += sizeof(h) + h.length;
	}
	if (fclose(out)) {
		perror(argv[2]);
		return 2;
	}
	fprintf(stderr, "recompress: %zu frames, %zu chunks compressed: %zu -> %zu bytes of records (%.2f)\n", frames,
		packed_n, in_bytes, out_bytes, in_bytes ? (double)out_bytes / (double)in_bytes : 0.0);
	free(in);
	return 0;
}
