#!/usr/bin/python3
"""etl_symbols.py KPROF LOG KERNEL_ELF [--quiet] - resolve the kernel
addresses of `kprof etl LOG --kernel KERNEL_ELF` the way WPA, xperf and
TraceEvent do, and hold every answer against addr2line on the ELF.

The ETL, the PDB and the PE image beside it are each read by a tool other
than kprof's writer:
  - the ETL: tests/tools/etl_reader.py's framing and decoding (the Image
    DCStart v3 event, every SampledProfile InstructionPointer and every
    StackWalk frame), the ImageID / DbgID_RSDS payloads decoded here from
    the layouts of TraceEvent's SymbolTraceEventParser (microsoft/perfview);
  - the PDB: llvm-pdbutil dump --summary --section-headers --publics;
  - the PE image the PDB was linked with: objdump -p (binutils);
  - the kernel: readelf -lW and addr2line -f -i (binutils; the outermost
    function of an inline chain, as a PDB of publics can only name that).

A reader of the ETL pairs the image's DbgID_RSDS (GUID, age, PDB name) with
the PDB, then names an address A inside [ImageBase, ImageBase + ImageSize)
of the Image event as the PDB public with the greatest offset at or below
RVA - VirtualAddress of the PDB section holding RVA = A - ImageBase.
Checks:
  image      one Image DCStart; its ImageBase, ImageSize, ImageChecksum and
             TimeDateStamp are the PE's ImageBase, SizeOfImage, CheckSum
             and Time/Date; ImageID has the same base, size and TimeDateStamp,
             DbgID_RSDS the same base; the CheckSum is the one PE's rule
             gives for the file (recomputed here); KernelBase is ImageBase;
  pdb        DbgID_RSDS's GUID, age and PDB name are the PDB's and the PE's
             CodeView record's;
  covers     the image is the kernel's: from its link address
             KPROF_KERNEL_LINK_VA (boot/bootinfo.h) to the end of its last
             loaded byte (PT_LOAD, bss included), page-rounded; and ImageSize
             covers every PDB section;
  names      for every SampledProfile IP and StackWalk frame in the higher
             half that addr2line puts in a kernel function: inside the image,
             and the public found there is that function (a public
             "name[file.c]" or "name@0x.." is that function) - 100%; one
             that addr2line puts in no function (code outside the kernel's
             image) is named by no public either; at least one IP and one
             frame in kernel functions.
"""

import os
import re
import struct
import subprocess
import sys
import tempfile
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import etl_reader  # noqa: E402

IMAGE_ID_CLASS = uuid.UUID("b3e675d7-2554-4f18-830b-2762732560de")
OP_IMAGEID, OP_RSDS = 0x00, 0x24
HOOK_IMAGE_DCSTART, HOOK_KERNEL_BASE = 0x1403, 0x1421
HIGHER_HALF = 0xFFFF800000000000


def image_id_events(etl):
    """The classic events of the ImageID class, in file order, decoded."""
    evs = []
    for b in etl.buffers:
        for _, raw in b.classic:
            size, htype, flags, opcode, level, version, tid, pid, ts = struct.unpack_from("<HBBBBHIIQ", raw, 0)
            if uuid.UUID(bytes_le=bytes(raw[0x18:0x28])) != IMAGE_ID_CLASS:
                continue
            evs.append(dict(size=size, htype=htype, flags=flags, opcode=opcode, level=level, version=version,
                            tid=tid, pid=pid, ts=ts, payload=bytes(raw[0x30:size]), cpu=b.cpu))
    return evs


def pdb_dump(pdb):
    """(sections [(name, rva, vsize)] by number from 1, publics {section: [(offset, name)]} sorted,
    GUID, age) from llvm-pdbutil."""
    out = subprocess.run(["llvm-pdbutil", "dump", "--summary", "--section-headers", "--publics", pdb],
                         capture_output=True, text=True, check=True).stdout
    sections = [(m.group(2), int(m.group(4), 16), int(m.group(3), 16)) for m in re.finditer(
        r"SECTION HEADER #(\d+)\n\s+(\S+) name\n\s+([0-9A-F]+) virtual size\n\s+([0-9A-F]+) virtual address", out)]
    publics = {}
    for m in re.finditer(r"S_PUB32 \[size = \d+\] `(.*)`\n\s+flags = [^,]*, addr = (\d+):(\d+)", out):
        publics.setdefault(int(m.group(2)), []).append((int(m.group(3)), m.group(1)))
    for p in publics.values():
        p.sort()
    guid = uuid.UUID(re.search(r"GUID: \{([0-9A-F-]+)\}", out).group(1))
    age = int(re.search(r"^\s+Age: (\d+)", out, re.M).group(1))
    return sections, publics, guid, age


