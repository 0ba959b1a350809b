#!/bin/bash
# bench/run.sh (`make bench`) — tracing overhead of scry vs. its peers, and `scry view` vs.
# babeltrace2.  Workloads: build/workload/getppid_loop (ns per syscall measured inside the
# program, pinned to one CPU) and a real program (tar of /usr/include, timed from inside the
# tracer by build/bench/timeit).  Configurations: untraced, floor (empty BPF programs), ftrace
# raw_syscalls, bpftrace printf, perf trace, strace -f, scry record -a, scry record -- cmd, and
# scry record -a with a filter that rejects every event, a tracker that rejects every process,
# and a filter that accepts every event (issue 4's rows).
# Every tracer started here is stopped and ftrace restored on any exit.  A peer tool that is
# missing gives a "not installed" row.  The fast configurations run in BENCH_ROUNDS (5)
# interleaved rounds so that drift of the machine hits them alike.  Each configuration's
# figure is the best (minimum) of its rounds, as timeit takes it: on a shared VM interference
# only ever adds time.  BENCH_STAT=median shows medians instead; the rounds' values are
# printed under the table.
# Environment: BENCH_CALLS (3000000), BENCH_REPS (1 per round), BENCH_ROUNDS (5), BENCH_CPU.
set -uo pipefail
cd "$(dirname "$0")/.."

if [[ $(id -u) -ne 0 ]]; then
	echo "bench: run as root (tracers need it)" >&2
	exit 1
fi
scripts/deps.sh --bench || echo "bench: some peer tools could not be installed; their rows say 'not installed'" >&2
make -s bench-tools || { echo "bench: building the bench tools failed" >&2; exit 1; }
make -s all || echo "bench: ./scry did not build: its rows are skipped" >&2

OUT=build/bench
WORK=$OUT/run.$$
mkdir -p "$WORK"
CALLS=${BENCH_CALLS:-3000000}
REPS=${BENCH_REPS:-1}        # measured runs per configuration and round (after a warm-up)
ROUNDS=${BENCH_ROUNDS:-5}    # rounds over the fast configurations, interleaved against drift
GETPPID=build/workload/getppid_loop
# The getppid loop runs pinned to one CPU (BENCH_CPU, default the last): its ns per call
# then does not depend on where the scheduler puts it against the tracer's own threads.
PIN_CPU=${BENCH_CPU:-$(( $(nproc) - 1 ))}
GETPPID_RUN=(taskset -c "$PIN_CPU" "$GETPPID")
TIMEIT=$OUT/timeit
REAL=(tar cf /dev/null /usr/include)
REAL_DESC="tar cf /dev/null /usr/include"
TRACEFS=/sys/kernel/tracing
SCRY=./scry

BG_PID=""            # the background tracer currently running
FTRACE_SAVED=""      # "enable tracing_on" saved before enabling ftrace

. "$(dirname "$0")/lib.sh"   # stop_bg

ftrace_restore() {
	[[ -n "$FTRACE_SAVED" ]] || return 0
	read -r en on <<<"$FTRACE_SAVED"
	[[ "$en" == 1 ]] || echo 0 > $TRACEFS/events/raw_syscalls/enable
	echo "$on" > $TRACEFS/tracing_on
	echo > $TRACEFS/trace
	FTRACE_SAVED=""
}

cleanup() {
	stop_bg
	ftrace_restore
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }
minimum() { sort -g | awk 'NR == 1 {m = $1} END {if (NR) print m; else print "nan"}'; }
STAT=${BENCH_STAT:-min}
case $STAT in min) ROUND_STAT=minimum ;; median) ROUND_STAT=median ;; *) echo "bench: BENCH_STAT is min or median" >&2; exit 2 ;; esac
json_num() { sed -n "s/.*\"$1\":\([-0-9.]*\).*/\1/p" | tail -n 1; }

