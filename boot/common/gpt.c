/*
 * gpt.c - checking a GPT header and formatting GUIDs (gpt.h).  The CRC is
 * the kernel's own CRC-32 (kernel/lib/codec/crc32.c: the IEEE polynomial GPT
 * uses), compiled into each program that links this file.
 */
#include "boot/common/gpt.h"

#include "kernel/lib/bytes.h"
#include "kernel/lib/codec/crc32.h"

const char *gpt_status_name(enum gpt_status st)
{
	switch (st) {
	case GPT_OK: return "ok";
	case GPT_NO_SIGNATURE: return "no \"EFI PART\" signature at LBA 1 (not a GPT disk)";
	case GPT_BAD_SIZE: return "the GPT header's HeaderSize is out of range";
	case GPT_BAD_CRC: return "the GPT header's CRC32 does not match (damaged header)";
	case GPT_BAD_LBA: return "the GPT header's MyLBA is not 1";
	case GPT_BAD_USABLE: return "the GPT header's usable blocks do not fit the disk";
	}
	return "?";
}

enum gpt_status gpt_header_check(const uint8_t *blk, uint32_t block_size, struct gpt_header_info *out)
{
	static const uint8_t sig[8] = { 'E', 'F', 'I', ' ', 'P', 'A', 'R', 'T' };
	static const uint8_t zero[4];
	uint32_t size, crc;

	for (int i = 0; i < 8; i++)
		if (blk[i] != sig[i])
			return GPT_NO_SIGNATURE;
	size = get_le32(blk + 12); /* HeaderSize */
	if (size < GPT_HEADER_MIN || size > block_size)
		return GPT_BAD_SIZE;
	/* HeaderCRC32 (offset 16) over HeaderSize bytes with itself zeroed. */
	crc = crc32_update(0, blk, 16);
	crc = crc32_update(crc, zero, 4);
	crc = crc32_update(crc, blk + 20, size - 20);
	if (crc != get_le32(blk + 16))
		return GPT_BAD_CRC;
	if (get_le64(blk + 24) != GPT_HEADER_LBA) /* MyLBA */
		return GPT_BAD_LBA;
	out->AlternateLBA = get_le64(blk + 32);
	out->FirstUsableLBA = get_le64(blk + 40);
	out->LastUsableLBA = get_le64(blk + 48);
	for (int i = 0; i < 16; i++)
		out->DiskGUID[i] = blk[56 + i];
	out->NumberOfPartitionEntries = get_le32(blk + 80);
	return GPT_OK;
}

static void guid_format(const uint8_t g[16], char out[37], const char hex[16])
{
	/* Byte order of the text: fields 1-3 little-endian, the rest as is
	 * (UEFI 2.10, appendix A). */
	static const uint8_t order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	int n = 0;

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[n++] = '-';
		out[n++] = hex[g[order[i]] >> 4];
		out[n++] = hex[g[order[i]] & 15];
	}
	out[n] = 0;
}

void gpt_guid_format(const uint8_t g[16], char out[37])
{
	guid_format(g, out, "0123456789abcdef");
}

void gpt_guid_format_upper(const uint8_t g[16], char out[37])
{
	guid_format(g, out, "0123456789ABCDEF");
}
