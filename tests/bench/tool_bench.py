#!/usr/bin/env python3
"""tool_bench.py - every kprof command on a big log: records/s and peak memory.

Runs each command of the host tool once on LOG (a log of tens of millions of
records: tests/bench/biglog.py makes one), writing its output into a scratch
folder that is emptied after each command, and prints per command:

  - records/s over the command's CPU time (user + system: the tool runs on
    one core, and CPU time is what a loaded host does not distort), and over
    its wall-clock time;
  - its peak resident memory (ru_maxrss of the command, from wait4);

beside the goals (>= 1 M records/s for check, ctf (and --lttng), etl, report,
flamegraph, timeline and the Perfetto writer, >= 500 k/s for the text
decode; <= 256 MiB resident whatever the log's size), with "met" or
"MISSED".  A benchmark reports, it does not fail: the exit status is 0 when
every command ran (even with goals missed), 1 when one failed.

usage: tool_bench.py KPROF LOG --kernel ELF [--only CMD ...] [--scratch DIR]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

MIB = 1024 * 1024
RSS_GOAL = 256 * MIB

# row name, command, arguments after the log (OUT: the output path),
# records/s goal
COMMANDS = [
    ("check", "check", [], 1_000_000),
    ("decode", "decode", ["-o", "OUT/decode.txt"], 500_000),
    ("ctf", "ctf", ["-o", "OUT/ctf"], 1_000_000),
    ("ctf-lttng", "ctf", ["--lttng", "-o", "OUT/ctf-lttng"], 1_000_000),
    ("etl", "etl", ["--kernel", "ELF", "--force-kernel", "-o", "OUT/trace.etl"], 1_000_000),
    ("report", "report", ["--kernel", "ELF", "--force-kernel", "-o", "OUT/report.txt"], 1_000_000),
    ("flamegraph", "flamegraph", ["--kernel", "ELF", "--force-kernel", "-o", "OUT/flame.svg"], 1_000_000),
    ("timeline", "timeline", ["--kernel", "ELF", "--force-kernel", "-o", "OUT/timeline.svg"], 1_000_000),
    ("perfetto", "perfetto", ["--kernel", "ELF", "--force-kernel", "-o", "OUT/trace.perfetto-trace"], 1_000_000),
    ("perfetto-json", "perfetto", ["--kernel", "ELF", "--force-kernel", "-o", "OUT/trace.json"], 1_000_000),
]
OUTPUT_GOAL = {"perfetto": 40}  # bytes a record: the protobuf trace, the format for big runs


def output_bytes(folder):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(folder) for f in fs)


def run(argv):
    """Runs argv; returns (status, wall s, cpu s, peak RSS bytes, stderr)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, time.monotonic() - t0, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024, \
        err.decode(errors="replace")


def human(n):
    return "%.2f M" % (n / 1e6) if n >= 1e6 else "%.0f k" % (n / 1e3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kprof")
    ap.add_argument("log")
    ap.add_argument("--kernel", required=True, help="a kernel ELF for the commands that take one")
    ap.add_argument("--only", nargs="*", help="these rows only (perfetto: the protobuf trace, perfetto-json)")
    ap.add_argument("--scratch", default=None, help="folder for the outputs (default: beside the log)")
    a = ap.parse_args()
    scratch = a.scratch or os.path.join(os.path.dirname(os.path.abspath(a.log)), "tool-bench-out")

    rc, _, _, _, err = run([a.kprof, "check", "--strict", a.log])
    m = re.search(r"kprof: (\d+) records from", err)
    if rc or not m:
        print("tool_bench.py: %s does not pass kprof check --strict (exit %d):\n%s" % (a.log, rc, err))
        return 1
    records = int(m.group(1))
    size = os.path.getsize(a.log)
    print("host tool on %s: %d records, %.0f MB (%.1f bytes a record)" % (a.log, records, size / 1e6,
                                                                          size / records))
    print("goals (issue 29): >= 1 M records/s (decode text >= 500 k/s) on one core; peak RSS <= 256 MiB")
    print("%-13s %9s %9s %12s %12s %10s %9s  %s" % ("command", "cpu s", "wall s", "records/s", "(wall)",
                                                     "peak RSS", "out B/rec", "goals: rate, memory"))
    failed = 0
    for name, command, args, goal in COMMANDS:
        if a.only and name not in a.only:
            continue
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(scratch)
        argv = [a.kprof, command, a.log] + [x.replace("OUT", scratch).replace("ELF", a.kernel) for x in args]
        rc, wall, cpu, rss, err = run(argv)
        if rc:
            failed = 1
            last = err.strip().splitlines()
            print("%-13s failed (exit %d): %s" % (name, rc, last[-1] if last else "no message"))
            continue
        rate = records / cpu if cpu > 0 else float("inf")
        per = output_bytes(scratch) / records
        size_goal = ""
        if name in OUTPUT_GOAL:
            size_goal = ", output %s (%d B/record)" % ("met" if per <= OUTPUT_GOAL[name] else "MISSED",
                                                        OUTPUT_GOAL[name])
        print("%-13s %9.2f %9.2f %12s %12s %7.0f MiB %9.1f  %s (%s/s), %s%s" % (
            name, cpu, wall, human(rate), human(records / wall), rss / MIB, per,
            "met" if rate >= goal else "MISSED", human(goal),
            "met" if rss <= RSS_GOAL else "MISSED", size_goal))
        sys.stdout.flush()
    shutil.rmtree(scratch, ignore_errors=True)
    return failed


if __name__ == "__main__":
    sys.exit(main())
