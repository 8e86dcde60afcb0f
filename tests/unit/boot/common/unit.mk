# tests/unit/boot/common/unit.mk - the loaders' common code (included by
# tests/unit/unit.mk): the memory map, the PVH command line, and the pieces
# of the disk the UEFI loader reads to find the USB stick's trace file
# (docs/usb-stick.md):
#   bootmap  boot/common/bootmap.c: sorting, overlaps, overlays, merging
#   bootcmdline  boot/common/bootcmdline.c: the PVH entry's command-line copy
#   fat   boot/common/fat.c, fat_dir.c against volumes made by mkfs.vfat
#         and mtools (FAT16/32, cluster and sector sizes, long names,
#         fragments, missing paths, damage), and stickext.c (the runs as
#         whole-disk extents)
#   gpt   boot/common/gpt.c against disks made by sgdisk
#   usbpath  boot/common/usbpath.c: the USB hops, LUN and partition of a
#         boot device path, on paths as OVMF and AMI firmware give them
#   diskid   boot/common/diskid.c: the stick's identity on MBR (sfdisk),
#         superfloppy (mkfs.vfat) and GPT (sgdisk) disks

UNIT_TESTS += $(addprefix tests/unit/boot/common/test_,bootmap.c bootcmdline.c fat.c gpt.c usbpath.c diskid.c)

unit_bootmap_SRCS := boot/common/bootmap.c
unit_bootcmdline_SRCS := boot/common/bootcmdline.c
unit_fat_SRCS := boot/common/fat.c boot/common/fat_dir.c boot/common/stickext.c
unit_gpt_SRCS := boot/common/gpt.c kernel/lib/codec/crc32.c
unit_usbpath_SRCS := boot/common/usbpath.c
unit_diskid_SRCS := boot/common/diskid.c boot/common/gpt.c kernel/lib/codec/crc32.c

$(BUILD)/tests/unit/boot/common/test_fat: boot/common/fat.h boot/common/stickext.h
$(BUILD)/tests/unit/boot/common/test_gpt: boot/common/gpt.h
$(BUILD)/tests/unit/boot/common/test_usbpath: boot/common/usbpath.h boot/bootinfo.h
$(BUILD)/tests/unit/boot/common/test_diskid: boot/common/diskid.h boot/common/gpt.h boot/bootinfo.h
