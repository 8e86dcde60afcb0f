/*
 * usbpath.h - what a UEFI device path says about a USB boot device: the
 * USB(port, interface) hops from the host controller through any hubs,
 * the LUN of a multi-LUN device (a Unit(n) or Scsi(0,n) node, as EDK2 and
 * AMI firmware append one after the USB hops), and the partition (the HD
 * node; none on a "superfloppy", whose whole disk is the FAT volume).
 * Pure C over the path's bytes
 * (UEFI 2.10, 10.3: Type, SubType, 16-bit Length per node), so host unit
 * tests feed it the paths OVMF gives (docs/usb-stick.md).
 *
 * Invariant: a node's Length is checked (>= 4, inside `max` bytes) before
 * the node is read; a malformed path is USBPATH_BAD, never an overrun.
 */
#ifndef KPROF_BOOT_USBPATH_H
#define KPROF_BOOT_USBPATH_H

#include <stddef.h>
#include <stdint.h>

#include "boot/bootinfo.h"

enum usbpath_result {
	USBPATH_USB = 0,      /* PCI controller, USB hops, then a partition */
	USBPATH_NOT_USB = 1,  /* no USB node: some other disk               */
	USBPATH_TOO_DEEP = 2, /* more hops than BOOTINFO_STICK_PATH_MAX      */
	USBPATH_NOT_PCI = 3,  /* the USB hops do not follow a PCI node       */
	USBPATH_OTHER = 4,    /* another node among or after the USB hops
			       * than one LUN node, then HD or the end       */
	USBPATH_BAD_LUN = 5,  /* a Scsi node whose target is not 0, or a LUN
			       * above 15 (Bulk-Only's limit)               */
	USBPATH_BAD = 6,      /* malformed: a node's length is impossible    */
};

struct usbpath {
	uint8_t depth;                          /* USB hops                  */
	uint8_t ports[BOOTINFO_STICK_PATH_MAX]; /* 1-based, root port first  */
	uint8_t lun;              /* Unit(n) / Scsi(0,n); 0 without one     */
	uint32_t usb_offset;      /* bytes before the first USB node         */
	uint32_t hd_offset;       /* bytes before the HD node, or before the
				   * End node when there is none (the disk's
				   * own path is the path cut here)           */
	uint32_t partition_number; /* 0: no HD node (a superfloppy)          */
	uint64_t partition_start; /* HD PartitionStart: the disk's blocks   */
	uint64_t partition_size;  /* HD PartitionSize                        */
	uint32_t mbr_signature;   /* HD Signature's first 4 bytes, type 1    */
	uint8_t signature_type;   /* 2: GPT (partition GUID), 1: MBR, 0: no
				   * HD node                                  */
};

/* Parse the device path at dp (at most max bytes, ending with an End
 * node). */
enum usbpath_result usbpath_parse(const uint8_t *dp, size_t max, struct usbpath *out);

const char *usbpath_result_name(enum usbpath_result r);

#endif /* KPROF_BOOT_USBPATH_H */
