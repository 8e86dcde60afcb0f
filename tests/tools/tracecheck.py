#!/usr/bin/python3
"""tracecheck.py - verify a scenario=tracetest trace record by record.

    tracecheck.py KPROF LOG [--expect-losses] [--quiet]

Decodes LOG with `KPROF decode --json` and checks, per CPU:
  - every record is a KprofTraceTest record written by that CPU (Cpu field);
  - its Pattern bytes are intact (byte i = Sequence*31 + i + writer*7) and
    Length matches: nothing is torn;
  - Sequence numbers of each writer (thread 0, interrupt 1) increase and
    time stamps never go backwards in buffer order: nothing is reordered;
  - a thread record marked "interrupted mid-record" (Writer bit 2) is
    followed directly by the interrupt's record: nesting really happened;
  - stored + lost == attempted (from the kernel's console lines), and the
    sequence numbers missing equal the records lost: nothing is lost
    without being counted.
  - drops are placed: a gap in the thread writer's sequence numbers has a
    KprofRecordsLost record after the record before it and no later than
    the record after it, and the records-lost records plus the drops after
    the CPU's last record (the decoder's tail) add up to the records lost.
Exits 0 when every check holds; prints what failed otherwise.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import main as checker_main  # noqa: E402


def pattern_ok(rec):
    data = bytes.fromhex(rec["Pattern"])
    if len(data) != rec["Length"]:
        return False
    w, seq = rec["Writer"] & 1, rec["Sequence"]
    return all(b == (seq * 31 + i + w * 7) & 0xFF for i, b in enumerate(data))


def check(kprof, log, expect_losses=False, quiet=False):
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        summary_path = os.path.join(tmp, "summary.json")
        dec = subprocess.run([kprof, "decode", "--json", "--summary-json", summary_path, log],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if dec.returncode != 0:
            return ["kprof decode failed: %s" % dec.stderr.decode()]
        with open(summary_path) as f:
            summary = json.load(f)
    records = [json.loads(line) for line in dec.stdout.splitlines()]
    records = [r for r in records if "loss" not in r]  # loss lines (link gaps, kernel drops), not records
    with open(log, "rb") as f:
        text = f.read().decode("latin-1")
    attempted = {}
    for cpu, t, i, n in re.findall(r"tracetest: cpu (\d+) attempted (\d+) thread records and (\d+) interrupt "
                                   r"records, (\d+) writes interrupted mid-record", text):
        attempted[int(cpu)] = (int(t), int(i), int(n))
    if not attempted:
        return ["no 'tracetest: cpu N attempted ...' lines in the log"]

    if summary["issues"]:
        problems.append("decoder reported issues: %s" % [i["what"] for i in summary["issues"]])
    per_cpu = {}
    for r in records:
        per_cpu.setdefault(r["cpu"], []).append(r)

    for cpu, (att_thread, att_irq, att_nested) in sorted(attempted.items()):
        recs = per_cpu.get(cpu, [])
        stats = next((c for c in summary["per_cpu"] if c["cpu"] == cpu), None)
        lost = stats["lost"] if stats else None
        seqs = {0: [], 1: []}
        last_ts = 0
        nested_seen = 0
        placed, lost_record_since = 0, False  # a records-lost record since the last thread record
        for k, r in enumerate(recs):
            where = "cpu %d record %d" % (cpu, k)
            if r["event"] == "KprofRecordsLost":
                placed += r["BuffersFull"] + r["TooLarge"] + r["NotStarted"]
                lost_record_since = True
                continue
            if r["event"] == "KprofTraceTest" and not r["Writer"] & 1:
                prev = seqs[0][-1] if seqs[0] else -1
                if r["Sequence"] > prev + 1 and not lost_record_since:
                    problems.append("%s: thread records %d..%d missing, but no KprofRecordsLost record before it"
                                    % (where, prev + 1, r["Sequence"] - 1))
                lost_record_since = False
            if r["event"] != "KprofTraceTest":
                problems.append("%s: unexpected event %s" % (where, r["event"]))
                continue
            if r["Cpu"] != cpu:
                problems.append("%s: written by cpu %d, found in cpu %d's buffer" % (where, r["Cpu"], cpu))
            if not pattern_ok(r):
                problems.append("%s: torn pattern (writer %d seq %d)" % (where, r["Writer"], r["Sequence"]))
            if r["TimeStamp"] < last_ts:
                problems.append("%s: time stamp goes backwards" % where)
            last_ts = r["TimeStamp"]
            seqs[r["Writer"] & 1].append(r["Sequence"])
            if r["Writer"] & 2:
                nested_seen += 1
                nxt = recs[k + 1] if k + 1 < len(recs) else None
                if not nxt or nxt["Writer"] != 1:
                    problems.append("%s: interrupted mid-record, but the next record is not the interrupt's" % where)
        for w, s in seqs.items():
            if any(b <= a for a, b in zip(s, s[1:])):
                problems.append("cpu %d writer %d: sequence numbers out of order" % (cpu, w))
        stored = len(seqs[0]) + len(seqs[1])
        missing = (att_thread - len(set(seqs[0]))) + (att_irq - len(set(seqs[1])))
        if lost is None:
            problems.append("cpu %d: no end frame with loss counts" % cpu)
        elif stored + lost != att_thread + att_irq:
            problems.append("cpu %d: %d stored + %d lost != %d attempted" % (cpu, stored, lost, att_thread + att_irq))
        elif missing != lost:
            problems.append("cpu %d: %d sequence numbers missing but %d counted lost" % (cpu, missing, lost))
        tail = sum(d["count"] for d in summary.get("drops", []) if d["cpu"] == cpu and d["tail"])
        if lost is not None and not summary.get("drops_flagged") and placed + tail != lost:
            problems.append("cpu %d: %d in records-lost records + %d after its last record != %d lost"
                            % (cpu, placed, tail, lost))
        if not expect_losses and lost:
            problems.append("cpu %d: %d records lost where none should be" % (cpu, lost))
        if not lost and nested_seen != att_nested:
            problems.append("cpu %d: %d interrupted writes recorded, kernel says %d" % (cpu, nested_seen, att_nested))
        if not quiet:
            print("  cpu %d: %d stored, %d lost, %d attempted, %d interrupted mid-record" % (
                cpu, stored, lost or 0, att_thread + att_irq, nested_seen))
    if expect_losses and not summary["lost_total"]:
        problems.append("expected losses (tiny buffers), none counted")
    return problems


if __name__ == "__main__":
    sys.exit(checker_main(__doc__, "tracecheck", check, flags=("--expect-losses",)))
