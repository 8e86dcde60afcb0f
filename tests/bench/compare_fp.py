#!/usr/bin/python3
"""compare_fp.py KPROF KERNEL SET... [--timing] [--by FIELD=A,B] - how
often `kprof compare` marks a difference significant between sets of runs
of one configuration, where no difference is real: its false-positive
rate, to hold against the 5% level of its intervals (docs/compare.md).

Each SET is a folder of runs (make run REPEAT=N, or tools/qemu.py run
--repeat N).  The sets are compared in disjoint pairs (1 with 2, 3 with 4,
...: independent comparisons) and, for more figures, in every pair (not
independent: each set is used several times).  It counts, over the figures
that got an interval, how many were marked significant, per kind of figure
and in all, and gives the rate with its 95% Wilson interval.  Figures
the same in every run (a lock never contended: 0 against 0, an interval
of width 0) are left out: they cannot be marked either way.  Single runs
are compared too (run i of one set against run i of its pair), where the
intervals come from within each run.  The workload's own events are
figures like the others (kinds event_rate, field_mean, field_median,
span_mean, span_median), counted by kind and in all.  With --timing it
also times one compare of the first two sets (the `make bench` figure:
under 2 s on 2 cores).

With --by FIELD=A,B (sets of runs whose events have an enumeration field
FIELD, e.g. examples/ticketlock's Lock=ticket,queued), each set is also
compared with itself by that field (A's events against B's in the same
runs, paired t), and every field's mean and median is shown with its
interval and whether it was marked different, set by set.
"""

import itertools
import json
import math
import os
import subprocess
import sys
import tempfile
import time


def wilson(k, n, z=1.959963984540054):
    if not n:
        return 0, 0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0, c - h), min(1, c + h)


def compare(kprof, kernel, a, b, *extra):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        p = subprocess.run([kprof, "compare", a, b, "--kernel", kernel, "--json", f.name, "-o", "/dev/null"] +
                           list(extra), stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            sys.exit("kprof compare %s %s: exit %d: %s" % (a, b, p.returncode, p.stderr.strip()))
        return json.load(open(f.name))["figures"]


def tally(kprof, kernel, pairs):
    kinds = {}
    for a, b in pairs:
        for fig in compare(kprof, kernel, a, b):
            if fig["lo"] is None or fig["hi"] <= fig["lo"]:
                continue  # no interval, or none to speak of: the figure the same in every run
            k = kinds.setdefault(fig["kind"], [0, 0])
            k[0] += fig["significant"]
            k[1] += 1
    return kinds


def show(title, kinds):
    print(title)
    tot = [sum(v[0] for v in kinds.values()), sum(v[1] for v in kinds.values())]
    for name, (k, n) in sorted(kinds.items()) + [("all", tot)]:
        lo, hi = wilson(k, n)
        print("  %-12s %4d of %4d significant: %5.1f%% (95%% CI %.1f-%.1f%%)" % (name, k, n, 100.0 * k / n if n else 0,
                                                                             100 * lo, 100 * hi))


def by_field(kprof, kernel, sets, by):
    """Each set against itself, --by: the fields' means and medians."""
    rows = {}
    for s in sets:
        for fig in compare(kprof, kernel, s, s, "--by", by):
            if fig["kind"] in ("field_mean", "field_median", "event_rate"):
                rows.setdefault((fig["name"], fig["kind"]), []).append((s, fig))
    field, values = by.split("=", 1)
    a, b = values.split(",", 1)
    print("compare_fp: --by %s: within each set of runs, %s=%s (A) against %s=%s (B), paired t over the runs "
          "(host load average now %.2f: a loaded host's scheduling of the virtual CPUs is in every time measured)"
          % (by, field, a, field, b, os.getloadavg()[1]))
    fielded = {name.split(" ")[0] for name, kind in rows if kind != "event_rate"}
    for (name, kind), figs in sorted(rows.items(), key=lambda x: (x[0][1] == "event_rate", x[0])):
        if kind == "event_rate" and name not in fielded:
            continue  # the events per second of the types with fields: how many hand-offs were measured
        marked = sum(f["significant"] for _, f in figs)
        print("  %s %s: marked different in %d of %d sets" % (
            name, kind.replace("field_", "").replace("event_rate", "events per second"), marked, len(figs)))
        for s, f in figs:
            iv = "[%+.1f, %+.1f]" % (f["lo"], f["hi"]) if f["lo"] is not None else "none: %s" % f["why"]
            print("    %-28s %d runs  A %.1f  B %.1f  B - A %+.1f  95%% interval %s%s" % (
                os.path.basename(s.rstrip("/")), f["n_a"], f["a"], f["b"], f["diff"], iv,
                "  *" if f["significant"] else ""))


def main():
    by = None
    args = []
    argv = sys.argv[1:]
    for i, a in enumerate(argv):
        if a == "--by" or (i and argv[i - 1] == "--by"):
            by = a if a != "--by" else by
            continue
        if a != "--timing":
            args.append(a)
    if len(args) < 4:
        sys.exit(__doc__)
    kprof, kernel, sets = args[0], args[1], args[2:]
    print("compare_fp: host load average now %.2f %.2f %.2f (1, 5, 15 min): sets made while it changed differ "
          "for real, in the machine" % os.getloadavg())
    show("compare_fp: %d sets, %d disjoint pairs (independent comparisons)" % (len(sets), len(sets) // 2),
         tally(kprof, kernel, [(sets[i], sets[i + 1]) for i in range(0, len(sets) - 1, 2)]))
    show("compare_fp: every pair (%d; not independent)" % (len(sets) * (len(sets) - 1) // 2),
         tally(kprof, kernel, list(itertools.combinations(sets, 2))))
    singles = []
    for i in range(0, len(sets) - 1, 2):
        for r in sorted(os.listdir(sets[i])):
            if os.path.isdir(os.path.join(sets[i + 1], r)):
                singles.append((os.path.join(sets[i], r), os.path.join(sets[i + 1], r)))
    show("compare_fp: single runs against single runs (%d pairs; within-run intervals)" % len(singles),
         tally(kprof, kernel, singles))
    if by:
        by_field(kprof, kernel, sets, by)
    if "--timing" in sys.argv:
        for what, extra in [("", ())] + ([(" --by %s (one set with itself)" % by, ("--by", by))] if by else []):
            times = []
            for _ in range(5):
                t0 = time.monotonic()
                compare(kprof, kernel, sets[0], sets[0] if extra else sets[1], *extra)
                times.append(time.monotonic() - t0)
            print("compare_fp: kprof compare of two 5-run sets%s: median %.3f s of 5 (goal: under 2 s)" %
                  (what, sorted(times)[2]))


if __name__ == "__main__":
    main()
