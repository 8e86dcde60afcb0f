/*
 * stickext.h - the trace file's runs, as the FAT walker gives them (byte
 * ranges of the partition, fat.h), turned into the whole-disk block
 * extents bootinfo hands the kernel (struct bootinfo_stick_extent).
 *
 * Invariant: an extent is produced only from a run that starts and ends
 * on a block boundary and lies inside the partition; anything else is
 * refused whole, since the kernel writes whole blocks and a rounded run
 * would reach outside the file (and a run past the partition's end onto
 * whatever follows it).
 */
#ifndef KPROF_BOOT_STICKEXT_H
#define KPROF_BOOT_STICKEXT_H

#include "boot/bootinfo.h"
#include "boot/common/fat.h"

/* out[i] = { part_lba + ext[i].offset / block_size, ext[i].bytes /
 * block_size } for i < n (n <= BOOTINFO_STICK_EXTENTS_MAX); 0, or -1 when
 * a run is not block-aligned or reaches past the partition's part_blocks
 * blocks (then out[] is not to be used). */
int stick_extents_from_fat(const struct fat_extent *ext, uint32_t n, uint64_t part_lba, uint64_t part_blocks,
			   uint32_t block_size, struct bootinfo_stick_extent *out);

#endif
