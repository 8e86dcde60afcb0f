#!/usr/bin/python3
"""schedcheck.py - check a scenario=sched trace against the dispatcher's rules.

    schedcheck.py KPROF LOG [--quiet]

Decodes LOG's CSwitch and ReadyThread records (`KPROF decode --json`) and
reads the scenario's thread list from the console text, then checks:

  chain      per CPU, the new thread of each switch is the old thread of
             the next one;
  exclusive  no thread (other than the idle threads, id 0) runs on two
             CPUs at once;
  timeouts   every timed wait of a thread with a known time-out ends (the
             thread is made ready) within the time-out plus one clock tick
             plus the unrecorded lateness (TIMEOUT_SLACK below);
  priority   no CPU runs a lower priority than a ready thread that may run
             there (or idles) for longer than one clock tick plus the
             unrecorded lateness of that tick and of its answer
             (PREEMPT_SLACK below);
  idle       the longest time a thread stayed ready while a CPU it may
             run on was idle (from the thread's ReadyThread record, or its
             switch out in state Ready, to its next switch in): printed in
             microseconds; an idle CPU should take it at once, and more
             than the priority bound fails (an idle CPU runs the lowest
             priority of all);
  fields     CSwitch fields are in range (states, priorities, C-states).

The bounds are the kernel's documented rules, not tuned numbers
(docs/scheduler.md, "What the dispatcher promises"): a thread made ready
that outranks a running one is given to a CPU running a lower priority,
which is asked at once; a thread that could not be given one waits in a
queue, and every CPU's clock tick looks there; so a CPU runs a lower
priority than a waiting thread for at most one tick, plus the time it could
not run.  That time is recorded when over LATE_US (a late clock interrupt,
a late answer to a kick or a request to preempt, a held end of interrupt;
docs/scheduler.md, "Stalls"): the tick may come up to LATE_US late and the
answer up to LATE_US late without a record, hence 2 * LATE_US.

Stalls: a virtual CPU the host does not run for a while can do nothing in
that time, and no kernel could.  The kernel records each clock interrupt
that came more than 200 us late, each kick to an idle CPU and each request
to reschedule made while the CPU ran below DISPATCH_LEVEL that it answered
more than 200 us late, and each end of interrupt the host held that long
(KprofClockLate, trace=clock): from its DueTime on, for LateCycles, that
CPU took no interrupt.  The timeouts and
priority checks do not count time a CPU they depend on was stalled, and
the totals are printed so that a host too busy to judge is visible.  A
timed wait's time-out is due on the CPU the thread waited on, so the stalls
of that CPU and of the CPU that ended the wait are both left out.

The checks need every record: a trace that lost records fails.

Prints one line per check with what it measured; exits 1 if any fails.
"""

import bisect
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import load, main as checker_main  # noqa: E402

WAITING, READY, RUNNING, TERMINATED = 5, 1, 2, 4
WR_DELAY_EXECUTION, EXECUTIVE = 11, 0

# The kernel records a stall only when it is over LATE_US (CLOCK_LATE_US,
# kernel/ke/time/clock.c): shorter lateness is not in the trace.
LATE_US = 200
# A CPU asked to preempt (by its own tick at the latest) answers within
# its tick, which may be LATE_US late, plus its answer, which may be
# LATE_US late, unrecorded.
PREEMPT_SLACK_US = 2 * LATE_US
# A time-out is a timer-queue entry due at the deadline: in periodic timer
# mode the queue is looked at once a tick, and the interrupt that does it
# may be LATE_US late unrecorded (in one-shot and deadline modes the timer
# fires at the deadline, within the same LATE_US).
TIMEOUT_SLACK_US = LATE_US


