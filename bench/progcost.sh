#!/bin/bash
# bench/progcost.sh (run by `make bench`) — issue 29's rows by the kernel's own accounting
# (kernel.bpf_stats_enabled): ns per run of the programs on the syscall hooks while a
# getppid loop pinned to one CPU runs, against the floors measured in the same run: the empty
# programs, and the empty programs reading the trace clock.  Immune to the drift that moves
# ns-per-call figures by tens of ns on a shared VM; the programs' cost only (not the
# tracepoint's).  A filter front's run includes the dispatcher it tail-calls.
# Rows: scry record -a (default contexts), a filter / a tracker rejecting every event, a
# filter accepting every event, a followed process (-p: the target check by the follow set),
# vppid and hostname one at a time, the 16 simple contexts of bench/run.sh and the six v*id ones; the callstack-kernel / -user contexts against the floor reading
# the same stack with bpf_get_task_stack alone (floor --kstack / --ustack).  Each configuration's figure is the minimum of
# BENCH_ROUNDS (5) interleaved rounds (interference only adds time).
# Environment: BENCH_CALLS (1000000 calls per measure), BENCH_ROUNDS, BENCH_CPU,
# PROGCOST_ONLY (space-separated keys: measure these alone, e.g. "floor scry-a"), SCRY (./scry),
# SCRY_BEFORE (another build: each scry row is measured with it too, in the same rounds, beside
# this one, as KEY@before; the before/after table gives min and median of each).
set -uo pipefail
cd "$(dirname "$0")/.."