prog_ids() { bpftool prog show -j 2>/dev/null | grep -o '"id":[0-9]*' | sort; }

# wait_new_progs BEFORE_FILE N PID: until N BPF programs not in BEFORE_FILE are loaded
wait_new_progs() {
	for _ in $(seq 300); do
		kill -0 "$3" 2>/dev/null || return 1
		(( $(prog_ids | comm -13 "$1" - | wc -l) >= $2 )) && return 0
		sleep 0.1
	done
	return 1
}

# measure CALLS PREFIX... : runs both workloads REPS times under PREFIX; sets GP_NS (median
# ns per getppid call) and REAL_NS (median wall ns of the real program).  RUN_HOOK, when set,
# is called with "start N" / "stop N" around each run (per-run tracers).
RUN_HOOK=""
measure() {
	local calls=$1; shift
	local gp=() real=() i out
	for ((i = 0; i <= REPS; i++)); do           # run 0 is a warm-up
		[[ -n "$RUN_HOOK" ]] && { $RUN_HOOK start "g$i" || return 1; }
		out=$("$@" "${GETPPID_RUN[@]}" "$calls" 2>>"$WORK/stderr") || { [[ -n "$RUN_HOOK" ]] && $RUN_HOOK stop "g$i"; return 1; }
		[[ -n "$RUN_HOOK" ]] && $RUN_HOOK stop "g$i"
		((i)) && gp+=("$(json_num ns_per_call <<<"$out")")
		[[ -n "$RUN_HOOK" ]] && { $RUN_HOOK start "r$i" || return 1; }
		"$@" "$TIMEIT" "${REAL[@]}" >/dev/null 2>"$WORK/timeit" || { [[ -n "$RUN_HOOK" ]] && $RUN_HOOK stop "r$i"; return 1; }
		[[ -n "$RUN_HOOK" ]] && $RUN_HOOK stop "r$i"
		((i)) && real+=("$(json_num wall_ns < "$WORK/timeit")")
	done
	GP_NS=$(printf '%s\n' "${gp[@]}" | median)
	REAL_NS=$(printf '%s\n' "${real[@]}" | median)
}

declare -A GP REALT LOST NOTE GPS REALS
ORDER=()
row() {   # row NAME: add the last measure's results to NAME's (ROUND_STAT taken at the end)
	[[ " ${ORDER[*]} " == *" $1 "* ]] || ORDER+=("$1")
	[[ -n "${GP_NS:-}" ]] && GPS[$1]+=" $GP_NS"
	[[ -n "${REAL_NS:-}" ]] && REALS[$1]+=" $REAL_NS"
	return 0
}
finish_rows() {   # GP / REALT: ROUND_STAT over every round of each configuration
	local k
	for k in "${ORDER[@]}"; do
		[[ -n "${GPS[$k]:-}" ]] && GP[$k]=$(printf '%s\n' ${GPS[$k]} | $ROUND_STAT)
		[[ -n "${REALS[$k]:-}" ]] && REALT[$k]=$(printf '%s\n' ${REALS[$k]} | $ROUND_STAT)
	done
	return 0
}

have() { command -v "$1" >/dev/null 2>&1; }

summary_field() {   # summary_field FILE N: Nth number (1 = events, 2 = discarded) of scry's summary
	sed -n 's/^scry: \([0-9]*\) events recorded, \([0-9]*\) discarded.*/\1 \2/p' "$1" | tail -n 1 | cut -d' ' -f"$2"
}

echo "bench: getppid_loop $CALLS calls on CPU $PIN_CPU (fast tracers; fewer for slow ones), $REAL_DESC; $STAT of $ROUNDS interleaved rounds (slow tracers: one)"

# Syscalls made by the real program (to turn its wall time into ns per syscall).
REAL_SYSCALLS=""
if have strace; then
	strace -f -c -o "$WORK/strace-c" "$TIMEIT" "${REAL[@]}" >/dev/null 2>&1
	REAL_SYSCALLS=$(awk '$NF == "total" {print $4}' "$WORK/strace-c" | tail -n 1)
