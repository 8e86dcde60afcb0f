/*
 * stick.c - bootinfo->stick: is the loader running from a USB stick the
 * kernel can write its trace to, and where on it (docs/usb-stick.md)?
 *
 *   1. the boot device's path (LoadedImage->DeviceHandle): PCI controller,
 *      USB(port) hops, the LUN (Unit/Scsi node), partition (HD node, none
 *      on a superfloppy) (boot/common/usbpath.c); no USB hop means
 *      another disk: status NONE, nothing more to do;
 *   2. the controller is xHCI (PCI class 0x0C0330), else UNSUPPORTED;
 *   3. the whole disk: block size and count, and its identity
 *      (boot/common/diskid.c): the GPT DiskGUID (header checked), or the
 *      MBR disk signature, the partition's entry and the FAT volume serial;
 *   4. \kprof\trace.bin: present (Simple File System), and its clusters
 *      from the FAT itself (boot/common/fat.c over Block I/O), as at most
 *      BOOTINFO_STICK_EXTENTS_MAX runs of whole-disk LBAs.
 * bootinfo is zeroed when allocated (ldr_alloc_pages), so every field not
 * reached stays 0.  Every refusal is one console line saying what is wrong
 * and what to do; the run always goes on, the trace on serial only.
 */
#include "boot/uefi/stick.h"

/* "5 > 1": the port chain, root port first. */
static void stick_ports(const struct bootinfo_stick *s, CHAR16 *out, UINTN size)
{
	UINTN n = 0;

	out[0] = 0;
	for (unsigned i = 0; i < s->depth && n + 8 < size; i++) {
		if (i)
			n += SPrint(out + n, (size - n) * sizeof(CHAR16), L" > ");
		n += SPrint(out + n, (size - n) * sizeof(CHAR16), L"%d", (UINT32)s->ports[i]);
	}
}

static void stick_refuse(struct bootinfo_stick *s, uint32_t status, const CHAR16 *fmt, ...)
{
	va_list ap;

	s->status = status;
	Print(L"kprof-uefi: stick: ");
	va_start(ap, fmt);
	VPrint(fmt, ap);
	va_end(ap);
	Print(L"; the trace goes to the serial port only\n");
}

static void stick_report(const struct bootinfo_stick *s, const struct disk_identity *id)
{
	CHAR16 ports[48], lun[16];
	char text[128];

	stick_ports(s, ports, sizeof(ports) / sizeof(ports[0]));
	lun[0] = 0;
	if (s->lun)
		SPrint(lun, sizeof(lun), L" LUN %d", (UINT32)s->lun);
	diskid_format(id, text, sizeof(text));
	ldr_info(L"stick: xHCI %04x:%02x:%02x.%d port %s%s, %ld blocks of %d bytes, %a",
		 (UINT32)s->pci_segment, (UINT32)s->pci_bus, (UINT32)s->pci_dev, (UINT32)s->pci_fn, ports, lun,
		 s->disk_blocks, s->block_size, text);
	ldr_info(L"stick: %a: %ld bytes in %d extent%s", s->file_name, s->file_bytes, s->nextents,
		 s->nextents == 1 ? L"" : L"s");
	for (uint32_t i = 0; i < s->nextents; i++)
		ldr_info(L"stick:   LBA %ld, %ld blocks", s->extents[i].lba, s->extents[i].blocks);
}

