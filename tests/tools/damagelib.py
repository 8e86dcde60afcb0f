"""damagelib.py - damaging a kprof serial log the way a link does, and
measuring what the decoder keeps (tests/tools/test_damage,
tests/bench/damage.py).

Damage kinds, each at a rate of events per MiB of log, at random places
drawn from a seeded generator (the same seed gives the same damage):
  flip    one bit of one byte inverted
  drop    a run of 1-16 bytes lost
  insert  a run of 1-16 random bytes added
  dup     a run of 1-16 bytes sent twice

The frames are parsed here with plain struct code (not with the tool), so
which records the damage touched is known independently: a record is
touched when a damaged byte, or the place of an inserted run, lies inside
the bytes of its record.
"""
import bisect
import collections
import json
import random
import struct
import subprocess
import tempfile
import zlib

MAGIC = b"\xfeKPF"
HDR = 24
KINDS = ("flip", "drop", "insert", "dup")
BUFFER, CHUNK = 2, 5
CHUNK_HDR = 16
BUFFER_HDR = 32


def frames(raw):
    """(offset, version, type, cpu, seq, payload) of every valid frame."""
    out, pos = [], 0
    while True:
        pos = raw.find(MAGIC, pos)
        if pos < 0 or len(raw) - pos < HDR:
            return out
        _, ver, typ, cpu, seq, length, pcrc, hcrc = struct.unpack_from("<IBBHIIII", raw, pos)
        payload = raw[pos + HDR:pos + HDR + length]
        if zlib.crc32(raw[pos:pos + 20]) == hcrc and len(payload) == length and zlib.crc32(payload) == pcrc:
            out.append((pos, ver, typ, cpu, seq, payload))
            pos += HDR + length
        else:
            pos += 1


def chunk_encodings(raw):
    """{encoding: chunk frames} of a v2 log (0 raw, 1 and 2 delta + LZ4)."""
    out = collections.Counter()
    for pos, ver, typ, cpu, seq, payload in frames(raw):
        if typ == CHUNK and len(payload) >= CHUNK_HDR:
            out[payload[12]] += 1
    return dict(out)


# Compressed chunks (encodings 1 and 2, delta + LZ4): the same plain-Python
# decoder as the example in docs/wire-format.md section 5.
def lz4_block(src, raw_bytes):  # one LZ4 block -> exactly raw_bytes bytes, else None
    out, i = bytearray(), 0
    def length(n):
        nonlocal i
        if n == 15:
            while True:
                b = src[i]
                i += 1
                n += b
                if b != 255:
                    return n
        return n
    try:
        while True:
            token = src[i]
            i += 1
            n = length(token >> 4)
            out += src[i:i + n]
            i += n
            if i >= len(src):
                break
            dist = src[i] | src[i + 1] << 8
            i += 2
            n = length(token & 15) + 4
            if not 0 < dist <= len(out):
                return None
            for _ in range(n):
                out.append(out[-dist])
    except IndexError:
        return None
    return bytes(out) if len(out) == raw_bytes and i == len(src) else None

TSC_FIELDS = {0x0529: ((32, 40), 48), 0x052B: ((16,), 24), 0x1820: ((16,), 24), 0xFE02: ((16,), 24)}
M64 = (1 << 64) - 1

def delta_decode(recs, encoding=2):  # undoes the delta transform of encoding 1 or 2
    b, off, prev, seq_prev = bytearray(recs), 0, 0, [0, 0]
    while off + 16 <= len(b):
        marker, size, hook, d = struct.unpack_from("<IHHQ", b, off)
        if marker >> 16 != 0xC011 or size < 16 or off + size > len(b):
            break
        ts = (d + prev) & M64
        struct.pack_into("<Q", b, off + 8, ts)
        prev = ts
        fields, need = TSC_FIELDS.get(hook, ((), 0))
        for at in fields if size >= need else ():
            v = struct.unpack_from("<Q", b, off + at)[0]
            if v not in (0, (ts + 1) & M64):
                struct.pack_into("<Q", b, off + at, (ts + 1 - v) & M64)
        if encoding == 2 and hook == 0xFE01 and size >= 28:  # tracetest Sequence, per writer
            writer, d = struct.unpack_from("<II", b, off + 20)
            seq_prev[writer & 1] = (d + seq_prev[writer & 1]) & 0xFFFFFFFF
            struct.pack_into("<I", b, off + 24, seq_prev[writer & 1])
        off += (size + 7) & ~7
    return bytes(b)


