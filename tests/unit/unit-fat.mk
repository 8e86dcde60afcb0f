# unit-fat.mk - the pieces of the disk the UEFI loader reads to find the
# USB stick's trace file (docs/usb-stick.md):
#   fat   boot/common/fat.c, fat_dir.c against volumes made by mkfs.vfat
#         and mtools (FAT16/32, cluster and sector sizes, long names,
#         fragments, missing paths, damage), and stickext.c (the runs as
#         whole-disk extents)
#   gpt   boot/common/gpt.c against disks made by sgdisk
#   usbpath  boot/common/usbpath.c: the USB hops, LUN and partition of a
#         boot device path, on paths as OVMF and AMI firmware give them
#   diskid   boot/common/diskid.c: the stick's identity on MBR (sfdisk),
#         superfloppy (mkfs.vfat) and GPT (sgdisk) disks

unit_fat_SRCS := boot/common/fat.c boot/common/fat_dir.c boot/common/stickext.c
unit_gpt_SRCS := boot/common/gpt.c kernel/lib/codec/crc32.c
unit_usbpath_SRCS := boot/common/usbpath.c
unit_diskid_SRCS := boot/common/diskid.c boot/common/gpt.c kernel/lib/codec/crc32.c

$(BUILD)/tests/unit/test_fat: boot/common/fat.h boot/common/stickext.h
$(BUILD)/tests/unit/test_gpt: boot/common/gpt.h
$(BUILD)/tests/unit/test_usbpath: boot/common/usbpath.h boot/bootinfo.h
$(BUILD)/tests/unit/test_diskid: boot/common/diskid.h boot/common/gpt.h boot/bootinfo.h

UNIT_NAMES += fat gpt usbpath diskid
