"""stickcheck.py - what the boot tests know about the USB stick independently
of the loader: the disk's identity (GPT: its GUID by sgdisk; MBR: the disk
signature, partition start and size by sfdisk, the FAT volume serial by
minfo) and size, and the trace file's sectors worked out from the ESP's
boot sector and mshowfat's cluster runs (tools/image/stickimage.py,
docs/usb-stick.md), to hold against the loader's and the kernel's "stick:"
lines; and the changes to a run's copy of the image that the refusal and
MBR tests make.

Everything here reads the image with the standard tools (sgdisk, sfdisk,
mtools) or parses the FAT boot sector itself: none of it uses boot/common.
The tool tests (tests/tools/test_stick_*) use it too.
"""

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "image"))
from stickimage import BLOCK, TRACE, esp, esp_lba, mtools, trace_extents, trace_runs  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


SFDISK = [shutil.which("sfdisk") or "/usr/sbin/sfdisk"]


def image_facts(img):
    """{identity, blocks, size, extents: [(lba, blocks)]} for the image;
    identity as the loader and the kernel print it: "disk GUID <guid>" for
    GPT (sfdisk), "MBR disk signature 0x<8 hex>, partition at LBA <n> (<n>
    blocks), FAT volume serial <4 hex>-<4 hex>" for MBR (sfdisk, minfo),
    "FAT volume serial <4 hex>-<4 hex> (no partition table)" for a stick
    without partition table (minfo)."""
    def serial():
        s = re.search(r"serial number: ([0-9A-F]{8})", mtools("minfo", "-i", esp(img))).group(1).lower()
        return "%s-%s" % (s[:4], s[4:])

    if esp_lba(img) == 0:
        size, extents = trace_extents(img)
        return {"identity": "FAT volume serial %s (no partition table)" % serial(),
                "blocks": os.path.getsize(img) // BLOCK, "size": size, "extents": extents}
    dump = subprocess.run(SFDISK + ["-J", img], stdout=subprocess.PIPE, check=True).stdout.decode()
    table = json.loads(dump)["partitiontable"]
    if table["label"] == "gpt":
        identity = "disk GUID " + table["id"].lower()
    else:
        part = table["partitions"][0]
        identity = "MBR disk signature 0x%08x, partition at LBA %d (%d blocks), FAT volume serial %s" % (
            int(table["id"], 16), part["start"], part["size"], serial())
    size, extents = trace_extents(img)
    return {"identity": identity, "blocks": os.path.getsize(img) // BLOCK, "size": size, "extents": extents}


def stick_line_pattern(ports):
    return (r"^stick: xHCI 0000:00:05\.0 port %s, (disk GUID [0-9a-f-]{36}|(?:MBR disk signature .*, )?FAT volume "
            r"serial [0-9a-f]{4}-[0-9a-f]{4}(?: \(no partition table\))?), (\d+) blocks of 512 bytes, "
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
        f.seek(esp_lba(disk) * BLOCK)
        rsvd = struct.unpack_from("<H", f.read(512), 14)[0]  # BPB_RsvdSecCnt
        f.seek((esp_lba(disk) + rsvd) * BLOCK + (first + after - 1) * 4)
        f.write(struct.pack("<I", 0x0FFFFFFF))


def clear_next_free(disk):
    """FSInfo's FSI_Nxt_Free to 'unknown': mtools then allocates from cluster 2."""
    with open(disk, "r+b") as f:
        f.seek(esp_lba(disk) * BLOCK)
        fsinfo = struct.unpack_from("<H", f.read(512), 48)[0]  # BPB_FSInfo
        f.seek((esp_lba(disk) + fsinfo) * BLOCK + 492)
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


class Remade:
    """A boot test's prepare_disk that rebuilds the run's copy of the stick
    (remake(disk)) and keeps its facts (image_facts) for the checks: the
    copy is gone when they run."""

    def __init__(self, remake):
        self.remake, self.facts = remake, None

    def __call__(self, disk):
        self.facts = None
        self.remake(disk)
        self.facts = image_facts(disk)


def stick_files(disk, into):
    """Copy the loader, the kernel and the command line out of the stick's
    image into the folder into; returns their paths."""
    names = {"loader": "::/EFI/BOOT/BOOTX64.EFI", "kernel": "::/kprof/kernel.elf", "cmdline": "::/kprof/cmdline.txt"}
    out = {}
    for key, name in names.items():
        out[key] = os.path.join(into, key)
        mtools("mcopy", "-n", "-i", esp(disk), name, out[key])
    return out


def remake_as_mbr(disk):
    """The stick rebuilt by tools/image/mkimage.sh with an MBR (IMAGE_TABLE=mbr)
    from the same files: the loader, the kernel, this run's command line
    and a trace file of the same size."""
    size, _ = trace_extents(disk)
    files = stick_files(disk, os.path.dirname(disk))
    subprocess.run(["sh", os.path.join(ROOT, "tools", "image", "mkimage.sh"), disk, files["loader"], files["kernel"],
                    str(size >> 20), "", "mbr"], check=True, stdout=subprocess.DEVNULL)
    mtools("mcopy", "-o", "-i", esp(disk), files["cmdline"], "::/kprof/cmdline.txt")


def remake_superfloppy(disk):
    """The stick as a FAT32 file system on the whole disk, no partition
    table (mkfs.vfat on the disk; some sticks come so): the same files, the
    trace file first (the by-hand steps of docs/usb-stick.md)."""
    fill_by_hand(disk, table=False)


def remake_by_hand(disk):
    """The stick as docs/usb-stick.md's "make the file by hand" recipe
    leaves one bought in a shop: an MBR disk (sfdisk: a random disk
    signature, one FAT32 LBA partition, type 0x0c, at 1 MiB) formatted
    FAT32 by mkfs.vfat with its defaults (a random volume serial, its own
    cluster size), then, on the empty file system, the zero-filled
    \\kprof\\trace.bin first, then the loader, the kernel and the command
    line; check-trace-file.sh must find the file in one piece."""
    fill_by_hand(disk, table=True)


def fill_by_hand(disk, table):
    size, _ = trace_extents(disk)
    work = os.path.dirname(disk)
    files = stick_files(disk, work)
    blocks = os.path.getsize(disk) // BLOCK
    os.unlink(disk)
    with open(disk, "wb") as f:
        f.truncate(blocks * BLOCK)
    if table:
        subprocess.run(SFDISK + ["-q", disk], input=b"label: dos\nstart=2048, type=c\n", check=True)
        subprocess.run(["mkfs.vfat", "-F", "32", "--offset", "2048", disk, str((blocks - 2048) // 2)], check=True,
                       stdout=subprocess.DEVNULL)
    else:
        subprocess.run(["mkfs.vfat", "-F", "32", disk], check=True, stdout=subprocess.DEVNULL)
    trace = os.path.join(work, "trace.bin")
    with open(trace, "wb") as f:
        f.truncate(size)  # truncate -s 256M trace.bin
    mtools("mmd", "-i", esp(disk), "::/kprof")
    mtools("mcopy", "-i", esp(disk), trace, TRACE)
    mtools("mmd", "-i", esp(disk), "::/EFI", "::/EFI/BOOT")
    mtools("mcopy", "-i", esp(disk), files["loader"], "::/EFI/BOOT/BOOTX64.EFI")
    mtools("mcopy", "-i", esp(disk), files["kernel"], "::/kprof/kernel.elf")
    mtools("mcopy", "-i", esp(disk), files["cmdline"], "::/kprof/cmdline.txt")
    subprocess.run(["sh", os.path.join(ROOT, "tools", "image", "check-trace-file.sh"), esp(disk)], check=True,
                   stdout=subprocess.DEVNULL)
