/*
 * diskid.h - the boot stick's identity: what the UEFI loader reads off the
 * disk it was started from and the kernel reads back before it writes a
 * block, so that nothing is written to any other disk (docs/usb-stick.md).
 *
 *   GPT:  the GPT header's DiskGUID (LBA 1, header checked by gpt.c);
 *   MBR:  the disk signature (LBA 0, offset 440), the boot partition's
 *         start and size as its primary entry gives them, and the FAT
 *         volume serial number (BS_VolID) of the partition's boot sector;
 *   FAT:  a "superfloppy" with no partition table, the whole disk one FAT
 *         volume: its volume serial number, start 0, the disk's size.
 *
 * Pure C (no firmware types, no allocation, no libc): every read goes
 * through the caller's callback, so the loader runs it over Block I/O and
 * the kernel over SCSI READ, and the host unit tests over images made by
 * sfdisk, sgdisk and mkfs.vfat (tests/unit/boot/common/test_diskid.c).
 *
 * Invariants: a value read from the disk is checked before it is used
 * (boot signature, BPB sector size, partition inside the disk); the
 * blocks the trace may be written to (write_first .. write_last) always
 * lie inside the boot partition, never on LBA 0 or a GPT structure.
 */
#ifndef KPROF_BOOT_DISKID_H
#define KPROF_BOOT_DISKID_H

#include <stddef.h>
#include <stdint.h>

#include "boot/bootinfo.h"
#include "boot/common/gpt.h"

/* bootinfo's values (struct bootinfo_stick's table). */
enum diskid_table {
	DISKID_TABLE_NONE = BOOTINFO_STICK_TABLE_NONE,
	DISKID_TABLE_GPT = BOOTINFO_STICK_TABLE_GPT,
	DISKID_TABLE_MBR = BOOTINFO_STICK_TABLE_MBR,
	DISKID_TABLE_FAT = BOOTINFO_STICK_TABLE_FAT, /* no table: a superfloppy */
};

enum diskid_status {
	DISKID_OK = 0,
	DISKID_IO = 1,           /* a read failed                          */
	DISKID_BAD_GPT = 2,      /* LBA 1 is no valid GPT header (gpt_status) */
	DISKID_NO_MBR = 3,       /* LBA 0 has no 0x55 0xAA boot signature   */
	DISKID_NO_ENTRY = 4,     /* no primary MBR entry at that start and size */
	DISKID_NOT_FAT = 5,      /* the partition's first block is no FAT
				  * boot sector with a volume serial number */
	DISKID_BAD_RANGE = 6,    /* the partition does not lie inside the disk */
	DISKID_BAD_TABLE = 7,    /* table kind not GPT, MBR or FAT          */
};

struct disk_identity {
	uint8_t table;           /* enum diskid_table                      */
	uint8_t disk_guid[16];   /* GPT: DiskGUID, bytes as on disk        */
	uint32_t mbr_signature;  /* MBR: the 32-bit disk signature         */
	uint64_t part_lba;       /* the boot partition: first block        */
	uint64_t part_blocks;    /* and its size in blocks                 */
	uint32_t volume_serial;  /* MBR, FAT: the FAT volume's BS_VolID    */
	/* Not identity: the blocks a write may touch (inclusive), the
	 * partition (for GPT also inside First/LastUsableLBA). */
	uint64_t write_first, write_last;
	enum gpt_status gpt;     /* DISKID_BAD_GPT: why                    */
};

/* Read one block_size block at lba into buf; 0 on success. */
typedef int (*diskid_read_fn)(void *ctx, uint64_t lba, void *buf);

/* The identity of a disk of disk_blocks blocks whose boot partition the
 * firmware placed at part_lba, part_blocks (for FAT, 0 and the disk's
 * size), read as table says.  blk: block_size bytes of scratch for the
 * reads (the caller's, so that the kernel can hand it to the controller).
 * GPT fills disk_guid; MBR mbr_signature and volume_serial after finding
 * the primary entry at exactly part_lba, part_blocks; FAT volume_serial. */
enum diskid_status diskid_read(diskid_read_fn read, void *ctx, uint8_t *blk, uint32_t block_size,
			       uint64_t disk_blocks, uint8_t table, uint64_t part_lba, uint64_t part_blocks,
			       struct disk_identity *out);

/* NULL when have is the disk want names, else the first field that
 * differs in words ("the MBR disk signature"). */
const char *diskid_differs(const struct disk_identity *want, const struct disk_identity *have);

/* The identity bootinfo->stick carries (the loader's diskid_read()). */
void diskid_from_stick(const struct bootinfo_stick *bs, struct disk_identity *id);

/* "GPT", "MBR", "FAT (no partition table)". */
const char *diskid_table_name(uint8_t table);
const char *diskid_status_name(enum diskid_status st);

/* One line's worth of the identity into out (NUL-terminated, cut at
 * size): "disk GUID 0123...", "MBR disk signature 0x1a2b3c4d, partition
 * at LBA 2048 (2093056 blocks), FAT volume serial 1A2B-3C4D", "FAT
 * volume serial 1A2B-3C4D (no partition table)". */
void diskid_format(const struct disk_identity *id, char *out, size_t size);

/* BS_VolID of the FAT boot sector bs (>= 512 bytes): 0 with *serial set,
 * or -1 when bs is no FAT boot sector (no 0x55 0xAA, a BPB_BytsPerSec
 * other than 512 .. 4096, a power of two) or has no extended boot
 * signature 0x29 (no serial).  FAT32 when BPB_FATSz16 is 0. */
int fat_boot_serial(const uint8_t *bs, uint32_t *serial);

#endif /* KPROF_BOOT_DISKID_H */
