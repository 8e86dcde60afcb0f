/*
 * psf.h - PC Screen Font (PSF1 and PSF2) glyph lookup for the framebuffer
 * console.  The font is a Debian console font built into the kernel.
 */
#ifndef KPROF_KERNEL_PSF_H
#define KPROF_KERNEL_PSF_H

#include <stddef.h>
#include <stdint.h>

struct psf_font {
	const uint8_t *glyphs;   /* first glyph bitmap                     */
	uint32_t count;          /* glyphs in the font                     */
	uint32_t width, height;  /* pixels                                 */
	uint32_t row_bytes;      /* bytes per bitmap row                   */
	uint32_t glyph_bytes;    /* bytes per glyph                        */
	uint16_t ascii[128];     /* glyph index for each ASCII code        */
};

/* Parse a PSF1 or PSF2 image; 0 on success, -1 if it is not a usable font. */
int psf_parse(const void *data, size_t size, struct psf_font *f);

/* Bitmap of the glyph for ASCII character c ('?' for anything else). */
const uint8_t *psf_glyph(const struct psf_font *f, char c);

#endif