[[ $(id -u) -eq 0 ]] || { echo "bench (progcost): run as root" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
if [[ ! -w /proc/sys/kernel/bpf_stats_enabled ]] || ! have jq || ! have bpftool || [[ ! -x ./scry ]]; then
	echo "bench (progcost): needs kernel.bpf_stats_enabled, jq, bpftool and ./scry: rows skipped" >&2
	exit 0
fi
make -s bench-tools || { echo "bench (progcost): building the bench tools failed" >&2; exit 1; }

OUT=build/bench
WORK=$OUT/progcost.$$
mkdir -p "$WORK"
CALLS=${BENCH_CALLS:-1000000}
ROUNDS=${BENCH_ROUNDS:-5}
PIN_CPU=${BENCH_CPU:-$(( $(nproc) - 1 ))}
GETPPID=build/workload/getppid_loop
SCRY=${SCRY:-./scry}   # another build to compare: SCRY=path
BG_PID="" FOLLOWED=""
STATS_SAVED=$(cat /proc/sys/kernel/bpf_stats_enabled)

. "$(dirname "$0")/lib.sh"   # stop_bg
cleanup() {
	stop_bg
	[[ -n "$FOLLOWED" ]] && kill "$FOLLOWED" 2>/dev/null
	echo "$STATS_SAVED" > /proc/sys/kernel/bpf_stats_enabled
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo 1 > /proc/sys/kernel/bpf_stats_enabled

prog_ids() { bpftool prog show -j 2>/dev/null | grep -o '"id":[0-9]*' | sort; }
wait_new_progs() {   # wait_new_progs BEFORE_FILE N PID
	for _ in $(seq 300); do
		kill -0 "$3" 2>/dev/null || return 1
		(( $(prog_ids | comm -13 "$1" - | wc -l) >= $2 )) && return 0
		sleep 0.1
	done
	return 1
}

# The loop to measure: run directly, or (-p rows) by a shell started before the tracer,
# waiting on a fifo, that then execs it (the process the tracer was told to follow).
run_loop() {
	if [[ -n "$FOLLOWED" ]]; then
		echo go > "$WORK/fifo"
		wait "$FOLLOWED" 2>/dev/null
		FOLLOWED=""
	else
		taskset -c "$PIN_CPU" "$GETPPID" "$CALLS" > /dev/null
	fi
}

declare -A NS RUNS
prog_cost() {   # prog_cost KEY CMD...: CMD loads programs in the background; sets NS[KEY]
	local key=$1; shift
	NS[$key]=""
	prog_ids > "$WORK/ids.before"
	"$@" > "$WORK/stats.out" 2>&1 & BG_PID=$!
	wait_new_progs "$WORK/ids.before" 2 "$BG_PID" || { stop_bg; return 1; }
	sleep 0.5
	bpftool prog show -j > "$WORK/stats.a"
	run_loop
	bpftool prog show -j > "$WORK/stats.b"
	stop_bg
	NS[$key]=$(jq -n --slurpfile a "$WORK/stats.a" --slurpfile b "$WORK/stats.b" --argjson min $((CALLS / 2)) '
		($a[0] | map({key: (.id | tostring), value: .}) | from_entries) as $before
		| [$b[0][] | select(.run_cnt != null)
		   | {c: (.run_cnt - ($before[.id | tostring].run_cnt // 0)),
		      t: (.run_time_ns - ($before[.id | tostring].run_time_ns // 0))}
		   | select(.c >= $min)]
		| if length == 0 then "" else (((map(.t) | add) / (map(.c) | add)) * 10 | round / 10) end' | tr -d '"')
}

start_followed() {   # a shell on the fifo, to be given to scry -p
	rm -f "$WORK/fifo"; mkfifo "$WORK/fifo"
	taskset -c "$PIN_CPU" sh -c "read x < '$WORK/fifo'; exec '$GETPPID' $CALLS > /dev/null" & FOLLOWED=$!
}

# bench/run.sh's 16 simple contexts (LTTng's, past the default three; the six v*id included)
CTX_SIMPLE16=vppid,hostname,interruptible,preemptible,need_reschedule,migratable,egid,sgid,suid,vuid,veuid,vsuid,vgid,vegid,vsgid,time_ns
KEYS=(floor floor-clock floor-task scry-a scry-cmd scry-rej scry-trk scry-acc scry-vppid scry-hostname
      scry-simple scry-vids floor-kstack scry-kstack floor-ustack scry-ustack)
[[ -n "${PROGCOST_ONLY:-}" ]] && read -ra KEYS <<<"$PROGCOST_ONLY"
BEFORE_KEYS=()
if [[ -n "${SCRY_BEFORE:-}" ]]; then
	[[ -x "$SCRY_BEFORE" ]] || { echo "bench (progcost): SCRY_BEFORE=$SCRY_BEFORE is not executable" >&2; exit 2; }
	for k in "${KEYS[@]}"; do [[ $k == scry-* ]] && BEFORE_KEYS+=("$k@before"); done
fi
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
	for kk in "${KEYS[@]}" "${BEFORE_KEYS[@]}"; do
		k=${kk%@before}
		REC=("$SCRY" record -q -o "$WORK/t")
		[[ $kk == *@before ]] && REC=("$SCRY_BEFORE" record -q -o "$WORK/t")
		case $k in
		floor) prog_cost "$kk" "$OUT/floor" ;;
		floor-clock) prog_cost "$kk" "$OUT/floor" --clock ;;
		floor-task) prog_cost "$kk" "$OUT/floor" --task ;;
		scry-a) prog_cost "$kk" "${REC[@]}" -a ;;
		scry-cmd) start_followed; prog_cost "$kk" "${REC[@]}" -p "$FOLLOWED" ;;
		scry-rej) prog_cost "$kk" "${REC[@]}" -a --filter '$ctx.tid == -1' ;;
		scry-trk) prog_cost "$kk" "${REC[@]}" -a --track-uid 4242 ;;
		scry-acc) prog_cost "$kk" "${REC[@]}" -a --filter '$ctx.tid != -1' ;;
		scry-vppid) prog_cost "$kk" "${REC[@]}" -a -c pid,tid,procname,vppid ;;
		scry-hostname) prog_cost "$kk" "${REC[@]}" -a -c pid,tid,procname,hostname ;;
		scry-simple) prog_cost "$kk" "${REC[@]}" -a -c "pid,tid,procname,$CTX_SIMPLE16" ;;
		scry-vids) prog_cost "$kk" "${REC[@]}" -a -c pid,tid,procname,vuid,veuid,vsuid,vgid,vegid,vsgid ;;
		floor-kstack) prog_cost "$kk" "$OUT/floor" --clock --kstack ;;
		floor-ustack) prog_cost "$kk" "$OUT/floor" --clock --ustack ;;
		scry-kstack) prog_cost "$kk" "${REC[@]}" -a -c pid,tid,procname,callstack-kernel ;;
		scry-ustack) prog_cost "$kk" "${REC[@]}" -a -c pid,tid,procname,callstack-user ;;
		*) echo "bench (progcost): no configuration $k" >&2; exit 2 ;;
		esac
		[[ -n "$FOLLOWED" ]] && { kill "$FOLLOWED" 2>/dev/null; wait "$FOLLOWED" 2>/dev/null; FOLLOWED=""; }
		rm -rf "$WORK/t"
		[[ -n "${NS[$kk]}" ]] && RUNS[$kk]+=" ${NS[$kk]}"
	done
done
for k in "${KEYS[@]}" "${BEFORE_KEYS[@]}"; do
	NS[$k]=$(printf '%s\n' ${RUNS[$k]:-} | sort -g | head -n 1)
done

