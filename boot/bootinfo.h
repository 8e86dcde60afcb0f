/*
 * bootinfo.h - the one ABI between a loader and the kernel.
 *
 * Two loaders fill this structure: the UEFI application in boot/uefi/ and
 * the PVH direct-boot entry in boot/pvh/.  The kernel reads nothing else
 * from either of them: no firmware tables are touched through loader
 * pointers except the ACPI RSDP, whose physical address is passed here.
 *
 * Hand-off contract (both loaders):
 *   - CPU in 64-bit long mode, CPL 0, interrupts disabled (RFLAGS.IF = 0),
 *     direction flag clear, CR4.PAE set, 4-level paging (no LA57).
 *   - The active page tables identity-map every physical range listed in
 *     mmap[] below max(4 GiB, highest mapped address), and map the kernel
 *     image at its link address KPROF_KERNEL_LINK_VA onwards to the physical
 *     pages starting at kernel_phys_base (2 MiB aligned).
 *   - %rdi holds the physical (identity-mapped) address of this structure;
 *     %rsp points to a usable, 16-byte aligned stack (the kernel switches to
 *     its own at once).
 *   - The kernel copies the structure before it replaces the page tables,
 *     so the loader's memory may be anything except KERNEL type.
 *
 * All fields are little-endian, fixed width, and laid out without implicit
 * padding; the _Static_asserts at the end check the layout at compile time
 * in both loaders and in the kernel.
 */
#ifndef KPROF_BOOT_BOOTINFO_H
#define KPROF_BOOT_BOOTINFO_H

#include <stdint.h>

#define BOOTINFO_MAGIC   0x4f4f42464f52504bULL /* "KPROFBOO" little-endian */
#define BOOTINFO_VERSION 4u /* 2: cmdline_refused; 3: stick; 4: stick LUN, table, identity */

/* The kernel's virtual link address (higher half) and the physical address
 * the PVH path loads it at.  A UEFI loader may place the image elsewhere
 * (any 2 MiB aligned address) and reports where in kernel_phys_base. */
#define KPROF_KERNEL_LINK_VA 0xFFFFFFFF80200000ULL
#define KPROF_KERNEL_LINK_PA 0x0000000000200000ULL

#define BOOTINFO_CMDLINE_MAX 1024 /* bytes, including the terminating NUL  */
#define BOOTINFO_MMAP_MAX    512  /* entries after merging adjacent ranges */
#define BOOTINFO_NAME_MAX    32

/* Who filled the structure. */
enum bootinfo_loader {
	BOOTINFO_LOADER_UEFI = 1, /* boot/uefi, after ExitBootServices()   */
	BOOTINFO_LOADER_PVH = 2,  /* boot/pvh, from the PVH start_info      */
};

/* Where the command line came from. */
enum bootinfo_cmdline_source {
	BOOTINFO_CMDLINE_NONE = 0,         /* empty: defaults apply          */
	BOOTINFO_CMDLINE_LOAD_OPTIONS = 1, /* UEFI LoadedImage LoadOptions   */
	BOOTINFO_CMDLINE_FILE = 2,         /* \kprof\cmdline.txt on the ESP  */
	BOOTINFO_CMDLINE_PVH = 3,          /* start_info cmdline (-append)   */
};

/* Memory types, E820-like so PVH maps across unchanged; UEFI types are
 * folded into these by the loader (boot services code/data and
 * conventional memory become USABLE after ExitBootServices). */
enum bootinfo_mem_type {
	BOOTINFO_MEM_USABLE = 1,       /* free RAM                            */
	BOOTINFO_MEM_RESERVED = 2,     /* never touch                         */
	BOOTINFO_MEM_ACPI_RECLAIM = 3, /* ACPI tables; RAM once parsed        */
	BOOTINFO_MEM_ACPI_NVS = 4,     /* firmware-owned across sleep         */
	BOOTINFO_MEM_BAD = 5,          /* failed memory                       */
	BOOTINFO_MEM_LOADER = 6,       /* loader data: bootinfo, page tables,
					* loader stack; free once copied      */
	BOOTINFO_MEM_KERNEL = 7,       /* the kernel image (text .. bss end)  */
	BOOTINFO_MEM_FIRMWARE = 8,     /* UEFI runtime services code/data     */
	BOOTINFO_MEM_MMIO = 9,         /* memory-mapped I/O reported by UEFI  */
	BOOTINFO_MEM_PERSISTENT = 10,  /* persistent memory                   */
};

