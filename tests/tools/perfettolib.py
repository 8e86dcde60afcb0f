"""perfettolib.py - what the trace.json tests (test_perfetto_tracks,
test_perfetto_import) share: the file read back, its tracks, and what
each track must hold recomputed here from `kprof decode --json` (the
records, not the tool's model), on the integer-nanosecond grid the file
documents (docs/report.md): ns = round((TimeStamp - origin) * 1e9 / hz).
"""
import bisect
import collections
import json
import subprocess

RELEASES = (0x10022, 0x10042)   # CompleteReleaseExclusive, ...Shared


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def decode(kprof, log):
    rc, out, err = run([kprof, "decode", "--json", "--quiet", log])
    if rc:
        raise SystemExit("decode %s failed: %s" % (log, err))
    return [r for r in map(json.loads, out.splitlines()) if "loss" not in r]


def ns_of(doc):
    """TSC -> nanoseconds since the origin, rounded to the nearest (exact integers)."""
    hz, origin = doc["otherData"]["tsc_hz"], doc["otherData"]["time_origin_tsc"]
    return lambda tsc: 0 if tsc <= origin else (2 * (tsc - origin) * 10**9 + hz) // (2 * hz)


def us_ns(x):
    """A JSON time in microseconds as integer nanoseconds (as Perfetto reads it)."""
    return round(x * 1000)


