#!/bin/sh
# update-golden.sh [BUILD] - rewrite the decoder's expected golden outputs
# from the current build/kprof (after a deliberate format change; review
# the diff before committing it).
set -eu
build=${1:-build}
g=tests/golden/tracetest-2cpu
"$build/kprof" decode "$g.log" > "$g.txt" 2> "$g.summary"
"$build/kprof" decode --json "$g.log" > "$g.jsonl" 2>/dev/null
git diff --stat -- tests/golden || true
