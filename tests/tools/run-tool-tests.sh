#!/bin/sh
# run-tool-tests.sh BUILD - run the host tool's tests (tests/tools/test_*).
#
# Each test is an executable script (shell or Python) that gets the build
# directory as its argument, prints what it checks, and exits 0 on success.
# The closing line sums them up:
#   tool tests: 5 run, 5 passed, 0 failed
set -u
build=${1:-build}
run=0 passed=0 failed=""
for t in tests/tools/test_*; do
	[ -x "$t" ] || continue
	run=$((run + 1))
	name=$(basename "$t")
	echo "tool test $name"
	if "$t" "$build"; then
		passed=$((passed + 1))
		echo "  PASS $name"
	else
		failed="$failed $name"
		echo "  FAIL $name"
	fi
done
echo "tool tests: $run run, $passed passed, $(( run - passed )) failed${failed:+:$failed}"
[ -z "$failed" ]
