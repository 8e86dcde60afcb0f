#!/bin/sh
# run-unit-tests.sh BIN... - run cmocka test programs and sum their results.
#
# Each program prints its own cmocka report; this prints one closing line:
#   unit tests: 8 programs, 42 tests, 42 passed, 0 failed
# and exits non-zero if any test failed or any program crashed.
set -u
programs=0 tests=0 passed=0 failed=0 crashed=""
for bin in "$@"; do
	programs=$((programs + 1))
	# A program that hangs (a livelock under test, say) fails with a
	# message instead of stopping the whole run.
	out=$(timeout "${UNIT_TIMEOUT:-300}" "$bin" 2>&1)
	rc=$?
	if [ "$rc" -eq 124 ]; then
		out="$out
$(basename "$bin"): timed out after ${UNIT_TIMEOUT:-300} s"
	fi
	printf '%s\n' "$out"
	run=$(printf '%s\n' "$out" | sed -n 's/^\[==========\] \([0-9]*\) test(s) run\./\1/p' | tail -n 1)
	ok=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\./\1/p' | tail -n 1)
	bad=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:/\1/p' | tail -n 1)
	tests=$((tests + ${run:-0}))
	passed=$((passed + ${ok:-0}))
	failed=$((failed + ${bad:-0}))
	if [ -z "$run" ] || { [ "$rc" -ne 0 ] && [ -z "$bad" ]; }; then
		crashed="$crashed $(basename "$bin")(exit $rc)"
	fi
done
echo "unit tests: $programs programs, $tests tests, $passed passed, $failed failed${crashed:+, crashed:$crashed}"
[ "$failed" -eq 0 ] && [ -z "$crashed" ]
