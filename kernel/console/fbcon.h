/*
 * fbcon.h - text console on a linear framebuffer (the UEFI GOP's).
 */
#ifndef KPROF_KERNEL_FBCON_H
#define KPROF_KERNEL_FBCON_H

#include "boot/bootinfo.h"

/* Map the framebuffer, load the built-in font and register the console
 * sink.  Returns 0, or -1 (nothing registered) when there is no usable
 * framebuffer. */
int fbcon_init(const struct bootinfo_framebuffer *fb);

/* "1280x800 BGRX, 8x16 font, 160x50 cells" or "none". */
const char *fbcon_describe(void);

#endif