fi

# --- the fast configurations, in interleaved rounds
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
echo "bench: round $ROUND of $ROUNDS" >&2

# --- untraced
unset GP_NS REAL_NS
measure "$CALLS" && row untraced || { NOTE[untraced]="failed"; row untraced; }

# --- floor: empty BPF programs
unset GP_NS REAL_NS
"$OUT/floor" > "$WORK/floor.out" 2>&1 & BG_PID=$!
for _ in $(seq 100); do grep -q ready "$WORK/floor.out" 2>/dev/null && break; sleep 0.1; done
if grep -q ready "$WORK/floor.out"; then measure "$CALLS" || NOTE[floor]="failed"; else NOTE[floor]="failed to attach"; fi
stop_bg; row floor

# --- floor + clock: the same programs reading the trace clock, nothing else
unset GP_NS REAL_NS
"$OUT/floor" --clock > "$WORK/floor-clock.out" 2>&1 & BG_PID=$!
for _ in $(seq 100); do grep -q ready "$WORK/floor-clock.out" 2>/dev/null && break; sleep 0.1; done
if grep -q ready "$WORK/floor-clock.out"; then measure "$CALLS" || NOTE[floor-clock]="failed"; else NOTE[floor-clock]="failed to attach"; fi
stop_bg; row floor-clock

# --- ftrace raw_syscalls
unset GP_NS REAL_NS
if [[ -w $TRACEFS/events/raw_syscalls/enable ]]; then
	FTRACE_SAVED="$(cut -c1 $TRACEFS/events/raw_syscalls/enable) $(cat $TRACEFS/tracing_on)"
	echo 1 > $TRACEFS/events/raw_syscalls/enable && echo 1 > $TRACEFS/tracing_on
	measure "$CALLS" || NOTE[ftrace]="failed"
	ftrace_restore
else
	NOTE[ftrace]="tracefs not available"
fi
row ftrace

# --- scry record -a (system-wide), one session per run
scry_all_hook() {
	case $1 in
	start)
		prog_ids > "$WORK/ids.before"
		rm -rf "$WORK/trace-all"
		"$SCRY" record -q -a -o "$WORK/trace-all" "${SCRY_ALL_ARGS[@]}" 2> "$WORK/scry-all.$2.err" & BG_PID=$!
		wait_new_progs "$WORK/ids.before" 2 "$BG_PID" || { cat "$WORK/scry-all.$2.err" >&2; stop_bg; return 1; }
		sleep 0.5 ;;
	stop)
		stop_bg
		local d; d=$(summary_field "$WORK/scry-all.$2.err" 2)
		SCRY_LOST=$((SCRY_LOST + ${d:-0}))
		[[ -n "$d" ]] || SCRY_NOSUMMARY=1
		rm -rf "$WORK/trace-all" ;;
	esac
}
scry_all_row() {   # scry_all_row ROW [ARGS...]: scry record -a ARGS, one session per run
	local key=$1; shift
	SCRY_ALL_ARGS=("$@")
	unset GP_NS REAL_NS
	SCRY_LOST=0; SCRY_NOSUMMARY=0
	if [[ -x $SCRY ]]; then
		RUN_HOOK=scry_all_hook
		measure "$CALLS" || NOTE[$key]="failed"
		RUN_HOOK=""
		LOST[$key]=$(( ${LOST[$key]:-0} + SCRY_LOST )); ((SCRY_NOSUMMARY)) && NOTE[$key]="summary missing"
	else
		NOTE[$key]="./scry not built"
	fi
	row "$key"
}
scry_all_row scry-a
scry_all_row scry-rej --filter '$ctx.tid == -1'
scry_all_row scry-trk --track-uid 4242
scry_all_row scry-acc --filter '$ctx.tid != -1'
# issue 14's context rows: the cost per event of each new context class on top of the
# default pid,tid,procname (scry-a): LTTng's simple contexts, perf counters, call stacks
CTX_SIMPLE=pid,tid,procname,vppid,hostname,interruptible,preemptible,need_reschedule,migratable,egid,sgid,suid,vuid,veuid,vsuid,vgid,vegid,vsgid,time_ns
scry_all_row scry-ctx-simple -c "$CTX_SIMPLE"
scry_all_row scry-ctx-perf -c pid,tid,procname,perf:cpu:page-fault,perf:thread:page-fault
scry_all_row scry-ctx-kstack -c pid,tid,procname,callstack-kernel
scry_all_row scry-ctx-ustack -c pid,tid,procname,callstack-user

