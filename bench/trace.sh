#!/bin/bash
# bench/trace.sh (run by `make bench` after bench/run.sh) — issue 3's rows: the run time of a
# real program measured inside the tracer (build/bench/timeit, so tracer start-up does not
# count), untraced and under `scry trace -f -o FILE`, `scry trace -f -c`, `strace -f -o FILE`,
# `perf trace -o FILE` (-f: timeit runs the program as its child, which strace and scry
# follow only with -f; without it scry traced timeit's ~35 calls and none of the program's).  Also checks that scry's output holds every syscall (its line count
# against strace -c's total for the same program, and no event lost).
# Issue 29's row: `scry trace -f -o FILE` <= 1.3x untraced, 0 events lost in every round (the
# issue asks 20: BENCH_TRACE_ROUNDS=20).  The host's share of the ratios: the program untraced
# while bench/floor's empty programs sit on the syscall hooks (floor: the tracepoints' dispatch
# and two empty programs a call), and while they read the clock (floor-clock: what -c's
# programs cannot go below, an entry and an exit time a call).
# Environment: BENCH_TRACE_ROUNDS (3 interleaved rounds for the fast configurations);
# SCRY_BEFORE (another build: its `trace -f -o` and `-f -c` run in the same rounds, rows of their own).
set -uo pipefail
cd "$(dirname "$0")/.."

SCRY=./scry
TIMEIT=build/bench/timeit
WORK=build/bench/trace.$$
ROUNDS=${BENCH_TRACE_ROUNDS:-3}
PROG=(find /usr/include /usr/share -type f)
DESC="find /usr/include /usr/share -type f"
if [[ -n "${SCRY_BEFORE:-}" ]]; then
	[[ -x "$SCRY_BEFORE" ]] || { echo "bench (trace): SCRY_BEFORE=$SCRY_BEFORE is not executable" >&2; exit 2; }
fi
FLOOR=build/bench/floor
mkdir -p "$WORK"
BG_PID=""
. "$(dirname "$0")/lib.sh"   # stop_bg
trap 'stop_bg; rm -rf "$WORK"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }
wall() { sed -n 's/.*"wall_ns":\([0-9]*\).*/\1/p' "$1" | tail -n 1; }
have() { command -v "$1" >/dev/null 2>&1; }

declare -A T
run() {   # run NAME TRACER-ARGS... : one timed run of PROG under the tracer; adds to T[NAME]
	local name=$1; shift
	"$@" "$TIMEIT" "${PROG[@]}" >/dev/null 2> "$WORK/$name.err" || { echo "bench: $name failed: $(tail -n 2 "$WORK/$name.err")" >&2; return 1; }
	T[$name]+=" $(wall "$WORK/$name.err")"
}

floor_run() {   # floor_run NAME FLOOR-ARGS...: PROG untraced under bench/floor's empty programs
	local name=$1; shift
	[[ -x $FLOOR ]] || return 0
	"$FLOOR" "$@" > "$WORK/$name.floor" 2>&1 & BG_PID=$!
	for _ in $(seq 100); do grep -q ready "$WORK/$name.floor" 2>/dev/null && break; sleep 0.1; done
	grep -q ready "$WORK/$name.floor" && run "$name"
	stop_bg
}

# warm the page cache once, then count the program's syscalls with strace -c
"${PROG[@]}" >/dev/null 2>&1
NSYS=""
have strace && strace -f -c -o "$WORK/strace-c" "${PROG[@]}" >/dev/null 2>&1 &&
	NSYS=$(awk '$NF == "total" {print $4}' "$WORK/strace-c" | tail -n 1)