def pe_headers(path):
    """What objdump -p says of the PE: ImageBase, SizeOfImage, CheckSum, Time/Date, and the CodeView
    record's GUID (as stored), age and PDB name."""
    out = subprocess.run(["objdump", "-p", path], capture_output=True, text=True, check=True).stdout

    def hexfield(name):
        return int(re.search(r"^%s\s+([0-9a-f]+)" % re.escape(name), out, re.M).group(1), 16)
    cv = re.search(r"\(format RSDS signature ([0-9a-f]{32}) age (\d+) pdb (.*)\)", out)
    return dict(base=hexfield("ImageBase"), size=hexfield("SizeOfImage"), checksum=hexfield("CheckSum"),
                timestamp=hexfield("Time/Date"), guid=uuid.UUID(hex=cv.group(1)),
                age=int(cv.group(2)), pdb=cv.group(3))


def pe_checksum(path):
    """The PE checksum of the file (CheckSumMappedFile's rule): 16-bit words summed with the carry
    folded in, the CheckSum field counted as 0, plus the file's length."""
    with open(path, "rb") as f:
        d = bytearray(f.read())
    n = len(d)
    field = struct.unpack_from("<I", d, 0x3C)[0] + 24 + 64
    d[field:field + 4] = b"\0\0\0\0"
    if len(d) % 2:
        d.append(0)
    s = 0
    for (w,) in struct.iter_unpack("<H", d):
        s += w
        s = (s & 0xFFFF) + (s >> 16)
    return s + n