class Stalls:
    """Per CPU, the sorted intervals in which it took no interrupt."""

    def __init__(self, recs):
        self.iv = {}
        for r in recs:
            if r["event"] == "KprofClockLate":
                self.iv.setdefault(r["cpu"], []).append((r["DueTime"], r["TimeStamp"]))
        for cpu, l in self.iv.items():  # merged: a late kick and a late tick may overlap
            l.sort()
            merged = []
            for st, en in l:
                if merged and st <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(merged[-1][1], en))
                else:
                    merged.append((st, en))
            self.iv[cpu] = merged

    def within(self, cpu, start, end):
        """Cycles of [start, end) during which cpu was stalled."""
        total = 0
        for s, e in self.iv.get(cpu, []):
            if s >= end:
                break
            total += max(0, min(e, end) - max(s, start))
        return total

    def within_any(self, cpus, start, end):
        """Cycles of [start, end) during which any of cpus was stalled."""
        iv = sorted((max(s, start), min(e, end)) for c in set(cpus) for s, e in self.iv.get(c, [])
                    if s < end and e > start)
        total, reach = 0, start
        for s, e in iv:
            s = max(s, reach)
            if e > s:
                total += e - s
                reach = e
        return total

    def summary(self):
        return {cpu: (len(l), sum(e - s for s, e in l)) for cpu, l in self.iv.items()}


def threads_from_console(text):
    info = {}
    for tid, role, prio, rest in re.findall(r"^sched: thread (\d+) role (\S+) priority (-?\d+)(.*?)\r?$", text, re.M):
        t = {"role": role, "priority": int(prio), "timeout_us": None, "cpu": None}
        m = re.search(r"timed-wait (\d+) us", rest)
        if m:
            t["timeout_us"] = int(m.group(1))
        m = re.search(r"affinity cpu (\d+)", rest)
        if m:
            t["cpu"] = int(m.group(1))
        info[int(tid)] = t
    return info


def lower_stretch(segs, ts, end, prio, stalls, cpu):
    """Longest stretch of [ts, end] in which cpu (its timeline segs of
    (start, end, tid, priority)) ran a priority below prio or idled, less
    the time cpu was stalled in it."""
    stretch_start = None
    longest = 0
    for s, e, rt, rp in segs:
        if e <= ts or s >= end:
            continue
        if rt == 0 or rp < prio:
            if stretch_start is None:
                stretch_start = max(s, ts)
            stretch_end = min(e, end)
            longest = max(longest, stretch_end - stretch_start - stalls.within(cpu, stretch_start, stretch_end))
        else:
            stretch_start = None
    return longest


def idle_while_ready(intervals, timeline, allowed_of, stalls):
    """Longest (cycles, tid, cpu, start) stretch in which a thread was ready
    and a CPU it may run on ran its idle thread, less the time that CPU
    was stalled.  intervals: (start, end, tid) ready intervals."""
    idle = {cpu: [(s, e) for s, e, rt, _ in segs if rt == 0] for cpu, segs in timeline.items()}
    ends = {cpu: [e for _, e in segs] for cpu, segs in idle.items()}  # sorted: segments do not overlap
    worst = (0, None, None, None)
    for ts, end, tid in intervals:
        for cpu in allowed_of(tid):
            segs = idle.get(cpu, [])
            for s, e in segs[bisect.bisect_right(ends.get(cpu, []), ts):]:
                if s >= end:
                    break
                a, b = max(s, ts), min(e, end)
                d = b - a - stalls.within(cpu, a, b)
                if d > worst[0]:
                    worst = (d, tid, cpu, a)
    return worst


