/*
 * fbcon.c - the framebuffer text console.
 *
 * Draws the built-in PSF font in light grey on black.  There is no
 * scrolling (moving megabytes of pixels per line is slow and the serial
 * port is the real log): when the cursor passes the last row it wraps to
 * the top, and each new line is cleared together with the one after it, so
 * the newest text always sits just above a blank line.
 *
 * Called only through the console sink, i.e. under the console lock.
 */
#include "kernel/console/fbcon.h"

#include <arch/mmu.h>

#include "kernel/console/console.h"
#include "kernel/mm/kva.h"
#include "kernel/lib/printf.h"
#include "kernel/console/psf.h"

extern const uint8_t _binary_font_psf_start[], _binary_font_psf_end[];

#define FBCON_FG 0x00C0C0C0u /* light grey, same in RGBX and BGRX */
#define FBCON_BG 0x00000000u

static struct {
	volatile uint32_t *pixels; /* mapped framebuffer             */
	uint32_t pitch_px;         /* pixels per scan line           */
	uint32_t width, height;    /* visible pixels                 */
	uint32_t cols, rows;       /* text cells                     */
	uint32_t col, row;         /* cursor                         */
	struct psf_font font;
	char desc[96];
} fbcon;

static void fbcon_clear_row(uint32_t row)
{
	uint32_t y0 = row * fbcon.font.height;
	for (uint32_t y = y0; y < y0 + fbcon.font.height && y < fbcon.height; y++)
		for (uint32_t x = 0; x < fbcon.width; x++)
			fbcon.pixels[y * fbcon.pitch_px + x] = FBCON_BG;
}

static void fbcon_newline(void)
{
	fbcon.col = 0;
	fbcon.row = (fbcon.row + 1) % fbcon.rows;
	fbcon_clear_row(fbcon.row);
	fbcon_clear_row((fbcon.row + 1) % fbcon.rows);
}

static void fbcon_draw(char c)
{
	const uint8_t *g = psf_glyph(&fbcon.font, c);
	uint32_t x0 = fbcon.col * fbcon.font.width, y0 = fbcon.row * fbcon.font.height;

	for (uint32_t y = 0; y < fbcon.font.height; y++) {
		const uint8_t *bits = g + y * fbcon.font.row_bytes;
		volatile uint32_t *line = fbcon.pixels + (y0 + y) * fbcon.pitch_px + x0;
		for (uint32_t x = 0; x < fbcon.font.width; x++)
			line[x] = (bits[x / 8] & (0x80 >> (x % 8))) ? FBCON_FG : FBCON_BG;
	}
}

static void fbcon_write(struct console_sink *sink, const char *s, size_t n)
{
	(void)sink;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\n') {
			fbcon_newline();
		} else if (c == '\r') {
			fbcon.col = 0;
		} else if (c == '\t') {
			do
				fbcon_draw(' ');
			while (++fbcon.col % 8 && fbcon.col < fbcon.cols);
		} else {
			fbcon_draw(c);
			fbcon.col++;
		}
		if (fbcon.col >= fbcon.cols)
			fbcon_newline();
	}
}

static struct console_sink fbcon_sink = { .name = "fb", .write = fbcon_write };

int fbcon_init(const struct bootinfo_framebuffer *fb)
{
	if (fb->format != BOOTINFO_FB_RGBX && fb->format != BOOTINFO_FB_BGRX)
		return -1;
	if (psf_parse(_binary_font_psf_start, (size_t)(_binary_font_psf_end - _binary_font_psf_start), &fbcon.font))
		return -1;
	if (fb->width < fbcon.font.width || fb->height < 2 * fbcon.font.height || fb->pitch < fb->width * 4)
		return -1;
	fbcon.pixels = kva_map_phys(fb->phys, (size_t)fb->pitch * fb->height, MAP_WRITE | MAP_WC);
	if (!fbcon.pixels)
		return -1;
	fbcon.pitch_px = fb->pitch / 4;
	fbcon.width = fb->width;
	fbcon.height = fb->height;
	fbcon.cols = fb->width / fbcon.font.width;
	fbcon.rows = fb->height / fbcon.font.height;
	for (uint32_t r = 0; r < fbcon.rows; r++)
		fbcon_clear_row(r);
	ksnprintf(fbcon.desc, sizeof(fbcon.desc), "%ux%u %s at 0x%llx, %ux%u font, %ux%u cells", fb->width,
		  fb->height, fb->format == BOOTINFO_FB_RGBX ? "RGBX" : "BGRX", (unsigned long long)fb->phys,
		  fbcon.font.width, fbcon.font.height, fbcon.cols, fbcon.rows);
	console_register(&fbcon_sink);
	return 0;
}

const char *fbcon_describe(void)
{
	return fbcon.pixels ? fbcon.desc : "none";
}
