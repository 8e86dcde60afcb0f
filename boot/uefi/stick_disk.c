/*
 * stick_disk.c - what the loader reads of the USB stick it was started
 * from, through the firmware and read-only (stick.c puts it together):
 *   - the xHCI controller's PCI location and class code (PCI I/O);
 *   - the whole disk's Block I/O: block size, size, and its identity
 *     (boot/common/diskid.c: the GPT DiskGUID, or the MBR disk signature,
 *     the partition's entry and the FAT volume serial), which the kernel
 *     reads back before it writes;
 *   - the partition's Block I/O, under the FAT walker (boot/common/fat.c),
 *     for the trace file's extents as whole-disk LBAs.
 * Nothing here writes to any device.  Every function returns a
 * bootinfo_stick_status and prints nothing: stick.c says what is wrong.
 */
#include "boot/uefi/ldr.h"
#include "boot/uefi/stick.h"
#include "boot/common/fat.h"
#include "boot/common/diskid.h"
#include "boot/common/stickext.h"

#define STICK_BOUNCE_PAGES 16 /* 64 KiB: reads of the FAT cache in one go */

/* Block I/O under the FAT walker: byte reads through a bounce buffer, as
 * ReadBlocks wants whole blocks in a buffer aligned to IoAlign. */
struct stick_blk {
	EFI_BLOCK_IO *bio;
	uint8_t *bounce;       /* STICK_BOUNCE_PAGES pages, page aligned   */
	uint64_t limit;        /* bytes of the partition                   */
	EFI_STATUS st;         /* the last failure, for the message        */
};

static struct fat_volume stick_fat; /* 36 KiB: not on the firmware's stack */

static int stick_blk_read(void *ctx, uint64_t off, void *buf, uint32_t len)
{
	struct stick_blk *b = ctx;
	uint32_t bs = b->bio->Media->BlockSize;
	uint8_t *out = buf;

	if (off > b->limit || len > b->limit - off) {
		b->st = EFI_END_OF_MEDIA;
		return -1;
	}
	while (len) {
		uint64_t skip = off % bs;
		uint64_t bytes = LDR_ALIGN_UP(skip + len, bs);
		uint32_t n;

		if (bytes > STICK_BOUNCE_PAGES * LDR_PAGE_SIZE)
			bytes = STICK_BOUNCE_PAGES * LDR_PAGE_SIZE;
		b->st = b->bio->ReadBlocks(b->bio, b->bio->Media->MediaId, off / bs, bytes, b->bounce);
		if (EFI_ERROR(b->st))
			return -1;
		n = bytes - skip < len ? (uint32_t)(bytes - skip) : len;
		CopyMem(out, b->bounce + skip, n);
		out += n;
		off += n;
		len -= n;
	}
	return 0;
}

uint32_t ldr_stick_pci(EFI_DEVICE_PATH *dp, struct bootinfo_stick *s, uint32_t *class_code)
{
	EFI_DEVICE_PATH *rest = dp;
	EFI_PCI_IO_PROTOCOL *pci;
	EFI_HANDLE h;
	UINTN seg, bus, dev, fn;
	UINT32 reg = 0;

	if (EFI_ERROR(BS->LocateDevicePath(&gEfiPciIoProtocolGuid, &rest, &h)) ||
	    EFI_ERROR(BS->HandleProtocol(h, &gEfiPciIoProtocolGuid, (void **)&pci)) ||
	    EFI_ERROR(pci->GetLocation(pci, &seg, &bus, &dev, &fn)) ||
	    EFI_ERROR(pci->Pci.Read(pci, EfiPciIoWidthUint32, 8, 1, &reg)))
		return BOOTINFO_STICK_UNSUPPORTED;
	s->pci_segment = (uint16_t)seg;
	s->pci_bus = (uint8_t)bus;
	s->pci_dev = (uint8_t)dev;
	s->pci_fn = (uint8_t)fn;
	*class_code = reg >> 8; /* class, subclass, programming interface */
	return *class_code == STICK_CLASS_XHCI ? BOOTINFO_STICK_OK : BOOTINFO_STICK_UNSUPPORTED;
}

/* diskid_read()'s reads: one block through the whole disk's Block I/O. */
struct stick_disk_io {
	EFI_BLOCK_IO *bio;
	EFI_STATUS st;
};

static int stick_disk_read(void *ctx, uint64_t lba, void *buf)
{
	struct stick_disk_io *io = ctx;

	io->st = io->bio->ReadBlocks(io->bio, io->bio->Media->MediaId, lba, io->bio->Media->BlockSize, buf);
	return EFI_ERROR(io->st) ? -1 : 0;
}

/* The whole disk: the boot device's path cut before its HD node (the
 * whole path on a superfloppy, which has none), and its identity. */
uint32_t ldr_stick_disk(EFI_DEVICE_PATH *dp, const struct usbpath *p, struct bootinfo_stick *s,
			struct disk_identity *id, enum diskid_status *dst)
{
	uint8_t *path = NULL, *blk = NULL;
	EFI_DEVICE_PATH *rest;
	struct stick_disk_io io;
	EFI_HANDLE disk;
	uint8_t table = p->signature_type == 2 ? DISKID_TABLE_GPT : p->signature_type == 1 ? DISKID_TABLE_MBR
		      : p->partition_number == 0 ? DISKID_TABLE_FAT : DISKID_TABLE_NONE;
	uint32_t status = BOOTINFO_STICK_BAD_FS;

