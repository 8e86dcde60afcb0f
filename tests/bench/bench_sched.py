#!/usr/bin/python3
"""bench_sched.py KERNEL [ROUNDS] - the scheduler under its own scenario.

Boots scenario=sched on 4 CPUs with the kernel's raw spin locks as ticket
locks and as test-and-set locks (rawlock=), interleaved, ROUNDS times each
(default 3), and reports medians:

  switch    cycles per thread switch (median of 1000 ping-pong rounds),
            next to the empty interrupt round trip of the same boot, the
            baseline a switch is judged against;
  work      timed waits completed and context switches during the mix;
  stalled   milliseconds per CPU in which clock interrupts came late (the
            CPU took no interrupt: not run by the host, or spinning with
            interrupts off for a lock).

Under emulation with more virtual CPUs than host cores, a ticket lock
hands the dispatcher lock to waiters the host is not running; the
test-and-set discipline (the default under a hypervisor) should complete
more work and stall less.  Reports only; never fails on a number.
"""

import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
QEMU_PY = os.path.join(HERE, "..", "..", "tools", "qemu.py")
MODES = ("ticket", "tas")


def run(kernel, mode):
    with tempfile.TemporaryDirectory() as out:
        cmd = ["/usr/bin/python3", QEMU_PY, "run", "--boot", "direct", "--cpus", "4", "--kernel", kernel,
               "--out", out, "--cmdline", "scenario=sched sched.ms=1000 trace=cswitch,clock rawlock=" + mode]
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(out, "serial.log"), "rb") as f:
            text = f.read().decode("latin-1")
    if proc.returncode != 0:
        raise SystemExit("bench_sched: the %s run failed (exit %d)" % (mode, proc.returncode))
    m = re.search(r"thread switch \(.*?\): (\d+) cycles median, \d+ best; empty interrupt round trip on the same "
                  r"CPU: (\d+) cycles median", text)
    w = re.search(r"timed waits (\d+) timed out, (\d+) satisfied; \d+ yields; (\d+) context switches", text)
    late = [int(x) for x in re.findall(r"sched: cpu \d+: \d+ clock interrupts came late, (\d+) us in all", text)]
    if not m or not w:
        raise SystemExit("bench_sched: no result lines in the %s run" % mode)
    return {
        "switch": int(m.group(1)),
        "irq": int(m.group(2)),
        "waits": int(w.group(1)) + int(w.group(2)),
        "switches": int(w.group(3)),
        "stalled_ms": sum(late) / 4 / 1000.0,
    }


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    kernel = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    results = {m: [] for m in MODES}
    for _ in range(rounds):
        for mode in MODES:  # interleaved: host noise hits both alike
            results[mode].append(run(kernel, mode))

    def med(mode, key):
        return statistics.median(r[key] for r in results[mode])

    print("bench_sched: scenario=sched, 4 CPUs, 1000 ms mix, %d interleaved rounds per lock discipline" % rounds)
    print("  %-8s %14s %14s %12s %14s %16s" % ("rawlock", "switch cyc", "irq trip cyc", "switch/irq",
                                                "timed waits", "stalled ms/CPU"))
    for mode in MODES:
        print("  %-8s %14d %14d %12.2f %14d %16.0f" % (mode, med(mode, "switch"), med(mode, "irq"),
                                                       med(mode, "switch") / med(mode, "irq"), med(mode, "waits"),
                                                       med(mode, "stalled_ms")))
    print("  tas/ticket: timed waits x%.2f, context switches x%.2f, stalled time x%.2f, switch cost x%.2f"
          % (med("tas", "waits") / max(1, med("ticket", "waits")),
             med("tas", "switches") / max(1, med("ticket", "switches")),
             med("tas", "stalled_ms") / max(1e-9, med("ticket", "stalled_ms")),
             med("tas", "switch") / max(1, med("ticket", "switch"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
