"""stickimage.py - the USB stick's disk image as the host sees it: where
\\kprof\\trace.bin lies (the ESP's boot sector and mshowfat's cluster runs),
its copy out of an image after a run, and whether anything outside it
changed (docs/usb-stick.md).

Used by tools/qemu.py (make run BOOT=usb) and the boot and tool tests.
Everything is read with mtools or parsed here from the FAT boot sector;
nothing uses the loader's own code (boot/common), so the tests that hold
the kernel's figures against these are independent of it.

Layout assumed (tools/image/mkimage.sh): the ESP at LBA 2048 (1 MiB), FAT32 with
512-byte sectors; or, on a stick without partition table (a "superfloppy":
LBA 0 is itself a FAT boot sector), the FAT volume from LBA 0.
"""

import os
import re
import struct
import subprocess

ESP_LBA = 2048
BLOCK = 512
ESP_OFFSET = ESP_LBA * BLOCK
TRACE = "::/kprof/trace.bin"  # mtools' name for \kprof\trace.bin on the ESP
TRACE_NAME = "\\kprof\\trace.bin"  # the same, as the loader and the kernel name it
ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1")


class StickError(Exception):
    """The image does not hold what the stick should."""


def esp_lba(img):
    """The FAT volume's first block: 0 when LBA 0 is a FAT boot sector (a
    jump instruction, "FAT" as the file system type, 0x55 0xAA: no
    partition table), else ESP_LBA."""
    with open(img, "rb") as f:
        b = f.read(512)
    fat = b[0] in (0xEB, 0xE9) and (b[82:85] == b"FAT" or b[54:57] == b"FAT") and b[510:512] == b"\x55\xaa"
    return 0 if fat else ESP_LBA


def esp(img):
    """mtools' name for the ESP inside the disk image."""
    return "%s@@%d" % (img, esp_lba(img) * BLOCK)


def mtools(*args):
    p = subprocess.run(list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=ENV)
    if p.returncode:
        raise StickError("%s: %s" % (" ".join(args[:1]), p.stdout.decode(errors="replace").strip()))
    return p.stdout.decode()


def trace_runs(img):
    """mshowfat's cluster runs of trace.bin: [(first, last), ...]; a run of
    one cluster is shown as <c>."""
    out = mtools("mshowfat", "-i", esp(img), TRACE)
    return [(int(a), int(b or a)) for a, b in re.findall(r"<(\d+)(?:-(\d+))?>", out)]


def trace_extents(img):
    """(size, [(lba, blocks), ...]): trace.bin's bytes and its runs as
    whole-disk 512-byte blocks, the last one cut at the file's end."""
    lba = esp_lba(img)
    with open(img, "rb") as f:
        f.seek(lba * BLOCK)
        bs = f.read(512)
    bps, spc, rsvd, nfats = struct.unpack_from("<HBHB", bs, 11)
    fatsz = struct.unpack_from("<I", bs, 36)[0]  # BPB_FATSz32
    if bps != BLOCK or struct.unpack_from("<H", bs, 22)[0]:
        raise StickError("%s: the ESP is not FAT32 with 512-byte sectors as tools/image/mkimage.sh makes it" % img)
    data = rsvd + nfats * fatsz                  # FAT32: no fixed root directory
    m = re.search(r"^trace\s+bin\s+(\d+)", mtools("mdir", "-i", esp(img), "::/kprof"), re.M)
    if not m:
        raise StickError("%s: no \\kprof\\trace.bin on the ESP" % img)
    size = int(m.group(1))
    left = -(-size // BLOCK)
    extents = []
    for first, last in trace_runs(img):
        blocks = min(left, (last - first + 1) * spc)
        extents.append((lba + data + (first - 2) * spc, blocks))
        left -= blocks
    return size, extents


def copy_trace_file(disk, dst):
    """Copy trace.bin out of disk into dst (sparse: runs of zeros become
    holes).  Returns (size, used): its bytes, and where its last non-zero
    byte ends (0: nothing was written to it)."""
    proc = subprocess.Popen(["mcopy", "-n", "-i", esp(disk), TRACE, "-"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    size = used = 0
    with open(dst, "wb") as f:
        while True:
            block = proc.stdout.read(1 << 20)
            if not block:
                break
            if block.count(0) == len(block):
                f.seek(len(block), os.SEEK_CUR)
            else:
                f.write(block)
                used = size + len(block.rstrip(b"\0"))
            size += len(block)
        f.truncate(size)
    err = proc.stderr.read().decode(errors="replace").strip()
    if proc.wait() != 0:
        os.unlink(dst)
        raise StickError("cannot copy %s out of the stick's image: %s" % (TRACE, err or "mcopy failed"))
    return size, used


def data_ranges(path):
    """The file's data (not hole) ranges, [(start, end), ...]."""
    out = []
    with open(path, "rb") as f:
        end, pos = os.fstat(f.fileno()).st_size, 0
        while pos < end:
            try:
                start = os.lseek(f.fileno(), pos, os.SEEK_DATA)
            except OSError:
                break
            stop = os.lseek(f.fileno(), start, os.SEEK_HOLE)
            out.append((start, stop))
            pos = stop
    return out


def merge(spans):
    """Sorted, overlapping or touching (start, end) ranges joined."""
    out = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def subtract(spans, holes):
    """The parts of the sorted, disjoint spans outside the sorted holes."""
    out = []
    for start, end in spans:
        for h0, h1 in holes:
            if h1 <= start or h0 >= end:
                continue
            if start < h0:
                out.append((start, h0))
            start = max(start, h1)
            if start >= end:
                break
        if start < end:
            out.append((start, end))
    return out


def changed_outside(before, after, extents, most=8):
    """Byte ranges, [(start, end), ...] (at most `most`), where the image
    `after` differs from `before` outside the extents [(lba, blocks)]: what
    the kernel must never touch.  Only the files' data ranges are read
    (elsewhere both are holes, all zeros)."""
    if os.path.getsize(before) != os.path.getsize(after):
        return [(min(os.path.getsize(before), os.path.getsize(after)),
                 max(os.path.getsize(before), os.path.getsize(after)))]
    holes = merge((lba * BLOCK, (lba + blocks) * BLOCK) for lba, blocks in extents)
    spans = subtract(merge(data_ranges(before) + data_ranges(after)), holes)
    diffs = []
    with open(before, "rb") as a, open(after, "rb") as b:
        for start, end in spans:
            for pos in range(start, end, 1 << 20):
                n = min(end - pos, 1 << 20)
                a.seek(pos)
                b.seek(pos)
                x, y = a.read(n), b.read(n)
                if x == y:
                    continue
                first = next(k for k in range(n) if x[k] != y[k])
                last = n - next(k for k in range(n) if x[n - 1 - k] != y[n - 1 - k])
                diffs = merge(diffs + [(pos + first, pos + last)])
                if len(diffs) >= most:
                    return diffs
    return diffs
