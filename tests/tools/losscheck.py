#!/usr/bin/python3
"""losscheck.py - a trace with kernel drops: every drop placed in time and
carried into every output, the counts exact.

    losscheck.py KPROF LOG [--quiet]

LOG must hold drops (records the kernel's trace buffers could not store).
Checks, with the host tool KPROF:
  - `kprof check --strict` fails (exit 1) and reports no loss-mismatch;
  - the drops the decoder places (its LostInKernel lines: one per
    KprofRecordsLost record, one per CPU for those after its last record)
    add up, per CPU and cause, to the CPU end frames' counts;
  - each placed drop sits between its neighbours on its CPU: it starts no
    earlier than the CPU's record before it, ends at the TimeStamp of the
    KprofRecordsLost record right after it, which holds the same counts,
    and that is no later than the next record; drops after a CPU's last
    record start at that record;
  - CTF (babeltrace2): per stream, the discarded-events warnings are the
    CPU's placed drops, in order, then one for the rest (after its last
    record, plus records reserved but never committed), and they sum to
    the decoder's count;
  - ETL (etl_reader.py): EventsLost is the decoder's count, and every
    buffer holding a KprofRecordsLost record is flagged EVENTS_LOST;
  - with CSwitch records in the log: the report (with --kernel
    $KPROF_KERNEL, else kernel.elf next to KPROF) gives every CPU with
    drops "no trace" time and its count; the timeline shades one hole per
    drop, the Perfetto trace marks one "Records lost" instant per drop with
    its count.
Exits 0 when every check holds; prints what failed otherwise.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from checklib import main as checker_main  # noqa: E402

CAUSES = ("buffers_full", "too_large", "not_started")


def run(*args):
    return subprocess.run([str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def decoded(kprof, log, tmp):
    """(summary, records, loss lines) of `kprof decode --json`."""
    summary_path = os.path.join(tmp, "summary.json")
    out = run(kprof, "decode", "--json", "--quiet", "--summary-json", summary_path, log)
    with open(summary_path) as f:
        summary = json.load(f)
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    return summary, [r for r in lines if "loss" not in r], [r for r in lines if r.get("loss") == "kernel"]


def check_placement(summary, records, drops, problems):
    per_cpu = {}
    for r in records:
        per_cpu.setdefault(r["cpu"], []).append(r)
    lost_records = {}  # (cpu, TimeStamp) -> counts of the KprofRecordsLost records
    for r in records:
        if r["event"] == "KprofRecordsLost":
            counts = (r["BuffersFull"], r["TooLarge"], r["NotStarted"])
            if any(counts):
                lost_records.setdefault((r["cpu"], r["TimeStamp"]), []).append(counts)
    for c in summary["per_cpu"]:
        mine = [d for d in drops if d["cpu"] == c["cpu"]]
        total = sum(d["count"] for d in mine)
        if total != c["lost"]:
            problems.append("cpu %d: drops placed add up to %d, its end frame counts %d" % (c["cpu"], total, c["lost"]))
        recs = per_cpu.get(c["cpu"], [])
        for d in mine:
            if d["count"] != sum(d["cause"][k] for k in CAUSES):
                problems.append("cpu %d: a drop of %d whose causes add up to another count" % (d["cpu"], d["count"]))
            if d["tail"]:
                last = recs[-1]["TimeStamp"] if recs else 0
                if recs and d["from_ts"] != last:
                    problems.append("cpu %d: drops after its last record start at %d, not at that record (%d)"
                                    % (d["cpu"], d["from_ts"], last))
                continue
            at = [i for i, r in enumerate(recs) if r["event"] == "KprofRecordsLost" and r["TimeStamp"] == d["to_ts"]]
            if not at:
                problems.append("cpu %d: no KprofRecordsLost record at the end of a drop (%d)" % (d["cpu"], d["to_ts"]))
                continue
            i = at[0]
            before = recs[i - 1]["TimeStamp"] if i else None
            after = recs[i + 1]["TimeStamp"] if i + 1 < len(recs) else None
            if before is not None and d["from_ts"] < before:
                problems.append("cpu %d: drop from %d starts before the record before it (%d)"
                                % (d["cpu"], d["from_ts"], before))
            if after is not None and after < d["to_ts"]:
                problems.append("cpu %d: drop to %d ends after the record after it (%d)" % (d["cpu"], d["to_ts"], after))
            if d["from_ts"] > d["to_ts"]:
                problems.append("cpu %d: drop from %d to %d goes back in time" % (d["cpu"], d["from_ts"], d["to_ts"]))
            counts = tuple(d["cause"][k] for k in CAUSES)
            if counts not in lost_records.get((d["cpu"], d["to_ts"]), []):
                problems.append("cpu %d: drop %s is not what its KprofRecordsLost record counts" % (d["cpu"], counts))
    for c in summary["per_cpu"]:
        by_cause = {k: sum(d["cause"][k] for d in drops if d["cpu"] == c["cpu"]) for k in CAUSES}
        if sum(by_cause.values()) != c["lost"]:
            problems.append("cpu %d: drops by cause %s, end frame %d" % (c["cpu"], by_cause, c["lost"]))
    for k in CAUSES:
        if sum(d["cause"][k] for d in drops) != summary["lost"][k]:
            problems.append("drops %s add up to %d, the end frames %d"
                            % (k, sum(d["cause"][k] for d in drops), summary["lost"][k]))


def check_ctf(kprof, log, summary, drops, tmp, problems):
    out = os.path.join(tmp, "ctf")
    r = run(kprof, "ctf", log, "-o", out, "--quiet")
    if r.returncode:
        problems.append("kprof ctf failed: %s" % r.stderr.decode()[-300:])
        return
    bt = run("babeltrace2", out)
    if bt.returncode:
        problems.append("babeltrace2 failed: %s" % bt.stderr.decode()[-300:])
        return
    warned = {}
    for n, stream in re.findall(r"discarded (\d+) events? between .*? within stream \"[^\"]*stream_(\d+)\"",
                                bt.stderr.decode().replace("\n", " ")):
        warned.setdefault(int(stream), []).append(int(n))
    stuck = summary["stuck_bytes"]  # nonzero only when a writer never committed
    total = sum(sum(v) for v in warned.values())
    if total < summary["lost_total"] or (not stuck and total != summary["lost_total"]):
        problems.append("babeltrace2 warns of %d discarded events, the decoder counts %d"
                        % (total, summary["lost_total"]))
    for c in summary["per_cpu"]:
        placed = [d["count"] for d in drops if d["cpu"] == c["cpu"] and not d["tail"]]
        tail = sum(d["count"] for d in drops if d["cpu"] == c["cpu"] and d["tail"])
        want = placed + ([tail] if tail else [])
        got = warned.get(c["cpu"], [])
        if got[:len(placed)] != placed or (not stuck and got != want):
            problems.append("cpu %d: babeltrace2 warns of %s discarded, the decoder's drops are %s"
                            % (c["cpu"], got, want))


def etl_facts(path):
    """EventsLost and the buffers holding a KprofRecordsLost record with a
    count but not flagged EVENTS_LOST, as JSON on stdout (run under
    /usr/bin/python3, which has python3-construct for etl_reader.py)."""
    import etl_reader  # noqa: E402
    etl = etl_reader.read_etl(path)
    unflagged = [b.index for b in etl.buffers
                 if any(r.hook == 0xFE06 and any(v for k, v in r.fields().items() if k != "FirstLossTime")
                        for r in b.records) and not b.header.BufferFlag & etl_reader.FLAG_EVENTS_LOST]
    print(json.dumps({"events_lost": etl.logfile.EventsLost, "unflagged": unflagged}))


def check_etl(kprof, log, summary, tmp, problems):
    path = os.path.join(tmp, "t.etl")
    r = run(kprof, "etl", log, "-o", path, "--quiet")
    if r.returncode:
        problems.append("kprof etl failed: %s" % r.stderr.decode()[-300:])
        return
    r = run("/usr/bin/python3", "-c", "import sys; sys.path.insert(0, %r); import losscheck; losscheck.etl_facts(%r)"
            % (HERE, path))
    if r.returncode:
        problems.append("etl_reader.py could not read the ETL file: %s" % r.stderr.decode()[-300:])
        return
    facts = json.loads(r.stdout)
    if facts["events_lost"] != summary["lost_total"]:
        problems.append("ETL EventsLost %d, the decoder counts %d" % (facts["events_lost"], summary["lost_total"]))
    if facts["unflagged"]:
        problems.append("ETL buffers %s hold a KprofRecordsLost record but are not flagged EVENTS_LOST"
                        % facts["unflagged"])


def check_pictures(kprof, log, summary, drops, tmp, problems):
    kernel = os.environ.get("KPROF_KERNEL") or os.path.join(os.path.dirname(kprof), "kernel.elf")
    force = ["--force-kernel"] if os.environ.get("KPROF_FORCE_KERNEL") else []
    rep = run(kprof, "report", log, "--kernel", kernel, *force, "--quiet")
    text = rep.stdout.decode()
    if rep.returncode:
        problems.append("kprof report --kernel %s failed: %s" % (kernel, rep.stderr.decode()[-300:]))
    for c in summary["per_cpu"]:
        if not c["lost"]:
            continue
        # the CPUs table: cpu, cycles, traced, busy, idle, stalled, no trace, switches
        row = re.search(r"^\s*%d +\d+ +\S+ +\S+ +\S+ +\S+ +(\d+\.\d+)%% +\d+$" % c["cpu"], text, re.M)
        if not row or float(row.group(1)) <= 0:
            problems.append("report: cpu %d has drops but no 'no trace' time" % c["cpu"])
        if not re.search(r"^dropped \(.*\bcpu %d: %d\b" % (c["cpu"], c["lost"]), text, re.M):
            problems.append("report: cpu %d's %d dropped records are not listed" % (c["cpu"], c["lost"]))
    svg = os.path.join(tmp, "t.svg")
    run(kprof, "timeline", log, "-o", svg, "--quiet")
    holes = open(svg).read().count('<g class="hole">') if os.path.exists(svg) else 0
    if holes < len(drops):
        problems.append("timeline: %d holes drawn for %d drops" % (holes, len(drops)))
    pj = os.path.join(tmp, "t.json")
    run(kprof, "perfetto", log, "-o", pj, "--quiet")
    marks = []
    if os.path.exists(pj):
        marks = [e for e in json.load(open(pj))["traceEvents"] if e.get("ph") == "i" and e.get("name") == "Records lost"]
    if sum(e["args"]["Lost"] for e in marks) != summary["lost_total"] or len(marks) != len(drops):
        problems.append("perfetto: %d 'Records lost' marks counting %d, the decoder %d drops counting %d"
                        % (len(marks), sum(e["args"]["Lost"] for e in marks), len(drops), summary["lost_total"]))


def check(kprof, log, quiet=False):
    problems = []
    strict = run(kprof, "check", "--strict", "--quiet", log)
    if strict.returncode != 1:
        problems.append("kprof check --strict exits %d on a trace with drops" % strict.returncode)
    with tempfile.TemporaryDirectory(prefix="kprof-losscheck-") as tmp:
        summary, records, drops = decoded(kprof, log, tmp)
        if not summary["lost_total"] or not drops:
            return problems + ["no drops in %s: nothing to check" % log]
        mismatch = [i["what"] for i in summary["issues"] if i["kind"] == "loss-mismatch"]
        if mismatch:
            problems.append("loss mismatch: %s" % mismatch)
        check_placement(summary, records, drops, problems)
        check_ctf(kprof, log, summary, drops, tmp, problems)
        check_etl(kprof, log, summary, tmp, problems)
        if any(r["event"] == "CSwitch" for r in records):  # the pictures need the schedule
            check_pictures(kprof, log, summary, drops, tmp, problems)
        if not quiet:
            placed = [d for d in drops if not d["tail"]]
            print("  %d records, %d dropped: %d in %d KprofRecordsLost records, %d after a CPU's last record"
                  % (summary["records"], summary["lost_total"], sum(d["count"] for d in placed), len(placed),
                     sum(d["count"] for d in drops if d["tail"])))
    return problems


if __name__ == "__main__":
    sys.exit(checker_main(__doc__, "losscheck", check))
