/*
 * usb_bytes.h - byte order at the wire: USB fields are little-endian
 * (USB 2.0, 8.1), SCSI CDBs and parameter data big-endian (SPC-4, 3.5).
 *
 * Descriptors and CDBs are read and written byte by byte through these
 * helpers, never through casts of unaligned packed structs, so the code
 * is the same on any host the unit tests run on.  Any caller, any time.
 */
#ifndef KPROF_USB_BYTES_H
#define KPROF_USB_BYTES_H

#include <stdint.h>

static inline uint16_t usb_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t usb_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void usb_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t scsi_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint64_t scsi_get_be64(const uint8_t *p)
{
	return (uint64_t)scsi_get_be32(p) << 32 | scsi_get_be32(p + 4);
}

static inline void scsi_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void scsi_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void scsi_put_be64(uint8_t *p, uint64_t v)
{
	scsi_put_be32(p, (uint32_t)(v >> 32));
	scsi_put_be32(p + 4, (uint32_t)v);
}

#endif /* KPROF_USB_BYTES_H */
