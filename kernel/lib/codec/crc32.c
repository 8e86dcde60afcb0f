/*
 * crc32.c - table-driven CRC-32 (slicing by 1 byte; 1 KiB table built on
 * first use).  Frames are checked once each, so simplicity wins over speed.
 */
#include "kernel/lib/codec/crc32.h"

static uint32_t crc_table[256];
static int crc_ready;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
	__atomic_store_n(&crc_ready, 1, __ATOMIC_RELEASE);
}

uint32_t crc32_update(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;

	if (!__atomic_load_n(&crc_ready, __ATOMIC_ACQUIRE))
		crc_init(); /* idempotent: racing initialisers write the same table */
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return ~crc;
}
