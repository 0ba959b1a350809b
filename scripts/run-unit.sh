#!/bin/bash
# scripts/run-unit.sh — run cmocka unit test binaries (optionally under valgrind), UNIT_JOBS at
# once (default: 2, or 1 on one CPU), show each one's output whole and in the order given, and
# close with "unit: N passed, M failed".  Exits nonzero on any failed test, crash, valgrind
# error, or when given no binary at all.
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

JOBS=${UNIT_JOBS:-$(( $(nproc) > 1 ? 2 : 1 ))}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# One binary: its output (stdout and stderr: cmocka prints its summary on stdout and failure
# details on stderr) to $TMP/N.out, its exit status to $TMP/N.rc.
run_one() {
	local i=$1 bin=$2
	if [[ ! -x "$bin" ]]; then
		echo "run-unit.sh: $bin: not an executable" > "$TMP/$i.out"
		echo 127 > "$TMP/$i.rc"
		return
	fi
	"${VALGRIND[@]}" "$bin" > "$TMP/$i.out" 2>&1
	echo $? > "$TMP/$i.rc"
}

bins=("$@")
for i in "${!bins[@]}"; do
	while (( $(jobs -rp | wc -l) >= JOBS )); do wait -n; done
	run_one "$i" "${bins[$i]}" &
done
wait

passed=0
failed=0
bad_bins=()
for i in "${!bins[@]}"; do
	bin=${bins[$i]}
	echo "== ${VALGRIND:+valgrind }$bin"
	cat "$TMP/$i.out"
	rc=$(cat "$TMP/$i.rc" 2>/dev/null || echo 126)
	p=0; f=0; seen=0
	while read -r n; do p=$((p + n)); seen=1; done < <(sed -n 's/^\[  PASSED  \] \([0-9]\+\) test(s)\..*/\1/p' "$TMP/$i.out")
	while read -r n; do f=$((f + n)); seen=1; done < <(sed -n 's/^\[  FAILED  \] \([0-9]\+\) test(s).*/\1/p' "$TMP/$i.out")
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
