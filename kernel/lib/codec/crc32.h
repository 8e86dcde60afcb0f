/*
 * crc32.h - CRC-32 (IEEE 802.3, reflected 0xEDB88320, init and final
 * xor 0xFFFFFFFF), the same value zlib's crc32() gives.  Shared with the
 * host tool, which checks frames with it.
 */
#ifndef KPROF_KERNEL_CRC32_H
#define KPROF_KERNEL_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC: crc32_update(0, p, n) is the CRC of p[0..n). */
uint32_t crc32_update(uint32_t crc, const void *data, size_t n);

#endif
