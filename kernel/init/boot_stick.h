/*
 * boot_stick.h - the USB stick the loader found (bootinfo->stick), kept
 * for the trace code after the loader's memory is gone.
 *
 * boot_stick_init() runs once on the boot CPU in kernel_main, before any
 * other CPU or thread starts; afterwards the copy is read-only, so
 * boot_stick() needs no lock.
 */
#ifndef KPROF_KERNEL_BOOT_STICK_H
#define KPROF_KERNEL_BOOT_STICK_H

#include "boot/bootinfo.h"

/* Copy bi->stick and print the boot line "stick: ..." that says what it
 * holds (docs/usb-stick.md). */
void boot_stick_init(const struct bootinfo *bi);

/* The copy; status BOOTINFO_STICK_NONE when not booted from a USB stick
 * (or under PVH).  Never NULL. */
const struct bootinfo_stick *boot_stick(void);

/* "ok", "no trace file", ...: a bootinfo_stick_status in words. */
const char *boot_stick_status_name(uint32_t status);

#endif
