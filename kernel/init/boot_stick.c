/*
 * boot_stick.c - the kernel's copy of bootinfo->stick and its boot line
 * (boot_stick.h), e.g.
 *   stick: xHCI 0000:00:03.0 port 5 > 1, disk GUID 6f0c...-..., 2097152
 *   blocks of 512 bytes, trace file \kprof\trace.bin 256 MiB in 1 extent:
 *   LBA 4144 (524288 blocks)
 * (an MBR stick: "MBR disk signature 0x..., partition at LBA 2048 (...
 * blocks), FAT volume serial 1a2b-3c4d" for the disk GUID; a LUN other
 * than 0 as "port 1 LUN 1").
 * The loader checked everything it could (boot/uefi/stick.c) and said why
 * it refused; this line repeats its verdict where the kernel log has it.
 */
#include "kernel/init/boot_stick.h"

#include "boot/common/diskid.h"
#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"

static struct bootinfo_stick stick; /* written once, before SMP */

const struct bootinfo_stick *boot_stick(void)
{
	return &stick;
}

const char *boot_stick_status_name(uint32_t status)
{
	switch (status) {
	case BOOTINFO_STICK_NONE: return "none";
	case BOOTINFO_STICK_OK: return "ok";
	case BOOTINFO_STICK_NO_FILE: return "no usable trace file";
	case BOOTINFO_STICK_FRAGMENTED: return "the trace file is in too many pieces";
	case BOOTINFO_STICK_UNSUPPORTED: return "not a stick kprof can write to";
	case BOOTINFO_STICK_BAD_FS: return "its file system could not be read";
	}
	return "unknown status";
}

/* "xHCI 0000:00:03.0 port 5 > 1" into buf. */
static size_t stick_where(char *buf, size_t size)
{
	size_t n = (size_t)ksnprintf(buf, size, "xHCI %04x:%02x:%02x.%u port ", stick.pci_segment, stick.pci_bus,
				     stick.pci_dev, stick.pci_fn);
	for (unsigned i = 0; i < stick.depth && i < BOOTINFO_STICK_PATH_MAX && n < size; i++)
		n += (size_t)ksnprintf(buf + n, size - n, i ? " > %u" : "%u", stick.ports[i]);
	if (stick.lun && n < size)
		n += (size_t)ksnprintf(buf + n, size - n, " LUN %u", stick.lun);
	return n < size ? n : size - 1;
}

static void stick_extents(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < stick.nextents && i < BOOTINFO_STICK_EXTENTS_MAX && n < size; i++)
		n += (size_t)ksnprintf(buf + n, size - n, "%sLBA %llu (%llu blocks)", i ? ", " : "",
				       (unsigned long long)stick.extents[i].lba,
				       (unsigned long long)stick.extents[i].blocks);
}

void boot_stick_init(const struct bootinfo *bi)
{
	struct disk_identity ident;
	char where[64], id[128], ext[BOOTINFO_STICK_EXTENTS_MAX * 48], size[32];

	memcpy(&stick, &bi->stick, sizeof(stick));
	stick.file_name[BOOTINFO_STICK_NAME_MAX - 1] = '\0';
	if (stick.status == BOOTINFO_STICK_NONE) {
		kprintf("stick: none (not booted from a USB stick): the trace goes to the serial port only\n");
		return;
	}
	if (stick.status == BOOTINFO_STICK_UNSUPPORTED) { /* where it is may not be known */
		kprintf("stick: booted from USB, but %s; the trace goes to the serial port only (the loader said "
			"why)\n", boot_stick_status_name(stick.status));
		return;
	}
	stick_where(where, sizeof(where));
	if (stick.status != BOOTINFO_STICK_OK) {
		kprintf("stick: %s: %s; the trace goes to the serial port only (the loader said why)\n", where,
			boot_stick_status_name(stick.status));
		return;
	}
	diskid_from_stick(&stick, &ident);
	diskid_format(&ident, id, sizeof(id));
	stick_extents(ext, sizeof(ext));
	if (stick.file_bytes % (1 << 20))
		ksnprintf(size, sizeof(size), "%llu bytes", (unsigned long long)stick.file_bytes);
	else
		ksnprintf(size, sizeof(size), "%llu MiB", (unsigned long long)(stick.file_bytes >> 20));
	kprintf("stick: %s, %s, %llu blocks of %u bytes, trace file %s %s in %u extent%s: %s\n", where,
		id, (unsigned long long)stick.disk_blocks, stick.block_size, stick.file_name, size,
		stick.nextents, stick.nextents == 1 ? "" : "s", ext);
}