for r in $(seq "$ROUNDS"); do
	run untraced
	run scry-o "$SCRY" trace -f -o "$WORK/scry.out" --
	lines=$(grep -c '' "$WORK/scry.out"); lost=$(grep -o '[0-9]* events lost' "$WORK/scry-o.err" | cut -d' ' -f1)
	SCRY_LINES+=" $lines"; SCRY_LOST=$(( ${SCRY_LOST:-0} + ${lost:-0} ))
	run scry-c "$SCRY" trace -f -c -o "$WORK/scry-c.out" --
	floor_run floor
	floor_run floor-clock --clock
	if [[ -n "${SCRY_BEFORE:-}" ]]; then
		run scry-o-before "$SCRY_BEFORE" trace -f -o "$WORK/before.out" --
		lost=$(grep -o '[0-9]* events lost' "$WORK/scry-o-before.err" | cut -d' ' -f1)
		BEFORE_LOST=$(( ${BEFORE_LOST:-0} + ${lost:-0} ))
		run scry-c-before "$SCRY_BEFORE" trace -f -c -o "$WORK/before-c.out" --
	fi
done
have strace && run strace strace -f -o "$WORK/strace.out" --
if have perf && perf trace -o "$WORK/perf.probe" true >/dev/null 2>&1; then run perf-trace perf trace -o "$WORK/perf.out" --; fi

u=$(printf '%s\n' ${T[untraced]} | median)
echo "bench (trace): $DESC, wall time inside the tracer, median of $ROUNDS rounds (strace/perf: one run); ${NSYS:-?} syscalls (strace -c)"
printf '%-28s %12s %10s\n' configuration "ms" "x untraced"
for k in untraced floor floor-clock scry-o scry-o-before scry-c scry-c-before strace perf-trace; do
	[[ $k == *-before && -z "${SCRY_BEFORE:-}" ]] && continue
	if [[ -z "${T[$k]:-}" ]]; then printf '%-28s %12s\n' "$k" "not run"; continue; fi
	t=$(printf '%s\n' ${T[$k]} | median)
	printf '%-28s %12.1f %10.2f\n' "$k" "$(awk -v t="$t" 'BEGIN{print t/1e6}')" "$(awk -v t="$t" -v u="$u" 'BEGIN{print t/u}')"
	eval "R_${k//-/_}=$(awk -v t="$t" -v u="$u" 'BEGIN{printf "%.2f", t/u}')"
done
lines=$(printf '%s\n' $SCRY_LINES | median)
echo "scry trace -o: $lines lines for ${NSYS:-?} syscalls (strace -c, another run), ${SCRY_LOST:-0} events lost in $ROUNDS runs"
for k in untraced scry-o scry-o-before scry-c scry-c-before; do   # every round: the spread behind the medians
	[[ -n "${T[$k]:-}" ]] && printf '  %-16s ms: %s\n' "$k" "$(printf '%s\n' ${T[$k]} | awk '{printf "%s%.1f", (NR > 1 ? " " : ""), $1 / 1e6}')"
done
[[ -n "${SCRY_BEFORE:-}" ]] && echo "before ($SCRY_BEFORE) trace -f -o: ${R_scry_o_before:-?}x, ${BEFORE_LOST:-0} events lost; trace -f -c: ${R_scry_c_before:-?}x"
verdict() { awk -v x="$1" -v t="$2" 'BEGIN {exit !(x <= t)}' && echo met || echo "NOT met"; }
echo "target: scry trace -f -o FILE <= 1.3x untraced : ${R_scry_o:-?}x  $(verdict "${R_scry_o:-99}" 1.3)"
echo "target: scry trace -f -c      <= 1.2x untraced : ${R_scry_c:-?}x  $(verdict "${R_scry_c:-99}" 1.2)"
echo "  (the host's share: floor ${R_floor:-?}x, floor + clock read ${R_floor_clock:-?}x: -c's programs read the clock at each entry and exit)"
echo "target: every syscall in scry's output (0 lost in $ROUNDS runs): ${SCRY_LOST:-0} lost  $([[ ${SCRY_LOST:-0} == 0 ]] && echo met || echo "NOT met")"