struct bootinfo_mmap_entry {
	uint64_t base;   /* physical start, bytes                    */
	uint64_t length; /* bytes; entries are sorted and disjoint   */
	uint32_t type;   /* enum bootinfo_mem_type                   */
	uint32_t attr;   /* UEFI attribute bits 0..31 (0 under PVH)  */
};

/* Pixel layouts of a linear framebuffer. */
enum bootinfo_fb_format {
	BOOTINFO_FB_NONE = 0, /* no framebuffer                          */
	BOOTINFO_FB_RGBX = 1, /* byte 0 red, 1 green, 2 blue (32 bpp)    */
	BOOTINFO_FB_BGRX = 2, /* byte 0 blue, 1 green, 2 red (32 bpp)    */
};

struct bootinfo_framebuffer {
	uint64_t phys;        /* physical base of the linear framebuffer */
	uint64_t size;        /* bytes                                   */
	uint32_t width;       /* visible pixels per line                 */
	uint32_t height;      /* lines                                   */
	uint32_t pitch;       /* bytes per scan line                     */
	uint32_t format;      /* enum bootinfo_fb_format                 */
};

/* The USB stick the loader was started from and the trace file on it
 * (docs/usb-stick.md).  The loader fills it (boot/uefi); PVH leaves it
 * zero (status NONE).  The kernel writes the trace only inside extents[]
 * and the boot partition, and only after reading the disk's identity back
 * from the stick: the GPT disk GUID, or for MBR the disk signature, the
 * partition's start and size and the FAT volume serial number
 * (boot/common/diskid.h). */
#define BOOTINFO_STICK_PATH_MAX    6  /* root port + up to 5 hubs          */
#define BOOTINFO_STICK_EXTENTS_MAX 16 /* runs of the trace file            */
#define BOOTINFO_STICK_NAME_MAX    32

enum bootinfo_stick_status {
	BOOTINFO_STICK_NONE = 0,       /* not booted from USB (or PVH)        */
	BOOTINFO_STICK_OK = 1,         /* a USB stick with a usable trace file */
	BOOTINFO_STICK_NO_FILE = 2,    /* booted from USB, no \kprof\trace.bin */
	BOOTINFO_STICK_FRAGMENTED = 3, /* more than BOOTINFO_STICK_EXTENTS_MAX runs */
	BOOTINFO_STICK_UNSUPPORTED = 4,/* boot device is not xHCI USB mass storage */
	BOOTINFO_STICK_BAD_FS = 5,     /* the FAT could not be read or is damaged */
};

/* How the stick's disk is partitioned (and so identified). */
enum bootinfo_stick_table {
	BOOTINFO_STICK_TABLE_NONE = 0, /* not known (status not OK)            */
	BOOTINFO_STICK_TABLE_GPT = 1,  /* identity: disk_guid                  */
	BOOTINFO_STICK_TABLE_MBR = 2,  /* mbr_signature, part_*, volume_serial */
	BOOTINFO_STICK_TABLE_FAT = 3,  /* no table, the disk one FAT volume
					* ("superfloppy"): volume_serial       */
};

struct bootinfo_stick_extent {
	uint64_t lba;    /* first logical block of the run (whole disk)  */
	uint64_t blocks; /* logical blocks in the run                    */
};

struct bootinfo_stick {
	uint32_t status;          /* enum bootinfo_stick_status               */
	uint32_t block_size;      /* bytes per logical block (Block I/O)      */
	uint64_t disk_blocks;     /* the whole disk's size in blocks          */
	uint8_t disk_guid[16];    /* GPT header DiskGUID, bytes as on disk    */
	uint16_t pci_segment;     /* the xHCI controller's PCI location       */
	uint8_t pci_bus, pci_dev, pci_fn;
	uint8_t depth;            /* ports[] used; 1 = stick on a root port   */
	uint8_t ports[BOOTINFO_STICK_PATH_MAX]; /* 1-based: [0] root port,
					 * [i] port of hub i (device path
					 * USB(port) nodes are 0-based)       */
	uint32_t nextents;        /* valid entries in extents[]               */
	uint32_t reserved;        /* 0                                        */
	uint64_t file_bytes;      /* the trace file's size (extents cover it) */
	struct bootinfo_stick_extent extents[BOOTINFO_STICK_EXTENTS_MAX];
	char file_name[BOOTINFO_STICK_NAME_MAX]; /* e.g. "\\kprof\\trace.bin" */
	/* version >= 4 */
	uint8_t lun;              /* the LUN: a Unit(n) or Scsi(0,n) node
				   * after the USB hops, else 0            */
	uint8_t table;            /* enum bootinfo_stick_table             */
	uint16_t reserved2;       /* 0                                     */
	uint32_t mbr_signature;   /* MBR: the disk signature (LBA 0, 440)  */
	uint64_t part_lba;        /* the boot partition's first block and  */
	uint64_t part_blocks;     /* size (FAT: 0 and disk_blocks); every
				   * extent lies inside it                 */
	uint32_t volume_serial;   /* MBR, FAT: the FAT volume's BS_VolID   */
	uint32_t reserved3;       /* 0                                     */
};

