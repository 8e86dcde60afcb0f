/*
 * test_diskid.c - the boot stick's identity (boot/common/diskid.c) on
 * disks made by the standard tools: an MBR disk by sfdisk with a FAT32
 * partition by mkfs.vfat (the disk signature sfdisk was given, the
 * partition's start and size, the volume serial mkfs.vfat was given), a
 * superfloppy (mkfs.vfat on the whole disk), a GPT disk by sgdisk; then
 * each way a disk is refused by name (no MBR, no entry at that start and
 * size, no FAT boot sector, a partition outside the disk or the GPT's
 * usable blocks, a read failure), the comparison field by field and the
 * identity's text.  Without sfdisk, sgdisk or mkfs.vfat the tests print
 * "skipped".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "boot/common/diskid.h"

#define DISK_MIB 64
#define BLOCKS (DISK_MIB * 2048u)
#define PART_LBA 2048u

static uint8_t disk[DISK_MIB << 20];
static uint8_t blk[512];
static int fail_lba = -1; /* a read of this block fails */

static int rd(void *ctx, uint64_t lba, void *buf)
{
	(void)ctx;
	if ((int64_t)lba == fail_lba || lba >= BLOCKS)
		return -1;
	memcpy(buf, disk + lba * 512, 512);
	return 0;
}

/* Run a shell script that writes the disk image to its stdout. */
static int make_disk(const char *tools, const char *script)
{
	char cmd[1024];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "for t in %s; do command -v $t >/dev/null || PATH=$PATH:/sbin:/usr/sbin "
		 "command -v $t >/dev/null || exit 3; done", tools);
	if (system(cmd) != 0) {
		printf("skipped: %s not all installed (make deps installs fdisk, gdisk and dosfstools)\n", tools);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "set -e; PATH=$PATH:/sbin:/usr/sbin; d=$(mktemp -d); trap 'rm -rf $d' EXIT; "
		 "truncate -s %uM $d/disk.img; %s; cat $d/disk.img", DISK_MIB, script);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fread(disk, 1, sizeof(disk), p), sizeof(disk));
	assert_int_equal(pclose(p), 0);
	return 0;
}

/* sfdisk's MBR (label-id 0x1a2b3c4d), a FAT32 partition (serial 0x12345678)
 * at 2048 filling the disk, as a shop's stick has it (type 0x0c). */
static int make_mbr(void)
{
	return make_disk("sfdisk mkfs.vfat",
			 "printf 'label: dos\\nlabel-id: 0x1a2b3c4d\\nstart=2048, type=c\\n' | "
			 "sfdisk -q $d/disk.img; "
			 "truncate -s $(((64 - 1) * 1024 * 1024)) $d/p.img; "
			 "mkfs.vfat -F 32 -i 12345678 $d/p.img >/dev/null; "
			 "dd if=$d/p.img of=$d/disk.img bs=1M seek=1 conv=notrunc status=none");
}

#define PART_BLOCKS (BLOCKS - PART_LBA)

static void test_mbr(void **state)
{
	struct disk_identity id;
	char text[160];

	(void)state;
	if (make_mbr())
		skip();
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_MBR, PART_LBA, PART_BLOCKS, &id),
			 DISKID_OK);
	assert_int_equal(id.table, DISKID_TABLE_MBR);
	assert_int_equal(id.mbr_signature, 0x1a2b3c4d);
	assert_int_equal(id.volume_serial, 0x12345678);
	assert_int_equal(id.part_lba, PART_LBA);
	assert_int_equal(id.part_blocks, PART_BLOCKS);
	assert_int_equal(id.write_first, PART_LBA);
	assert_int_equal(id.write_last, BLOCKS - 1);
	diskid_format(&id, text, sizeof(text));
	assert_string_equal(text, "MBR disk signature 0x1a2b3c4d, partition at LBA 2048 (129024 blocks), "
				  "FAT volume serial 1234-5678");

	/* The firmware's partition must be a primary entry, exactly. */
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_MBR, PART_LBA + 8, PART_BLOCKS - 8, &id),
			 DISKID_NO_ENTRY);
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_MBR, PART_LBA, PART_BLOCKS - 1, &id),
			 DISKID_NO_ENTRY);
	/* Past the disk's end, or at LBA 0. */
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS - 1, DISKID_TABLE_MBR, PART_LBA, PART_BLOCKS, &id),
			 DISKID_BAD_RANGE);
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_MBR, 0, PART_BLOCKS, &id),
			 DISKID_BAD_RANGE);
	/* A read failure, at the MBR and at the partition's boot sector. */
	fail_lba = 0;
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_MBR, PART_LBA, PART_BLOCKS, &id),
			 DISKID_IO);
	fail_lba = PART_LBA;
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_MBR, PART_LBA, PART_BLOCKS, &id),
			 DISKID_IO);
	fail_lba = -1;
	/* No volume serial (BS_BootSig not 0x29), then no boot sector. */
	disk[PART_LBA * 512 + 66] = 0;
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_MBR, PART_LBA, PART_BLOCKS, &id),
			 DISKID_NOT_FAT);
	disk[PART_LBA * 512 + 66] = 0x29;
	disk[PART_LBA * 512 + 510] = 0;
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_MBR, PART_LBA, PART_BLOCKS, &id),
			 DISKID_NOT_FAT);
	disk[510] = 0;
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_MBR, PART_LBA, PART_BLOCKS, &id),
			 DISKID_NO_MBR);
}

