/*
 * bytes.h - byte order at the wire and on disk, one set of readers and
 * writers for everything that parses bytes: little-endian for USB fields
 * (USB 2.0, 8.1), GPT headers, FAT boot sectors and entries, UEFI device
 * paths and PSF fonts; big-endian for SCSI CDBs and parameter data
 * (SPC-4, 3.5).
 *
 * Fields are read and written byte by byte, never through casts of
 * unaligned packed structs, so the code is the same on any host the unit
 * tests run on.  Pure and header-only, with the C library's fixed-width
 * integer types its one include: the UEFI loader compiles boot/common/
 * with it as the kernel does
 * (tools/check-layering.sh keeps boot/ to kernel/lib's pure headers).
 * Any caller, any time.
 */
#ifndef KPROF_LIB_BYTES_H
#define KPROF_LIB_BYTES_H

#include <stdint.h>

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

static inline void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

#endif /* KPROF_LIB_BYTES_H */