def chunk_records_raw(payload):
    """The records of a chunk payload (header included), decoded if it is
    an encoding-1 or -2 chunk; None if that does not decode."""
    if len(payload) >= CHUNK_HDR and payload[12] in (1, 2):
        recs = lz4_block(payload[CHUNK_HDR:], struct.unpack_from("<H", payload, 14)[0])
        return None if recs is None else delta_decode(recs, payload[12])
    return payload[CHUNK_HDR:]


def record_spans(raw):
    """Byte ranges [start, end) of every record of every buffer or chunk;
    a compressed chunk (encoding 1 or 2) is one span, its whole LZ4 block."""
    spans = []
    for pos, ver, typ, cpu, seq, payload in frames(raw):
        if typ == CHUNK and len(payload) > CHUNK_HDR and payload[12] in (1, 2):
            spans.append((pos + HDR + CHUNK_HDR, pos + HDR + len(payload)))
            continue
        if typ == CHUNK:
            start, used = CHUNK_HDR, len(payload) - CHUNK_HDR
        elif typ == BUFFER:
            start, used = BUFFER_HDR, struct.unpack_from("<I", payload, 4)[0]
        else:
            continue
        off = 0
        while off + 16 <= used:
            marker, size = struct.unpack_from("<IH", payload, start + off)
            if marker >> 16 != 0xC011 or size < 16 or off + size > used:
                break
            base = pos + HDR + start + off
            spans.append((base, base + size))
            off += (size + 7) & ~7
    return spans


def damage(raw, kind, per_mib, seed):
    """(damaged bytes, events): events are (offset in raw, length, kind)."""
    rng = random.Random("%s/%s/%s" % (kind, per_mib, seed))
    n = max(1, round(len(raw) * per_mib / (1 << 20)))
    events = sorted((rng.randrange(len(raw)), rng.randint(1, 16)) for _ in range(n))
    out, last = bytearray(), 0
    for off, length in events:
        if off < last:
            continue  # overlapping an earlier run: skip, keep them apart
        out += raw[last:off]
        if kind == "flip":
            out.append(raw[off] ^ (1 << rng.randrange(8)))
            last = off + 1
        elif kind == "drop":
            last = min(off + length, len(raw))
        elif kind == "insert":
            out += bytes(rng.randrange(256) for _ in range(length))
            last = off
        elif kind == "dup":
            out += raw[off:off + length] * 2
            last = min(off + length, len(raw))
        else:
            raise ValueError(kind)
    out += raw[last:]
    used = [(off, length) for off, length in events]
    return bytes(out), used


def untouched(spans, events, kind):
    """How many records the damage left byte-identical and whole."""
    starts, hit = [s for s, _ in spans], set()
    for off, length in events:
        lo, hi = (off, off + 1) if kind == "flip" else (off, off) if kind == "insert" else (off, off + length)
        i = max(bisect.bisect_right(starts, lo) - 1, 0)
        while i < len(spans) and spans[i][0] <= hi:
            s, e = spans[i]
            if (s < lo < e) if kind == "insert" else (s < hi and lo < e):
                hit.add(i)
            i += 1
    return len(spans) - len(hit)


def decode(kprof, path):
    """The decoder's JSON record lines for LOG, as a multiset (its lines
    for frames lost on the link left out), and its summary."""
    with tempfile.NamedTemporaryFile(suffix=".json") as sj:
        out = subprocess.run([kprof, "decode", "--json", "--quiet", "--summary-json", sj.name, path],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        summary = json.load(open(sj.name))
    lines = [line for line in out.stdout.splitlines() if b'"loss":' not in line]  # loss lines
    return collections.Counter(lines), summary


def compare(good, got):
    """(kept, wrong): records decoded that are in the undamaged decode (as
    many times as there), and records that are not."""
    kept = sum(min(n, good[line]) for line, n in got.items())
    wrong = sum(got.values()) - kept
    return kept, wrong
