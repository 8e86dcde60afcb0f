/*
 * stick.h - the USB stick the kernel booted from, as a block device, and
 * the one file on it the trace may be written to.
 *
 * usb_stick_open() follows the boot device's path (PCI function of the
 * controller, root port, hub ports) from bootinfo (stick_path.c),
 * enumerates each hop (core/usb.c, core/hub.c), binds the Bulk-Only
 * mass-storage interface (bot.c), runs INQUIRY, TEST UNIT READY, READ
 * CAPACITY on the loader's LUN first, and reads the disk's identity back
 * (boot/common/diskid.h: the GPT disk GUID, or the MBR disk signature,
 * the partition's entry and the FAT volume serial) to check that it is
 * the boot disk: nothing is written before that check passes.  When the
 * path cannot be used (no device there, not a mass-storage device, a disk
 * of another identity), it finds the stick by its identity on every xHCI
 * controller, root port and hub instead (stick_scan.c) and says so in one
 * line.
 *
 * stick_file_write() is the only way anything is written: offsets inside
 * the trace file are mapped through its extents to LBAs, and every write
 * is bounds-checked against the extents (never outside the file).
 *
 * Buffers: usb_stick_read(), usb_stick_write() and stick_file_write()
 * hand the caller's buffer to the controller as it is (no bounce copy),
 * so it must be what hci.h asks of a bulk buffer: physically contiguous
 * memory in the direct map, i.e. pages from pmm_alloc_pages() seen
 * through phys_to_virt() (the trace buffers are); never a kernel stack
 * or kva_alloc_guarded()/kva_map_phys() memory, whose pages need not be
 * contiguous.
 *
 * The storage layer (kernel/usb/storage/), the top of the USB stack:
 *  - It offers this header, all that the kernel outside kernel/usb calls
 *    (the trace's stick sink), built on Bulk-Only Transport (bot.h) and
 *    the SCSI commands (scsi.h), which stay inside the layer.
 *  - Below it, it calls the USB core (core/usb.h, core/hub.h), the host
 *    controller through kernel/usb/hci.h only (never xhci/'s own
 *    headers), boot/common/diskid.h and gpt.h, kernel/mm and the console.
 *    Neither layer below includes anything from here
 *    (tools/check-layering.sh).
 *
 * Implementation (kernel/usb/storage/stick_open.c, stick.c, stick_file.c, stick_scan.c,
 * stick_recover.c):
 * usb_stick_open() returns USB_NODEV when no device is the boot disk
 * (capacity or identity differ everywhere) and USB_BADARG for an unusable
 * target; usb_stick_write() also refuses (USB_BADARG) blocks outside the
 * boot partition (for GPT also outside FirstUsableLBA..LastUsableLBA),
 * and (USB_ERROR, nothing sent) any write once the stick is known to be
 * write protected.  Reads and writes are split into commands of at most
 * 120 KiB.  All calls come from one thread at a time, polled.
 */
#ifndef KPROF_USB_STICK_H
#define KPROF_USB_STICK_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/common/diskid.h"
#include "kernel/usb/hci.h"

#define STICK_PATH_MAX    6  /* root port + up to 5 hubs (USB's limit) */
#define STICK_EXTENTS_MAX 16 /* of the trace file                     */

/* Where the stick is and what must be true of it (from bootinfo). */
struct usb_stick_target {
	uint16_t pci_segment;
	uint8_t pci_bus, pci_dev, pci_fn;
	uint8_t depth;                   /* ports[] used: 1 = on a root port */
	uint8_t ports[STICK_PATH_MAX];   /* 1-based: ports[0] root port,
					  * ports[i] hub port of hop i        */
	uint8_t lun;                     /* the loader's LUN (tried first)   */
	uint8_t root_port_override;      /* usb.stick_port=: 0, or the root
					  * port used instead of ports[0]     */
	struct disk_identity id;         /* table, GUID or MBR signature,
					  * partition, FAT volume serial      */
	uint32_t block_size;             /* bytes per logical block          */
	uint64_t blocks;                 /* the disk's size in blocks        */
};

