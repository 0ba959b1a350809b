#!/bin/bash
# scripts/run-unit.sh — run cmocka unit test binaries (optionally under valgrind), show
# their output, and close with "unit: N passed, M failed".  Exits nonzero on any failed
# test, crash, valgrind error, or when given no binary at all.
#   scripts/run-unit.sh [--valgrind] BIN...
set -uo pipefail

VALGRIND=()
if [[ "${1:-}" == "--valgrind" ]]; then
	VALGRIND=(valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite -q)
	shift
fi

if (($# == 0)); then
	echo "run-unit.sh: no unit test binary given (tests/unit/test_*.c missing?)" >&2
	echo "unit: 0 passed, 1 failed"
	exit 1
fi

passed=0
failed=0
bad_bins=()
for bin in "$@"; do
	echo "== ${VALGRIND:+valgrind }$bin"
	if [[ ! -x "$bin" ]]; then
		echo "run-unit.sh: $bin: not an executable" >&2
		failed=$((failed + 1)); bad_bins+=("$bin"); continue
	fi
	out=$(mktemp)
	# cmocka prints its summary on stdout and failure details on stderr; keep both visible.
	"${VALGRIND[@]}" "$bin" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	p=0; f=0; seen=0
	while read -r n; do p=$((p + n)); seen=1; done < <(sed -n 's/^\[  PASSED  \] \([0-9]\+\) test(s)\..*/\1/p' "$out")
	while read -r n; do f=$((f + n)); seen=1; done < <(sed -n 's/^\[  FAILED  \] \([0-9]\+\) test(s).*/\1/p' "$out")
	rm -f "$out"
	passed=$((passed + p))
	failed=$((failed + f))
	if ((rc != 0)) || ((seen == 0)); then
		if ((rc == 99)); then
			echo "run-unit.sh: $bin: valgrind reported errors" >&2
		elif ((rc > 128)); then
			echo "run-unit.sh: $bin: killed by signal $((rc - 128))" >&2
		elif ((seen == 0)); then
			echo "run-unit.sh: $bin: no cmocka summary (exit $rc)" >&2
		else
			echo "run-unit.sh: $bin: exit status $rc" >&2
		fi
		# A crash or valgrind error counts as a failure even if cmocka's count did not.
		((f == 0)) && failed=$((failed + 1))
		bad_bins+=("$bin")
	fi
done

((${#bad_bins[@]})) && echo "run-unit.sh: failing: ${bad_bins[*]}" >&2
echo "unit: $passed passed, $failed failed"
((failed == 0 && ${#bad_bins[@]} == 0))
