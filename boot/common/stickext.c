/*
 * stickext.c - FAT runs to whole-disk extents (stickext.h).  A volume whose
 * data region is not aligned to the disk's blocks (a FAT made with 512-byte
 * sectors on a 4096-byte-block disk, say) has runs that start mid-block:
 * refused, never rounded; so is a run past the end of the partition (a
 * FAT that claims more sectors than its partition holds).
 */
#include "boot/common/stickext.h"

int stick_extents_from_fat(const struct fat_extent *ext, uint32_t n, uint64_t part_lba, uint64_t part_blocks,
			   uint32_t block_size, struct bootinfo_stick_extent *out)
{
	if (!block_size || n > BOOTINFO_STICK_EXTENTS_MAX)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		if (ext[i].offset % block_size || ext[i].bytes % block_size || !ext[i].bytes)
			return -1;
		if (ext[i].offset / block_size > part_blocks ||
		    ext[i].bytes / block_size > part_blocks - ext[i].offset / block_size)
			return -1;
		out[i].lba = part_lba + ext[i].offset / block_size;
		out[i].blocks = ext[i].bytes / block_size;
	}
	return 0;
}
