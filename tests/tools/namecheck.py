#!/usr/bin/python3
"""namecheck.py - every lock and resource the console lists is named in the trace.

    namecheck.py KPROF LOG [--quiet]

Decodes LOG (`KPROF decode --json`) and reads from the console text the
locks the locks workload lists ("locks: lock 0x... kind K name N") and the
resources the resources workload lists ("resources: resource 0x... name
N"), then checks:

  listed      each has a KprofObjectName record with its address, its kind
              (ordinary: SpinLock, queued: QueuedSpinLock, executive:
              ExecutiveSpinLock; a resource: Resource) and its name, and
              a resource's SpinLock one named "<name>.SpinLock", kind
              QueuedSpinLock;
  first       for a spin lock, that record comes before the first SpinLock
              record of its address (so no reader meets the lock unnamed);
              for a resource, before its first record after Initialize;
  groups      name records of spin locks only where spin locks were
              traced, of resources only where resources were.

Prints one line per check; exits 1 if any fails.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import load, main as checker_main  # noqa: E402

KIND = {"ordinary": "SpinLock", "queued": "QueuedSpinLock", "executive": "ExecutiveSpinLock"}
# KprofObjectName Kind values (docs/wire-format.md), held here apart from the tool's table.
KIND_VALUE = {0: "SpinLock", 1: "QueuedSpinLock", 2: "ExecutiveSpinLock", 3: "Resource"}
RESOURCE_INITIALIZE = 0x00010008


def check(kprof, log, quiet=False):
    recs, text, _complete, _err = load(kprof, log, strict=False)
    problems = []

    def say(msg):
        if not quiet:
            print("  " + msg)

    for r in recs:
        if r["event"] == "KprofObjectName":
            r["Object"] = int(r["Object"], 16)
            r["Kind"] = KIND_VALUE.get(r["Kind"], "kind %s" % r["Kind"])
    names = {}
    for r in sorted((r for r in recs if r["event"] == "KprofObjectName"), key=lambda r: r["TimeStamp"]):
        names.setdefault(r["Object"], []).append(r)
    want = []  # (address, kind, name)
    for a, kind, name in re.findall(r"^locks: lock 0x([0-9a-f]+) kind (\S+) name (\S+)$", text, re.M):
        want.append((int(a, 16), KIND.get(kind, kind), name))
    resources = [(int(a, 16), name) for a, name in re.findall(r"^resources: resource 0x([0-9a-f]+) name (\S+)$",
                                                               text, re.M)]
    for a, name in resources:
        want.append((a, "Resource", name))
    if not want:
        return ["the console lists no lock and no resource"]
    traced = {r["event"] for r in recs}

    bad = []
    for a, kind, name in want:
        if kind == "Resource" and "Resource" not in traced:
            continue
        if kind != "Resource" and "SpinLock" not in traced:
            continue
        got = names.get(a, [])
        if not any(r["Kind"] == kind and r["Name"] == name for r in got):
            bad.append("0x%x %s %s: %s" % (a, kind, name, [(r["Kind"], r["Name"]) for r in got] or "no name record"))
    # A resource's SpinLock: named "<name>.SpinLock" at an address inside it (the kernel's layout).
    for a, name in resources:
        if "SpinLock" not in traced:
            continue
        if not any(r["Name"] == name + ".SpinLock" and r["Kind"] == "QueuedSpinLock" and 0 <= o - a < 256
                   for o, rs in names.items() for r in rs):
            bad.append("resource %s: no QueuedSpinLock named %s.SpinLock" % (name, name))
    say("listed: %d objects on the console, %d name records, %s" % (len(want), sum(map(len, names.values())),
                                                                  "ok" if not bad else "%d wrong" % len(bad)))
    problems += ["listed: " + b for b in bad[:10]]

    late = []
    first_use = {}
    for r in recs:
        if r["event"] == "SpinLock":
            a = r["SpinLockAddress"]
        elif r["event"] == "Resource" and int(str(r["Action"]), 0) != RESOURCE_INITIALIZE:
            a = r["Resource"]
        else:
            continue
        if a not in first_use or r["TimeStamp"] < first_use[a]:
            first_use[a] = r["TimeStamp"]
    for a, kind, name in want:
        if a in first_use and a in names and names[a][0]["TimeStamp"] > first_use[a]:
            late.append("%s (0x%x): named at %d, used at %d" % (name, a, names[a][0]["TimeStamp"], first_use[a]))
    say("first: %s" % ("every listed object named before its first use" if not late else "%d late" % len(late)))
    problems += ["first: " + x for x in late[:10]]

    wrong_group = [r for rs in names.values() for r in rs
                   if (r["Kind"] == "Resource" and "Resource" not in traced and "SpinLock" in traced)]
    say("groups: %s" % ("ok" if not wrong_group else "%d resource names without trace=resource" % len(wrong_group)))
    problems += ["groups: resource %s named though resources were not traced" % r["Name"] for r in wrong_group[:5]]
    return problems


if __name__ == "__main__":
    sys.exit(checker_main(__doc__, "namecheck", check))
