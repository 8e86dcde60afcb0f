/*
 * bootcmdline.h - copying a loader's command line into struct bootinfo.
 *
 * Pure (no firmware, no hardware), compiled into the host unit tests.  The
 * PVH entry uses it; the UEFI loader has its own text conversion
 * (boot/uefi/cmdline_parse.c) and refuses an overlong line itself.
 */
#ifndef KPROF_BOOT_BOOTCMDLINE_H
#define KPROF_BOOT_BOOTCMDLINE_H

#include "boot/bootinfo.h"

/* Copy the NUL-terminated src (NULL: none) into bi->cmdline and set
 * bi->cmdline_source to `source`, or NONE when empty.  A line longer than
 * BOOTINFO_CMDLINE_MAX - 1 is never cut: cmdline stays empty and
 * bi->cmdline_refused holds its length, for the kernel to refuse the run
 * as the UEFI loader does.  Returns the length of src. */
uint32_t bootinfo_copy_cmdline(struct bootinfo *bi, const char *src, uint32_t source);

#endif /* KPROF_BOOT_BOOTCMDLINE_H */
