#!/usr/bin/python3
"""hostile_bench.py KPROF [KPROF...] - what hostile but CRC-valid logs cost
the decoder: `kprof check` on each case of tests/tools/hostilelib.py at two
sizes (the second 4x the first), wall time and peak resident memory, per
input byte.  Part of `make bench`; the tests (tests/tools/test_hostile)
assert on instruction counts and memory instead, never on seconds.

Prints one line per binary, case and size:
  hostile: KPROF CASE: N bytes, T s (X ns/byte), R KiB peak (Y bytes/byte)
"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import hostilelib  # noqa: E402

CASES = [
    ("reversed-chunks", hostilelib.reversed_chunks, 25000),
    ("duplicated-compressed", hostilelib.duplicated_compressed, 25000),
    ("repeated-magic", hostilelib.repeated_magic, 4 << 20),
    ("lz4-2048", hostilelib.inflating_chunks, 10000),
    ("lz4-65504", lambda n: hostilelib.inflating_chunks(n, 65504), 2500),
]


def run(kprof, path):
    """Wall seconds and peak KiB (GNU time's %M: a child of this Python
    would start from this process's resident size)."""
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", kprof, "check", "--quiet", path], capture_output=True,
                       text=True)
    return time.perf_counter() - t, int(p.stderr.strip().splitlines()[-1])


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name, make, n in CASES:
            for scale in (1, 4):
                path = os.path.join(tmp, "%s-%d.log" % (name, scale))
                with open(path, "wb") as f:
                    f.write(make(n * scale))
                size = os.path.getsize(path)
                for kprof in sys.argv[1:]:
                    secs, kib = run(kprof, path)
                    print("hostile: %s %s: %d bytes, %.3f s (%.0f ns/byte), %d KiB peak (%.1f bytes/byte)" %
                          (kprof, name, size, secs, secs * 1e9 / size, kib, kib * 1024 / size), flush=True)
                os.unlink(path)


if __name__ == "__main__":
    main()