/* Steps 3 and 4, once the stick is known to be on xHCI. */
static void stick_file(struct ldr_ctx *ctx, EFI_DEVICE_PATH *dp, const struct usbpath *p)
{
	struct bootinfo_stick *s = &ctx->bi->stick;
	struct disk_identity id;
	enum diskid_status dst;
	const char *why;
	uint32_t st, runs;
	UINT64 size = 0;

	st = ldr_stick_disk(dp, p, s, &id, &dst);
	if (st != BOOTINFO_STICK_OK) {
		if (dst == DISKID_BAD_GPT)
			stick_refuse(s, st, L"%a: %a; kprof finds its stick by the GPT disk GUID (or the MBR disk "
				     L"signature, partition and FAT volume serial): check the stick or write the image "
				     L"made by make image to it", diskid_status_name(dst), gpt_status_name(id.gpt));
		else if (dst != DISKID_IO)
			stick_refuse(s, st, L"the %a disk: %a; kprof finds its stick by the GPT disk GUID, or the MBR "
				     L"disk signature, partition and FAT volume serial: check the stick or write the "
				     L"image made by make image to it", diskid_table_name(id.table),
				     diskid_status_name(dst));
		else
			stick_refuse(s, st, L"the stick's whole-disk Block I/O cannot be read (block size %d)",
				     s->block_size);
		return;
	}
	if (ldr_file_stat(ctx, STICK_TRACE_PATH, &size) == EFI_NOT_FOUND) {
		stick_refuse(s, BOOTINFO_STICK_NO_FILE, L"no %s on the stick: rebuild the image with make image "
			     L"(docs/usb-stick.md says how to make the file by hand)", STICK_TRACE_PATH);
		return;
	}
	st = ldr_stick_extents(ctx->loaded_image->DeviceHandle, STICK_TRACE_PATH, s, &runs, &why);
	if (st == BOOTINFO_STICK_OK && s->file_bytes != size) {
		st = BOOTINFO_STICK_BAD_FS;
		why = "the directory entry and the firmware disagree on the file's size";
	}
	if (st == BOOTINFO_STICK_OK && s->file_bytes < s->block_size)
		st = BOOTINFO_STICK_NO_FILE, why = "the file is empty";
	switch (st) {
	case BOOTINFO_STICK_OK:
		s->status = BOOTINFO_STICK_OK;
		stick_report(s, &id);
		return;
	case BOOTINFO_STICK_FRAGMENTED:
		stick_refuse(s, st, L"%s is in %d pieces, more than the %d the kernel accepts: rebuild the image "
			     L"with make image, or delete the file and copy a zero-filled one of the same size "
			     L"onto the stick first, before any other file", STICK_TRACE_PATH, runs,
			     BOOTINFO_STICK_EXTENTS_MAX);
		break;
	case BOOTINFO_STICK_NO_FILE:
		stick_refuse(s, st, L"%s on the stick cannot hold a trace (%a): rebuild the image with make image",
			     STICK_TRACE_PATH, why);
		break;
	default:
		stick_refuse(s, st, L"the boot partition's FAT cannot be read: %a; check the stick (fsck.vfat, "
			     L"chkdsk) or rebuild the image with make image", why);
		break;
	}
	s->nextents = 0; /* nothing the kernel may write to */
}

void ldr_stick_find(struct ldr_ctx *ctx)
{
	struct bootinfo_stick *s = &ctx->bi->stick;
	EFI_DEVICE_PATH *dp = DevicePathFromHandle(ctx->loaded_image->DeviceHandle);
	enum usbpath_result r;
	struct usbpath p;
	uint32_t class_code = 0;
	static const char name[] = "\\kprof\\trace.bin";

	_Static_assert(sizeof(name) <= sizeof(s->file_name), "trace file name");
	CopyMem(s->file_name, (void *)name, sizeof(name));
	if (!dp) {
		ldr_info(L"stick: the boot device has no device path: the trace goes to the serial port only");
		return;
	}
	r = usbpath_parse((const uint8_t *)dp, DevicePathSize(dp), &p);
	if (r == USBPATH_NOT_USB) {
		ldr_info(L"stick: booted from a disk, not a USB stick: the trace goes to the serial port only");
		return;
	}
	if (r != USBPATH_USB) {
		stick_refuse(s, BOOTINFO_STICK_UNSUPPORTED, L"the boot device is %a (device path %s): kprof writes "
			     L"the trace only to a USB mass-storage stick on an xHCI controller, through at most %d "
			     L"hubs", usbpath_result_name(r), DevicePathToStr(dp), BOOTINFO_STICK_PATH_MAX - 1);
		return;
	}
	s->depth = p.depth;
	CopyMem(s->ports, p.ports, sizeof(s->ports));
	s->lun = p.lun;
	if (ldr_stick_pci(dp, s, &class_code) != BOOTINFO_STICK_OK) {
		if (!class_code)
			stick_refuse(s, BOOTINFO_STICK_UNSUPPORTED, L"the stick's USB controller has no PCI I/O "
				     L"protocol (device path %s): kprof drives only PCI xHCI controllers",
				     DevicePathToStr(dp));
		else
			stick_refuse(s, BOOTINFO_STICK_UNSUPPORTED, L"the stick's USB controller at %02x:%02x.%d has "
				     L"PCI class 0x%06x, not xHCI (0x0c0330): plug the stick into a USB 3 port, or "
				     L"enable xHCI in the firmware setup", (UINT32)s->pci_bus, (UINT32)s->pci_dev,
				     (UINT32)s->pci_fn, class_code);
		return;
	}
	stick_file(ctx, dp, &p);
}
