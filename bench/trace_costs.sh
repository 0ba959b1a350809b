#!/bin/bash
# bench/trace_costs.sh (run by `make bench`) — issue 27's rows: what two of scry trace's
# options cost the traced program per call, measured inside it (build/workload/*_loop time
# their own loop, so tracer start-up does not count), as the difference of the ns per call
# with the option and without it, in the same round (rounds interleaved; medians):
#  - -yy's socket capture (the endpoints read from the kernel's socket at the call), per
#    socket call: sock_loop's getsockname under `scry trace -yy` against `scry trace -y`
#    (strace -yy against strace -y beside it);
#  - -k per call (its exit's registers and user stack copied to the ring of copies, the
#    copy unwound in user space): getppid_loop under `scry trace -k` against `scry trace`,
#    and -k by frame pointers (SCRY_USTACK_WINDOW=0: the walk and its 1 KB context in each
#    event, the way before the copies) against the same; strace -k against strace.
# Lost events and stacks (scry's count, both runs of a row, all rounds) are shown: a figure
# with losses is not the cost of the whole work.  Environment: BENCH_COST_ROUNDS (3), BENCH_COST_CALLS (5000).
set -uo pipefail
cd "$(dirname "$0")/.."

SCRY=./scry
ROUNDS=${BENCH_COST_ROUNDS:-3}
N=${BENCH_COST_CALLS:-5000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
have() { command -v "$1" >/dev/null 2>&1; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }

declare -A T L
run() {   # run NAME PROGRAM TRACER... : one traced run; adds its ns per call to T[NAME]
	local name=$1 prog=$2; shift 2
	"$@" "build/workload/$prog" "$N" > "$WORK/out" 2> "$WORK/err" || { echo "bench: $name failed: $(tail -n 2 "$WORK/err")" >&2; return 1; }
	T[$name]+=" $(sed -n 's/.*"ns_per_call":\([0-9.]*\).*/\1/p' "$WORK/out")"
	local l
	l=$(grep -o '[0-9]* \(events\|call stacks\) lost' "$WORK/err" | awk '{s += $1} END {print s + 0}')
	L[$name]=$(( ${L[$name]:-0} + l ))
}

for r in $(seq "$ROUNDS"); do
	run sock-y sock_loop "$SCRY" trace -y -o "$WORK/t" --
	run sock-yy sock_loop "$SCRY" trace -yy -o "$WORK/t" --
	run ppid getppid_loop "$SCRY" trace -o "$WORK/t" --
	run ppid-k getppid_loop "$SCRY" trace -k -o "$WORK/t" --
	run ppid-kfp getppid_loop env SCRY_USTACK_WINDOW=0 "$SCRY" trace -k -o "$WORK/t" --
	if have strace; then
		run s-sock-y sock_loop strace -y -o "$WORK/s" --
		run s-sock-yy sock_loop strace -yy -o "$WORK/s" --
		run s-ppid getppid_loop strace -o "$WORK/s" --
		run s-ppid-k getppid_loop strace -k -o "$WORK/s" --
	fi
done

row() {   # row LABEL WITH WITHOUT
	local a b
	[[ -n "${T[$2]:-}" && -n "${T[$3]:-}" ]] || { printf '%-44s %10s\n' "$1" "not run"; return; }
	a=$(printf '%s\n' ${T[$2]} | median); b=$(printf '%s\n' ${T[$3]} | median)
	printf '%-44s %10.0f %10.0f %10.0f %8s\n' "$1" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN{print a-b}')" \
		"$(( ${L[$2]:-0} + ${L[$3]:-0} ))"
}
echo "bench (trace costs): ns per call inside the program, median of $ROUNDS rounds of $N calls"
printf '%-44s %10s %10s %10s %8s\n' "option (tracer)" "with" "without" "cost" "lost"
row "-yy socket capture, per socket call (scry)" sock-yy sock-y
row "-yy, per socket call (strace)" s-sock-yy s-sock-y
row "-k stack copy + unwinding, per call (scry)" ppid-k ppid
row "-k by frame pointers, per call (scry)" ppid-kfp ppid
row "-k, per call (strace)" s-ppid-k s-ppid
