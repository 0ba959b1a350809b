#!/bin/bash
# bench/progpair.sh — two scry builds' syscall programs measured on the same calls: both
# `scry record ARGS` sessions attached at once, a pinned getppid loop, each session's ns per
# program run from kernel.bpf_stats (its programs run at least CALLS/2 times).  The
# programs attached first pay for the lines the calls left cold (~15 ns on the 2-vCPU VM,
# more than most changes), so the order alternates and the table closes with the mean of
# B - A over the rounds where A ran first and where B did, and their mean: the difference
# with the order's share cancelled.  A diagnosis for a change's closing note, not a figure
# of `make bench` (bench/progcost.sh interleaves rounds of one session at a time).
#   bench/progpair.sh ROUNDS SCRY_A SCRY_B [ARGS...]      (ARGS default: -a)
# SCRY_A `floor` stands for the empty programs reading the clock (build/bench/floor --clock):
# `progpair.sh 8 floor ./scry -a` gives record -a's cost over floor + clock on the same calls;
# SCRY_B may be `floor` too.  FLOOR_ARGS (default --clock) gives the floor's own arguments,
# FLOOR_ARGS_A / FLOOR_ARGS_B one side's: `FLOOR_ARGS_B="--clock --kstack" progpair.sh 6
# floor floor` gives bpf_get_task_stack's cost over the clock read's.
# An argument SELF stands for this script's pid: `-p SELF` follows the loops it starts.
# Environment: BENCH_CPU (the last CPU), BENCH_CALLS (1000000), ARGS_B (B's own arguments, e.g.
# one build with and without a context: `ARGS_B="-a -c hostname" progpair.sh 6 ./scry ./scry -a`).
set -uo pipefail
cd "$(dirname "$0")/.."
[[ $(id -u) -eq 0 ]] || { echo "progpair: run as root" >&2; exit 1; }
(( $# >= 3 )) || { echo "usage: bench/progpair.sh ROUNDS SCRY_A SCRY_B [ARGS...]" >&2; exit 2; }
for t in jq bpftool taskset; do command -v $t >/dev/null || { echo "progpair: $t not installed" >&2; exit 1; }; done
R=$1 A=$2 B=$3; shift 3
ARGS=("$@"); (( ${#ARGS[@]} )) || ARGS=(-a)
B_OWN=${ARGS_B:-}
ARGS_A=("${ARGS[@]}"); ARGS_B=("${ARGS[@]}")
[[ -n "$B_OWN" ]] && read -ra ARGS_B <<<"$B_OWN"
for i in "${!ARGS_A[@]}"; do [[ ${ARGS_A[$i]} == SELF ]] && ARGS_A[$i]=$$; done
for i in "${!ARGS_B[@]}"; do [[ ${ARGS_B[$i]} == SELF ]] && ARGS_B[$i]=$$; done
CALLS=${BENCH_CALLS:-1000000}
CPU=${BENCH_CPU:-$(( $(nproc) - 1 ))}
make -s build/workload/getppid_loop || exit 1
[[ $A == floor || $B == floor ]] && { make -s bench-tools || exit 1; }
W=$(mktemp -d /tmp/progpair.XXXXXX)
SAVED=$(cat /proc/sys/kernel/bpf_stats_enabled)
PIDS=()
cleanup() { kill -INT "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null; echo "$SAVED" > /proc/sys/kernel/bpf_stats_enabled; rm -rf "$W"; }
trap cleanup EXIT
echo 1 > /proc/sys/kernel/bpf_stats_enabled

ids() { bpftool prog show -j | jq -r '.[].id' | sort; }
start() {   # start NAME BUILD: its session's new program ids in $W/NAME.ids
	local before; before=$(ids)
	local -n args=ARGS_${1^^}
	if [[ $2 == floor ]]; then
		local fa=FLOOR_ARGS_${1^^}
		build/bench/floor ${!fa:-${FLOOR_ARGS:---clock}} > "$W/$1.out" 2>&1 & PIDS+=($!)
	else
		"$2" record -q -o "$W/$1.trace" "${args[@]}" > "$W/$1.out" 2>&1 & PIDS+=($!)
	fi
	for _ in $(seq 300); do
		(( $(comm -13 <(echo "$before") <(ids) | wc -l) >= 2 )) && break
		kill -0 $! 2>/dev/null || { echo "progpair: $2 record ${args[*]} failed: $(tail -1 "$W/$1.out")" >&2; exit 1; }
		sleep 0.1
	done
	sleep 0.3
	comm -13 <(echo "$before") <(ids) > "$W/$1.ids"
}
cost() {    # ns per run of the session's programs that ran at least CALLS/2 times
	jq -n --slurpfile a "$W/s.a" --slurpfile b "$W/s.b" --rawfile ids "$W/$1.ids" --argjson min $((CALLS / 2)) '
		($ids | split("\n") | map(select(length > 0) | tonumber)) as $want
		| ($a[0] | map({key: (.id | tostring), value: .}) | from_entries) as $bef
		| [$b[0][] | select(.id as $i | $want | index($i)) | select(.run_cnt != null)
		   | {c: (.run_cnt - ($bef[.id | tostring].run_cnt // 0)), t: (.run_time_ns - ($bef[.id | tostring].run_time_ns // 0))}
		   | select(.c >= $min)]
		| if length == 0 then "?" else ((map(.t) | add) / (map(.c) | add)) * 10 | round / 10 end'
}
printf "%-6s %-7s %9s %9s %8s\n" round first A B "B - A"
for r in $(seq "$R"); do
	rm -rf "$W"/*.trace; PIDS=()
	if (( r % 2 )); then start a "$A"; start b "$B"; first=A; else start b "$B"; start a "$A"; first=B; fi
	bpftool prog show -j > "$W/s.a"
	taskset -c "$CPU" build/workload/getppid_loop "$CALLS" > /dev/null
	bpftool prog show -j > "$W/s.b"
	kill -INT "${PIDS[@]}"; wait; PIDS=()
	ca=$(cost a); cb=$(cost b)
	printf "%-6s %-7s %9s %9s %8s\n" "$r" "$first" "$ca" "$cb" "$(awk -v a="$ca" -v b="$cb" 'BEGIN {printf "%.1f", b - a}')"
	echo "$first $ca $cb" >> "$W/rows"
done
awk '$2 != "?" && $3 != "?" {d = $3 - $2; r = $3 / $2; if ($1 == "A") {sa += d; ra += r; na++} else {sb += d; rb += r; nb++}}
     END {if (na && nb) printf "B - A: %.1f ns with A first, %.1f with B first; the order cancelled: %.1f ns (B / A %.3fx)\n",
          sa / na, sb / nb, (sa / na + sb / nb) / 2, (ra / na + rb / nb) / 2}' "$W/rows"
echo "A: $A ${ARGS_A[*]}"; echo "B: $B ${ARGS_B[*]}"
