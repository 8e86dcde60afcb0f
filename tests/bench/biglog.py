#!/usr/bin/env python3
"""biglog.py - make a big, valid kprof serial log from a real one.

The host-tool bench (tool_bench.py) needs a log of tens of millions of
records; a kernel run writing that much over serial takes hours.  This
script replicates the chunk frames of a real version-2 log (raw chunks,
encoding 0, as `trace.compress=off` sends them) until the log holds at
least --records records, keeping the wire format valid (docs/wire-format.md):

  - copy k of the run is shifted in time by k times the run's span: every
    record's TimeStamp and the absolute TSC fields of its payload
    (SpinLock AcquireTime/ReleaseTime, Resource AcquireTime, StackWalk
    EventTimeStamp, KprofClockLate DueTime, KprofSmiCount StartTime,
    KprofRecordsLost FirstLossTime) - the fields trace_delta.c names, plus
    the two kprof records that carry a TSC outside its chunks' rules;
  - per CPU, frame sequence numbers and sub-buffer numbers go on from copy
    to copy, and the CPU end frames count every chunk, record and byte;
  - the run header, run info frames and console text come once, from the
    first copy; the run-level sequence is renumbered; the run end's
    end_tsc is the last copy's;
  - every frame's CRCs are computed anew.

So `kprof check --strict` passes on the result (the bench checks it).  The
run's threads, locks and stacks repeat in every copy: per-object state
stays that of the source run while the record count grows, as in a long
run of the same workload.

usage: biglog.py SOURCE.log OUT.log [--records N]
"""
import argparse
import struct
import sys
import zlib

MAGIC = 0x46504BFE
HDR = struct.Struct("<IBBHIIII")
T_HEADER, T_CPU_END, T_RUN_END, T_CHUNK, T_RUN_INFO = 1, 3, 4, 5, 6

# HookId -> record offsets of absolute TSC values besides TimeStamp.
TSC_FIELDS = {
    0x0529: (32, 40),   # SpinLock AcquireTime, ReleaseTime (Size >= 48)
    0x052B: (16,),      # Resource AcquireTime
    0x1820: (16,),      # StackWalk EventTimeStamp
    0xFE02: (16,),      # KprofClockLate DueTime
    0xFE0B: (16,),      # KprofSmiCount StartTime
    0xFE06: (16,),      # KprofRecordsLost FirstLossTime
}


def frames(data):
    """Yields (text_before, type, cpu, seq, payload) for each valid frame."""
    pos = last = 0
    while True:
        pos = data.find(b"\xfeKPF", pos)
        if pos < 0 or pos + 24 > len(data):
            break
        magic, ver, typ, cpu, seq, length, pcrc, hcrc = HDR.unpack_from(data, pos)
        payload = data[pos + 24:pos + 24 + length]
        if zlib.crc32(data[pos:pos + 20]) != hcrc or len(payload) < length or zlib.crc32(payload) != pcrc:
            pos += 1
            continue
        if ver != 2:
            sys.exit("biglog.py: only version 2 logs are replicated (frame at %d is version %d)" % (pos, ver))
        yield data[last:pos], typ, cpu, seq, payload
        pos = last = pos + 24 + length
    yield data[last:], None, None, None, None


def frame(typ, cpu, seq, payload):
    head = struct.pack("<IBBHIII", MAGIC, 2, typ, cpu, seq, len(payload), zlib.crc32(payload))
    return head + struct.pack("<I", zlib.crc32(head)) + payload


def tsc_slots(payload):
    """Offsets (in the chunk payload) and values of its absolute TSC fields."""
    if payload[12] != 0:
        sys.exit("biglog.py: compressed chunk in the source: use a log of trace.compress=off")
    slots, off = [], 16
    while off + 16 <= len(payload):
        marker, size, hook = struct.unpack_from("<IHH", payload, off)
        if marker >> 16 != 0xC011 or size < 16 or off + size > len(payload):
            break
        for f in (8,) + TSC_FIELDS.get(hook, ()):
            if f + 8 <= size:
                slots.append((off + f, struct.unpack_from("<Q", payload, off + f)[0]))
        off += (size + 7) & ~7
    return slots


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source")
    ap.add_argument("out")
    ap.add_argument("--records", type=int, default=20_000_000)
    a = ap.parse_args()
    data = open(a.source, "rb").read()
    head_items, chunks, cpu_ends, run_end, tail_text = [], [], {}, None, b""
    for text, typ, cpu, seq, payload in frames(data):
        if typ is None:
            tail_text = text
        elif typ == T_CHUNK:
            head_items.append((text, None))
            chunks.append((cpu, payload, tsc_slots(payload)))
        elif typ == T_CPU_END:
            cpu_ends[cpu] = (text, bytearray(payload))
        elif typ == T_RUN_END:
            run_end = (text, bytearray(payload))
        else:
            head_items.append((text, (typ, cpu, payload)))
    if not chunks or not cpu_ends or run_end is None:
        sys.exit("biglog.py: %s: no chunks, CPU end or run end frames: not a whole run" % a.source)
    per_copy = sum(struct.unpack_from("<H", p, 8)[0] for _, p, _ in chunks)
    copies = -(-a.records // per_copy)
    stamps = [v for _, _, s in chunks for _, v in s]
    span = max(stamps) - min(stamps) + 1000
    nchunks = {c: 0 for c in cpu_ends}
    nbufs = {c: 0 for c in cpu_ends}
    for cpu, p, _ in chunks:
        nchunks[cpu] += 1
        nbufs[cpu] = max(nbufs[cpu], struct.unpack_from("<I", p, 4)[0] + 1)

    out = open(a.out, "wb")
    seq = {c: 0 for c in cpu_ends}
    run_seq = 0
    pack_q = struct.Struct("<Q").pack_into
    pack_i = struct.Struct("<I").pack_into
    for k in range(copies):
        shift = k * span
        parts, it = [], iter(chunks)
        for text, f in head_items:
            if k == 0:
                parts.append(text)
            if f is not None:
                if k == 0:
                    parts.append(frame(f[0], f[1], run_seq, f[2]))
                    run_seq += 1
                continue
            cpu, p, slots = next(it)
            b = bytearray(p)
            for off, v in slots:
                pack_q(b, off, (v + shift) & 0xFFFFFFFFFFFFFFFF)
            pack_i(b, 4, struct.unpack_from("<I", p, 4)[0] + k * nbufs[cpu])
            parts.append(frame(T_CHUNK, cpu, seq[cpu], bytes(b)))
            seq[cpu] += 1
        out.write(b"".join(parts))
    last_shift = (copies - 1) * span
    for cpu, (text, p) in sorted(cpu_ends.items()):
        chunks_sent, records, nbytes = struct.unpack_from("<IQQ", p, 4)
        struct.pack_into("<IQQ", p, 4, chunks_sent * copies, records * copies, nbytes * copies)
        out.write(text + frame(T_CPU_END, cpu, seq[cpu], bytes(p)))
    text, p = run_end
    struct.pack_into("<Q", p, 8, struct.unpack_from("<Q", p, 8)[0] + last_shift)
    out.write(text + frame(T_RUN_END, 0xFFFF, run_seq, bytes(p)) + tail_text)
    out.close()
    print("biglog.py: %s: %d copies of %s, %d records" % (a.out, copies, a.source, copies * per_copy))


if __name__ == "__main__":
    main()