def kernel_image(kernel):
    """(base, size) of the kernel image: KPROF_KERNEL_LINK_VA (boot/bootinfo.h) up to the end of the last
    PT_LOAD at or above it (bss included, from readelf), rounded up to 4 KiB."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "boot", "bootinfo.h")) as f:
        base = int(re.search(r"#define KPROF_KERNEL_LINK_VA (0x[0-9A-Fa-f]+)", f.read()).group(1), 16)
    out = subprocess.run(["readelf", "-lW", kernel], capture_output=True, text=True, check=True).stdout
    end = max(int(m.group(1), 16) + int(m.group(2), 16) for m in re.finditer(
        r"^\s+LOAD\s+0x[0-9a-f]+ (0x[0-9a-f]+) 0x[0-9a-f]+ 0x[0-9a-f]+ (0x[0-9a-f]+)", out, re.M)
        if int(m.group(1), 16) >= base)
    return base, (end - base + 0xFFF) & ~0xFFF


def addr2line(kernel, addrs):
    """{address: function} from addr2line -f -i -a (one process for all): the outermost function of the
    inline chain, the one whose code the address is in (inlined functions have no code of their own, and a
    PDB of publics names the function that holds them)."""
    out = subprocess.run(["addr2line", "-f", "-i", "-a", "-e", kernel],
                         input="".join("0x%x\n" % a for a in sorted(addrs)), capture_output=True, text=True,
                         check=True).stdout.splitlines()
    named, i = {}, 0
    while i < len(out):
        addr, i = int(out[i], 16), i + 1
        while i < len(out) and not re.fullmatch(r"0x[0-9a-f]+", out[i]):
            named[addr], i = out[i], i + 2     # function, file:line; the last function is the outermost
    return named


def resolve(addr, base, size, sections, publics):
    """The PDB public naming addr as WPA finds it, or None."""
    if not base <= addr < base + size:
        return None
    rva = addr - base
    for number, (_, va, vsize) in enumerate(sections, 1):
        if va <= rva < va + vsize:
            best = None
            for off, name in publics.get(number, []):
                if off > rva - va:
                    break
                best = name
            return best
    return None


# GCC's names for the copies it makes of a function (a clone specialised
# for constant arguments, a part split off, its cold path): the symbol
# table, and so the PDB (and perf), names them so; addr2line names the
# source function.
GCC_CLONE = r"(?:\.(?:constprop|isra|part|cold|lto_priv)(?:\.\d+)?)+"


def same_function(public, function):
    """Does the PDB's answer agree with addr2line's?  addr2line's "??" (no function: an address outside the
    kernel's code) agrees only with no public; a GCC clone of the function (delete_objects.constprop.0)
    agrees with it."""
    if function == "??":
        return public is None
    return public is not None and (
        public == function or public.startswith(function + "[") or public.startswith(function + "@0x")
        or re.fullmatch(re.escape(function) + GCC_CLONE + r"(?:\[.*|@0x.*)?", public) is not None)


def kernel_addresses(etl):
    """(sample IPs, stack frames) in the higher half, with repeats, from etl_reader."""
    ips, frames = [], []
    for r in etl.records():
        if r.event_name() == "SampledProfile":
            ips.append(r.fields()["InstructionPointer"])
        elif r.event_name() == "StackWalk":
            frames.extend(r.fields()["Stack"])
    as_int = [[a if isinstance(a, int) else int(a, 16) for a in x] for x in (ips, frames)]
    return [[a for a in x if a >= HIGHER_HALF] for x in as_int]


def check_files(etl_path, pdb, image, kernel):
    """Problems of an ETL, its PDB and image, against KERNEL; and the figures found."""
    problems = []
    etl = etl_reader.read_etl(etl_path)
    dcstart = [r.fields() for r in etl.records() if r.hook == HOOK_IMAGE_DCSTART]
    kbase = [r.fields() for r in etl.records() if r.hook == HOOK_KERNEL_BASE]
    evs = image_id_events(etl)
    if len(dcstart) != 1 or [e["opcode"] for e in evs] != [OP_IMAGEID, OP_RSDS]:
        return ["want one Image DCStart, one ImageID and one DbgID_RSDS: %d Image DCStart, opcodes %s" %
                (len(dcstart), [e["opcode"] for e in evs])], {}
    im = dcstart[0]
    base = im["ImageBase"] if isinstance(im["ImageBase"], int) else int(im["ImageBase"], 16)
    size = im["ImageSize"]
    sections, publics, guid, age = pdb_dump(pdb)
    pe = pe_headers(image) if os.path.exists(image) else None
    got = (base, size, im["ImageChecksum"], im["TimeDateStamp"])
    want = (pe["base"], pe["size"], pe["checksum"], pe["timestamp"]) if pe else None
    if not pe:
        problems.append("no PE image %s beside the PDB, so ImageChecksum and TimeDateStamp cannot be held against "
                        "the image the PDB was linked with" % os.path.basename(image))
    elif got != want:
        problems.append("Image DCStart (ImageBase, ImageSize, ImageChecksum, TimeDateStamp) %s, the PE's "
                        "(ImageBase, SizeOfImage, CheckSum, Time/Date) %s" % tuple(
                            "(%s)" % ", ".join("0x%x" % v for v in t) for t in (got, want)))
    elif pe["checksum"] == 0 or pe["checksum"] != pe_checksum(image):
        problems.append("the PE's CheckSum 0x%x is not its file's, 0x%x" % (pe["checksum"], pe_checksum(image)))
    kb = [k["ImageBase"] if isinstance(k["ImageBase"], int) else int(k["ImageBase"], 16) for k in kbase]
    if kb != [base]:
        problems.append("KernelBase %s, not the Image's 0x%x" % (["0x%x" % k for k in kb], base))
    ib, isz, _, its = struct.unpack_from("<QQII", evs[0]["payload"], 0)
    if (ib, isz, its) != (base, size, im["TimeDateStamp"]):
        problems.append("ImageID (base, size, TimeDateStamp) (0x%x, 0x%x, 0x%x), the Image's (0x%x, 0x%x, 0x%x)" %
                        (ib, isz, its, base, size, im["TimeDateStamp"]))
    rsds = evs[1]["payload"]
    rb = struct.unpack_from("<Q", rsds, 0)[0]
    rguid, rage = uuid.UUID(bytes_le=rsds[0x0C:0x1C]), struct.unpack_from("<I", rsds, 0x1C)[0]
    rname = rsds[0x20:].rstrip(b"\0").decode()
    if rb != base:
        problems.append("DbgID_RSDS ImageBase 0x%x, the Image's 0x%x" % (rb, base))
    if (rguid, rage, rname) != (guid, age, os.path.basename(pdb)) or pe and (rguid, rage, rname) != (
            pe["guid"], pe["age"], pe["pdb"]):
        problems.append("DbgID_RSDS (%s, %d, %s), the PDB (%s, %d, %s), the PE's CodeView %s" % (
            rguid, rage, rname, guid, age, os.path.basename(pdb), pe and (str(pe["guid"]), pe["age"], pe["pdb"])))
    if (base, size) != kernel_image(kernel) or any(va + vsize > size for _, va, vsize in sections):
        problems.append("Image 0x%x + 0x%x: not the kernel's 0x%x + 0x%x (its link address to the end of its last "
                        "loaded byte), or short of the PDB's sections %s" % (
                            base, size, *kernel_image(kernel), [(n, hex(va), hex(vs)) for n, va, vs in sections]))
    ips, frames = kernel_addresses(etl)
    named = addr2line(kernel, set(ips) | set(frames))
    figures = dict(samples=len(ips), frames=len(frames), addresses=len(named), base=base, size=size)
    for what, addrs in (("SampledProfile IP", ips), ("StackWalk frame", frames)):
        wrong = {a for a in set(addrs) if not same_function(resolve(a, base, size, sections, publics), named[a])}
        kernel_ones = [a for a in addrs if named[a] != "??"]
        figures[what] = (sum(1 for a in kernel_ones if a not in wrong), len(kernel_ones), len(addrs) - len(kernel_ones))
        if wrong:
            problems.append("%d of %d %ss named otherwise than addr2line, e.g. %s" % (
                sum(1 for a in addrs if a in wrong), len(addrs), what, ", ".join(
                    "0x%x: PDB %s, addr2line %s" % (a, resolve(a, base, size, sections, publics), named[a])
                    for a in sorted(wrong)[:3])))
    if not figures["SampledProfile IP"][1] or not figures["StackWalk frame"][1]:
        problems.append("nothing to resolve: %d sample IPs, %d stack frames in the kernel's functions" % (
            figures["SampledProfile IP"][1], figures["StackWalk frame"][1]))
    return problems, figures


def check(kprof, log, kernel, quiet=False):
    """Export LOG with --kernel KERNEL into a temporary directory and check it; the problems."""
    with tempfile.TemporaryDirectory() as tmp:
        etl_path = os.path.join(tmp, "trace.etl")
        stem = os.path.splitext(os.path.basename(kernel))[0]
        p = subprocess.run([kprof, "etl", log, "--kernel", kernel, "-o", etl_path, "--quiet"],
                           capture_output=True, text=True)
        pdb, image = os.path.join(tmp, stem + ".pdb"), os.path.join(tmp, stem + ".dll")
        if p.returncode != 0 or not os.path.exists(pdb):
            return ["kprof etl --kernel: exit %d, no PDB %s: %s" % (p.returncode, os.path.basename(pdb),
                                                                    p.stderr.strip()[-300:])]
        problems, figures = check_files(etl_path, pdb, image, kernel)
    if not quiet and figures:
        print("  image 0x%x + 0x%x; of %d sample IPs and %d stack frames (%d addresses) in the higher half, named "
              "through the PDB as addr2line names them: IPs %d of %d in kernel functions (%d outside both), "
              "frames %d of %d (%d outside both)" % (
                  figures["base"], figures["size"], figures["samples"], figures["frames"], figures["addresses"],
                  *figures["SampledProfile IP"], *figures["StackWalk frame"]))
    return problems


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 3:
        print(__doc__.splitlines()[0])
        sys.exit(2)
    found = check(*args, quiet="--quiet" in sys.argv)
    for line in found:
        print("  FAIL " + line)
    sys.exit(1 if found else 0)
