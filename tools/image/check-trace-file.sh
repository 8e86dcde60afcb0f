#!/bin/sh
# check-trace-file.sh ESP - is \kprof\trace.bin on this FAT file system one
# contiguous run of clusters, as the kernel needs to write the trace into
# it (docs/usb-stick.md)?
#
# ESP is what mtools takes after -i: a file system image, a disk image with
# @@OFFSET (the ESP of build/kprof.img is build/kprof.img@@1M), or a device
# (/dev/sdX1: a stick's ESP, read-only).  Prints the file's cluster run and
# exits 0, or says what is wrong and what to do and exits 1.  make image
# runs it on every image it builds; the UEFI loader checks the same on the
# stick at every boot.
set -u
esp=$1
export MTOOLS_SKIP_CHECK=1
if ! chain=$(mshowfat -i "$esp" ::/kprof/trace.bin 2>&1); then
	printf 'check-trace-file: no %s in %s (%s): make image puts it there\n' '\kprof\trace.bin' "$esp" "$chain" >&2
	exit 1
fi
# "::/kprof/trace.bin <292-65827>": one <first-last> group is one run (a
# run of one cluster is "<c>").
runs=$(echo "$chain" | grep -o '<[0-9-]*>' | wc -l)
if [ "$runs" -ne 1 ]; then
	printf 'check-trace-file: %s in %s is in %s pieces, not one: the kernel could write it only\n' \
		'\kprof\trace.bin' "$esp" "$runs" >&2
	printf 'check-trace-file: in pieces; rebuild the image with make image, or delete the file and copy\n' >&2
	printf 'check-trace-file: a zero-filled one of the same size onto an empty file system first.\n' >&2
	exit 1
fi
echo "$chain" | grep -o '<[0-9-]*>'