struct stick_extent {
	uint64_t lba;    /* first block of this run of the file           */
	uint64_t blocks; /* blocks in the run                             */
};

struct usb_stick; /* opaque: device, interface, endpoints, tag, state   */

/* SCSI sense of the last failed command (REQUEST SENSE), for messages. */
struct stick_sense {
	uint8_t key, asc, ascq;
};

int usb_stick_open(const struct usb_stick_target *t, struct usb_stick **out);
bool usb_stick_write_protected(const struct usb_stick *st);
int usb_stick_read(struct usb_stick *st, uint64_t lba, void *buf, uint32_t blocks);
int usb_stick_write(struct usb_stick *st, uint64_t lba, const void *buf, uint32_t blocks);
/* SYNCHRONIZE CACHE: USB_OK when flushed (or the stick has no cache to
 * flush: 5/20/00); USB_STICK_NOT_FLUSHED when a stick that still answers
 * refused it (CHECK CONDITION with another sense, in
 * usb_stick_last_sense(), or a stall even after reset recovery): every
 * WRITE before it was acknowledged, so the data are on the stick unless
 * its cache loses them at power-off (many sticks reject or stall this
 * command); a negative enum usb_status when the stick did not answer. */
#define USB_STICK_NOT_FLUSHED 1
int usb_stick_sync(struct usb_stick *st);

/* The rungs of recovery after a failed command, in the order a caller
 * climbs them (retrying its command after each that succeeds). */
enum stick_recovery {
	STICK_RECOVER_RESET,      /* Bulk-Only reset recovery, TEST UNIT READY */
	STICK_RECOVER_PORT,       /* port reset, new address, bind, identity   */
	STICK_RECOVER_CONTROLLER, /* controller reset, then as PORT            */
	STICK_RECOVER_COUNT
};

/* Run one rung; USB_OK when the stick answers again and (PORT,
 * CONTROLLER) is proved to be the same disk, found by its identity on
 * another port or controller when it is no longer on its path (one line
 * says so).  Writes are idempotent, so the caller writes again what
 * failed. */
int usb_stick_recover(struct usb_stick *st, enum stick_recovery stage);
const char *usb_stick_recovery_name(enum stick_recovery stage);
struct stick_sense usb_stick_last_sense(const struct usb_stick *st);

/* Inside the layer (stick_path.c, for stick.c): follow t's port chain
 * from the controller (hci_open, root port reset, each hub in turn) and
 * address the device at its end: *out is that device, addressed but not
 * configured.  Messages name the hop that failed. */
int stick_path_open(const struct usb_stick_target *t, struct usb_device **out);

/* Inside the layer (stick.c, for stick_open.c and stick_scan.c): dev (addressed, not
 * configured) as the boot stick: bind its Bulk-Only interface and find the
 * LUN whose disk has t's capacity and identity.  USB_OK with *out set;
 * USB_NODEV (one line saying why) when it is not the boot disk; on
 * failure dev is left as it is. */
int stick_on_device(struct usb_device *dev, const struct usb_stick_target *t, struct usb_stick **out);

/* Inside the layer (stick_scan.c, for stick_open.c and stick_recover.c): the boot stick by
 * identity: every xHCI controller (hci_find), every root port with a
 * device, every hub port (up to 5 hubs deep), each device tried with
 * stick_on_device() until one is the boot disk; one line says where it
 * was found, or that it was found nowhere.  tried (may be NULL): the
 * device at the end of the loader's path, already found not to be the
 * boot disk, which is not tried again. */
int stick_scan(const struct usb_stick_target *t, const struct usb_device *tried, struct usb_stick **out);

/* The trace file: extents in file order, covering file_bytes. */
struct stick_file {
	struct usb_stick *stick;
	uint32_t block_size;
	uint32_t nextents;
	struct stick_extent extents[STICK_EXTENTS_MAX];
	uint64_t file_bytes;
};

/* Write len bytes at byte offset off (both multiples of block_size);
 * USB_BADARG, and nothing written, if any byte would fall outside the
 * file's extents. */
int stick_file_write(struct stick_file *f, uint64_t off, const void *buf, uint32_t len);

#endif /* KPROF_USB_STICK_H */
