"""checklib.py - what the trace checkers (tracecheck, schedcheck, lockcheck,
rescheck) share: decoding a log with the host tool, the console text with
the binary frames taken out, and the command-line entry point.
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from qemu import strip_frames  # noqa: E402

POINTER_FIELDS = ("SpinLockAddress", "CallerAddress", "InstructionPointer", "Resource")


def load(kprof, log, strict=True):
    """(records, console text, complete, decoder's stderr) for LOG.

    With strict, complete is False when the decoder reports any loss or
    damage.  Pointers, which the JSON gives as "0x..." strings, become ints.
    """
    cmd = [kprof, "decode", "--json"] + (["--strict"] if strict else ["--quiet"]) + [log]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    recs = [json.loads(line) for line in out.stdout.splitlines()]
    recs = [r for r in recs if "loss" not in r]  # loss lines (link gaps, kernel drops), not records
    for r in recs:
        for k in POINTER_FIELDS:
            if isinstance(r.get(k), str):
                r[k] = int(r[k], 16)
    with open(log, "rb") as f:  # a console line may follow a frame directly
        text = strip_frames(f.read()).replace(b"\r", b"").decode("latin-1")
    return recs, text, out.returncode == 0, out.stderr.decode(errors="replace")


def main(doc, name, check, flags=(), nargs=2):
    """`NAME KPROF LOG [more] [--quiet] [flags]`: run check(kprof, log,
    [more,] *flags present, quiet=...) with nargs positional arguments,
    print the problems, exit 1 if there are any."""
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != nargs:
        print(doc)
        return 2
    extra = [f in sys.argv for f in flags]
    problems = check(*args, *extra, quiet="--quiet" in sys.argv)
    for p in problems[:20]:
        print("%s: %s" % (name, p))
    if len(problems) > 20:
        print("%s: ... and %d more" % (name, len(problems) - 20))
    return 1 if problems else 0