struct bootinfo {
	uint64_t magic;            /* BOOTINFO_MAGIC                          */
	uint32_t version;          /* BOOTINFO_VERSION                        */
	uint32_t size;             /* sizeof(struct bootinfo)                 */
	uint32_t loader;           /* enum bootinfo_loader                    */
	uint32_t cmdline_source;   /* enum bootinfo_cmdline_source            */
	uint64_t kernel_phys_base; /* physical address of KPROF_KERNEL_LINK_VA */
	uint64_t kernel_phys_end;  /* end of the image including bss          */
	uint64_t rsdp_phys;        /* ACPI RSDP, 0 if none was found          */
	uint64_t loader_tsc;       /* TSC when the loader started (0 unknown) */
	uint64_t handoff_tsc;      /* TSC just before entering the kernel     */
	char loader_name[BOOTINFO_NAME_MAX]; /* e.g. "kprof-uefi 0.1", NUL-terminated */
	char cmdline[BOOTINFO_CMDLINE_MAX];  /* ASCII, NUL-terminated          */
	struct bootinfo_framebuffer fb;      /* format NONE when absent        */
	uint32_t mmap_count;       /* valid entries in mmap[]                 */
	uint32_t mmap_dropped;     /* entries that did not fit (should be 0)  */
	struct bootinfo_mmap_entry mmap[BOOTINFO_MMAP_MAX];
	uint32_t cmdline_refused;  /* a loader that cannot refuse on its own  */
	                           /* (PVH): the length of a command line     */
	                           /* longer than BOOTINFO_CMDLINE_MAX - 1,   */
	                           /* whose cmdline[] is then empty; the      */
	                           /* kernel ends the run as a loader failure */
	                           /* (the UEFI loader refuses it itself); 0  */
	uint32_t reserved;         /* 0                                       */
	struct bootinfo_stick stick; /* version >= 3                          */
};

/* Compile-time layout checks shared by every user of the ABI. */
_Static_assert(sizeof(struct bootinfo_mmap_entry) == 24, "mmap entry size");
_Static_assert(sizeof(struct bootinfo_framebuffer) == 32, "framebuffer size");
_Static_assert(__builtin_offsetof(struct bootinfo, kernel_phys_base) == 24, "bootinfo layout");
_Static_assert(__builtin_offsetof(struct bootinfo, loader_name) == 64, "bootinfo layout");
_Static_assert(__builtin_offsetof(struct bootinfo, cmdline) == 96, "bootinfo layout");
_Static_assert(__builtin_offsetof(struct bootinfo, fb) == 96 + BOOTINFO_CMDLINE_MAX, "bootinfo layout");
_Static_assert(__builtin_offsetof(struct bootinfo, mmap) == 96 + BOOTINFO_CMDLINE_MAX + 40, "bootinfo layout");
_Static_assert(sizeof(struct bootinfo_stick) == 64 + 16 * BOOTINFO_STICK_EXTENTS_MAX + BOOTINFO_STICK_NAME_MAX + 32,
	       "bootinfo stick size");
_Static_assert(__builtin_offsetof(struct bootinfo_stick, lun) == 64 + 16 * BOOTINFO_STICK_EXTENTS_MAX +
		       BOOTINFO_STICK_NAME_MAX, "bootinfo stick layout");
_Static_assert(__builtin_offsetof(struct bootinfo_stick, part_lba) ==
		       __builtin_offsetof(struct bootinfo_stick, lun) + 8, "bootinfo stick layout");
_Static_assert(sizeof(struct bootinfo) ==
		       96 + BOOTINFO_CMDLINE_MAX + 40 + 24 * BOOTINFO_MMAP_MAX + 8 + sizeof(struct bootinfo_stick),
	       "bootinfo size");

#endif /* KPROF_BOOT_BOOTINFO_H */