# --- scry record -- cmd, one session per run
scry_cmd() {   # wrapper: scry record -q -o DIR -- "$@"
	rm -rf "$WORK/trace-cmd"
	"$SCRY" record -q -o "$WORK/trace-cmd" -- "$@" 2> "$WORK/scry-cmd.err"
	local rc=$? d
	sed '/^scry: [0-9]* events recorded/d' "$WORK/scry-cmd.err" >&2
	d=$(summary_field "$WORK/scry-cmd.err" 2)
	echo "${d:-missing}" >> "$WORK/scry-cmd.lost"   # may run in a subshell: keep it in a file
	rm -rf "$WORK/trace-cmd"
	return $rc
}
unset GP_NS REAL_NS
SCRY_LOST=0; SCRY_NOSUMMARY=0
if [[ -x $SCRY ]]; then
	: > "$WORK/scry-cmd.lost"
	measure "$CALLS" scry_cmd || NOTE[scry-cmd]="failed"
	LOST[scry-cmd]=$(( ${LOST[scry-cmd]:-0} + $(awk '/^[0-9]+$/ {s += $1} END {print s + 0}' "$WORK/scry-cmd.lost") ))
	grep -q missing "$WORK/scry-cmd.lost" && NOTE[scry-cmd]="summary missing"
else
	NOTE[scry-cmd]="./scry not built"
fi
row scry-cmd

done

# --- per-program cost by the kernel's own accounting (kernel.bpf_stats_enabled): bench/progcost.sh,
# run after this script by `make bench`

# --- the slow tracers, one round (fewer calls)
# --- bpftrace printing every event
unset GP_NS REAL_NS
if have bpftrace; then
	prog_ids > "$WORK/ids.before"
	bpftrace -e 'tracepoint:raw_syscalls:sys_enter,tracepoint:raw_syscalls:sys_exit { printf("%d %d\n", tid, args->id) }' \
		> /dev/null 2> "$WORK/bpftrace.err" & BG_PID=$!
	if wait_new_progs "$WORK/ids.before" 2 "$BG_PID"; then
		measure $((CALLS / 10)) || NOTE[bpftrace]="failed"
	else
		NOTE[bpftrace]="failed to attach"
	fi
	stop_bg
else
	NOTE[bpftrace]="not installed"
fi
row bpftrace

# --- perf trace
unset GP_NS REAL_NS
if have perf && perf trace -o /dev/null -- true >/dev/null 2>&1; then
	measure $((CALLS / 100)) perf trace -o /dev/null -- || NOTE[perf-trace]="failed"
else
	NOTE[perf-trace]=$(have perf && echo "perf trace unusable" || echo "not installed")
fi
row perf-trace

# --- strace
unset GP_NS REAL_NS
if have strace; then
	measure $((CALLS / 100)) strace -f -o /dev/null -- || NOTE[strace]="failed"
else
	NOTE[strace]="not installed"
fi
row strace

finish_rows

