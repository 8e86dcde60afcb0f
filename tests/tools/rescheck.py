#!/usr/bin/python3
"""rescheck.py - check a scenario=resources trace (WMI_RESOURCE records).

    rescheck.py KPROF LOG [--quiet]

Decodes LOG's Resource records (`KPROF decode --json --strict`, which
fails if any record was lost), reads from the console text the counts the
scenario says the trace must hold, its threads' time-outs, the
excessive-wait interval and the TSC rate, then checks:

  counts     records per Action equal the scenario's counts;
  fields     Initialize: times, MaxRecursionDepth and ContentionDelta 0;
             Reinitialize: times 0, MaxRecursionDepth >= 1 (entries
             provided for); every record has a Resource and a ThreadId;
  releases   AcquireTime + HoldTime <= the record's TimeStamp; the wait
             began (AcquireTime - WaitTime) after the trace's first record
             and after the resource's Initialize; MaxRecursionDepth >= 1;
  exclusion  per resource (one lifetime: from an Initialize to the next at
             the same address), no exclusive hold [AcquireTime,
             AcquireTime + HoldTime) overlaps any other hold;
  timeouts   excessive-wait records: AcquireTime, HoldTime and
             MaxRecursionDepth 0, and WaitTime at least the time-out that
             applied: the excessive-wait interval, or the thread's own
             time-out when that is shorter.

Prints one line per check with what it measured; exits 1 if any fails.
"""

import bisect
import re
import sys

from checklib import load, main as checker_main  # noqa: E402

INITIALIZE, REINITIALIZE = 0x00010008, 0x00010018
RELEASE_EXCLUSIVE, RELEASE_SHARED = 0x00010022, 0x00010042
WAIT_EXCLUSIVE, WAIT_SHARED = 0x00010224, 0x00010244
NAMES = {INITIALIZE: "initialize", REINITIALIZE: "reinitialize", RELEASE_EXCLUSIVE: "release exclusive",
         RELEASE_SHARED: "release shared", WAIT_EXCLUSIVE: "wait timeout exclusive",
         WAIT_SHARED: "wait timeout shared"}
ORDER = [INITIALIZE, REINITIALIZE, RELEASE_EXCLUSIVE, RELEASE_SHARED, WAIT_EXCLUSIVE, WAIT_SHARED]


def console(text):
    """What the scenario printed: expected counts, time-outs, rates."""
    m = re.search(r"^resources: the trace must hold (\d+) initialize, (\d+) reinitialize, (\d+) release "
                  r"exclusive, (\d+) release shared, (\d+) wait timeout exclusive, (\d+) wait timeout shared "
                  r"records\r?$", text, re.M)
    expected = dict(zip(ORDER, map(int, m.groups()))) if m else None
    m = re.search(r"^resources: excessive-wait interval (\d+) us", text, re.M)
    slice_us = int(m.group(1)) if m else None
    timeouts = {}
    for tid, rest in re.findall(r"^resources: thread (\d+) role \S+ priority -?\d+(.*?)\r?$", text, re.M):
        m = re.search(r"timeout (\d+) us", rest)
        timeouts[int(tid)] = int(m.group(1)) if m else None
    m = re.search(r"^time: TSC (\d+)\.(\d+) MHz", text, re.M)
    tsc_hz = int(m.group(1)) * 1000000 + int(m.group(2)) if m else None
    return expected, slice_us, timeouts, tsc_hz


def lifetimes(res):
    """Per Resource address: sorted TimeStamps of its Initialize records."""
    inits = {}
    for r in res:
        if r["Action"] == INITIALIZE:
            inits.setdefault(r["Resource"], []).append(r["TimeStamp"])
    for v in inits.values():
        v.sort()
    return inits


def lifetime_of(inits, r):
    """(address, index of the Initialize before r), or None if none is."""
    l = inits.get(r["Resource"], [])
    i = bisect.bisect_right(l, r["TimeStamp"]) - 1
    return (r["Resource"], i) if i >= 0 else None


