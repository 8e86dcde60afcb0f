#!/bin/sh
# mkimage.sh IMAGE LOADER.efi KERNEL.elf [TRACE_FILE_MB] [CMDLINE] [TABLE]
#
# Builds a disk image with one EFI System Partition, without root or loop
# devices: sgdisk writes the partition table (TABLE gpt, the default), or
# sfdisk an MBR with one FAT32 (LBA) partition, type 0x0c, as shops sell
# sticks (TABLE mbr); mkfs.vfat formats the partition as a separate file,
# mtools fills it, and dd places it in the disk at the partition's
# offset.  The image boots in QEMU (OVMF) and, written to a USB stick
# with dd, on a real UEFI PC.  Either way the partition starts at LBA
# 2048 (1 MiB) and has the same size.
#
# ESP contents (docs/usb-stick.md):
#   EFI/BOOT/BOOTX64.EFI   the kprof loader (the removable-media boot path)
#   kprof/kernel.elf       the kernel
#   kprof/cmdline.txt      the kernel command line (edit it on any PC)
#   kprof/trace.bin        TRACE_FILE_MB MiB of zeros (default 256), the space
#                          the kernel writes the trace into on a USB boot
#
# Invariants:
#   - trace.bin is one contiguous run of clusters: it is copied into the
#     freshly formatted file system before anything else, and
#     check-trace-file.sh (mshowfat) proves it (the build fails otherwise);
#   - the ESP is FAT32 with at least 65,525 clusters of 4 KiB (so every
#     reader agrees it is FAT32), which is why the disk is at least 1 GiB;
#     a bigger trace file grows the disk to fit;
#   - the image file is sparse: the zeros of trace.bin take no space.
set -eu

img=$1 loader=$2 kernel=$3 trace_mb=${4:-256} cmdline=${5:-} table=${6:-gpt}

bad_size() {
	echo "mkimage: TRACE_FILE_MB=$trace_mb: expected a whole number of MiB from 1 to 4095" \
		"(a FAT32 file is under 4 GiB)" >&2
	exit 1
}
case "$trace_mb" in
'' | *[!0-9]*) bad_size ;;
esac
[ "$trace_mb" -ge 1 ] && [ "$trace_mb" -le 4095 ] || bad_size
case "$table" in
gpt | mbr) ;;
*) echo "mkimage: IMAGE_TABLE=$table: expected gpt or mbr" >&2; exit 1 ;;
esac

cluster_sectors=8                         # 4 KiB clusters
min_clusters=65525                        # FAT32 by the specification's rule
# 1 GiB, or the trace file plus 128 MiB for the FATs, the loader, the
# kernel and the user's own files, rounded up to a whole 256 MiB.
disk_mib=$(( trace_mb + 128 ))
disk_mib=$(( (disk_mib + 255) / 256 * 256 ))
[ "$disk_mib" -ge 1024 ] || disk_mib=1024
part_start=2048                           # sectors: 1 MiB
part_sectors=$(( (disk_mib - 2) * 2048 )) # leave room for the backup GPT (MBR: the same)
clusters=$(( part_sectors / cluster_sectors ))
if [ "$clusters" -lt "$min_clusters" ]; then
	echo "mkimage: internal error: ${clusters} clusters is too few for FAT32 (need ${min_clusters})" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

truncate -s ${disk_mib}M "$tmp/disk.img"
if [ "$table" = gpt ]; then
	sgdisk --clear --new=1:${part_start}:+${part_sectors} --typecode=1:EF00 \
		--change-name=1:"kprof ESP" "$tmp/disk.img" >/dev/null
else
	# sfdisk picks a random disk signature (label-id), as Windows does.
	printf 'label: dos\nstart=%s, size=%s, type=c\n' "$part_start" "$part_sectors" |
		PATH="$PATH:/sbin:/usr/sbin" sfdisk -q "$tmp/disk.img"
fi

truncate -s $(( part_sectors * 512 )) "$tmp/esp.img"
mkfs.vfat -F 32 -S 512 -s $cluster_sectors -n KPROF "$tmp/esp.img" >/dev/null
export MTOOLS_SKIP_CHECK=1
mmd -i "$tmp/esp.img" ::/EFI ::/EFI/BOOT ::/kprof
# The trace file first, into the empty data region: one run of clusters.
truncate -s ${trace_mb}M "$tmp/trace.bin"
mcopy -i "$tmp/esp.img" "$tmp/trace.bin" ::/kprof/trace.bin
mcopy -i "$tmp/esp.img" "$loader" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$tmp/esp.img" "$kernel" ::/kprof/kernel.elf
{
	echo "# kprof kernel command line: key=value words (docs/cmdline.md lists the keys)."
	echo "# Lines starting with # are ignored; the rest are joined with spaces."
	echo "$cmdline"
} > "$tmp/cmdline.txt"
mcopy -i "$tmp/esp.img" "$tmp/cmdline.txt" ::/kprof/cmdline.txt

trace_run=$(sh "$(dirname "$0")/check-trace-file.sh" "$tmp/esp.img") || exit 1

dd if="$tmp/esp.img" of="$tmp/disk.img" bs=1M seek=$(( part_start / 2048 )) conv=notrunc,sparse status=none
mv "$tmp/disk.img" "$img"
printf 'image: %s (%s MiB sparse, %s, EFI System Partition at 1 MiB, %s %s MiB in clusters %s)\n' \
	"$img" "$disk_mib" "$(echo "$table" | tr a-z A-Z)" '\kprof\trace.bin' "$trace_mb" "$trace_run"