# --- table
base=${GP[untraced]:-}
added() { [[ -n "${GP[$1]:-}" && -n "$base" ]] && awk -v a="${GP[$1]}" -v b="$base" 'BEGIN {printf "%.1f", a - b}'; }
ratio() { [[ -n "$1" && -n "$2" ]] && awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}'; }
FLOOR_ADD=$(added floor); FTRACE_ADD=$(added ftrace)
declare -A LABEL=([untraced]="untraced" [floor]="floor (empty BPF prog)" [floor-clock]="floor + clock read" [ftrace]="ftrace raw_syscalls"
	[bpftrace]="bpftrace printf" [perf-trace]="perf trace" [strace]="strace -f"
	[scry-a]="scry record -a" [scry-cmd]="scry record -- cmd"
	[scry-rej]="  filter rejects all" [scry-trk]="  tracker rejects all" [scry-acc]="  filter accepts all"
	[scry-ctx-simple]="  + 16 simple contexts" [scry-ctx-perf]="  + 2 perf counters"
	[scry-ctx-kstack]="  + callstack-kernel" [scry-ctx-ustack]="  + callstack-user")
echo
printf '%-24s %12s %10s %8s %8s %10s %12s %8s\n' configuration "ns/getppid" "added ns" "/floor" "/ftrace" "tar ms" "added/sysc" lost
printf '%-24s %12s %10s %8s %8s %10s %12s %8s\n' "" "" "" "" "" "" "(ns, tar)" ""
for k in "${ORDER[@]}"; do
	if [[ -n "${NOTE[$k]:-}" && -z "${GP[$k]:-}" ]]; then
		printf '%-24s %s\n' "${LABEL[$k]}" "${NOTE[$k]}"
		continue
	fi
	a=$(added "$k")
	tar_ms=$(awk -v t="${REALT[$k]:-0}" 'BEGIN {printf "%.1f", t / 1e6}')
	tar_add="-"
	if [[ -n "$REAL_SYSCALLS" && -n "${REALT[untraced]:-}" ]]; then
		tar_add=$(awk -v t="${REALT[$k]}" -v u="${REALT[untraced]}" -v n="$REAL_SYSCALLS" 'BEGIN {printf "%.1f", (t - u) / n}')
	fi
	printf '%-24s %12.1f %10s %8s %8s %10s %12s %8s\n' "${LABEL[$k]}" "${GP[$k]}" "${a:--}" \
		"$([[ $k != untraced ]] && ratio "$a" "$FLOOR_ADD" || echo -)" \
		"$([[ $k != untraced ]] && ratio "$a" "$FTRACE_ADD" || echo -)" "$tar_ms" "$tar_add" "${LOST[$k]:--}"
	[[ -n "${NOTE[$k]:-}" ]] && printf '%-24s   (%s)\n' "" "${NOTE[$k]}"
done
echo "(tar: $REAL_DESC, ${REAL_SYSCALLS:-?} syscalls; ratios: added cost / floor's, / ftrace's)"
echo "ns/getppid of each round (the table shows their $STAT):"
for k in "${ORDER[@]}"; do
	[[ -n "${GPS[$k]:-}" ]] && printf '  %-22s%s\n' "$(echo ${LABEL[$k]})" "$(printf ' %.1f' ${GPS[$k]})"
done