	*dst = DISKID_IO;
	if (EFI_ERROR(BS->AllocatePool(EfiLoaderData, p->hd_offset + 4, (void **)&path)))
		return BOOTINFO_STICK_BAD_FS;
	CopyMem(path, dp, p->hd_offset);
	path[p->hd_offset] = END_DEVICE_PATH_TYPE;
	path[p->hd_offset + 1] = END_ENTIRE_DEVICE_PATH_SUBTYPE;
	path[p->hd_offset + 2] = 4;
	path[p->hd_offset + 3] = 0;
	rest = (EFI_DEVICE_PATH *)path;
	if (EFI_ERROR(BS->LocateDevicePath(&gEfiBlockIoProtocolGuid, &rest, &disk)) || !IsDevicePathEnd(rest) ||
	    EFI_ERROR(BS->HandleProtocol(disk, &gEfiBlockIoProtocolGuid, (void **)&io.bio)) ||
	    io.bio->Media->LogicalPartition || !io.bio->Media->MediaPresent)
		goto out;
	s->block_size = io.bio->Media->BlockSize;
	s->disk_blocks = io.bio->Media->LastBlock + 1;
	if (s->block_size < 512 || s->block_size > LDR_PAGE_SIZE || (s->block_size & (s->block_size - 1)))
		goto out;
	if (EFI_ERROR(BS->AllocatePool(EfiLoaderData, s->block_size, (void **)&blk)))
		goto out;
	*dst = diskid_read(stick_disk_read, &io, blk, s->block_size, s->disk_blocks, table,
			   table == DISKID_TABLE_FAT ? 0 : p->partition_start,
			   table == DISKID_TABLE_FAT ? s->disk_blocks : p->partition_size, id);
	if (*dst == DISKID_OK) {
		s->table = id->table;
		CopyMem(s->disk_guid, id->disk_guid, sizeof(s->disk_guid));
		s->mbr_signature = id->mbr_signature;
		s->part_lba = id->part_lba;
		s->part_blocks = id->part_blocks;
		s->volume_serial = id->volume_serial;
		status = BOOTINFO_STICK_OK;
	}
out:
	if (blk)
		BS->FreePool(blk);
	BS->FreePool(path);
	return status;
}

/* The trace file's runs as whole-disk extents; *runs gets how many runs
 * the file has (more than BOOTINFO_STICK_EXTENTS_MAX: FRAGMENTED), *why
 * the walker's reason for BAD_FS. */
uint32_t ldr_stick_extents(EFI_HANDLE part, const CHAR16 *path, struct bootinfo_stick *s, uint32_t *runs,
			   const char **why)
{
	struct fat_extent ext[BOOTINFO_STICK_EXTENTS_MAX];
	struct stick_blk b = { .st = EFI_SUCCESS };
	EFI_PHYSICAL_ADDRESS bounce;
	struct fat_file f;
	enum fat_status fst;
	char apath[BOOTINFO_STICK_NAME_MAX];
	uint32_t i, status = BOOTINFO_STICK_BAD_FS;

	*runs = 0;
	*why = "the boot partition's Block I/O cannot be read";
	for (i = 0; path[i] && i < sizeof(apath) - 1; i++)
		apath[i] = (char)path[i];
	apath[i] = 0;
	if (EFI_ERROR(BS->HandleProtocol(part, &gEfiBlockIoProtocolGuid, (void **)&b.bio)) ||
	    b.bio->Media->BlockSize != s->block_size)
		return status;
	if (b.bio->Media->LastBlock + 1 != s->part_blocks) {
		*why = "the boot partition's Block I/O and its device path disagree on its size";
		return status;
	}
	b.limit = (b.bio->Media->LastBlock + 1) * s->block_size;
	if (EFI_ERROR(BS->AllocatePages(AllocateAnyPages, EfiLoaderData, STICK_BOUNCE_PAGES, &bounce)))
		return status;
	b.bounce = (uint8_t *)(UINTN)bounce;
	fst = fat_mount(&stick_fat, stick_blk_read, &b);
	if (fst == FAT_OK && stick_fat.volume_bytes > b.limit) {
		fst = FAT_BAD;
		stick_fat.why = "the FAT volume is larger than its partition";
	}
	if (fst == FAT_OK)
		fst = fat_lookup(&stick_fat, apath, &f);
	if (fst == FAT_OK)
		fst = fat_extents(&stick_fat, &f, s->block_size, ext, BOOTINFO_STICK_EXTENTS_MAX, runs);
	*why = fst == FAT_IO ? "a read of the boot partition failed" : stick_fat.why;
	if (fst == FAT_NOT_FOUND || fst == FAT_NOT_FILE) {
		status = BOOTINFO_STICK_NO_FILE;
	} else if (fst == FAT_TOO_MANY) {
		status = BOOTINFO_STICK_FRAGMENTED;
	} else if (fst == FAT_OK) {
		if (stick_extents_from_fat(ext, *runs, s->part_lba, s->part_blocks, s->block_size, s->extents) == 0) {
			s->file_bytes = f.size;
			s->nextents = *runs;
			status = BOOTINFO_STICK_OK;
		} else {
			*why = "the file's clusters are not aligned to the disk's blocks, or reach past the partition";
		}
	}
	BS->FreePages(bounce, STICK_BOUNCE_PAGES);
	return status;
}
