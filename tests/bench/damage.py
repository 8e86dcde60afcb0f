#!/usr/bin/python3
"""damage.py KPROF LOG [--chunk N ...] [--rates R,...] - what link damage costs a real log.

For each kind of damage (tests/tools/damagelib.py: bit flips; dropped,
inserted and duplicated runs of 1-16 bytes) at 1, 4, 16 and 64 events per
MiB, over a few seeds: the share of the log's records the decoder still
decodes correctly ("kept"), next to the share of records whose own bytes
the damage did not touch ("untouched", the best any decoder could do), and
any record decoded that the undamaged log does not have ("wrong", must be
0).  Also wire bytes per record byte.

--chunk N re-cuts the log's v2 chunks at N record bytes first (the same
rule as kernel/trace/out/chunk.c), to compare chunk sizes on the same records
(console text is left out of the re-cut log; compressed chunks are
decoded and re-cut raw).  --rates picks the rates.  On a compressed log
(encoding 1 or 2) a compressed chunk's whole block counts as the bytes of each
of its records: damage anywhere in it costs them all.
"""
import argparse
import os
import struct
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import damagelib  # noqa: E402

RATES = (1, 4, 16, 64)
SEEDS = 3
CHUNK, CPU_END = 5, 3


def frame(ver, typ, cpu, seq, payload):
    h = struct.pack("<IBBHIII", 0x46504BFE, ver, typ, cpu, seq, len(payload), zlib.crc32(payload))
    return h + struct.pack("<I", zlib.crc32(h)) + payload


def rechunk(raw, limit):
    """The log's frames with every sub-buffer's chunks cut again at `limit`."""
    out, seqs, pending = bytearray(), {}, {}

    def emit(cpu, typ, payload):
        seq = seqs.get(cpu, 0)
        seqs[cpu] = seq + 1
        out.extend(frame(2, typ, cpu, seq, payload))

    def flush(cpu):
        if cpu not in pending:
            return
        hdr, recs, flags = pending.pop(cpu)
        off, spans = 0, []
        while off + 16 <= len(recs):
            size = struct.unpack_from("<H", recs, off + 4)[0]
            spans.append((off, off + ((size + 7) & ~7)))
            off += (size + 7) & ~7
        i = 0
        while True:
            j, start = i, spans[i][0] if i < len(spans) else 0
            while j < len(spans) and (j == i or spans[j][1] - start <= limit):
                j += 1
            last = j >= len(spans)
            body = recs[start:spans[j - 1][1]] if j > i else b""
            f = (flags & 4 if i == 0 else 0) | (flags & 3 if last else 0)
            run_id, bseq = struct.unpack_from("<II", hdr, 0)
            emit(cpu, CHUNK, struct.pack("<IIHHB3x", run_id, bseq, j - i, f, 0) + body)
            if last:
                return
            i = j

    for pos, ver, typ, cpu, seq, payload in damagelib.frames(raw):
        if typ == CHUNK:
            run_id, bseq, nrec, flags = struct.unpack_from("<IIHH", payload, 0)
            p = pending.setdefault(cpu, [payload[:16], bytearray(), 0])
            p[1] += damagelib.chunk_records_raw(payload)  # encoding 1, 2: decoded, re-cut raw
            p[2] |= flags
            if flags & 1:
                flush(cpu)
            continue
        if typ == CPU_END:
            flush(cpu)
            payload = payload[:4] + struct.pack("<I", seqs.get(cpu, 0)) + payload[8:]
        if cpu == 0xFFFF:
            out.extend(frame(ver, typ, cpu, seq, payload))
        else:
            emit(cpu, typ, payload)
    return bytes(out)


def wire_ratio(raw):
    wire = rec = 0
    for pos, ver, typ, cpu, seq, payload in damagelib.frames(raw):
        wire += 24 + len(payload)
    for pos, ver, typ, cpu, seq, payload in damagelib.frames(raw):
        if typ == CHUNK:
            recs = damagelib.chunk_records_raw(payload) or b""
            off = 0
            while off + 16 <= len(recs):
                size = struct.unpack_from("<H", recs, off + 4)[0]
                if size < 16 or off + size > len(recs):
                    break
                rec += size
                off += (size + 7) & ~7
    return wire / rec, wire, rec


def run(kprof, raw, label, rates):
    tmp = tempfile.mkdtemp()
    base = os.path.join(tmp, "base.log")
    open(base, "wb").write(raw)
    good, _ = damagelib.decode(kprof, base)
    total = sum(good.values())
    spans = damagelib.record_spans(raw)
    ratio, wire, rec = wire_ratio(raw)
    print("bench damage: %s: %d records, %d bytes; wire bytes per record byte %.3f" % (label, total, len(raw), ratio))
    print("  %-7s %6s %9s %11s %6s" % ("damage", "per MiB", "kept %", "untouched %", "wrong"))
    for kind in damagelib.KINDS:
        for rate in rates:
            kept = untouched = wrong = 0
            for seed in range(SEEDS):
                bad, events = damagelib.damage(raw, kind, rate, seed)
                path = os.path.join(tmp, "bad.log")
                open(path, "wb").write(bad)
                got, _ = damagelib.decode(kprof, path)
                k, w = damagelib.compare(good, got)
                kept += k
                wrong += w
                untouched += damagelib.untouched(spans, events, kind)
            print("  %-7s %6d %9.2f %11.2f %6d" % (kind, rate, 100.0 * kept / (SEEDS * total),
                                                  100.0 * untouched / (SEEDS * len(spans)), wrong))
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kprof")
    p.add_argument("log")
    p.add_argument("--chunk", type=int, action="append", default=[])
    p.add_argument("--rates", default=",".join(str(r) for r in RATES))
    a = p.parse_args()
    raw = open(a.log, "rb").read()
    rates = [int(r) for r in a.rates.split(",")]
    if not a.chunk:
        return run(a.kprof, raw, a.log, rates)
    for limit in a.chunk:
        run(a.kprof, rechunk(raw, limit), "%s re-cut at %d-byte chunks" % (a.log, limit), rates)
    return 0


if __name__ == "__main__":
    sys.exit(main())
