/*
 * gpt.h - the GPT header of a disk (UEFI 2.10, 5.3.2), read-only.
 *
 * Pure C, shared by the UEFI loader (the boot stick's identity for
 * bootinfo) and the kernel, which reads the header back from the stick
 * before it writes (kernel/usb/storage/stick.c) and prints the GUID; the
 * host unit tests check it against sgdisk's images.
 *
 * Invariant: a header is accepted only when its Signature is "EFI PART",
 * its HeaderSize lies in 92 .. the block size, its HeaderCRC32 (computed
 * with the field zeroed) holds and MyLBA is 1; nothing else is trusted.
 */
#ifndef KPROF_BOOT_GPT_H
#define KPROF_BOOT_GPT_H

#include <stdint.h>

#define GPT_HEADER_LBA 1
#define GPT_HEADER_MIN 92 /* bytes of the revision 1.0 header */

enum gpt_status {
	GPT_OK = 0,
	GPT_NO_SIGNATURE = 1, /* not "EFI PART": not a GPT disk (MBR only?) */
	GPT_BAD_SIZE = 2,     /* HeaderSize outside 92 .. block size        */
	GPT_BAD_CRC = 3,      /* HeaderCRC32 does not match                 */
	GPT_BAD_LBA = 4,      /* MyLBA is not 1                             */
	GPT_BAD_USABLE = 5,   /* First/LastUsableLBA do not fit the disk
			       * (diskid.c, which knows the disk's size)   */
};

/* The fields of EFI_PARTITION_TABLE_HEADER that identify the disk. */
struct gpt_header_info {
	uint8_t DiskGUID[16];    /* bytes as on disk                         */
	uint64_t AlternateLBA;   /* the backup header: the disk's last block  */
	uint64_t FirstUsableLBA; /* the blocks partitions may use, inclusive */
	uint64_t LastUsableLBA;
	uint32_t NumberOfPartitionEntries;
};

/* Check the header in blk (the whole of LBA 1, block_size bytes). */
enum gpt_status gpt_header_check(const uint8_t *blk, uint32_t block_size, struct gpt_header_info *out);

const char *gpt_status_name(enum gpt_status st);

/* "01234567-89ab-cdef-0123-456789abcdef" (37 bytes with the NUL) from a
 * GUID's on-disk bytes (the first three fields little-endian). */
void gpt_guid_format(const uint8_t guid[16], char out[37]);
/* The same in upper case, as sgdisk and the kernel's stick driver print
 * it: "01234567-89AB-CDEF-0123-456789ABCDEF". */
void gpt_guid_format_upper(const uint8_t guid[16], char out[37]);

#endif /* KPROF_BOOT_GPT_H */
