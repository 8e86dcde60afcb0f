#!/usr/bin/env python3
"""profilecheck.py KPROF LOG KERNEL_ELF [--quiet] - check a scenario=profile
trace (trace=profile,stack, nothing lost) against the profile objects'
histograms and the kernel's text:

  samples    every SampledProfile's InstructionPointer lies in the kernel's
             text [__text_start, __text_end);
  stacks     every SampledProfile has its StackWalk on the same CPU, later
             (a nested profile interrupt may come in between): its
             EventTimeStamp is the sample's time stamp, the first frame is
             the sample's InstructionPointer, StackThread its ThreadId;
  objects    for every KprofProfileObject (a basic profile object at its
             stop), each bucket equals the number of samples whose
             InstructionPointer lies in that bucket's addresses (below
             RangeLimit, which is never counted), taken on a CPU of the
             object's Affinity and, for a per-process object, by a thread of
             its process (from the StackWalk's StackProcess); Hits is the
             sum of the buckets;
  edge       some sample lies exactly at the guard-page object's
             RangeLimit (the case that would write past its buffer);
  shares     the samples and periods (the sum of their Count) the kernel
             printed for each work function are the trace's, and the
             accuracy error is at most 5% over at least 10,000 samples.
             The workload runs up to four times its length for 12,000
             samples; a host that keeps its virtual CPUs from running can
             leave fewer (periods missed).  Then the bound is the same
             number of standard errors: a share's error shrinks as 1 /
             sqrt(n), so n samples are allowed 5% x sqrt(10,000 / n); below
             MIN_JUDGED samples nothing can be judged and the check fails.
"""

import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import load, main as checker_main  # noqa: E402

MIN_SAMPLES = 10000
MAX_ERROR_PCT = 5.0
MIN_JUDGED = 1000      # fewer: the bound (5% x sqrt(10)) would judge little


def symbols(kernel):
    out = subprocess.run(["nm", kernel], stdout=subprocess.PIPE, check=True).stdout.decode()
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            syms[parts[2]] = int(parts[0], 16)
    return syms


