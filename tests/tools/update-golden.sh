#!/bin/sh
# update-golden.sh [BUILD] - rewrite the decoder's and the report's expected golden outputs
# from the current build/kprof (after a deliberate format change; review
# the diff before committing it).
set -eu
build=${1:-build}
g=tests/golden/tracetest-2cpu
"$build/kprof" decode "$g.log" > "$g.txt" 2> "$g.summary"
"$build/kprof" decode --json "$g.log" > "$g.jsonl" 2>/dev/null
# `kprof report` (tests/tools/test_report): the synthetic log first, from its generator.
tests/tools/test_report --write-profile-log tests/golden/report-profile.log
for n in sched locks resources profile; do
	"$build/kprof" report "tests/golden/report-$n.log" --kernel tests/golden/report-kernel.elf --quiet \
		> "tests/golden/report-$n.txt"
done
git diff --stat -- tests/golden || true
