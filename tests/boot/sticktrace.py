"""sticktrace.py - the boot tests' checks of the trace the kernel wrote to
the USB stick (trace.out=both|usb), held against the serial log of the
same run: both decoded with `kprof decode --json`, record for record.

Invariants the checks hold (docs/trace-out.md):
- a file with room for the whole trace holds exactly the serial log's
  records, in the decoder's order, each one identical (every field);
- with trace.out=usb (or auto) and a healthy stick the file holds the
  whole trace and serial not one frame;
- when the stick failed mid-run, the file and the serial log together
  hold every record the kernel sent (serial from the first frame the
  stick did not hold whole; frames written to the stick just before the
  failure may be on both), and what serial lacks is exactly what the file
  holds, counted by the decoder as missing on serial;
- a file too small keeps whole chunks: every record it holds is one of
  the serial log's, the kernel's "did not fit" count equals the
  decoder's file-loss count (lost_file), and `kprof check --strict`
  fails on the file while it passes on the serial log.

Each function returns a list of problems (empty: the check held).
"""

import json
import os
import subprocess
import tempfile
from collections import Counter


def decode(kprof, path):
    """(records as JSON lines, summary dict, decoder's stderr) of a log or file."""
    with tempfile.TemporaryDirectory() as tmp:
        summary = os.path.join(tmp, "summary.json")
        proc = subprocess.run([kprof, "decode", "--json", "--summary-json", summary, path],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if not os.path.exists(summary):
            return None, None, proc.stderr.decode(errors="replace")
        with open(summary) as f:
            return proc.stdout.decode().splitlines(), json.load(f), proc.stderr.decode(errors="replace")


def strict_status(kprof, path):
    """Exit status of `kprof check --strict` on the log or file."""
    return subprocess.run([kprof, "check", "--strict", "--quiet", path], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i, x, y
    n = min(len(a), len(b))
    return n, a[n] if n < len(a) else "(end)", b[n] if n < len(b) else "(end)"


def decode_both(kprof, serial_log, stick_file):
    """((serial records, summary, stick records, summary), None) or (None, why)."""
    if not stick_file:
        return None, "no trace file was copied out of the stick's image"
    serial, s_sum, err = decode(kprof, serial_log)
    if serial is None:
        return None, "kprof decode of the serial log failed: %s" % err.strip()
    stick, f_sum, err = decode(kprof, stick_file)
    if stick is None:
        return None, "kprof decode of the stick's trace.bin failed: %s" % err.strip()
    return (serial, s_sum, stick, f_sum), None


def same_trace(kprof, serial_log, stick_file):
    """The stick's file holds the serial log's trace, record for record."""
    both, problem = decode_both(kprof, serial_log, stick_file)
    if problem:
        return [problem]
    serial, s_sum, stick, f_sum = both
    problems = []
    if not serial:
        problems.append("the serial log holds no records")
    if not f_sum.get("file_form"):
        problems.append("the stick's file is not in the file form (summary file_form false)")
    if f_sum["lost_total"] or f_sum["lost_file"] or s_sum["lost_total"]:
        problems.append("records lost: file %d (%d not in the file), serial %d" % (
            f_sum["lost_total"], f_sum["lost_file"], s_sum["lost_total"]))
    if serial != stick:
        i, x, y = first_difference(serial, stick)
        problems.append("the stick's %d records differ from the serial log's %d, first at record %d: serial %s, "
                        "stick %s" % (len(stick), len(serial), i, x[:160], y[:160]))
    for name, path in (("serial log", serial_log), ("stick's trace.bin", stick_file)):
        if strict_status(kprof, path) != 0:
            problems.append("kprof check --strict fails on the %s" % name)
    return problems


def file_too_small(kprof, serial_log, stick_file, kept, did_not_fit):
    """The stick's file was full: kept records decode, the rest counted.
    kept, did_not_fit: the kernel's figures from its end line."""
    both, problem = decode_both(kprof, serial_log, stick_file)
    if problem:
        return [problem]
    serial, s_sum, stick, f_sum = both
    # The cut is shown as NotInFile markers (with their counts), not records.
    cuts = [json.loads(r) for r in stick if '"event":"NotInFile"' in r]
    stick = [r for r in stick if '"event":"NotInFile"' not in r]
    problems = []
    if sum(c["count"] for c in cuts) != did_not_fit:
        problems.append("the NotInFile markers count %d records, the kernel %d" % (
            sum(c["count"] for c in cuts), did_not_fit))
    if s_sum["lost_total"] or strict_status(kprof, serial_log) != 0:
        problems.append("the serial log is not whole (%d lost, or check --strict fails)" % s_sum["lost_total"])
    if len(serial) != kept + did_not_fit:
        problems.append("the kernel says %d + %d records, the serial log holds %d" % (kept, did_not_fit, len(serial)))
    if len(stick) != kept or f_sum["records"] != kept:
        problems.append("the file decodes to %d records (summary %d), the kernel says it kept %d" % (
            len(stick), f_sum["records"], kept))
    if f_sum["lost_file"] != did_not_fit:
        problems.append("the decoder counts %d records not in the file, the kernel %d" % (f_sum["lost_file"],
                                                                                          did_not_fit))
    if f_sum["lost_total"] or f_sum["lost_link"]:
        problems.append("losses other than the full file: %s, on the link %d" % (f_sum["lost"], f_sum["lost_link"]))
    extra = Counter(stick) - Counter(serial)
    if extra:
        problems.append("%d of the file's records are not in the serial log, e.g. %s" % (
            sum(extra.values()), next(iter(extra))[:160]))
    if not did_not_fit:
        problems.append("the run recorded nothing more than the file holds: the test proves nothing")
    if strict_status(kprof, stick_file) != 1:
        problems.append("kprof check --strict on the full file did not fail (exit 1)")
    return problems


def has_frames(path):
    with open(path, "rb") as f:
        return b"\xfeKPF" in f.read()


def stick_only(kprof, serial_log, stick_file, sent):
    """trace.out=usb: the file holds the kernel's `sent` records, nothing
    lost, check --strict passes; serial has no frame at all."""
    problems = []
    if has_frames(serial_log):
        problems.append("the serial log holds trace frames")
    if not stick_file:
        return problems + ["no trace file was copied out of the stick's image"]
    stick, f_sum, err = decode(kprof, stick_file)
    if stick is None:
        return problems + ["kprof decode of the stick's trace.bin failed: %s" % err.strip()]
    if len(stick) != sent or f_sum["records"] != sent:
        problems.append("the file decodes to %d records (summary %d), the kernel sent %d" % (
            len(stick), f_sum["records"], sent))
    if f_sum["lost_total"] or f_sum["lost_file"] or f_sum["lost_link"]:
        problems.append("records lost in the file: %d, not in the file %d, link %d" % (
            f_sum["lost_total"], f_sum["lost_file"], f_sum["lost_link"]))
    if strict_status(kprof, stick_file) != 0:
        problems.append("kprof check --strict fails on the stick's trace.bin")
    return problems


def split_trace(kprof, serial_log, stick_file, sent):
    """The stick failed mid-run and serial took over: every one of the
    kernel's `sent` records is in the file or on serial; the serial log's
    decoder counts as missing exactly the records only the file holds
    (nothing reached neither); the file holds a prefix (no end frames)."""
    both, problem = decode_both(kprof, serial_log, stick_file)
    if problem:
        return [problem]
    serial, s_sum, stick, f_sum = both
    problems = []
    # The serial log's decoder places what it lacks in time: LostOnLink
    # markers (with their counts), not records.
    markers = [json.loads(r) for r in serial if '"event":"LostOnLink"' in r]
    serial = [r for r in serial if '"event":"LostOnLink"' not in r]
    in_stick, on_serial = set(stick), set(serial)
    if len(in_stick) != len(stick) or len(on_serial) != len(serial):
        problems.append("a record repeated within one output")
    only_stick = in_stick - on_serial
    if len(in_stick | on_serial) != sent:
        problems.append("the file and serial together hold %d records, the kernel sent %d" % (
            len(in_stick | on_serial), sent))
    if not only_stick or not on_serial - in_stick:
        problems.append("not split: %d records only in the file, %d only on serial" % (
            len(only_stick), len(on_serial - in_stick)))
    if s_sum["lost_link"] != len(only_stick) or sum(m["count"] for m in markers) != len(only_stick):
        problems.append("the serial log's decoder counts %d records missing (markers: %d), the file alone holds %d"
                        % (s_sum["lost_link"], sum(m["count"] for m in markers), len(only_stick)))
    if s_sum["lost_total"] or f_sum["lost_total"]:
        problems.append("the kernel lost records: serial %d, file %d" % (s_sum["lost_total"], f_sum["lost_total"]))
    return problems


def serial_whole(kprof, serial_log, sent):
    """Serial alone holds all `sent` records, nothing missing."""
    serial, s_sum, err = decode(kprof, serial_log)
    if serial is None:
        return ["kprof decode of the serial log failed: %s" % err.strip()]
    problems = []
    if len(serial) != sent or s_sum["lost_link"]:
        problems.append("serial holds %d records (%d missing), the kernel sent %d" % (
            len(serial), s_sum["lost_link"], sent))
    if strict_status(kprof, serial_log) != 0:
        problems.append("kprof check --strict fails on the serial log")
    return problems