declare -A LABEL=([floor]="floor (empty programs)" [floor-clock]="floor + clock read" [floor-task]="floor + current task" [scry-a]="scry record -a"
	[scry-cmd]="scry record -p PID (followed)" [scry-rej]="  filter rejects all" [scry-trk]="  tracker rejects all"
	[scry-acc]="  filter accepts all" [scry-vppid]="  + vppid" [scry-hostname]="  + hostname"
	[scry-simple]="  + 16 simple contexts" [scry-vids]="  + 6 v*id contexts"
	[floor-kstack]="floor + clock + kernel stack" [scry-kstack]="  + callstack-kernel"
	[floor-ustack]="floor + clock + user stack" [scry-ustack]="  + callstack-user")
echo "bench (progcost): ns per program run on the syscall hooks (kernel.bpf_stats_enabled), getppid loop of $CALLS calls on CPU $PIN_CPU, min of $ROUNDS interleaved rounds"
printf '%-26s %9s %9s   %s\n' configuration "ns/run" "-floor" "rounds"
for k in "${KEYS[@]}"; do
	printf '%-26s %9s %9s  %s\n' "${LABEL[$k]}" "${NS[$k]:-failed}" \
		"$([[ -n ${NS[$k]:-} && -n ${NS[floor]:-} ]] && awk -v a="${NS[$k]}" -v f="${NS[floor]}" 'BEGIN {printf "%+.1f", a - f}')" "${RUNS[$k]:-}"
done
ratio() { [[ -n "${NS[$1]:-}" && -n "${NS[$2]:-}" ]] && awk -v a="${NS[$1]}" -v b="${NS[$2]}" 'BEGIN {printf "%.2f", a / b}'; }
over() { [[ -n "${NS[$1]:-}" && -n "${NS[$2]:-}" ]] && awk -v a="${NS[$1]}" -v b="${NS[$2]}" 'BEGIN {printf "%.1f", a - b}'; }
verdict() { [[ -z "$1" ]] && echo "?" || { awk -v x="$1" -v op="$2" -v t="$3" 'BEGIN {exit !((op == "<=") ? x <= t : x >= t)}' && echo "met" || echo "NOT met"; }; }
target() {   # target TEXT VALUE OP GOAL UNIT
	printf 'target: %-44s: %s%s  %s\n' "$1" "${2:-?}" "$5" "$(verdict "$2" "$3" "$4")"
}
target "scry -a program run <= 60 ns" "${NS[scry-a]:-}" '<=' 60 " ns"
target "scry -a <= 1.15x (floor + clock read)" "$(ratio scry-a floor-clock)" '<=' 1.15 x
target "scry -p PID <= 1.10x scry -a" "$(ratio scry-cmd scry-a)" '<=' 1.10 x
target "filter rejecting all <= 1.15x floor" "$(ratio scry-rej floor)" '<=' 1.15 x
target "tracker rejecting all <= 1.15x floor" "$(ratio scry-trk floor)" '<=' 1.15 x
target "filter accepting all <= 1.10x scry -a" "$(ratio scry-acc scry-a)" '<=' 1.10 x
target "vppid <= +10 ns over scry -a" "$(over scry-vppid scry-a)" '<=' 10 " ns"
target "hostname <= +10 ns over scry -a" "$(over scry-hostname scry-a)" '<=' 10 " ns"
target "16 simple contexts <= +160 ns over scry -a" "$(over scry-simple scry-a)" '<=' 160 " ns"
target "6 v*id contexts <= +60 ns over scry -a" "$(over scry-vids scry-a)" '<=' 60 " ns"
# a call stack context against bpf_get_task_stack alone (the same flags and depth), each over
# its base (scry -a; the floor + clock)
stack_ratio() { [[ -n "${NS[$1]:-}" && -n "${NS[$2]:-}" && -n "${NS[scry-a]:-}" && -n "${NS[floor-clock]:-}" ]] &&
	awk -v s="${NS[$1]}" -v a="${NS[scry-a]}" -v f="${NS[$2]}" -v c="${NS[floor-clock]}" 'BEGIN {if (f > c) printf "%.2f", (s - a) / (f - c)}'; }
target "callstack-kernel <= 1.10x bpf_get_task_stack" "$(stack_ratio scry-kstack floor-kstack)" '<=' 1.10 x
target "callstack-user <= 1.10x bpf_get_task_stack" "$(stack_ratio scry-ustack floor-ustack)" '<=' 1.10 x
if (( ${#BEFORE_KEYS[@]} )); then
	median() { printf '%s\n' $1 | sort -g | awk '{v[NR] = $1} END {if (NR) printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
	echo "before ($SCRY_BEFORE) / after ($SCRY), the same rounds: min, median"
	printf '%-26s %15s %15s\n' configuration before after
	for b in "${BEFORE_KEYS[@]}"; do
		k=${b%@before}
		printf '%-26s %7s %7s %7s %7s\n' "${LABEL[$k]}" "${NS[$b]:-failed}" "$(median "${RUNS[$b]:-}")" \
			"${NS[$k]:-failed}" "$(median "${RUNS[$k]:-}")"
	done
fi
exit 0