/* mkfs.vfat on the whole disk: no partition table, LBA 0 is the volume. */
static void test_superfloppy(void **state)
{
	struct disk_identity id;
	char text[160];

	(void)state;
	if (make_disk("mkfs.vfat", "mkfs.vfat -F 32 -i 0badcafe $d/disk.img >/dev/null"))
		skip();
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_FAT, 0, BLOCKS, &id), DISKID_OK);
	assert_int_equal(id.volume_serial, 0x0badcafe);
	assert_int_equal(id.write_first, 1); /* never the boot sector */
	assert_int_equal(id.write_last, BLOCKS - 1);
	diskid_format(&id, text, sizeof(text));
	assert_string_equal(text, "FAT volume serial 0bad-cafe (no partition table)");
	/* Read as MBR, the FAT boot sector has no entry of that partition. */
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_MBR, PART_LBA, PART_BLOCKS, &id),
			 DISKID_NO_ENTRY);
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_FAT, 8, BLOCKS - 8, &id),
			 DISKID_BAD_RANGE);
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, 9, 0, BLOCKS, &id), DISKID_BAD_TABLE);
}

/* sgdisk's GPT: the DiskGUID, and the partition inside the usable blocks. */
static void test_gpt(void **state)
{
	struct disk_identity id;
	uint8_t guid[16] = { 0x67, 0x45, 0x23, 0x01, 0xab, 0x89, 0xef, 0xcd,
			     0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	char text[160];

	(void)state;
	if (make_disk("sgdisk", "sgdisk --clear --disk-guid=01234567-89ab-cdef-0123-456789abcdef "
				"--new=1:2048:0 $d/disk.img >/dev/null"))
		skip();
	/* sgdisk ends the partition before the backup GPT: LastUsableLBA. */
	uint64_t last = BLOCKS - 34;
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_GPT, PART_LBA, last - PART_LBA + 1, &id),
			 DISKID_OK);
	assert_memory_equal(id.disk_guid, guid, 16);
	assert_int_equal(id.write_first, PART_LBA);
	assert_int_equal(id.write_last, last);
	diskid_format(&id, text, sizeof(text));
	assert_string_equal(text, "disk GUID 01234567-89ab-cdef-0123-456789abcdef");
	/* Onto the backup GPT: outside the usable blocks. */
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_GPT, PART_LBA, last - PART_LBA + 2, &id),
			 DISKID_BAD_RANGE);
	disk[512 + 60] ^= 1; /* the header's CRC no longer holds */
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_GPT, PART_LBA, 100, &id),
			 DISKID_BAD_GPT);
	assert_int_equal(id.gpt, GPT_BAD_CRC);
	/* An MBR-only disk read as GPT (the test of the loader's old refusal). */
	if (make_mbr())
		skip();
	assert_int_equal(diskid_read(rd, NULL, blk, 512, BLOCKS, DISKID_TABLE_GPT, PART_LBA, 100, &id),
			 DISKID_BAD_GPT);
	assert_int_equal(id.gpt, GPT_NO_SIGNATURE);
}

/* Every field of the identity counts, each named. */
static void test_differs(void **state)
{
	struct disk_identity a = { .table = DISKID_TABLE_MBR, .mbr_signature = 1, .part_lba = 2048,
				   .part_blocks = 4096, .volume_serial = 7 };
	struct disk_identity b = a;

	(void)state;
	assert_null(diskid_differs(&a, &b));
	b.write_first = 5; /* not identity */
	assert_null(diskid_differs(&a, &b));
	b.mbr_signature = 2;
	assert_string_equal(diskid_differs(&a, &b), "the MBR disk signature");
	b = a, b.part_lba++;
	assert_string_equal(diskid_differs(&a, &b), "the boot partition's start or size");
	b = a, b.part_blocks--;
	assert_string_equal(diskid_differs(&a, &b), "the boot partition's start or size");
	b = a, b.volume_serial++;
	assert_string_equal(diskid_differs(&a, &b), "the FAT volume serial number");
	b = a, b.table = DISKID_TABLE_GPT;
	assert_string_equal(diskid_differs(&a, &b), "the partition table's kind");
	a.table = b.table = DISKID_TABLE_GPT;
	b.volume_serial = 99; /* GPT: the GUID alone */
	assert_null(diskid_differs(&a, &b));
	b.disk_guid[15] = 1;
	assert_string_equal(diskid_differs(&a, &b), "the GPT disk GUID");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mbr),
		cmocka_unit_test(test_superfloppy),
		cmocka_unit_test(test_gpt),
		cmocka_unit_test(test_differs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
