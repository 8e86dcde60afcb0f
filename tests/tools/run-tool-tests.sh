#!/bin/sh
# run-tool-tests.sh BUILD - run the host tool's tests (tests/tools/test_*).
#
# Each test is an executable script (shell or Python) that gets the build
# directory as its argument, prints what it checks, and exits 0 on success.
# A test that cannot run here (test_flame_browser without Chromium) prints
# "skipped: <why>" and exits 77: it is counted as skipped, not passed, and
# does not fail the run.  The closing line sums them up:
#   tool tests: 5 run, 4 passed, 0 failed, 1 skipped
set -u
build=${1:-build}
run=0 passed=0 skipped=0 failed="" skips=""
for t in tests/tools/test_*; do
	[ -x "$t" ] || continue
	run=$((run + 1))
	name=$(basename "$t")
	echo "tool test $name"
	"$t" "$build"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		echo "  PASS $name"
	elif [ "$rc" -eq 77 ]; then
		skipped=$((skipped + 1))
		skips="$skips $name"
		echo "  SKIP $name"
	else
		failed="$failed $name"
		echo "  FAIL $name"
	fi
done
echo "tool tests: $run run, $passed passed, $(( run - passed - skipped )) failed${failed:+:$failed}," \
	"$skipped skipped${skips:+:$skips}"
[ -z "$failed" ]
