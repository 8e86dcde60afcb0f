/*
 * diskid.c - reading and comparing the boot stick's identity (diskid.h).
 *
 * MBR (the classic layout every PC firmware reads): the 32-bit disk
 * signature at offset 440, four 16-byte primary entries from offset 446
 * (status, CHS start, type, CHS end, LBA start, sector count), 0x55 0xAA
 * at 510.  Only a primary entry identifies the partition: a logical one
 * inside an extended partition is not looked for.  The FAT boot sector's
 * BS_VolID is at 39 (FAT12/16) or 67 (FAT32, BPB_FATSz16 = 0), present
 * when BS_BootSig (38 or 66) is 0x29.
 */
#include "boot/common/diskid.h"

#include "kernel/lib/bytes.h"

#define MBR_SIGNATURE_OFFSET 440
#define MBR_ENTRY_OFFSET 446
#define MBR_ENTRY_BYTES 16
#define MBR_ENTRIES 4
#define MBR_TYPE_PROTECTIVE 0xEE /* GPT's protective MBR */

static int boot_signature(const uint8_t *b)
{
	return b[510] == 0x55 && b[511] == 0xAA;
}

int fat_boot_serial(const uint8_t *bs, uint32_t *serial)
{
	uint32_t bps = get_le16(bs + 11); /* BPB_BytsPerSec */
	uint32_t at = get_le16(bs + 22) ? 38 : 66; /* BS_BootSig: FAT12/16, FAT32 */

	if (!boot_signature(bs) || bps < 512 || bps > 4096 || (bps & (bps - 1)) || bs[at] != 0x29)
		return -1;
	*serial = get_le32(bs + at + 1); /* BS_VolID */
	return 0;
}

/* The MBR in blk: signature, and the primary entry of exactly lba, n. */
static enum diskid_status mbr_read(const uint8_t *blk, uint64_t lba, uint64_t n, struct disk_identity *out)
{
	if (!boot_signature(blk))
		return DISKID_NO_MBR;
	out->mbr_signature = get_le32(blk + MBR_SIGNATURE_OFFSET);
	for (int i = 0; i < MBR_ENTRIES; i++) {
		const uint8_t *e = blk + MBR_ENTRY_OFFSET + i * MBR_ENTRY_BYTES;
		if (e[4] && e[4] != MBR_TYPE_PROTECTIVE && get_le32(e + 8) == lba && get_le32(e + 12) == n)
			return DISKID_OK;
	}
	return DISKID_NO_ENTRY;
}

enum diskid_status diskid_read(diskid_read_fn read, void *ctx, uint8_t *blk, uint32_t block_size,
			       uint64_t disk_blocks, uint8_t table, uint64_t part_lba, uint64_t part_blocks,
			       struct disk_identity *out)
{
	struct gpt_header_info h;
	enum diskid_status st;

	*out = (struct disk_identity){ .table = table, .part_lba = part_lba, .part_blocks = part_blocks };
	if (table != DISKID_TABLE_GPT && table != DISKID_TABLE_MBR && table != DISKID_TABLE_FAT)
		return DISKID_BAD_TABLE;
	if (!part_blocks || part_lba >= disk_blocks || part_blocks > disk_blocks - part_lba ||
	    (table == DISKID_TABLE_FAT && part_lba) || (table != DISKID_TABLE_FAT && !part_lba))
		return DISKID_BAD_RANGE;
	out->write_first = part_lba;
	out->write_last = part_lba + part_blocks - 1;
	if (table == DISKID_TABLE_GPT) {
		if (read(ctx, GPT_HEADER_LBA, blk))
			return DISKID_IO;
		out->gpt = gpt_header_check(blk, block_size, &h);
		if (out->gpt != GPT_OK || h.FirstUsableLBA <= GPT_HEADER_LBA || h.LastUsableLBA >= disk_blocks ||
		    h.FirstUsableLBA > h.LastUsableLBA) {
			if (out->gpt == GPT_OK)
				out->gpt = GPT_BAD_USABLE;
			return DISKID_BAD_GPT;
		}
		for (int i = 0; i < 16; i++)
			out->disk_guid[i] = h.DiskGUID[i];
		if (out->write_first < h.FirstUsableLBA || out->write_last > h.LastUsableLBA)
			return DISKID_BAD_RANGE;
		return DISKID_OK;
	}
	if (table == DISKID_TABLE_MBR) {
		if (read(ctx, 0, blk))
			return DISKID_IO;
		if ((st = mbr_read(blk, part_lba, part_blocks, out)) != DISKID_OK)
			return st;
	}
	if (read(ctx, part_lba, blk))
		return DISKID_IO;
	if (fat_boot_serial(blk, &out->volume_serial))
		return DISKID_NOT_FAT;
	if (table == DISKID_TABLE_FAT)
		out->write_first = 1; /* never the boot sector itself */
	return DISKID_OK;
}