def check(kprof, log, quiet=False):
    recs, text, complete, decode_err = load(kprof, log)
    if not complete:
        return ["the trace is not complete (lost records or bad frames), the checks need every record:\n"
                + decode_err.strip()]
    expected, slice_us, timeouts, tsc_hz = console(text)
    if expected is None or slice_us is None or tsc_hz is None:
        return ["no record counts, excessive-wait interval or TSC rate in the console text"]
    res = [r for r in recs if r["event"] == "Resource"]
    if not res:
        return ["no Resource records"]
    problems = []

    def say(msg):
        if not quiet:
            print("  " + msg)

    def problem(kind, counter, msg):
        counter[0] += 1
        if counter[0] <= 3:
            problems.append("%s: %s" % (kind, msg))

    first_ts = min(r["TimeStamp"] for r in recs)
    by_action = {}
    for r in res:
        by_action.setdefault(r["Action"], []).append(r)

    # counts
    got = {a: len(by_action.get(a, [])) for a in ORDER}
    unknown = sum(len(v) for a, v in by_action.items() if a not in NAMES)
    bad = [a for a in ORDER if got[a] != expected[a]]
    for a in bad:
        problems.append("counts: %d %s records, the scenario says %d" % (got[a], NAMES[a], expected[a]))
    if unknown:
        problems.append("counts: %d records with an unknown Action" % unknown)
    say("counts: %s; %d mismatches"
        % (", ".join("%d %s" % (got[a], NAMES[a]) for a in ORDER), len(bad) + bool(unknown)))

    # fields
    n = [0]
    for r in res:
        if not r["ThreadId"] or r["Resource"] == 0:
            problem("fields", n, "no ThreadId or Resource: %s" % r)
    for r in by_action.get(INITIALIZE, []) + by_action.get(REINITIALIZE, []):
        if r["AcquireTime"] or r["HoldTime"] or r["WaitTime"]:
            problem("fields", n, "(re)initialize with non-zero times: %s" % r)
        if r["Action"] == INITIALIZE and (r["MaxRecursionDepth"] or r["ContentionDelta"]):
            problem("fields", n, "initialize with MaxRecursionDepth or ContentionDelta: %s" % r)
        if r["Action"] == REINITIALIZE and r["MaxRecursionDepth"] < 1:
            problem("fields", n, "reinitialize providing for no owner entry: %s" % r)
    say("fields: %d records, %d with bad fields" % (len(res), n[0]))

    # releases
    inits = lifetimes(res)
    releases = by_action.get(RELEASE_EXCLUSIVE, []) + by_action.get(RELEASE_SHARED, [])
    n = [0]
    waited = 0
    for r in releases:
        began = r["AcquireTime"] - r["WaitTime"]
        waited += r["WaitTime"] > 0
        life = lifetime_of(inits, r)
        if r["AcquireTime"] + r["HoldTime"] > r["TimeStamp"]:
            problem("releases", n, "released after its record was written: %s" % r)
        elif began < first_ts:
            problem("releases", n, "waited from before the trace began (%d): %s" % (first_ts, r))
        elif life is None or began < inits[life[0]][life[1]]:
            problem("releases", n, "waited from before its resource's Initialize: %s" % r)
        elif r["MaxRecursionDepth"] < 1:
            problem("releases", n, "MaxRecursionDepth 0: %s" % r)
    say("releases: %d holds (%d had waited), %d inconsistent" % (len(releases), waited, n[0]))

    # exclusion
    holds = {}
    for r in releases:
        life = lifetime_of(inits, r)
        if life is not None:
            holds.setdefault(life, []).append((r["AcquireTime"], r["AcquireTime"] + r["HoldTime"],
                                               r["Action"] == RELEASE_EXCLUSIVE, r["ThreadId"]))
    n = [0]
    for life, iv in holds.items():
        iv.sort()
        end_all = end_excl = 0
        tid_all = tid_excl = None
        for start, end, excl, tid in iv:
            if (excl and start < end_all) or (not excl and start < end_excl):
                problem("exclusion", n, "resource %s: thread %d's %s hold from %d overlaps thread %s's hold "
                        "until %d" % (life[0], tid, "exclusive" if excl else "shared", start,
                                      tid_all if excl else tid_excl, end_all if excl else end_excl))
            if end > end_all:
                end_all, tid_all = end, tid
            if excl and end > end_excl:
                end_excl, tid_excl = end, tid
    say("exclusion: %d holds on %d resource lifetimes, %d overlaps of an exclusive hold"
        % (sum(len(v) for v in holds.values()), len(holds), n[0]))

    # timeouts
    n = [0]
    shortest = None
    waits = by_action.get(WAIT_EXCLUSIVE, []) + by_action.get(WAIT_SHARED, [])
    for r in waits:
        tid = r["ThreadId"]
        if tid not in timeouts:
            problem("timeouts", n, "thread %d is not in the scenario's thread list" % tid)
            continue
        applied = slice_us if timeouts[tid] is None else min(slice_us, timeouts[tid])
        need = applied * tsc_hz // 1000000
        if r["AcquireTime"] or r["HoldTime"] or r["MaxRecursionDepth"]:
            problem("timeouts", n, "non-zero AcquireTime, HoldTime or MaxRecursionDepth: %s" % r)
        elif r["WaitTime"] < need:
            problem("timeouts", n, "thread %d waited %d us, less than its time-out of %d us: %s"
                    % (tid, r["WaitTime"] * 1000000 // tsc_hz, applied, r))
        over = r["WaitTime"] - need
        shortest = over if shortest is None else min(shortest, over)
    say("timeouts: %d excessive waits, %d shorter than their time-out%s"
        % (len(waits), n[0], "" if shortest is None else "; the closest ended %d us after it"
           % (shortest * 1000000 // tsc_hz)))
    return problems


if __name__ == "__main__":
    sys.exit(checker_main(__doc__, "rescheck", check))
