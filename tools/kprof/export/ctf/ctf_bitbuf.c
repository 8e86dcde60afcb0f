/*
 * ctf_bitbuf.c - the bit buffer `kprof ctf` encodes events into (ctf_shared.h):
 * values appended LSB-first, as a little-endian CTF reader takes them,
 * aligned as the metadata says.  Shared by the table's events
 * (ctf_stream.c) and the LTTng-style ones (ctf_lttng.c).
 */
#include "tools/kprof/export/ctf/ctf_shared.h"

#include <string.h>

#include "tools/kprof/util/alloc.h"

static void bb_reserve(struct bitbuf *b, size_t more_bits)
{
	size_t need = (b->bits + more_bits + 7) / 8;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap * 2 : 256;
	while (cap < need)
		cap *= 2;
	uint8_t *p = kp_xrealloc(b->p, cap, 1);
	memset(p + b->cap, 0, cap - b->cap);
	b->p = p;
	b->cap = cap;
}

void bb_reset(struct bitbuf *b)
{
	if (b->bits)
		memset(b->p, 0, (b->bits + 7) / 8);
	b->bits = 0;
}

void bb_align(struct bitbuf *b, unsigned align)
{
	size_t bits = (b->bits + align - 1) / align * align;
	bb_reserve(b, bits - b->bits);
	b->bits = bits;
}

void bb_put(struct bitbuf *b, uint64_t v, unsigned nbits)
{
	bb_reserve(b, nbits);
	if (nbits < 64)
		v &= (1ull << nbits) - 1;
	while (nbits) {
		unsigned bit = b->bits % 8, n = 8 - bit;
		if (n > nbits)
			n = nbits;
		b->p[b->bits / 8] |= (uint8_t)((v & ((1u << n) - 1)) << bit);
		v >>= n;
		b->bits += n;
		nbits -= n;
	}
}

void bb_bytes(struct bitbuf *b, const uint8_t *p, size_t n)
{
	bb_align(b, 8);
	bb_reserve(b, n * 8);
	memcpy(b->p + b->bits / 8, p, n);
	b->bits += n * 8;
}