# --- scry view vs babeltrace2 on the same >= 1M-event trace
echo
VIEW_CALLS=${BENCH_VIEW_CALLS:-600000}
if [[ -x $SCRY ]]; then
	"$SCRY" record -q -e syscall:getppid -o "$WORK/trace-view" -- "$GETPPID" "$VIEW_CALLS" >/dev/null 2> "$WORK/view-rec.err"
	nev=$(summary_field "$WORK/view-rec.err" 1)
	t_run() { local a b; a=$(date +%s%N); "$@" > /dev/null 2>&1 || return 1; b=$(date +%s%N); echo $((b - a)); }
	# interleaved rounds, the best of each (interference only adds time)
	tv="" tb="" TVS="" TBS=""
	for r in $(seq "$ROUNDS"); do
		t=$(t_run "$SCRY" view "$WORK/trace-view") && { TVS+=" $t"; [[ -z $tv || $t -lt $tv ]] && tv=$t; }
		if have babeltrace2; then
			t=$(t_run babeltrace2 "$WORK/trace-view") && { TBS+=" $t"; [[ -z $tb || $t -lt $tb ]] && tb=$t; }
		fi
	done
	printf '%-34s %10s\n' "viewer (trace: ${nev:-?} events)" "seconds"
	printf '%-34s %10s\n' "scry view DIR >/dev/null" "$([[ -n $tv ]] && awk -v t="$tv" 'BEGIN{printf "%.3f", t/1e9}' || echo failed)"
	printf '%-34s %10s\n' "babeltrace2 DIR >/dev/null" "$([[ -n $tb ]] && awk -v t="$tb" 'BEGIN{printf "%.3f", t/1e9}' || { have babeltrace2 && echo failed || echo "not installed"; })"
	VIEW_SPEEDUP=$([[ -n $tv && -n $tb ]] && ratio "$tb" "$tv")
	echo "scry view speed-up over babeltrace2: ${VIEW_SPEEDUP:-?}x (best of $ROUNDS interleaved rounds; ms:" \
		"scry view$(printf ' %d' $(for t in $TVS; do echo $((t / 1000000)); done)), babeltrace2$(printf ' %d' $(for t in $TBS; do echo $((t / 1000000)); done)))"
else
	echo "scry view vs babeltrace2: ./scry not built"
fi

# --- targets
echo
verdict() { [[ -z "$2" ]] && echo "?" || { awk -v x="$2" -v op="$3" -v t="$4" 'BEGIN {exit !((op == "<=") ? x <= t : x >= t)}' && echo "met" || echo "NOT met"; }; }
SCRY_ADD=$(added scry-a)
r_floor=$(ratio "$SCRY_ADD" "$FLOOR_ADD"); r_ftrace=$(ratio "$SCRY_ADD" "$FTRACE_ADD")
echo "target: scry added cost <= 2.0x floor     : ${r_floor:-?}x  $(verdict x "$r_floor" '<=' 2.0)"
echo "target: scry added cost <= 0.5x ftrace    : ${r_ftrace:-?}x  $(verdict x "$r_ftrace" '<=' 0.5)"
CLOCK_ADD=$(added floor-clock)
echo "  (the floor + clock read alone costs $(ratio "$CLOCK_ADD" "$FTRACE_ADD")x ftrace's added cost and $(ratio "$CLOCK_ADD" "$FLOOR_ADD")x the floor's)"
lost_all="${LOST[scry-a]:-?}/${LOST[scry-cmd]:-?}"
echo "target: 0 lost events (scry -a / -- cmd)  : $lost_all  $([[ $lost_all == 0/0 ]] && echo met || echo "NOT met")"
echo "target: scry view >= 10x babeltrace2      : ${VIEW_SPEEDUP:-?}x  $(verdict x "${VIEW_SPEEDUP:-}" '>=' 10)"
r_rej=$(ratio "$(added scry-rej)" "$FLOOR_ADD"); r_trk=$(ratio "$(added scry-trk)" "$FLOOR_ADD")
r_acc=$(ratio "$(added scry-acc)" "$SCRY_ADD")
echo "target: filter rejecting all <= 1.15x floor  : ${r_rej:-?}x  $(verdict x "$r_rej" '<=' 1.15)"
echo "target: tracker rejecting all <= 1.15x floor : ${r_trk:-?}x  $(verdict x "$r_trk" '<=' 1.15)"
echo "target: filter accepting all <= 1.10x scry -a: ${r_acc:-?}x  $(verdict x "$r_acc" '<=' 1.10)"
echo "(the programs' own cost per run, against the empty programs and the clock read: bench/progcost.sh)"
