/*
 * golden_records.c - read the buffer frames of a v1 serial log
 * (docs/wire-format.md sections 2 and 3) into per-CPU record streams.
 * Frames whose CRCs fail are skipped, as a decoder would.
 */
#include "support/golden_records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

static void append(struct golden_stream *s, const uint8_t *recs, size_t used)
{
	size_t off = 0;

	/* Only whole, valid records: stop where a decoder would. */
	while (off + 16 <= used) {
		uint16_t size = rd16(recs + off + 4);
		if ((rd32(recs + off) >> 16) != 0xC011 || size < 16 || off + size > used)
			break;
		s->records++;
		s->record_bytes += size;
		off += (size + 7u) & ~7u;
	}
	/* The last record's padding may be missing from used: zeros. */
	size_t copy = off > used ? used : off;
	s->bytes = realloc(s->bytes, s->len + off);
	memcpy(s->bytes + s->len, recs, copy);
	memset(s->bytes + s->len + copy, 0, off - copy);
	s->len += off;
}

long golden_load(const char *path, struct golden_stream cpu[GOLDEN_MAX_CPUS])
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *d = malloc((size_t)n);
	if (fread(d, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(d);
		return -1;
	}
	fclose(f);

	memset(cpu, 0, sizeof(*cpu) * GOLDEN_MAX_CPUS);
	long records = 0;
	for (long pos = 0; pos + 24 <= n;) {
		const uint8_t *h = d + pos;
		if (rd32(h) != 0x46504BFEu || h[4] != 1 || crc32(0, h, 20) != rd32(h + 20)) {
			pos++;
			continue;
		}
		uint32_t length = rd32(h + 12);
		if ((long)length > n - pos - 24 || crc32(0, h + 24, length) != rd32(h + 16)) {
			pos++;
			continue;
		}
		uint16_t c = rd16(h + 6);
		if (h[5] == 2 && c < GOLDEN_MAX_CPUS && length >= 32) {
			uint32_t used = rd32(h + 24 + 4);
			if (used <= length - 32) {
				size_t before = cpu[c].records;
				append(&cpu[c], h + 24 + 32, used);
				records += (long)(cpu[c].records - before);
			}
		}
		pos += 24 + (long)length;
	}
	free(d);
	return records;
}

void golden_free(struct golden_stream cpu[GOLDEN_MAX_CPUS])
{
	for (int i = 0; i < GOLDEN_MAX_CPUS; i++) {
		free(cpu[i].bytes);
		cpu[i].bytes = NULL;
	}
}

size_t golden_block(const struct golden_stream *s, size_t off, size_t max, size_t *size_sum)
{
	size_t len = 0;

	*size_sum = 0;
	while (off + len + 16 <= s->len) {
		uint16_t size = rd16(s->bytes + off + len + 4);
		size_t padded = (size + 7u) & ~(size_t)7;
		if (len && len + padded > max)
			break;
		*size_sum += size;
		len += padded;
		if (len >= max)
			break;
	}
	if (off + len > s->len)
		len = s->len - off; /* the last record's padding may be absent */
	return len;
}
