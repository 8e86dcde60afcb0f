/*
 * psf.c - parsing PC Screen Fonts.
 *
 * PSF1: 4-byte header (0x36 0x04, mode, charsize), 256 or 512 glyphs 8 px
 * wide, then, if mode has a table, per glyph a list of UCS-2 code points
 * ending in 0xFFFF.  PSF2: 32-byte header (magic 0x864ab572, version,
 * headersize, flags, length, charsize, height, width), glyphs, then, if
 * flags bit 0, per glyph UTF-8 code points ending in 0xFF.  0xFFFE / 0xFE
 * start combining sequences, which we skip.  Only the ASCII range is mapped.
 */
#include "kernel/console/psf.h"

#include "kernel/lib/bytes.h"

#define PSF1_MAGIC0 0x36
#define PSF1_MAGIC1 0x04
#define PSF1_MODE512 0x01
#define PSF1_MODEHASTAB 0x02
#define PSF1_MODESEQ 0x04
#define PSF2_MAGIC 0x864ab572u
#define PSF2_HAS_UNICODE_TABLE 0x01

static void map_identity(struct psf_font *f)
{
	for (uint32_t c = 0; c < 128; c++)
		f->ascii[c] = (uint16_t)(c < f->count ? c : 0);
}

static void map_code(struct psf_font *f, uint32_t cp, uint32_t glyph, int *mapped)
{
	if (cp < 128 && !mapped[cp]) {
		f->ascii[cp] = (uint16_t)glyph;
		mapped[cp] = 1;
	}
}

static void psf1_table(struct psf_font *f, const uint8_t *p, const uint8_t *end)
{
	int mapped[128] = { 0 };
	for (uint32_t g = 0; g < f->count && p + 2 <= end; g++) {
		int in_seq = 0;
		for (; p + 2 <= end; p += 2) {
			uint16_t u = get_le16(p);
			if (u == 0xFFFF) {
				p += 2;
				break;
			}
			if (u == 0xFFFE)
				in_seq = 1;
			else if (!in_seq)
				map_code(f, u, g, mapped);
		}
	}
}

static void psf2_table(struct psf_font *f, const uint8_t *p, const uint8_t *end)
{
	int mapped[128] = { 0 };
	for (uint32_t g = 0; g < f->count && p < end; g++) {
		int in_seq = 0;
		while (p < end) {
			uint8_t b = *p;
			if (b == 0xFF) {
				p++;
				break;
			}
			if (b == 0xFE) {
				in_seq = 1;
				p++;
				continue;
			}
			/* Decode one UTF-8 sequence; only ASCII matters to us. */
			uint32_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
			if (len == 1 && !in_seq)
				map_code(f, b, g, mapped);
			p += len;
		}
	}
}

int psf_parse(const void *data, size_t size, struct psf_font *f)
{
	const uint8_t *d = data;

	if (size >= 4 && d[0] == PSF1_MAGIC0 && d[1] == PSF1_MAGIC1) {
		f->count = (d[2] & PSF1_MODE512) ? 512 : 256;
		f->width = 8;
		f->height = d[3];
		f->row_bytes = 1;
		f->glyph_bytes = d[3];
		f->glyphs = d + 4;
		if (f->height == 0 || 4 + (size_t)f->count * f->glyph_bytes > size)
			return -1;
		map_identity(f);
		if (d[2] & (PSF1_MODEHASTAB | PSF1_MODESEQ))
			psf1_table(f, f->glyphs + (size_t)f->count * f->glyph_bytes, d + size);
		return 0;
	}
	if (size >= 32 && get_le32(d) == PSF2_MAGIC) {
		uint32_t hdr = get_le32(d + 8), flags = get_le32(d + 12);
		f->count = get_le32(d + 16);
		f->glyph_bytes = get_le32(d + 20);
		f->height = get_le32(d + 24);
		f->width = get_le32(d + 28);
		f->row_bytes = (f->width + 7) / 8;
		f->glyphs = d + hdr;
		if (f->count == 0 || f->width == 0 || f->height == 0 || f->glyph_bytes < f->row_bytes * f->height ||
		    hdr > size || (size - hdr) / f->glyph_bytes < f->count)
			return -1;
		map_identity(f);
		if (flags & PSF2_HAS_UNICODE_TABLE)
			psf2_table(f, f->glyphs + (size_t)f->count * f->glyph_bytes, d + size);
		return 0;
	}
	return -1;
}

const uint8_t *psf_glyph(const struct psf_font *f, char c)
{
	unsigned char u = (unsigned char)c;
	if (u >= 128 || u < 32)
		u = '?';
	return f->glyphs + (size_t)f->ascii[u] * f->glyph_bytes;
}
