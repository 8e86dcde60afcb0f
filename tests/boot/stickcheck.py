"""stickcheck.py - what the boot tests know about the USB stick independently
of the loader: the disk's GUID and size (sgdisk), and the trace file's
sectors worked out from the ESP's boot sector and mshowfat's cluster runs
(tools/stickimage.py, docs/usb-stick.md), to hold against the kernel's
"stick:" line; and the changes to a run's copy of the image that the
refusal tests make.

Everything here reads the image with the standard tools (sgdisk, mtools)
or parses the FAT boot sector itself: none of it uses boot/common.
The tool tests (tests/tools/test_stick_*) use it too.
"""

import os
import re
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from stickimage import BLOCK, ESP_LBA, TRACE, esp, mtools, trace_extents, trace_runs  # noqa: E402


def image_facts(img):
    """{guid, blocks, size, extents: [(lba, blocks)]} for the image."""
    out = subprocess.run(["sgdisk", "-p", img], stdout=subprocess.PIPE, check=True).stdout.decode()
    guid = re.search(r"Disk identifier \(GUID\): (\S+)", out).group(1).lower()
    size, extents = trace_extents(img)
    return {"guid": guid, "blocks": os.path.getsize(img) // BLOCK, "size": size, "extents": extents}


def stick_line_pattern(ports):
    return (r"^stick: xHCI 0000:00:05\.0 port %s, disk GUID ([0-9a-f-]{36}), (\d+) blocks of 512 bytes, "
            r"trace file \\kprof\\trace\.bin (\d+) MiB in (\d+) extents?: (.*)$" % re.escape(" > ".join(ports)))


def frames(data):
    """The frames of a serial log whose header CRC holds, without the
    console text around them: the stream as the kernel writes it to the
    stick (docs/wire-format.md)."""
    out, pos = [], 0
    while True:
        at = data.find(b"\xfeKPF", pos)
        if at < 0 or at + 24 > len(data):
            return b"".join(out)
        length, hcrc = struct.unpack_from("<I", data, at + 12)[0], struct.unpack_from("<I", data, at + 20)[0]
        if zlib.crc32(data[at:at + 20]) != hcrc:
            pos = at + 1
            continue
        out.append(data[at:at + 24 + length])
        pos = at + 24 + length


def delete_trace_file(disk):
    mtools("mdel", "-i", esp(disk), TRACE)


def cut_trace_chain(disk, after=10):
    """End trace.bin's cluster chain in the first FAT after `after` clusters:
    the file's size then promises more than its chain holds (damage the
    loader must name).  OVMF never reads the file, so it still boots."""
    first = trace_runs(disk)[0][0]
    with open(disk, "r+b") as f:
        f.seek(ESP_LBA * BLOCK)
        rsvd = struct.unpack_from("<H", f.read(512), 14)[0]  # BPB_RsvdSecCnt
        f.seek((ESP_LBA + rsvd) * BLOCK + (first + after - 1) * 4)
        f.write(struct.pack("<I", 0x0FFFFFFF))


def clear_next_free(disk):
    """FSInfo's FSI_Nxt_Free to 'unknown': mtools then allocates from cluster 2."""
    with open(disk, "r+b") as f:
        f.seek(ESP_LBA * BLOCK)
        fsinfo = struct.unpack_from("<H", f.read(512), 48)[0]  # BPB_FSInfo
        f.seek((ESP_LBA + fsinfo) * BLOCK + 492)
        f.write(b"\xff\xff\xff\xff")


def fragment_trace_file(disk, pieces):
    """Replace trace.bin with a zero file of pieces + 1 runs: one-cluster
    files fill the space trace.bin left from its first cluster on, every
    other one is deleted, and the new file is written into the holes and
    on past them.  Returns the runs mshowfat sees."""
    delete_trace_file(disk)
    one, big = disk + ".one", disk + ".big"
    with open(one, "wb") as f:
        f.write(b"x" * 4096)
    with open(big, "wb") as f:
        f.truncate(4096 * (pieces + 64))
    names = ["::/kprof/f%03d.bin" % i for i in range(2 * pieces)]
    clear_next_free(disk)
    mtools("mcopy", "-i", esp(disk), one, *names[:1])
    for n in names[1:]:
        mtools("mcopy", "-i", esp(disk), one, n)
    mtools("mdel", "-i", esp(disk), *names[::2])
    clear_next_free(disk)
    mtools("mcopy", "-i", esp(disk), big, TRACE)
    os.unlink(one)
    os.unlink(big)
    return len(trace_runs(disk))


def shrink_trace_file(disk, kib):
    """Replace trace.bin with a zero file of kib KiB (a stick made with a
    tiny TRACE_FILE_MB): the run then records more than the file holds."""
    delete_trace_file(disk)
    small = disk + ".small"
    with open(small, "wb") as f:
        f.truncate(kib << 10)
    mtools("mcopy", "-i", esp(disk), small, TRACE)
    os.unlink(small)
