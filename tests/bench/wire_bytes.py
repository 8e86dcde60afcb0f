#!/usr/bin/python3
"""wire_bytes.py LOG... - bytes on the serial wire per byte of record.

For each log: every frame's bytes (24-byte header + payload) against the
sum of the records' own sizes (their PERFINFO_TRACE_HEADER.Size), i.e.
what framing, buffer headers, 8-byte alignment and run/end frames cost.
Goal: at most 1.15 (raw, trace.compress=off); 0.5 with compression.
Compressed chunks (encodings 1 and 2, delta + LZ4) are LZ4-decoded here to find
their records.
"""
import struct
import sys
import zlib
import os

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import damagelib  # noqa: E402


def measure(path):
    data = open(path, "rb").read()
    wire = rec_bytes = records = 0
    versions = set()
    pos = 0
    while True:
        pos = data.find(b"\xfeKPF", pos)
        if pos < 0 or pos + 24 > len(data):
            break
        _, ver, typ, _, _, length, pcrc, hcrc = struct.unpack_from("<IBBHIIII", data, pos)
        versions.add(ver)
        payload = data[pos + 24:pos + 24 + length]
        if zlib.crc32(data[pos:pos + 20]) != hcrc or zlib.crc32(payload) != pcrc:
            pos += 1
            continue
        wire += 24 + length
        if typ in (2, 5):
            if typ == 2:  # v1 buffer frame: 32-byte header, `used` bytes of records
                used = struct.unpack_from("<I", payload, 4)[0]
                recs = payload[32:32 + used]
            else:         # v2 chunk frame: 16-byte header, then records to the end
                recs = payload[16:]
                recs = damagelib.chunk_records_raw(payload) or b""  # encoding 1, 2: decoded
            off = 0
            while off + 16 <= len(recs):
                size = struct.unpack_from("<H", recs, off + 4)[0]
                rec_bytes += size
                records += 1
                off += (size + 7) & ~7
        pos += 24 + length
    return wire, rec_bytes, records, versions


def main():
    worst = 0
    for path in sys.argv[1:]:
        wire, rec_bytes, records, versions = measure(path)
        ratio = wire / rec_bytes if rec_bytes else float("inf")
        worst = max(worst, ratio)
        print("bench wire-bytes: %s (wire v%s): %d records, %d record bytes, %d bytes on the wire: %.3f per record byte "
              "(%.1f bytes per record), goal <= 1.15: %s"
              % (path, "/".join(str(v) for v in sorted(versions)), records, rec_bytes, wire, ratio, wire / max(records, 1), "met" if ratio <= 1.15 else "MISSED"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