void diskid_from_stick(const struct bootinfo_stick *bs, struct disk_identity *id)
{
	*id = (struct disk_identity){ .table = bs->table, .mbr_signature = bs->mbr_signature,
				      .part_lba = bs->part_lba, .part_blocks = bs->part_blocks,
				      .volume_serial = bs->volume_serial };
	for (int i = 0; i < 16; i++)
		id->disk_guid[i] = bs->disk_guid[i];
}

const char *diskid_differs(const struct disk_identity *want, const struct disk_identity *have)
{
	if (want->table != have->table)
		return "the partition table's kind";
	if (want->table == DISKID_TABLE_GPT) {
		for (int i = 0; i < 16; i++)
			if (want->disk_guid[i] != have->disk_guid[i])
				return "the GPT disk GUID";
		return NULL;
	}
	if (want->table == DISKID_TABLE_MBR && want->mbr_signature != have->mbr_signature)
		return "the MBR disk signature";
	if (want->part_lba != have->part_lba || want->part_blocks != have->part_blocks)
		return "the boot partition's start or size";
	if (want->volume_serial != have->volume_serial)
		return "the FAT volume serial number";
	return NULL;
}

const char *diskid_table_name(uint8_t table)
{
	switch (table) {
	case DISKID_TABLE_GPT: return "GPT";
	case DISKID_TABLE_MBR: return "MBR";
	case DISKID_TABLE_FAT: return "FAT (no partition table)";
	}
	return "unknown";
}

const char *diskid_status_name(enum diskid_status st)
{
	switch (st) {
	case DISKID_OK: return "ok";
	case DISKID_IO: return "a read failed";
	case DISKID_BAD_GPT: return "LBA 1 holds no valid GPT header";
	case DISKID_NO_MBR: return "LBA 0 has no MBR (no 0x55 0xAA boot signature)";
	case DISKID_NO_ENTRY: return "the MBR has no primary entry for the boot partition (a logical partition?)";
	case DISKID_NOT_FAT: return "the boot partition does not start with a FAT boot sector with a volume serial number";
	case DISKID_BAD_RANGE: return "the boot partition does not lie inside the disk's usable blocks";
	case DISKID_BAD_TABLE: return "the partition table is neither GPT nor MBR, and the disk is no FAT volume";
	}
	return "?";
}

/* The formatting below appends to out[0 .. size-1], always terminated. */
struct diskid_buf {
	char *out;
	size_t size, n;
};

static void put_str(struct diskid_buf *b, const char *s)
{
	while (*s && b->n + 1 < b->size)
		b->out[b->n++] = *s++;
	b->out[b->n] = 0;
}

static void put_num(struct diskid_buf *b, uint64_t v, unsigned base, int digits)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = hex[v % base];
		v /= base;
	} while ((v || n < digits) && n < (int)sizeof(tmp) - 1);
	while (n && b->n + 1 < b->size)
		b->out[b->n++] = tmp[--n];
	b->out[b->n] = 0;
}

void diskid_format(const struct disk_identity *id, char *out, size_t size)
{
	struct diskid_buf b = { out, size, 0 };
	char guid[37];

	if (!size)
		return;
	out[0] = 0;
	if (id->table == DISKID_TABLE_GPT) {
		gpt_guid_format(id->disk_guid, guid);
		put_str(&b, "disk GUID ");
		put_str(&b, guid);
		return;
	}
	if (id->table == DISKID_TABLE_MBR) {
		put_str(&b, "MBR disk signature 0x");
		put_num(&b, id->mbr_signature, 16, 8);
		put_str(&b, ", partition at LBA ");
		put_num(&b, id->part_lba, 10, 1);
		put_str(&b, " (");
		put_num(&b, id->part_blocks, 10, 1);
		put_str(&b, " blocks), ");
	}
	put_str(&b, "FAT volume serial ");
	put_num(&b, id->volume_serial >> 16, 16, 4);
	put_str(&b, "-");
	put_num(&b, id->volume_serial & 0xFFFF, 16, 4);
	if (id->table == DISKID_TABLE_FAT)
		put_str(&b, " (no partition table)");
}
