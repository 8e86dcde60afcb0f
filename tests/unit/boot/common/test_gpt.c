/*
 * test_gpt.c - the GPT header check the UEFI loader applies to the boot
 * stick (boot/common/gpt.c): a disk made by sgdisk is accepted with the
 * DiskGUID sgdisk prints; a flipped byte, a wrong signature, a bad
 * HeaderSize or MyLBA are each refused by name; the usable blocks are
 * sgdisk's.  Also checks the GUID text forms (lower case, and upper case
 * as the kernel's stick lines print it) against sgdisk's.  Without sgdisk
 * the tests print "skipped".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>

#include "boot/common/gpt.h"
#include "kernel/lib/codec/crc32.h"

static uint8_t lba1[512];
static char guid_text[64]; /* as sgdisk prints it, upper case */
static unsigned long long first_usable, last_usable; /* as sgdisk says */

static int load_disk(void)
{
	char cmd[512], usable[64];
	FILE *p;

	if (system("command -v sgdisk >/dev/null") != 0) {
		printf("skipped: sgdisk not installed (make deps installs gdisk)\n");
		return -1;
	}
	snprintf(cmd, sizeof(cmd),
		 "set -e; d=$(mktemp -d); trap 'rm -rf $d' EXIT; truncate -s 64M $d/disk.img; "
		 "sgdisk --clear --new=1:0:0 --typecode=1:EF00 $d/disk.img >/dev/null; "
		 "sgdisk -p $d/disk.img | sed -n 's/^Disk identifier (GUID): //p; "
		 "s/^First usable sector is \\([0-9]*\\), last usable sector is \\([0-9]*\\)$/\\1 \\2/p'; "
		 "dd if=$d/disk.img bs=512 skip=1 count=1 status=none");
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(guid_text, sizeof(guid_text), p));
	guid_text[strcspn(guid_text, "\n")] = 0;
	assert_non_null(fgets(usable, sizeof(usable), p));
	assert_int_equal(sscanf(usable, "%llu %llu", &first_usable, &last_usable), 2);
	assert_int_equal(fread(lba1, 1, 512, p), 512);
	assert_int_equal(pclose(p), 0);
	return 0;
}

static void test_sgdisk_header(void **state)
{
	struct gpt_header_info h;
	char text[37];

	(void)state;
	if (load_disk())
		skip();
	assert_int_equal(gpt_header_check(lba1, 512, &h), GPT_OK);
	gpt_guid_format(h.DiskGUID, text);
	assert_int_equal(strcasecmp(text, guid_text), 0);
	gpt_guid_format_upper(h.DiskGUID, text);
	assert_string_equal(text, guid_text);
	assert_int_equal(h.AlternateLBA, 64 * 2048 - 1); /* the disk's last block */
	assert_int_equal(h.FirstUsableLBA, first_usable);
	assert_int_equal(h.LastUsableLBA, last_usable);
	assert_int_equal(h.NumberOfPartitionEntries, 128);
}

/* Each field the check relies on, broken in turn. */
static void test_damaged_headers(void **state)
{
	struct gpt_header_info h;
	static uint8_t copy[512];

	(void)state;
	if (load_disk())
		skip();
	for (int i = 0; i < 92; i++) {
		if (i >= 16 && i < 20)
			continue; /* the CRC itself: checked below */
		memcpy(copy, lba1, sizeof(copy));
		copy[i] ^= 0x01;
		enum gpt_status st = gpt_header_check(copy, 512, &h);
		assert_int_not_equal(st, GPT_OK);
		if (i < 8)
			assert_int_equal(st, GPT_NO_SIGNATURE);
	}
	memcpy(copy, lba1, sizeof(copy));
	copy[17] ^= 0x80;
	assert_int_equal(gpt_header_check(copy, 512, &h), GPT_BAD_CRC);
	/* HeaderSize past the block, and below the revision 1.0 size. */
	memcpy(copy, lba1, sizeof(copy));
	copy[12] = 0x00, copy[13] = 0x04;
	assert_int_equal(gpt_header_check(copy, 512, &h), GPT_BAD_SIZE);
	copy[12] = 60, copy[13] = 0;
	assert_int_equal(gpt_header_check(copy, 512, &h), GPT_BAD_SIZE);
	/* MyLBA 2 with a CRC that holds: the backup header read as primary. */
	memcpy(copy, lba1, sizeof(copy));
	copy[24] = 2;
	memset(copy + 16, 0, 4);
	uint32_t crc = crc32_update(0, copy, 92);
	for (int i = 0; i < 4; i++)
		copy[16 + i] = (uint8_t)(crc >> (8 * i));
	assert_int_equal(gpt_header_check(copy, 512, &h), GPT_BAD_LBA);
	assert_string_equal(gpt_status_name(GPT_BAD_CRC), "the GPT header's CRC32 does not match (damaged header)");
}

/* The GUID's text: fields 1-3 little-endian on disk. */
static void test_guid_text(void **state)
{
	static const uint8_t g[16] = { 0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66,
				       0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	char text[37];

	(void)state;
	gpt_guid_format(g, text);
	assert_string_equal(text, "00112233-4455-6677-8899-aabbccddeeff");
	gpt_guid_format_upper(g, text);
	assert_string_equal(text, "00112233-4455-6677-8899-AABBCCDDEEFF");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sgdisk_header),
		cmocka_unit_test(test_damaged_headers),
		cmocka_unit_test(test_guid_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
