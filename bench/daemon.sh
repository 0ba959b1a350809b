#!/bin/bash
# bench/daemon.sh (run by `make bench`) — issue 13's rows, through a private scryd:
#  1. cost per event of a session's channel: discard (written to the trace) vs overwrite (a
#     snapshot session's flight recorder), and discard with each clock (create --clock):
#     getppid_loop (BENCH_DAEMON_CALLS, default 2000000, pinned to one CPU) traced by a
#     session recording syscall getppid (two events per call), minus an untraced loop run
#     just before it; the median of BENCH_DAEMON_ROUNDS (5) rounds.  Target: overwrite <=
#     discard + 10%.
#  2. `scry start` of a configured session (5 syscalls, sched_switch, two contexts): its
#     wall time from the shell (the CLI process, the round trip, the daemon's work), the
#     daemon's own time split as its log says (load: trace directory and guardian, BPF
#     objects, metadata; attach), and `start` after `stop` (the session resumed); beside
#     `scry status` (a CLI process and a round trip, no work).  Means of BENCH_DAEMON_RUNS
#     (5).  Target: start <= 20 ms, for a session whose configuration has rested (its BPF
#     objects loaded ahead, docs/DAEMON.md); the start right after the last verb beside it.
set -uo pipefail
cd "$(dirname "$0")/.."

if [[ $(id -u) -ne 0 ]]; then
	echo "bench (daemon): run as root" >&2
	exit 1
fi
make -s bench-tools >/dev/null || { echo "bench (daemon): building the bench tools failed" >&2; exit 1; }

SCRY=$PWD/scry
GETPPID=build/workload/getppid_loop
CALLS=${BENCH_DAEMON_CALLS:-2000000}
ROUNDS=${BENCH_DAEMON_ROUNDS:-5}
RUNS=${BENCH_DAEMON_RUNS:-5}
PIN_CPU=${BENCH_CPU:-$(( $(nproc) - 1 ))}
WORK=$PWD/build/bench/daemon.$$
mkdir -p "$WORK/home"
export SCRY_RUNDIR=$WORK/run HOME=$WORK/home
cleanup() {
	"$SCRY" destroy -a >/dev/null 2>&1
	local pid
	pid=$(awk '{print $1}' "$WORK/run/scryd.pid" 2>/dev/null)
	[[ -n "$pid" ]] && kill "$pid" 2>/dev/null && sleep 0.3
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ns_per_call() { sed -n 's/.*"ns_per_call":\([0-9.]*\).*/\1/p'; }
now_ns() { date +%s%N; }

# 1. cost per event
run_config() {     # name: prints ns per call, or "err: ..." (the session's losses on stderr)
	local name=$1 out
	if [[ $name == untraced ]]; then
		taskset -c "$PIN_CPU" "$GETPPID" "$CALLS" | ns_per_call
		return
	fi
	local opts=(-o "$WORK/t-$name-$r")
	case $name in
	overwrite) opts+=(--snapshot) ;;
	monotonic|boot|tai) opts+=(--clock "$name") ;;
	esac
	"$SCRY" create "b-$name" "${opts[@]}" >/dev/null 2>"$WORK/err" || { echo "err: $(cat "$WORK/err")"; return; }
	"$SCRY" enable-event -k --syscall getppid >/dev/null && "$SCRY" start >/dev/null 2>"$WORK/err" ||
		{ echo "err: $(cat "$WORK/err")"; "$SCRY" destroy >/dev/null 2>&1; return; }
	out=$(taskset -c "$PIN_CPU" "$GETPPID" "$CALLS")
	"$SCRY" stop > "$WORK/stop-$name-$r" 2>&1
	"$SCRY" destroy >/dev/null 2>&1
	rm -rf "$WORK/t-$name-$r"
	ns_per_call <<<"$out"
}

configs=(discard overwrite monotonic boot tai)
declare -A diffs raw
for ((r = 1; r <= ROUNDS; r++)); do
	for c in "${configs[@]}"; do
		u=$(run_config untraced)       # next to each configuration: the machine's drift hits both
		v=$(run_config "$c")
		[[ $v == err:* ]] && { raw[$c]=$v; continue; }
		raw[$c]+="$v "
		diffs[$c]+="$(awk -v a="$v" -v b="$u" 'BEGIN { print (a - b) / 2 }') "
		raw[untraced]+="$u "
	done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "bench (daemon): cost per event of a session's channel, getppid_loop $CALLS calls on CPU $PIN_CPU (2 events a call);"
