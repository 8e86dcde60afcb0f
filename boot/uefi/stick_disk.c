/*
 * stick_disk.c - what the loader reads of the USB stick it was started
 * from, through the firmware and read-only (stick.c puts it together):
 *   - the xHCI controller's PCI location and class code (PCI I/O);
 *   - the whole disk's Block I/O: block size, size, and its GPT header
 *     (LBA 1) for the DiskGUID the kernel checks before it writes;
 *   - the partition's Block I/O, under the FAT walker (boot/common/fat.c),
 *     for the trace file's extents as whole-disk LBAs.
 * Nothing here writes to any device.  Every function returns a
 * bootinfo_stick_status and prints nothing: stick.c says what is wrong.
 */
#include "boot/uefi/loader.h"
#include "boot/uefi/stick.h"
#include "boot/common/fat.h"
#include "boot/common/gpt.h"
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

/* The whole disk: the boot device's path cut before its HD node. */
uint32_t ldr_stick_disk(EFI_DEVICE_PATH *dp, const struct usbpath *p, struct bootinfo_stick *s,
			enum gpt_status *gst)
{
	uint8_t *path = NULL, *blk = NULL;
	EFI_DEVICE_PATH *rest;
	EFI_BLOCK_IO *bio;
	struct gpt_header_info h;
	EFI_HANDLE disk;
	uint32_t status = BOOTINFO_STICK_BAD_FS;

	*gst = GPT_OK;
	if (EFI_ERROR(BS->AllocatePool(EfiLoaderData, p->hd_offset + 4, (void **)&path)))
		return BOOTINFO_STICK_BAD_FS;
	CopyMem(path, dp, p->hd_offset);
	path[p->hd_offset] = END_DEVICE_PATH_TYPE;
	path[p->hd_offset + 1] = END_ENTIRE_DEVICE_PATH_SUBTYPE;
	path[p->hd_offset + 2] = 4;
	path[p->hd_offset + 3] = 0;
	rest = (EFI_DEVICE_PATH *)path;
	if (EFI_ERROR(BS->LocateDevicePath(&gEfiBlockIoProtocolGuid, &rest, &disk)) || !IsDevicePathEnd(rest) ||
	    EFI_ERROR(BS->HandleProtocol(disk, &gEfiBlockIoProtocolGuid, (void **)&bio)) ||
	    bio->Media->LogicalPartition || !bio->Media->MediaPresent)
		goto out;
	s->block_size = bio->Media->BlockSize;
	s->disk_blocks = bio->Media->LastBlock + 1;
	if (s->block_size < 512 || s->block_size > LDR_PAGE_SIZE || (s->block_size & (s->block_size - 1)))
		goto out;
	if (EFI_ERROR(BS->AllocatePool(EfiLoaderData, s->block_size, (void **)&blk)) ||
	    EFI_ERROR(bio->ReadBlocks(bio, bio->Media->MediaId, GPT_HEADER_LBA, s->block_size, blk)))
		goto out;
	*gst = gpt_header_check(blk, s->block_size, &h);
	if (*gst == GPT_OK) {
		CopyMem(s->disk_guid, h.DiskGUID, sizeof(s->disk_guid));
		status = BOOTINFO_STICK_OK;
	} else {
		status = *gst == GPT_NO_SIGNATURE ? BOOTINFO_STICK_UNSUPPORTED : BOOTINFO_STICK_BAD_FS;
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
uint32_t ldr_stick_extents(EFI_HANDLE part, const struct usbpath *p, const CHAR16 *path,
			   struct bootinfo_stick *s, uint32_t *runs, const char **why)
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
		if (stick_extents_from_fat(ext, *runs, p->partition_start, s->block_size, s->extents) == 0) {
			s->file_bytes = f.size;
			s->nextents = *runs;
			status = BOOTINFO_STICK_OK;
		} else {
			*why = "the file's clusters are not aligned to the disk's blocks";
		}
	}
	BS->FreePages(bounce, STICK_BOUNCE_PAGES);
	return status;
}