def check(kprof, log, quiet=False, figures=None):
    recs, text, complete, decode_err = load(kprof, log)
    if not complete:
        return ["the trace is not complete (lost records or bad frames), the checks need every record:\n"
                + decode_err.strip()]
    threads = threads_from_console(text)
    stalls = Stalls(recs)
    m = re.search(r"^time: TSC (\d+)\.(\d+) MHz", text, re.M)
    tsc_hz = int(m.group(1)) * 1000000 + int(m.group(2)) if m else None
    m = re.search(r"^clock: (\d+) Hz tick", text, re.M)
    tick_hz = int(m.group(1)) if m else 100
    ncpu = len(re.findall(r"^cpu \d+: APIC id \d+ online", text, re.M))
    if not tsc_hz or not ncpu:
        return ["no TSC rate or CPU lines in the console text"]
    tick = tsc_hz // tick_hz
    us = tsc_hz // 1000000
    preempt_bound = tick + PREEMPT_SLACK_US * us
    timeout_slack = tick + TIMEOUT_SLACK_US * us
    problems = []
    cs = [r for r in recs if r["event"] == "CSwitch"]
    ready = [r for r in recs if r["event"] == "ReadyThread"]
    if not cs:
        return ["no CSwitch records"]
    first_ts = min(r["TimeStamp"] for r in recs)
    last_ts = max(r["TimeStamp"] for r in recs)

    def say(msg):
        if not quiet:
            print("  " + msg)

    st = stalls.summary()
    say("stalls: %s" % (", ".join("cpu %d: %d records, %d ms" % (c, n, cyc // (us * 1000))
                                   for c, (n, cyc) in sorted(st.items())) or "none recorded"))
    if not any(r["event"] == "KprofClockLate" for r in recs) and "trace=" in text and "clock" not in text:
        say("stalls: (trace=clock was off: stalls are unknown and count against the kernel)")

    # fields
    # An idle thread leaves the CPU still Running (it is never queued or
    # waits); every other thread leaves Ready, Waiting or Terminated.
    bad = [r for r in cs if r["OldThreadState"] not in ((RUNNING,) if r["OldThreadId"] == 0 else (READY, WAITING, TERMINATED))
           or not 0 <= r["NewThreadPriority"] <= 31 or not 0 <= r["OldThreadPriority"] <= 31
           or (r["OldThreadId"] == 0 and r["PreviousCState"] not in (0, 1))
           or (r["OldThreadId"] != 0 and r["PreviousCState"] != 0)]
    if bad:
        problems.append("fields: %d CSwitch records out of range, first %s" % (len(bad), bad[0]))
    say("fields: %d CSwitch and %d ReadyThread records, %d with fields out of range" % (len(cs), len(ready), len(bad)))

    # chain, and each CPU's timeline of (start, end, tid, priority)
    per_cpu = {}
    for r in cs:
        per_cpu.setdefault(r["cpu"], []).append(r)
    breaks = 0
    timeline = {}
    for cpu, rs in per_cpu.items():
        for a, b in zip(rs, rs[1:]):
            if a["NewThreadId"] != b["OldThreadId"]:
                breaks += 1
                if breaks <= 3:
                    problems.append("chain: cpu %d at %d: switched to %d, next switch is from %d"
                                    % (cpu, b["TimeStamp"], a["NewThreadId"], b["OldThreadId"]))
        segs = [(first_ts, rs[0]["TimeStamp"], rs[0]["OldThreadId"], rs[0]["OldThreadPriority"])]
        for a, b in zip(rs, rs[1:] + [None]):
            segs.append((a["TimeStamp"], b["TimeStamp"] if b else last_ts, a["NewThreadId"], a["NewThreadPriority"]))
        timeline[cpu] = segs
    say("chain: %d switches on %d CPUs, %d breaks" % (len(cs), len(per_cpu), breaks))

    # exclusive
    runs = {}
    for cpu, segs in timeline.items():
        for s, e, tid, _ in segs:
            if tid != 0:
                runs.setdefault(tid, []).append((s, e, cpu))
    overlaps = 0
    for tid, iv in runs.items():
        iv.sort()
        for (s1, e1, c1), (s2, e2, c2) in zip(iv, iv[1:]):
            if s2 < e1 and c1 != c2:
                overlaps += 1
                if overlaps <= 3:
                    problems.append("exclusive: thread %d on cpu %d until %d and on cpu %d from %d"
                                    % (tid, c1, e1, c2, s2))
    say("exclusive: %d threads, %d overlapping runs on two CPUs" % (len(runs), overlaps))

    # timeouts: switch-out into a timed wait -> the next ReadyThread for it
    ready_by_tid = {}
    ready_cpu = {}
    for r in ready:
        ready_by_tid.setdefault(r["TThreadId"], []).append(r["TimeStamp"])
        ready_cpu[(r["TThreadId"], r["TimeStamp"])] = r["cpu"]
    waits = late = 0
    worst = 0
    for r in cs:
        t = threads.get(r["OldThreadId"])
        if not t or t["timeout_us"] is None or r["OldThreadState"] != WAITING:
            continue
        if r["OldThreadWaitReason"] not in (WR_DELAY_EXECUTION, EXECUTIVE):
            continue
        after = [ts for ts in ready_by_tid.get(r["OldThreadId"], []) if ts >= r["TimeStamp"]]
        if not after:
            continue  # still waiting when the trace ended
        waits += 1
        ready_ts = min(after)
        took = ready_ts - r["TimeStamp"]
        # The time-out is in the timer queue of the CPU the thread waited
        # on; the CPU that ended the wait (it wrote the ReadyThread record)
        # may be another: either may have been stalled when it was due.
        stalled = stalls.within_any((r["cpu"], ready_cpu[(r["OldThreadId"], ready_ts)]), r["TimeStamp"], ready_ts)
        over = took - stalled - t["timeout_us"] * us
        worst = max(worst, over)
        if over > timeout_slack:
            late += 1
            if late <= 3:
                problems.append("timeouts: thread %d waited %d us (%d us of it stalled) with a %d us time-out "
                                "(allowed: a tick, %d us, + %d us)" % (r["OldThreadId"], took // us, stalled // us,
                                                                    t["timeout_us"], tick // us, TIMEOUT_SLACK_US))
    if not waits:
        problems.append("timeouts: no timed waits found")
    say("timeouts: %d timed waits, %d ended later than time-out + 1 tick + %d us; worst %+d us past the time-out"
        % (waits, late, TIMEOUT_SLACK_US, worst // us))

    # priority: ready intervals vs lower-priority running threads
    # A thread is ready from its ReadyThread record (or a switch-out in
    # state Ready) until its next switch-in, at the priority it runs with.
    ins = {}
    for r in cs:
        ins.setdefault(r["NewThreadId"], []).append((r["TimeStamp"], r["NewThreadPriority"]))
    starts = [(ts, tid) for tid, l in ready_by_tid.items() for ts in l]
    starts += [(r["TimeStamp"], r["OldThreadId"]) for r in cs if r["OldThreadState"] == READY and r["OldThreadId"]]
    checked = waited = 0
    worst = 0
    for ts, tid in starts:
        nxt = [(t, p) for t, p in ins.get(tid, []) if t >= ts]
        if not nxt:
            continue
        end, prio = min(nxt)
        checked += 1
        if end - ts <= preempt_bound:
            continue
        allowed = [threads[tid]["cpu"]] if tid in threads and threads[tid]["cpu"] is not None else list(timeline)
        for cpu in allowed:
            longest = lower_stretch(timeline.get(cpu, []), ts, end, prio, stalls, cpu)
            worst = max(worst, longest)
            if longest > preempt_bound:
                waited += 1
                if waited <= 3:
                    problems.append("priority: thread %d (priority %d) ready from %d waited %d us while cpu %d "
                                    "ran lower priority for %d us, not counting stalls (allowed: a tick, %d us, "
                                    "+ %d us)" % (tid, prio, ts, (end - ts) // us, cpu, longest // us, tick // us,
                                                  PREEMPT_SLACK_US))
                break
    say("priority: %d ready intervals, %d waited longer than a tick + %d us behind a lower priority; worst stretch "
        "%d us (tick %d us)" % (checked, waited, PREEMPT_SLACK_US, worst // us, tick // us))

    # idle: ready while a CPU it may run on idles.  The interval starts no
    # earlier than the thread's own switch out (a ReadyThread written by
    # another CPU while the thread was still on its way out).
    outs = {}
    for r in cs:
        if r["OldThreadId"]:
            outs.setdefault(r["OldThreadId"], []).append(r["TimeStamp"])
    intervals = []
    for ts, tid in starts:
        nxt = [t for t, _ in ins.get(tid, []) if t >= ts]
        if not nxt:
            continue
        end = min(nxt)
        left = [t for t in outs.get(tid, []) if t < end]
        intervals.append((max([ts] + left[-1:]), end, tid))

    def allowed_of(tid):
        return [threads[tid]["cpu"]] if tid in threads and threads[tid]["cpu"] is not None else list(timeline)
    longest, tid, cpu, at = idle_while_ready(intervals, timeline, allowed_of, stalls)
    if longest > preempt_bound:
        problems.append("idle: thread %d ready from %d waited %d us while cpu %d, which may run it, was idle "
                        "(not counting stalls; allowed: a tick, %d us, + %d us)"
                        % (tid, at, longest // us, cpu, tick // us, PREEMPT_SLACK_US))
    say("idle: %d ready intervals; longest ready while a CPU it may run on idled: %d us (thread %s, cpu %s, from %s)"
        % (len(intervals), longest // us, tid, cpu, at))
    if figures is not None:
        figures["idle_ready_us"] = longest / us
        figures["idle_ready_thread"] = tid
        figures["idle_ready_cpu"] = cpu
        figures["idle_ready_at"] = at
        figures["tick_us"] = tick // us
    return problems


if __name__ == "__main__":
    sys.exit(checker_main(__doc__, "schedcheck", check))
