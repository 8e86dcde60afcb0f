/*
 * bootcmdline.c - a loader's command line into struct bootinfo, whole or
 * not at all (bootcmdline.h).  A cut line would run with other values than
 * were written (tick_hz=1000 cut to tick_hz=10), so an overlong one is
 * passed on as refused, never shortened.
 */
#include "boot/common/bootcmdline.h"

/* Bytes counted past the limit before giving up: a line this long is
 * reported as "at least" this (src may not even be terminated). */
#define BOOTCMDLINE_SCAN_MAX (64u * 1024)

uint32_t bootinfo_copy_cmdline(struct bootinfo *bi, const char *src, uint32_t source)
{
	uint32_t n = 0;

	while (src && src[n] && n < BOOTCMDLINE_SCAN_MAX)
		n++;
	bi->cmdline[0] = '\0';
	bi->cmdline_refused = 0;
	if (n > BOOTINFO_CMDLINE_MAX - 1) {
		bi->cmdline_refused = n;
		bi->cmdline_source = source;
		return n;
	}
	for (uint32_t i = 0; i < n; i++)
		bi->cmdline[i] = src[i];
	bi->cmdline[n] = '\0';
	bi->cmdline_source = n ? source : BOOTINFO_CMDLINE_NONE;
	return n;
}
