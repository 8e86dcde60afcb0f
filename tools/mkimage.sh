#!/bin/sh
# mkimage.sh IMAGE LOADER.efi KERNEL.elf [CMDLINE]
#
# Builds a GPT disk image with one EFI System Partition, without root or
# loop devices: sgdisk writes the partition table, mkfs.vfat formats the
# partition as a separate file, mtools fills it, and dd places it in the
# disk at the partition's offset.  The image boots in QEMU (OVMF) and,
# written to a USB stick with dd, on a real UEFI PC.
#
# ESP contents:
#   EFI/BOOT/BOOTX64.EFI   the kprof loader (the removable-media boot path)
#   kprof/kernel.elf       the kernel
#   kprof/cmdline.txt      the kernel command line (edit it on any PC)
set -eu

img=$1 loader=$2 kernel=$3 cmdline=${4:-}
disk_mib=64
part_start=2048        # sectors: 1 MiB
part_sectors=$(( (disk_mib - 2) * 2048 ))   # leave room for the backup GPT

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

truncate -s ${disk_mib}M "$tmp/disk.img"
sgdisk --clear --new=1:${part_start}:+${part_sectors} --typecode=1:EF00 \
	--change-name=1:"kprof ESP" "$tmp/disk.img" >/dev/null

truncate -s $(( part_sectors * 512 )) "$tmp/esp.img"
mkfs.vfat -F 32 -S 512 -s 1 -n KPROF "$tmp/esp.img" >/dev/null
export MTOOLS_SKIP_CHECK=1
mmd -i "$tmp/esp.img" ::/EFI ::/EFI/BOOT ::/kprof
mcopy -i "$tmp/esp.img" "$loader" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$tmp/esp.img" "$kernel" ::/kprof/kernel.elf
{
	echo "# kprof kernel command line: key=value words (docs/cmdline.md lists the keys)."
	echo "# Lines starting with # are ignored; the rest are joined with spaces."
	echo "$cmdline"
} > "$tmp/cmdline.txt"
mcopy -i "$tmp/esp.img" "$tmp/cmdline.txt" ::/kprof/cmdline.txt

dd if="$tmp/esp.img" of="$tmp/disk.img" bs=512 seek=$part_start conv=notrunc,sparse status=none
mv "$tmp/disk.img" "$img"
echo "image: $img (${disk_mib} MiB, GPT, EFI System Partition at 1 MiB)"
