"""hostilelib.py - hostile serial logs for the decoder, built from scratch
(tests/tools/test_hostile, tests/bench/hostile_bench.py).

Every frame is CRC-valid; what is hostile is the shape: chunks in reverse
order, every compressed chunk sent twice, frame magic repeated over and
over, compressed chunks that inflate as far as the format allows (and
past it), and fields that contradict the contents.  The run header is the
one of tests/golden/tracetest-2cpu-v2.log (2 CPUs); the records are
tracetest records (hook 0xFE01) whose time stamps rise by 1000 cycles.
"""
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import damagelib  # noqa: E402

GOLDEN = "tests/golden/tracetest-2cpu-v2.log"
RUN_HEADER, CPU_END, RUN_END, CHUNK = 1, 3, 4, 5
CPU_NONE = 0xFFFF
MAGIC = b"\xfeKPF"
CHUNK_BYTES = 2048
TSC_HZ_AT = 16  # offset of tsc_hz in the run header


def frame(ftype, cpu, seq, payload):
    h = struct.pack("<IBBHIII", 0x46504BFE, 2, ftype, cpu, seq, len(payload), zlib.crc32(payload))
    return h + struct.pack("<I", zlib.crc32(h)) + payload


def record(ts, i, cpu=0):
    """One 32-byte tracetest record."""
    return struct.pack("<IHHQ", 0xC0110001, 32, 0xFE01, ts) + struct.pack("<IIII", cpu, 0, i, 0)


class Run:
    """The golden run header (its run id), then frames added in order."""

    def __init__(self, tsc_hz=None):
        raw = open(GOLDEN, "rb").read()
        frames = damagelib.frames(raw)
        hdr = next(f for f in frames if f[2] == RUN_HEADER)[5]
        if tsc_hz is not None:
            hdr = hdr[:TSC_HZ_AT] + struct.pack("<Q", tsc_hz) + hdr[TSC_HZ_AT + 8:]
        self.run_id = struct.unpack_from("<I", next(f for f in frames if f[2] == CHUNK)[5], 0)[0]
        self.parts = [frame(RUN_HEADER, CPU_NONE, 0, hdr)]

    def chunk(self, cpu, seq, data, records, encoding=0, raw_bytes=None, buffer_seq=0):
        if raw_bytes is None:
            raw_bytes = len(data) if encoding == 0 else 0
        ch = struct.pack("<IIHHBBH", self.run_id, buffer_seq, records, 0, encoding, 0, raw_bytes)
        return frame(CHUNK, cpu, seq, ch + data)

    def ends(self, written, sent, next_seq):
        """CPU end frames (written[cpu] records, sent[cpu] chunks, the
        frame's seq next_seq[cpu]) and the run end."""
        out = []
        for cpu in range(2):
            p = struct.pack("<IIQQQQQQII", cpu, sent[cpu], written[cpu], written[cpu] * 32, 0, 0, 0, 0,
                            self.run_id, 0)
            out.append(frame(CPU_END, cpu, next_seq[cpu], p))
        out.append(frame(RUN_END, CPU_NONE, 1, struct.pack("<IIQII", 0, 2, 10 ** 9, self.run_id, 0)))
        return b"".join(out)


def lz4_literals(data):
    """One LZ4 block of data as literals only (a valid block any size)."""
    n = len(data)
    if n < 15:
        return bytes([n << 4]) + data
    ext, rest = b"", n - 15
    while rest >= 255:
        ext += b"\xff"
        rest -= 255
    return bytes([0xF0]) + ext + bytes([rest]) + data