echo "  each configuration next to an untraced run, median of $ROUNDS rounds of (traced - untraced) / 2"
printf "%-36s %10s %12s\n" "configuration" "ns/call" "ns/event"
printf "%-36s %10.1f %12s\n" "untraced" "$(median <<<"${raw[untraced]}")" "-"
declare -A per
for c in "${configs[@]}"; do
	case $c in
	discard) label="discard (the default clock)" ;;
	overwrite) label="overwrite (snapshot session)" ;;
	monotonic) label="discard, --clock monotonic" ;;
	boot) label="discard, --clock boot" ;;
	tai) label="discard, --clock tai" ;;
	esac
	if [[ ${raw[$c]:-} == err:* ]]; then
		printf "%-36s %s\n" "$label" "not measured: ${raw[$c]#err: scry: }"
		continue
	fi
	per[$c]=$(median <<<"${diffs[$c]}")
	printf "%-36s %10.1f %12.1f\n" "$label" "$(median <<<"${raw[$c]}")" "${per[$c]}"
done
echo "  per round (ns/event):"
for c in "${configs[@]}"; do [[ -n "${diffs[$c]:-}" ]] && echo "    $c: ${diffs[$c]}"; done
for f in "$WORK"/stop-*; do
	grep -q " 0 discarded" "$f" || echo "  note: $(basename "$f"): $(cat "$f")"
done
if [[ -n "${per[discard]:-}" && -n "${per[overwrite]:-}" ]]; then
	awk -v d="${per[discard]}" -v o="${per[overwrite]}" 'BEGIN {
		printf "target: overwrite <= discard + 10%% per event: %.1f vs %.1f ns: %s\n", o, d, (o <= d * 1.1) ? "met" : "NOT met" }'
fi

# 2. scry start of a configured session
configure() {
	"$SCRY" create s -o "$WORK/s-$1" >/dev/null &&
	"$SCRY" enable-event -k --syscall openat,read,write,close,getppid >/dev/null &&
	"$SCRY" enable-event -k sched_switch >/dev/null &&
	"$SCRY" add-context -k -t pid -t procname >/dev/null
}
first=() again=() status=() rested=()
for ((i = 1; i <= RUNS; i++)); do
	configure "$i" || { echo "bench (daemon): configuring a session failed" >&2; exit 0; }
	a=$(now_ns); "$SCRY" status >/dev/null; b=$(now_ns)
	"$SCRY" start >/dev/null || exit 0
	c=$(now_ns)
	"$SCRY" stop >/dev/null
	d=$(now_ns); "$SCRY" start >/dev/null; e=$(now_ns)
	"$SCRY" stop >/dev/null
	"$SCRY" destroy >/dev/null
	configure "r$i" || exit 0
	sleep 0.6           # the configuration rests: its BPF objects are loaded ahead
	f=$(now_ns); "$SCRY" start >/dev/null; g=$(now_ns)
	"$SCRY" stop >/dev/null
	"$SCRY" destroy >/dev/null
	status+=($(( b - a ))) first+=($(( c - b ))) again+=($(( e - d ))) rested+=($(( g - f )))
done
mean_ms() { printf "%s\n" "$@" | awk '{ s += $1 } END { printf "%.1f", s / NR / 1e6 }'; }
echo "bench (daemon): scry start of a configured session (5 syscalls, sched_switch, 2 contexts), mean of $RUNS"
printf "%-48s %8s\n" "what" "ms"
printf "%-48s %8s\n" "scry status (CLI process + round trip)" "$(mean_ms "${status[@]}")"
printf "%-48s %8s\n" "scry start, configuration rested (loaded ahead)" "$(mean_ms "${rested[@]}")"
printf "%-48s %8s\n" "scry start right after configuring (loads)" "$(mean_ms "${first[@]}")"
printf "%-48s %8s\n" "scry start after scry stop (resumed)" "$(mean_ms "${again[@]}")"
echo "daemon side of each first start (its log):"
grep -o 'session s started, trace [^ ]* (.*)' "$WORK/run/scryd.log" | sed 's/.*trace [^ ]* (\(.*\))/  \1/'
grep -o 'session s started again.*' "$WORK/run/scryd.log" | sed -n 's/.*(\(.*\) ms)/\1/p' |
	awk '{ s += $1; n++ } END { if (n) printf "daemon side of a resume, mean of %d: %.2f ms\n", n, s / n }'
awk -v f="$(mean_ms "${rested[@]}")" -v a="$(mean_ms "${again[@]}")" 'BEGIN {
	printf "target: scry start <= 20 ms: configured %.1f ms %s, after stop %.1f ms %s\n", f, (f <= 20) ? "met" : "NOT met",
	       a, (a <= 20) ? "met" : "NOT met" }'
