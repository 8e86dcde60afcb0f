#!/usr/bin/python3
"""lockcheck.py - check a scenario=locks trace against the spin-lock rules.

    lockcheck.py KPROF LOG [--quiet]

Decodes LOG's SpinLock records (`KPROF decode --json --strict`; a trace
that lost records fails: the counts below need every record) and reads
from the console text the locks' addresses and kinds, the sampling
parameters in force and the instrumentation's own counts (lockstat line),
then checks:

  fields      AcquireTime <= ReleaseTime <= the record's time stamp; the
              wait fits before AcquireTime (the first try is not before the
              run started); SpinCount > 0 means WaitTimeInCycles > 0;
              1 <= AcquireDepth <= 8 and depth 8 occurs (the nested chain);
              the caller is kernel code;
  modes       AcquireMode matches the lock's kind (ordinary 0, queued 1,
              executive 2, 3 or 4) and Irql / ExecuteIsr / ExecuteDpc match
              where it is taken (interrupt lock: IRQL 14, in the handler or
              raised to it; DPC lock: IRQL 2 in a DPC; others: IRQL 2);
  contended   with ContentionSampleRate 1, the records whose SpinCount
              reaches SpinThreshold are exactly the contended acquisitions
              the kernel counted;
  holds       the records held for at least HoldThreshold cycles are
              exactly the long holds the kernel counted;
  sampling    the uncontended short acquisitions traced are one in
              AcquireSampleRate within 5 standard deviations (binomial);
  total       the records are exactly those the kernel handed to the trace;
  exclusion   no two traced holds of the same lock overlap in time, except
              shared holds of the executive lock with each other (a hold
              converted from shared counts as shared: its record does not
              say when it became exclusive).

Prints one line per check; exits 1 if any fails.
"""

import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import load, main as checker_main  # noqa: E402

KINDS = {"ordinary": {0}, "queued": {1}, "executive": {2, 3, 4}}
# Holds that are (or began) shared: a converted hold (4) was shared from its
# AcquireTime until its conversion, which the record does not time, so it
# may overlap other shared and converted holds, never an exclusive one.
SHARED_PHASE = {2, 4}
KERNEL_TEXT = 0xFFFFFFFF80000000