def lz4_repeat(head, unit, total):
    """An LZ4 block of `total` bytes: head, then unit repeated, the last
    unit as literals (the format's end rules)."""
    body = total - len(head) - len(unit)
    assert body >= len(unit) + 4 and body % len(unit) == 0
    lit = len(head)
    match = body - 4
    tok = (min(lit, 15) << 4) | min(match, 15)
    out = bytes([tok])
    if lit >= 15:
        rest = lit - 15
        out += b"\xff" * (rest // 255) + bytes([rest % 255])
    out += head + struct.pack("<H", len(unit))
    if match >= 15:
        rest = match - 15
        out += b"\xff" * (rest // 255) + bytes([rest % 255])
    return out + lz4_literals(unit)


def reversed_chunks(n):
    """n one-record raw chunks of CPU 0, sent in reverse order: whole."""
    run = Run()
    chunks = [run.chunk(0, i, record(10 ** 6 + 1000 * i, i), 1) for i in range(n)]
    return b"".join(run.parts + chunks[::-1]) + run.ends([n, 0], [n, 0], [n, 0])


def duplicated_compressed(n):
    """n one-record compressed chunks (encoding 1), then all of them again:
    whole, each seen twice."""
    run = Run()
    chunks = [run.chunk(0, i, lz4_literals(record(10 ** 6 + 1000 * i, i)), 1, encoding=1, raw_bytes=32)
              for i in range(n)]
    return b"".join(run.parts + chunks + chunks) + run.ends([n, 0], [n, 0], [n, 0])


def reordered_then_repeated(n):
    """n one-record raw chunks of CPU 0 in order, then n + 1 before n (the
    first out of order: the store's hash set is made from there), n + 2 in
    order, then every chunk again: whole, each seen twice, the first n
    found again among those stored before the set existed."""
    run = Run()
    chunks = [run.chunk(0, i, record(10 ** 6 + 1000 * i, i), 1) for i in range(n + 3)]
    order = chunks[:n] + [chunks[n + 1], chunks[n], chunks[n + 2]]
    return b"".join(run.parts + order + chunks) + run.ends([n + 3, 0], [n + 3, 0], [n + 3, 0])


def inflating_chunks(n, raw_bytes=CHUNK_BYTES):
    """n compressed chunks (encoding 1) of about 130 bytes, each decoding to
    raw_bytes of 32-byte records (delta encoded: after the first, each
    record's time stamp is +1000, so every record after the first two is
    the same bytes).  raw_bytes past CHUNK_BYTES is past the format."""
    run = Run()
    per = raw_bytes // 32
    out = []
    for i in range(n):
        first = record(10 ** 6 + 1000 * per * i, 0)
        same = record(1000, 0)
        block = lz4_repeat(first + same, same, per * 32)
        out.append(run.chunk(0, i, block, per, encoding=1, raw_bytes=per * 32))
    return b"".join(run.parts + out) + run.ends([n * per, 0], [n, 0], [n, 0])


def repeated_magic(size):
    """Frame magic over and over: no frame at all."""
    return MAGIC * (size // 4)


def costliest_chunks(n):
    """The most memory per byte of log found: n compressed chunks of 68
    bytes that each decode to 2,048 bytes (8 bytes, then 8 others
    repeated), each with a records count its contents contradict, every
    other sequence number missing (a gap and an issue each)."""
    run = Run()
    block = lz4_repeat(b"A" * 8, b"B" * 8, CHUNK_BYTES)
    chunks = [run.chunk(0, 2 * i, block, 1, encoding=1, raw_bytes=CHUNK_BYTES) for i in range(n)]
    return b"".join(run.parts + chunks) + run.ends([n, 0], [2 * n, 0], [2 * n, 0])


def records_lost(n):
    """n one-record chunks, each a KprofRecordsLost record of one drop
    (buffers full), and the end frame that counts them: every drop placed."""
    run = Run()
    chunks = []
    for i in range(n):
        ts = 10 ** 6 + 1000 * i
        rec = struct.pack("<IHHQ", 0xC0110001, 48, 0xFE06, ts) + struct.pack("<QQQQ", ts - 1, 1, 0, 0)
        chunks.append(run.chunk(0, i, rec, 1))
    ends = [frame(CPU_END, 0, n, struct.pack("<IIQQQQQQII", 0, n, n, n * 48, n, 0, 0, 0, run.run_id, 0)),
            frame(CPU_END, 1, 0, struct.pack("<IIQQQQQQII", 1, 0, 0, 0, 0, 0, 0, 0, run.run_id, 0)),
            frame(RUN_END, CPU_NONE, 1, struct.pack("<IIQII", 0, 2, 10 ** 9, run.run_id, 0))]
    return b"".join(run.parts + chunks + ends)


def far_cpu(n, cpu=4095):
    """n tracetest records of CPU 0 in chunks of 64, then one chunk of
    one record naming CPU `cpu` (no end frames): the log has cpu + 1 CPU
    slots, all but two empty.  Each record must not cost a look at every
    slot (hostile-2's README: decode 7 times, report 30 times slower)."""
    run = Run()
    out, seq = [], 0
    for first in range(0, n, 64):
        recs = b"".join(record(10 ** 6 + 1000 * i, i) for i in range(first, min(n, first + 64)))
        out.append(run.chunk(0, seq, recs, len(recs) // 32))
        seq += 1
    out.append(run.chunk(cpu, 0, record(10 ** 6 + 1000 * n, n, cpu), 1))
    return b"".join(run.parts + out)


def nameless_types(n):
    """n KprofEventType records (hook 0xFE09) of 24 bytes, each naming
    type id 0x1234 (above 255: no type) and too short for a type record:
    each damaged and naming no type.  Their issues collapse after 64."""
    run = Run()
    out, seq = [], 0
    recs = [struct.pack("<IHHQ", 0xC0110001, 24, 0xFE09, 10 ** 6 + 1000 * i) + struct.pack("<HHI", 0x1234, 0, 0)
            for i in range(n)]
    for first in range(0, n, 80):
        data = b"".join(recs[first:first + 80])
        out.append(run.chunk(0, seq, data, len(data) // 24))
        seq += 1
    return b"".join(run.parts + out)


def with_far_cpu(raw, cpu=4095):
    """A log (bytes) with one more chunk frame of one tracetest record,
    naming CPU `cpu`, appended: its run id the log's, its time after the
    log's start."""
    frames = damagelib.frames(raw)
    chunk = next(f for f in frames if f[2] == CHUNK)[5]
    run_id = struct.unpack_from("<I", chunk, 0)[0]
    rec = record(struct.unpack_from("<Q", chunk, 16 + 8)[0] + 1000, 0, cpu)
    ch = struct.pack("<IIHHBBH", run_id, 0, 1, 0, 0, 0, len(rec))
    return raw + frame(CHUNK, cpu, 0, ch + rec)