def tracks(doc):
    """{(pid, tid): {"name": "CPU 0" / "pong (12): running", "events": [...]}}."""
    ev = doc["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    out = {}
    for e in ev:
        if e["ph"] == "M" and e["name"] == "thread_name":
            n = e["args"]["name"] if e["pid"] == 1 else "%s: %s" % (procs.get(e["pid"], "?"), e["args"]["name"])
            out[(e["pid"], e["tid"])] = {"name": n, "events": []}
    for e in ev:
        if e["ph"] != "M":
            out.setdefault((e["pid"], e["tid"]), {"name": None, "events": []})["events"].append(e)
    return out


def partial(spans):
    """The items of [(start, end, item)] that partly overlap another
    (neither disjoint nor nested)."""
    stack, bad = [], []
    for s, e, item in sorted(spans, key=lambda t: (t[0], -t[1])):
        while stack and stack[-1] <= s:
            stack.pop()
        if stack and e > stack[-1]:
            bad.append(item)
            continue
        stack.append(e)
    return bad


def overlaps(events):
    """Complete events of one track that partly overlap another in integer
    nanoseconds."""
    return partial([(us_ns(e["ts"]), us_ns(e["ts"]) + us_ns(e["dur"]), e) for e in events if e["ph"] == "X"])


def float_overlaps(events):
    """The same in IEEE doubles, as JavaScript importers add ts + dur."""
    return partial([(e["ts"], e["ts"] + e["dur"], e) for e in events if e["ph"] == "X"])


def schedule(recs, first):
    """Per CPU, its runs [(start, end, tid)] in TSC, end to end from the
    trace's start (the run header's, or an earlier record) to the last
    record of any CPU."""
    last = max(r["TimeStamp"] for r in recs)
    runs = {}
    for cpu in sorted({r["cpu"] for r in recs}):
        sw = [r for r in recs if r["cpu"] == cpu and r["event"] == "CSwitch"]
        if not sw:
            continue
        sw.sort(key=lambda r: r["TimeStamp"])   # stable: buffer order for equal times
        out = []
        if sw[0]["TimeStamp"] > first:
            out.append([first, None, sw[0]["OldThreadId"]])
        for r in sw:
            if out:
                out[-1][1] = r["TimeStamp"]
            out.append([r["TimeStamp"], None, r["NewThreadId"]])
        out[-1][1] = last
        runs[cpu] = out
    return runs


def stalls(recs, ns, first):
    """Per CPU, the merged KprofClockLate stretches [(start_ns, end_ns)]."""
    last = max(r["TimeStamp"] for r in recs)
    per = collections.defaultdict(list)
    for r in recs:
        if r["event"] == "KprofClockLate":
            s, e = max(r["DueTime"], first), min(r["DueTime"] + r["LateCycles"], last)
            if e > s:
                per[r["cpu"]].append((s, e))
    out = {}
    for cpu, v in per.items():
        v.sort()
        m = []
        for s, e in v:
            if m and s <= m[-1][1]:
                m[-1][1] = max(m[-1][1], e)
            else:
                m.append([s, e])
        out[cpu] = [(ns(s), ns(e)) for s, e in m]
    return out


def expected(recs, doc):
    """What the tracks must hold, from the records:
    {"CPU n": runs, "CPU n lock waits": waits, "CPU n stalled": stalls,
     "thread T running": runs + ready stretches, "thread T waits": lock and
     resource waits, "flows": wake-up flows DevTools can draw, "flows at
     one instant": those it cannot (both ends at one ns)}."""
    ns = ns_of(doc)
    first = min([doc["otherData"]["time_origin_tsc"]] + [r["TimeStamp"] for r in recs])
    want = collections.Counter()
    sched = schedule(recs, first)
    by_thread = collections.defaultdict(list)   # tid -> [(start, end)] (TSC)
    for cpu, runs in sched.items():
        want["CPU %d" % cpu] = len(runs)
        for s, e, tid in runs:
            if tid:
                by_thread[tid].append((s, e))
    for v in by_thread.values():
        v.sort()
    for r in recs:
        if r["event"] == "SpinLock" and 0 < r["WaitTimeInCycles"] <= r["AcquireTime"]:
            want["CPU %d lock waits" % r["cpu"]] += 1
            if r["ThreadId"]:
                want["thread %d waits" % r["ThreadId"]] += 1
        if (r["event"] == "Resource" and r["Action"] in RELEASES and r["ThreadId"] and r["WaitTime"]
                and r["AcquireTime"] > r["WaitTime"] and r["AcquireTime"] - r["WaitTime"] >= first):
            want["thread %d waits" % r["ThreadId"]] += 1
    for cpu, v in stalls(recs, ns, first).items():
        want["CPU %d stalled" % cpu] = len(v)
    # ready stretches: a run's first ReadyThread since the thread's run before
    ready_from = {}
    for r in recs:
        if r["event"] != "ReadyThread":
            continue
        runs = by_thread.get(r["TThreadId"], [])
        t = r["TimeStamp"]
        k = bisect.bisect_left([s for s, _ in runs], t)
        if k == len(runs):
            continue
        cpu_runs = sched.get(r["cpu"], [])
        if any(s <= t for s, _, _ in cpu_runs[:1]):
            # the readier's run (the last to start by t) and the readied
            # thread's: DevTools keys a flow's ends by time and draws none
            # where both fall on one ns (stamps that stood still)
            by = cpu_runs[bisect.bisect_right([s for s, _, _ in cpu_runs], t) - 1][0]
            if ns(by) == ns(runs[k][0]):
                want["flows at one instant"] += 1
            else:
                want["flows"] += 1
        key = (r["TThreadId"], k)
        ready_from[key] = min(ready_from.get(key, t), t)
    for tid, runs in by_thread.items():
        want["thread %d running" % tid] += len(runs)
        ended = 0   # the latest end of its runs before (lost switches can make two overlap)
        for k, (s, e) in enumerate(runs):
            if (tid, k) in ready_from and max(ready_from[(tid, k)], ended) < s:
                want["thread %d running" % tid] += 1
            ended = max(ended, e)
    # the workload's own span types: a slice per Begin closed by an End of
    # its type on its CPU (the latest open one), on "CPU n TYPE"
    spans = {r["Name"] for r in recs if r["event"] == "KprofEventType" and r["Kind"] == 1}
    open_begins = collections.Counter()
    for r in sorted((r for r in recs if r["event"] in spans and "Phase" in r),
                    key=lambda r: (r["cpu"], r["TimeStamp"])):
        key = (r["cpu"], r["event"])
        if r["Phase"] == 1:
            open_begins[key] += 1
            want["CPU %d %s" % key] += 1
        elif r["Phase"] == 2 and open_begins[key]:
            open_begins[key] -= 1
    # scenario=noise: a slice per KprofNoiseGap and an instant per
    # KprofTimerLatency on "CPU n noise"; the pass-1 gaps marked correlated,
    # by start (then CPU), in clusters (one that starts before every gap of
    # the cluster so far has ended joins it), each linked to the next
    gaps = [r for r in recs if r["event"] == "KprofNoiseGap"]
    for r in gaps:
        want["CPU %d noise" % r["cpu"]] += 1
    linked = sorted((r["Start"], r["cpu"], r["Start"] + r["Cycles"]) for r in gaps if r["Pass"] == 1 and r["Correlated"])
    cluster_end = None
    for k, (s, cpu, e) in enumerate(linked):
        if k and s < cluster_end:
            want["flows at one instant" if ns(linked[k - 1][0]) == ns(s) else "flows"] += 1
            cluster_end = max(cluster_end, e)
        else:
            cluster_end = e
    return want


def found(doc):
    """The same counts from the file's complete events and flow starts."""
    got = collections.Counter()
    for (pid, tid), t in tracks(doc).items():
        n = sum(1 for e in t["events"] if e["ph"] == "X")
        if pid == 1 and t["name"].endswith("no trace"):
            continue   # the holes: test_drops (losscheck.py) checks them
        if pid == 1:
            got[t["name"]] += n
        elif pid >= 1000000:
            kind = "waits" if (tid - 2000000) % 16 >= 8 else "running"
            got["thread %d %s" % (pid - 1000000, kind)] += n
    ends = {}
    for e in doc["traceEvents"]:
        if e["ph"] in "sf":
            ends.setdefault(e["id"], {})[e["ph"]] = us_ns(e["ts"])
    for v in ends.values():
        got["flows at one instant" if v.get("s") == v.get("f") else "flows"] += 1
    return got