def check(kprof, log, quiet=False):
    recs, text, complete, err = load(kprof, log)
    if not complete:
        return ["the trace is not complete (lost records or bad frames); the counts need every record:\n" + err.strip()]
    problems = []

    def say(msg):
        if not quiet:
            print("  " + msg)

    locks = {int(a, 16): (kind, name) for a, kind, name in
             re.findall(r"^locks: lock 0x([0-9a-f]+) kind (\S+) name (\S+)\r?$", text, re.M)}
    m = re.search(r"^locks: at the end: .*spin threshold (\d+), acquire sample rate (\d+), contention sample rate "
                  r"(\d+), hold threshold (\d+)", text, re.M)
    c = re.search(r"^lockstat: instrumented (\d+) contended (\d+) uncontended (\d+) uncontended-short (\d+) "
                  r"long-holds (\d+) traced (\d+) untracked (\d+)", text, re.M)
    if not locks or not m or not c:
        return ["the console lacks the lock list, the parameters or the lockstat line"]
    spin_thr, acq_rate, cont_rate, hold_thr = (int(x) for x in m.groups())
    instrumented, contended, uncontended, unc_short, long_holds, traced, untracked = (int(x) for x in c.groups())
    sl = [r for r in recs if r["event"] == "SpinLock"]
    if not sl:
        return ["no SpinLock records"]
    first_ts = min(r["TimeStamp"] for r in recs)

    # fields
    bad = []
    for r in sl:
        if not (r["AcquireTime"] <= r["ReleaseTime"] <= r["TimeStamp"]):
            bad.append("times out of order")
        elif r["AcquireTime"] - r["WaitTimeInCycles"] < first_ts - 10 ** 9 and r["WaitTimeInCycles"] != 0xFFFFFFFF:
            bad.append("a wait that began before the run")
        elif r["SpinCount"] > 0 and r["WaitTimeInCycles"] == 0:
            bad.append("spins without a wait")
        elif not 1 <= r["AcquireDepth"] <= 8:
            bad.append("AcquireDepth %d" % r["AcquireDepth"])
        elif r["CallerAddress"] < KERNEL_TEXT:
            bad.append("caller 0x%x outside the kernel" % r["CallerAddress"])
        else:
            continue
        if len(bad) <= 3:
            problems.append("fields: %s in %s" % (bad[-1], r))
    depths = {r["AcquireDepth"] for r in sl}
    if 8 not in depths:
        problems.append("fields: no record at AcquireDepth 8 (the nested chain)")
    say("fields: %d SpinLock records, %d with bad fields; depths seen %s" % (len(sl), len(bad), sorted(depths)))

    # modes, IRQL, context
    wrong = 0
    unknown = 0
    for r in sl:
        lk = locks.get(r["SpinLockAddress"])
        if not lk:
            unknown += 1
            continue
        kind, name = lk
        why = None
        if r["AcquireMode"] not in KINDS[kind]:
            why = "mode %d for a %s lock" % (r["AcquireMode"], kind)
        elif name.startswith("interrupt") and r["Irql"] != 14:
            why = "interrupt lock held at IRQL %d" % r["Irql"]
        elif name.startswith("dpc") and (r["Irql"] != 2 or not r["ExecuteDpc"] or r["ExecuteIsr"]):
            why = "DPC lock at IRQL %d, ExecuteDpc %d" % (r["Irql"], r["ExecuteDpc"])
        elif not name.startswith(("interrupt", "dpc")) and (r["Irql"] != 2 or r["ExecuteIsr"]):
            why = "thread lock at IRQL %d, ExecuteIsr %d" % (r["Irql"], r["ExecuteIsr"])
        if why:
            wrong += 1
            if wrong <= 3:
                problems.append("modes: %s: %s" % (name, why))
    if unknown:
        problems.append("modes: %d records for locks the scenario did not list" % unknown)
    isr_records = sum(1 for r in sl if r["ExecuteIsr"])
    # Every acquisition is traced with a chance of at least 1 in the
    # acquire sample rate (contended and long ones always): the handler's
    # N acquisitions leave no record with a chance of at most
    # (1 - 1/rate)^N, under 1% from N = 5 x rate on.  Fewer (KVM with
    # software paging: about 250 in 4 s) are not judged, and said so.
    g = re.search(r"^locks: guarded counts: .*\binterrupt (\d+)/\d+", text, re.M)
    isr_takes = int(g.group(1)) if g else None
    if not isr_records:
        if isr_takes is None or isr_takes >= 5 * acq_rate:
            problems.append("modes: no record from the interrupt handler (%s acquisitions by it)" % isr_takes)
        else:
            say("modes: no record from the interrupt handler, not judged: %d acquisitions by it, fewer than "
                "5 x the acquire sample rate (%d) can all go untraced" % (isr_takes, acq_rate))
    say("modes: %d records checked against %d listed locks, %d wrong, %d from the interrupt handler"
        % (len(sl) - unknown, len(locks), wrong, isr_records))

    # contended, long holds, totals
    rec_contended = sum(1 for r in sl if r["SpinCount"] >= spin_thr)
    rec_long = sum(1 for r in sl if hold_thr and r["ReleaseTime"] - r["AcquireTime"] >= hold_thr)
    if cont_rate == 1 and rec_contended != contended:
        problems.append("contended: %d records with SpinCount >= %d, the kernel counted %d contended acquisitions"
                        % (rec_contended, spin_thr, contended))
    if not contended:
        problems.append("contended: no contention at all: the scenario did not contend")
    say("contended: %d records with SpinCount >= %d, kernel counted %d (contention sample rate %d)"
        % (rec_contended, spin_thr, contended, cont_rate))
    if hold_thr and rec_long != long_holds:
        problems.append("holds: %d records held >= %d cycles, the kernel counted %d" % (rec_long, hold_thr, long_holds))
    if hold_thr and not long_holds:
        problems.append("holds: no hold crossed HoldThreshold")
    say("holds: %d records held >= %d cycles, kernel counted %d" % (rec_long, hold_thr, long_holds))
    if len(sl) != traced:
        problems.append("total: %d SpinLock records, the kernel wrote %d" % (len(sl), traced))
    say("total: %d records, kernel wrote %d; %d acquisitions instrumented, %d beyond depth 8"
        % (len(sl), traced, instrumented, untracked))

    # sampling of the uncontended short ones
    k = sum(1 for r in sl if r["SpinCount"] < spin_thr and not (hold_thr and r["ReleaseTime"] - r["AcquireTime"] >= hold_thr))
    p = 1.0 / acq_rate
    mean = unc_short * p
    sd = math.sqrt(unc_short * p * (1 - p))
    if abs(k - mean) > 5 * sd + 1:
        problems.append("sampling: %d of %d uncontended short acquisitions traced, expected %.1f +- %.1f (1 in %d)"
                        % (k, unc_short, mean, 5 * sd, acq_rate))
    say("sampling: %d of %d uncontended short acquisitions traced; expected %.1f, 5 sd = %.1f (1 in %d)"
        % (k, unc_short, mean, 5 * sd, acq_rate))

    # exclusion as the trace shows it
    by_lock = {}
    for r in sl:
        by_lock.setdefault(r["SpinLockAddress"], []).append(r)

    def hold(r):
        return "cpu %d mode %d spins %d held %d..%d" % (r["cpu"], r["AcquireMode"], r["SpinCount"],
                                                        r["AcquireTime"], r["ReleaseTime"])

    overlaps = 0
    for addr, holds in by_lock.items():
        holds.sort(key=lambda r: (r["AcquireTime"], r["ReleaseTime"]))
        active = []  # holds still open
        for r in holds:
            acq, mode = r["AcquireTime"], r["AcquireMode"]
            active = [o for o in active if o["ReleaseTime"] > acq]
            clash = [o for o in active if not (mode in SHARED_PHASE and o["AcquireMode"] in SHARED_PHASE)]
            if clash:
                overlaps += 1
                if overlaps <= 3:
                    # both holds in full: a CI log shows this line, not the trace
                    problems.append("exclusion: lock 0x%x (%s) held twice at %d: %s over %s, by %d cycles"
                                    % (addr, locks.get(addr, ("?", "?"))[1], acq, hold(r), hold(clash[0]),
                                       clash[0]["ReleaseTime"] - acq))
            active.append(r)
    say("exclusion: %d locks, %d overlapping holds" % (len(by_lock), overlaps))
    return problems


if __name__ == "__main__":
    sys.exit(checker_main(__doc__, "lockcheck", check))