def affinity_has(obj, cpu):
    return (obj["Affinity%d" % (cpu // 64)] >> (cpu % 64)) & 1 if cpu < 256 else 0


def as_int(v):
    return int(v, 16) if isinstance(v, str) else v


def check(kprof, log, kernel, quiet=False, judge_accuracy=True):
    """judge_accuracy False: the accuracy goal (MIN_SAMPLES, MAX_ERROR_PCT) is
    printed, not judged, for a run that cannot take that many samples (KVM
    with software paging, where the paced profile interval gives about 250
    samples a second on 2 CPUs); every count is still checked."""
    recs, text, complete, decode_err = load(kprof, log)
    if not complete:
        return ["the trace is not complete (lost records or bad frames), the checks need every sample:\n"
                + decode_err.strip()]
    syms = symbols(kernel)
    lo, hi = syms.get("__text_start"), syms.get("__text_end")
    if lo is None or hi is None:
        return ["no __text_start/__text_end in %s" % kernel]
    problems = []

    def say(msg):
        if not quiet:
            print("  " + msg)

    samples = []      # (cpu, ts, ip, tid, process)
    pending = {}      # (cpu, time stamp) -> sample waiting for its stack walk
    objects = []
    bad_ip = bad_stack = 0
    for r in recs:
        ev = r["event"]
        if ev == "SampledProfile":
            ip = r["InstructionPointer"]
            if not lo <= ip < hi:
                bad_ip += 1
                if bad_ip <= 3:
                    problems.append("samples: InstructionPointer 0x%x outside the kernel text [0x%x, 0x%x): %s"
                                    % (ip, lo, hi, r))
            pending[(r["cpu"], r["TimeStamp"])] = [r["cpu"], r["TimeStamp"], ip, r["ThreadId"], None, r["Count"]]
        elif ev == "StackWalk":
            s = pending.pop((r["cpu"], r["EventTimeStamp"]), None)
            stack = [as_int(a) for a in r.get("Stack", [])]
            if s is None:
                continue  # a PMC sample's
            if not stack or stack[0] != s[2] or r["StackThread"] != s[3]:
                bad_stack += 1
                if bad_stack <= 3:
                    problems.append("stacks: StackWalk %s does not match its sample (ts %d, ip 0x%x, thread %d)"
                                    % (r, s[1], s[2], s[3]))
            s[4] = r["StackProcess"]
            samples.append(tuple(s))
        elif ev == "KprofProfileObject":
            objects.append(r)
    for s in pending.values():
        samples.append(tuple(s))
        bad_stack += 1
        if bad_stack <= 3:
            problems.append("stacks: the sample at %d on CPU %d has no StackWalk" % (s[1], s[0]))
    say("samples: %d, all in the kernel text: %s; stacks matched: %s"
        % (len(samples), "yes" if not bad_ip else "NO (%d outside)" % bad_ip,
           "yes" if not bad_stack else "NO (%d)" % bad_stack))
    if not samples:
        problems.append("samples: no SampledProfile records")
    if not objects:
        problems.append("objects: no KprofProfileObject records")

    edge_hits = 0
    for o in objects:
        base, limit = as_int(o["RangeBase"]), as_int(o["RangeLimit"])
        shift = o["BucketShift"] + 2
        per_process = o["Flags"] & 1
        if o["Flags"] & 2:
            problems.append("objects: object %d's record is truncated" % o["ProfileId"])
            continue
        expect = [0] * o["BucketCount"]
        at_limit = 0
        for cpu, ts, ip, tid, proc, _ in samples:
            if not affinity_has(o, cpu) or (per_process and proc != o["ProcessId"]):
                continue
            if ip == limit:
                at_limit += 1
            if base <= ip < limit:
                i = (ip - base) >> shift
                if i >= len(expect):
                    problems.append("objects: object %d: sample 0x%x maps past its %d buckets"
                                    % (o["ProfileId"], ip, len(expect)))
                    continue
                expect[i] += 1
        got = o.get("Buckets", [])
        what = "object %d [0x%x, 0x%x)%s" % (o["ProfileId"], base, limit,
                                           " process %d" % o["ProcessId"] if per_process else "")
        if got != expect:
            diffs = [(i, g, e) for i, (g, e) in enumerate(zip(got, expect)) if g != e]
            problems.append("objects: %s: buckets differ from the samples at %s (bucket, counted, sampled)%s"
                            % (what, diffs[:5], "" if len(got) == len(expect) else
                               "; %d buckets, %d expected" % (len(got), len(expect))))
        if sum(got) != o["Hits"]:
            problems.append("objects: %s: Hits %d but the buckets add up to %d" % (what, o["Hits"], sum(got)))
        edge_hits = max(edge_hits, at_limit)
        say("%s: %d samples counted as the trace says; %d at RangeLimit not counted" % (what, sum(got), at_limit))
    if objects and not edge_hits:
        problems.append("edge: no sample landed exactly at any object's RangeLimit: the guard-page case was not "
                        "exercised")

    shares = re.findall(r"^profile: (prof_work_\w)\s+measured\s+([\d.]+)%\s+sampled\s+([\d.]+)%\s+\((\d+) "
                        r"samples, (\d+) periods\)", text, re.M)
    acc = re.search(r"^profile: accuracy error ([\d.]+)% .* over (\d+) samples", text, re.M)
    if len(shares) != 4 or not acc:
        problems.append("shares: the kernel's share lines or accuracy line are missing")
        return problems
    total = sum(int(n) for _, _, _, n, _ in shares)
    for name, measured, sampled, n, periods in shares:
        base = syms.get(name)
        obj = next((o for o in objects if as_int(o["RangeBase"]) == base and not o["Flags"] & 1
                    and all(affinity_has(o, c) for c in {s[0] for s in samples})), None)
        if obj is None:
            problems.append("shares: no global profile object over %s" % name)
            continue
        mine = [s for s in samples if as_int(obj["RangeBase"]) <= s[2] < as_int(obj["RangeLimit"])]
        if len(mine) != int(n) or sum(s[5] for s in mine) != int(periods):
            problems.append("shares: %s: the kernel counted %s samples for %s periods, the trace has %d for %d"
                            % (name, n, periods, len(mine), sum(s[5] for s in mine)))
    err, count = float(acc.group(1)), int(acc.group(2))
    say("shares: error %.2f%% over %d samples (goal: at most %.0f%% with at least %d)"
        % (err, count, MAX_ERROR_PCT, MIN_SAMPLES))
    if count != total:
        problems.append("shares: the accuracy line counts %d samples, the share lines %d" % (count, total))
    if not judge_accuracy:
        return problems
    allowed = MAX_ERROR_PCT
    if count < MIN_JUDGED:
        problems.append("shares: only %d samples in the work functions; at least %d are needed to judge the shares "
                        "(the goal is for %d)" % (count, MIN_JUDGED, MIN_SAMPLES))
    elif count < MIN_SAMPLES:
        allowed = MAX_ERROR_PCT * math.sqrt(MIN_SAMPLES / count)
        say("shares: %d samples, fewer than the goal's %d (the host did not run the virtual CPUs: see the periods "
            "missed): the error allowed is %.0f%% x sqrt(%d / %d) = %.2f%%" % (count, MIN_SAMPLES, MAX_ERROR_PCT,
                                                                            MIN_SAMPLES, count, allowed))
    if err > allowed:
        problems.append("shares: accuracy error %.2f%% is above %.2f%%" % (err, allowed))
    return problems


if __name__ == "__main__":
    sys.exit(checker_main(__doc__, "profilecheck", check, nargs=3))
