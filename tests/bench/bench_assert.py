#!/usr/bin/python3
"""bench_assert.py KPROF KERNEL MIXLOG - how long `kprof assert` takes with
20 rules (every rule form) over a make run log (scenario=mix on 2 CPUs):
the median of 5 runs of the whole command, against the goal of 2 s on 2
cores.  The time of `kprof compare` over two 5-run sets is
compare_fp.py's --timing.
"""

import subprocess
import sys
import tempfile
import time

RULES = """\
lost == 0
damaged == 0
records > 1000
switches > 100
duration < 60s
lock "hot0" traced > 0
lock "hot0" contended < 100%
lock "hot1" wait p99 < 50ms
lock "hot2" wait median < 10ms
lock "ex0" hold max < 100ms
lock "queued0" acquisitions > 0
thread "main" latency max < 2s
thread "main" cpu < 90%
thread "TraceLogger" in >= 1
samples "prof_work_a" > 1%
samples "ke_stall_execution_processor" < 90%
event "my_op" count >= 1000
cpu busy > 1%
cpu 0 idle < 100%
cpu 1 switches > 0
"""


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    kprof, kernel, log = sys.argv[1:]
    with tempfile.NamedTemporaryFile("w", suffix=".rules") as f:
        f.write(RULES)
        f.flush()
        times = []
        for _ in range(5):
            t0 = time.monotonic()
            p = subprocess.run([kprof, "assert", f.name, log, "--kernel", kernel], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            times.append(time.monotonic() - t0)
        verdicts = [l.split()[0] for l in p.stdout.splitlines()]
    print("bench_assert: kprof assert, %d rules over %s: median %.3f s of 5 (goal: under 2 s); exit %d, %d PASS, "
          "%d FAIL, %d ERROR (the event rule: no user event types yet)" % (
              len(RULES.splitlines()), log, sorted(times)[2], p.returncode, verdicts.count("PASS"),
              verdicts.count("FAIL"), verdicts.count("ERROR")))


if __name__ == "__main__":
    main()
