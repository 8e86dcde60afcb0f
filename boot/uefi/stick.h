/*
 * stick.h - the loader's look at the USB stick it was started from
 * (stick.c, stick_disk.c): fills bootinfo->stick, or says on the console
 * why the kernel cannot write the trace there.  Never fatal: the run goes
 * on with the trace on the serial port only.
 */
#ifndef KPROF_BOOT_UEFI_STICK_H
#define KPROF_BOOT_UEFI_STICK_H

#include "boot/uefi/ldr.h"
#include "boot/common/diskid.h"
#include "boot/common/usbpath.h"

#define STICK_TRACE_PATH L"\\kprof\\trace.bin"
#define STICK_CLASS_XHCI 0x0C0330u /* serial bus, USB, xHCI */

/* stick_disk.c: each returns a bootinfo_stick_status. */
uint32_t ldr_stick_pci(EFI_DEVICE_PATH *dp, struct bootinfo_stick *s, uint32_t *class_code);
uint32_t ldr_stick_disk(EFI_DEVICE_PATH *dp, const struct usbpath *p, struct bootinfo_stick *s,
			struct disk_identity *id, enum diskid_status *dst);
uint32_t ldr_stick_extents(EFI_HANDLE part, const CHAR16 *path, struct bootinfo_stick *s, uint32_t *runs,
			   const char **why);

#endif /* KPROF_BOOT_UEFI_STICK_H */
