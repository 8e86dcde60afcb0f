/*
 * test_psf.c - the console font parser (kernel/console/psf.c): the Debian font the
 * kernel embeds, and a synthetic PSF2 font with a Unicode table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/console/psf.h"

static unsigned char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	unsigned char *buf = malloc(1 << 20);
	*size = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static int glyph_pixels(const struct psf_font *f, char c)
{
	const uint8_t *g = psf_glyph(f, c);
	int n = 0;
	for (uint32_t i = 0; i < f->glyph_bytes; i++)
		n += __builtin_popcount(g[i]);
	return n;
}

static void test_embedded_font(void **state)
{
	(void)state;
	size_t size;
	unsigned char *d = read_file(KPROF_FONT_PSF, &size);
	struct psf_font f;
	assert_int_equal(psf_parse(d, size, &f), 0);
	assert_int_equal(f.width, 8);
	assert_int_equal(f.height, 16);
	/* Printable ASCII has ink, space has none, and letters differ. */
	assert_int_equal(glyph_pixels(&f, ' '), 0);
	for (char c = '!'; c <= '~'; c++)
		assert_true(glyph_pixels(&f, c) > 0);
	assert_memory_not_equal(psf_glyph(&f, 'A'), psf_glyph(&f, 'B'), f.glyph_bytes);
	free(d);
}

static void test_psf2_unicode_table(void **state)
{
	(void)state;
	/* 3 glyphs of 8x2; glyph 2 is mapped to 'A' by the table. */
	unsigned char font[32 + 3 * 2 + 8];
	uint32_t hdr[8] = { 0x864ab572u, 0, 32, 1, 3, 2, 2, 8 };
	memcpy(font, hdr, 32);
	unsigned char glyphs[6] = { 0x00, 0x00, 0xFF, 0x00, 0x81, 0x81 };
	memcpy(font + 32, glyphs, 6);
	unsigned char table[8] = { 0xFF, 'x', 0xFF, 'A', 0xFE, 'B', 0xFF, 0 };
	memcpy(font + 38, table, 8);
	struct psf_font f;
	assert_int_equal(psf_parse(font, sizeof(font), &f), 0);
	assert_ptr_equal(psf_glyph(&f, 'A'), font + 32 + 4);
	assert_ptr_equal(psf_glyph(&f, 'x'), font + 32 + 2);
	/* 'B' only appears in a combining sequence: not mapped (identity -> out of range -> 0). */
	assert_ptr_equal(psf_glyph(&f, 'B'), font + 32);
}

static void test_rejects_garbage(void **state)
{
	(void)state;
	struct psf_font f;
	unsigned char junk[64] = { 1, 2, 3 };
	assert_int_equal(psf_parse(junk, sizeof(junk), &f), -1);
	unsigned char psf1[4] = { 0x36, 0x04, 0, 16 }; /* header but no glyphs */
	assert_int_equal(psf_parse(psf1, sizeof(psf1), &f), -1);
	uint32_t hdr[8] = { 0x864ab572u, 0, 32, 0, 1000, 16, 16, 8 }; /* glyphs missing */
	assert_int_equal(psf_parse(hdr, sizeof(hdr), &f), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_embedded_font),
		cmocka_unit_test(test_psf2_unicode_table),
		cmocka_unit_test(test_rejects_garbage),
	};
	return cmocka_run_group_tests_name("psf", tests, NULL, NULL);
}
