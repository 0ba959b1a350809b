#!/bin/bash
# bench/stall.sh (run by `make bench`) — issue 29's loss rows: a disk that stalls must not
# stall the rings.
#  1. `scry record` of BENCH_STALL_CALLS getppid calls (default 400,000: ~30 MB of events,
#     more than the 8 MiB rings) while the first packet write stalls until the workload has
#     ended (the test hook SCRY_TEST_WRITE_STALL_FILE, src/ctf/writer.h): events lost with
#     the writer thread, and with SCRY_TEST_SYNC_WRITES=1 (written on the draining thread, as
#     before the writer), BENCH_STALL_ROUNDS (3) interleaved rounds.
#  2. `scry trace -f -o /dev/null -- find /usr -name '*.h'`, BENCH_FIND_RUNS (20) runs: the
#     events lost in all and the runs that lost any (goal: 0 in 20); as the machine is, and
#     with BENCH_FIND_HOGS (3 per CPU; 0: not run) busy loops competing for the CPUs, the
#     condition that lost events before the drain thread (src/consumer/drainer.h).
set -uo pipefail
cd "$(dirname "$0")/.."

SCRY=./scry
WORK=build/bench/stall.$$
CALLS=${BENCH_STALL_CALLS:-400000}
ROUNDS=${BENCH_STALL_ROUNDS:-3}
FIND_RUNS=${BENCH_FIND_RUNS:-20}
HOGS=${BENCH_FIND_HOGS:-$(( 3 * $(nproc) ))}
GETPPID=build/workload/getppid_loop
mkdir -p "$WORK"
HOG_PIDS=()
stop_hogs() { [[ ${#HOG_PIDS[@]} -gt 0 ]] && kill "${HOG_PIDS[@]}" 2>/dev/null; wait "${HOG_PIDS[@]}" 2>/dev/null; HOG_PIDS=(); }
trap 'stop_hogs; rm -rf "$WORK"' EXIT
if [[ $(id -u) -ne 0 || ! -x $SCRY || ! -x $GETPPID ]]; then
	echo "bench (stall): needs root, ./scry and $GETPPID: rows skipped" >&2
	exit 0
fi

# one stalled recording: prints "events discarded"
stalled() {   # stalled MODE(sync|writer)
	local gate=$WORK/gate out=$WORK/t err=$WORK/err
	rm -rf "$out"; : > "$gate"
	if [[ $1 == sync ]]; then export SCRY_TEST_SYNC_WRITES=1; else unset SCRY_TEST_SYNC_WRITES; fi
	# the workload's JSON line means it has ended: then the stall ends
	SCRY_TEST_WRITE_STALL_FILE=$gate "$SCRY" record -q -o "$out" -e syscall:getppid -- "$GETPPID" "$CALLS" 2> "$err" |
		{ read -r _; rm -f "$gate"; cat > /dev/null; }
	unset SCRY_TEST_SYNC_WRITES
	sed -n 's/^scry: \([0-9]*\) events recorded, \([0-9]*\) discarded.*/\1 \2/p' "$err"
}

declare -A LOST
for r in $(seq "$ROUNDS"); do
	for m in sync writer; do
		read -r ev disc < <(stalled $m)
		LOST[$m]+=" ${disc:-?}/$(( 2 * CALLS ))"
	done
done
echo "bench (stall): record $CALLS getppid calls behind a write stalled until they end, $ROUNDS interleaved rounds"
printf '%-44s %s\n' "written on the draining thread (before)" "lost:${LOST[sync]}"
printf '%-44s %s\n' "writer thread, 64 MiB queue per CPU (now)" "lost:${LOST[writer]}"

find_runs() {   # find_runs LABEL: FIND_RUNS traced finds, their losses printed
	local total=0 bad=0 lost
	for r in $(seq "$FIND_RUNS"); do
		"$SCRY" trace -f -o /dev/null -- find /usr -name '*.h' > /dev/null 2> "$WORK/find.err"
		lost=$(sed -n 's/^scry: \([0-9]*\) events lost.*/\1/p' "$WORK/find.err")
		[[ -n $lost && $lost != 0 ]] && { total=$(( total + lost )); bad=$(( bad + 1 )); }
	done
	echo "scry trace -f -o /dev/null -- find /usr -name '*.h', $1: $total events lost in $bad of $FIND_RUNS runs"
	echo "target: 0 lost in $FIND_RUNS runs of find ($1) : $([[ $bad == 0 ]] && echo met || echo "NOT met")"
}
find_runs "as the machine is"
if [[ $HOGS -gt 0 ]]; then
	for h in $(seq "$HOGS"); do { while :; do :; done; } & HOG_PIDS+=($!); done
	find_runs "$HOGS busy loops beside"
	stop_hogs
fi
w=$(echo ${LOST[writer]} | tr ' ' '\n' | cut -d/ -f1 | sort -n | tail -1)
echo "target: 0 lost behind a stall the queue absorbs       : $([[ $w == 0 ]] && echo met || echo "NOT met")"
