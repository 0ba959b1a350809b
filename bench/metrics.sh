#!/bin/bash
# bench/metrics.sh (run by `make bench`) — issue 16's rows: what in-kernel metrics cost.
#  - per syscall, by the kernel's own accounting (kernel.bpf_stats_enabled: the programs'
#    run time, not the tracepoint's): the floor (empty programs on sys_enter/sys_exit,
#    attached all along and measured on the same calls as scry's, so that the machine's
#    load weighs on both alike), the floor with clocks (the same, each reading the clock
#    once: what a latency histogram's two clock reads cost at the least, kvm-clock's
#    pvclock read being ~50 ns on a VM) and
#    `scry serve -a` with one counter (calls by syscall), the same with --filter (its program
#    before the counter's, which it tail-calls), one histogram (latency by syscall:
#    the entry program too) and examples/metrics.yaml (4 metrics); the difference to the
#    floor is the cost of the updates (ebpf_exporter publishes +15 ns for an empty program,
#    +35 ns for a simple map update, +96 ns for a complex one, on its tracepoint benchmark)
#  - ns per getppid call with each, measured inside the loop (noisier: the VM's drift)
#  - the time of one scrape of 10,000 series (getppid calls by pid, build/workload/forker)
#  - process spans: how fast N exec'd processes' spans reach an OTLP receiver, scry's CPU per span
# Environment: BENCH_CALLS (3000000), BENCH_ROUNDS (3), BENCH_CPU, SCRY_BEFORE (another build:
# each row measured with it too, in the same rounds, as KEY@before; a before/after table of
# min and median), METRICS_COST_ONLY=1 (the cost rows alone: no scrape, no spans),
# METRICS_ONLY (space-separated rows: counter filtered histogram example).
set -uo pipefail
cd "$(dirname "$0")/.."

[[ $(id -u) -eq 0 ]] || { echo "bench (metrics): run as root" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
for t in jq curl bpftool; do have $t || { echo "bench (metrics): $t not installed: rows skipped" >&2; exit 0; }; done
make -s bench-tools all || { echo "bench (metrics): build failed" >&2; exit 1; }

OUT=build/bench
WORK=$OUT/metrics.$$
mkdir -p "$WORK"
CALLS=${BENCH_CALLS:-3000000}
ROUNDS=${BENCH_ROUNDS:-3}
PIN_CPU=${BENCH_CPU:-$(( $(nproc) - 1 ))}
GETPPID=(taskset -c "$PIN_CPU" build/workload/getppid_loop)
SCRY=./scry
BG_PID=""
STATS_SAVED=$(cat /proc/sys/kernel/bpf_stats_enabled)

. "$(dirname "$0")/lib.sh"   # stop_bg
FLOOR_PID=""
CLOCK_PID=""
cleanup() { stop_bg; [[ -n "$FLOOR_PID" ]] && kill "$FLOOR_PID" 2>/dev/null; [[ -n "$CLOCK_PID" ]] && kill "$CLOCK_PID" 2>/dev/null; echo "$STATS_SAVED" > /proc/sys/kernel/bpf_stats_enabled; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
json_num() { sed -n "s/.*\"$1\":\([-0-9.]*\).*/\1/p" | tail -n 1; }
minimum() { sort -g | head -n 1; }

cat > "$WORK/counter.yaml" <<'Y'
metrics:
  counters:
    - name: bench_calls_total
      labels: [{name: syscall, source: syscall}]
Y
cat > "$WORK/hist.yaml" <<'Y'
metrics:
  histograms:
    - name: bench_latency_seconds
      bucket_min: 0
      bucket_max: 40
      bucket_multiplier: 0.000000001
      labels: [{name: syscall, source: syscall}]
Y
cat > "$WORK/bypid.yaml" <<'Y'
metrics:
  counters:
    - name: bench_by_pid_total
      max_entries: 65536
      syscalls: [getppid]
      labels: [{name: pid, source: pid}]
Y

# start_bg NAME CMD...: CMD in the background until "ready" or "serving" shows on its stderr
start_bg() {
	local name=$1; shift
	"$@" > "$WORK/$name.out" 2>&1 & BG_PID=$!
	for _ in $(seq 300); do
		grep -qE 'ready|serving' "$WORK/$name.out" 2>/dev/null && return 0
		kill -0 "$BG_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$WORK/$name.out" >&2
	stop_bg
	return 1
}

# one KEY: ns of program time per getppid call of scry's programs and, in the same calls, of
# the floor's (attached all along: both are measured on the same syscalls, whatever the load
# of the machine), and the loop's own ns per call
one() {
	local key=$1
	bpftool prog show -j > "$WORK/a.json"
	out=$("${GETPPID[@]}" "$CALLS")
	bpftool prog show -j > "$WORK/b.json"
	GP[$key]+=" $(json_num ns_per_call <<<"$out")"
	# scry's programs, and the floor's on the same attach points: its exit program alone when
	# only scry's exit program ran (no latency metric), both otherwise
	local n
	n=$(jq -n --slurpfile a "$WORK/a.json" --slurpfile b "$WORK/b.json" --argjson min "$CALLS" \
		--argjson ids "[${IDS[scry]// /,}]" '
		($a[0] | map({key: (.id | tostring), value: .}) | from_entries) as $before
		| [$b[0][] | select(.run_cnt != null) | select(.id as $i | $ids | index($i))
		   | select(.run_cnt - ($before[.id | tostring].run_cnt // 0) >= $min)] | length')
	local p f c
	p=$(prog_ns "${IDS[scry]}")
	if [[ $n == 1 ]]; then
		f=$(prog_ns "${IDS[floor_exit]}")
		c=$(prog_ns "${IDS[clock_exit]}")
	else
		f=$(prog_ns "${IDS[floor]}")
		c=$(prog_ns "${IDS[clock]}")
	fi
	# a measure where some program ran fewer than the calls (not attached in time) is dropped
	[[ $p == nan || $f == nan || $c == nan ]] && { echo "bench (metrics): $key: a measure dropped (programs not run)" >&2; return; }
	PROG[$key]+=" $p"
	FLR[$key]+=" $f"
	CLK[$key]+=" $c"
	# over each floor in this very measure (the load of the moment weighs on both)
	DF[$key]+=" $(awk -v p="$p" -v f="$f" 'BEGIN {printf "%.1f", p - f}')"
	DC[$key]+=" $(awk -v p="$p" -v f="$c" 'BEGIN {printf "%.1f", p - f}')"
}

# prog_ns "ID ID...": their run time per call between a.json and b.json (programs that ran >=
# the calls)
prog_ns() {
	jq -rn --slurpfile a "$WORK/a.json" --slurpfile b "$WORK/b.json" --argjson min "$CALLS" --argjson ids "[${1// /,}]" '
		($a[0] | map({key: (.id | tostring), value: .}) | from_entries) as $before
		| [$b[0][] | select(.run_cnt != null) | select(.id as $i | $ids | index($i))
		   | {c: (.run_cnt - ($before[.id | tostring].run_cnt // 0)),
		      t: (.run_time_ns - ($before[.id | tostring].run_time_ns // 0))}
		   | select(.c >= $min)]
		| if length == 0 then "nan" else ((map(.t) | add) / $min * 10 | round / 10) end'
}

# the ids of the loaded programs whose name matches $1, one a line
prog_ids() { bpftool prog show -j | jq -r ".[] | select(.name | test(\"$1\")) | .id" | sort; }

declare -A GP PROG FLR CLK DF DC IDS
echo 1 > /proc/sys/kernel/bpf_stats_enabled
KEYS=(counter filtered histogram example)
[[ -n "${METRICS_ONLY:-}" ]] && read -ra KEYS <<<"$METRICS_ONLY"
BEFORE_KEYS=()
if [[ -n "${SCRY_BEFORE:-}" ]]; then
	[[ -x "$SCRY_BEFORE" ]] || { echo "bench (metrics): SCRY_BEFORE=$SCRY_BEFORE is not executable" >&2; exit 2; }
	for k in "${KEYS[@]}"; do BEFORE_KEYS+=("$k@before"); done
fi
# start_floor NAME VAR [--clock]: the floor's programs attached until the end, their ids in
# IDS[NAME] and the exit program's in IDS[NAME_exit]
start_floor() {
	local name=$1 var=$2 before
	shift 2
	before=$(prog_ids '^floor_')
	"$OUT/floor" "$@" > "$WORK/$name.out" 2>&1 & printf -v "$var" %s $!
	for _ in $(seq 100); do grep -q ready "$WORK/$name.out" && break; sleep 0.1; done
	IDS[$name]=$(comm -13 <(echo "$before") <(prog_ids '^floor_') | tr '\n' ' ' | sed 's/ $//')
	IDS[${name}_exit]=$(comm -12 <(echo "${IDS[$name]}" | tr ' ' '\n' | sort) <(prog_ids '^floor_exit') | tr '\n' ' ' | sed 's/ $//')
}
start_floor floor FLOOR_PID
start_floor clock CLOCK_PID --clock
for ((r = 1; r <= ROUNDS; r++)); do
	for kk in "${KEYS[@]}" "${BEFORE_KEYS[@]}"; do
		k=${kk%@before}
		S=$SCRY
		[[ $kk == *@before ]] && S=$SCRY_BEFORE
		port=$(free_port)
		before=$(prog_ids '^scry_(metrics|filter)')     # other tracers' programs are not ours
		case $k in
		counter) start_bg $k "$S" serve -a --config "$WORK/counter.yaml" --listen 127.0.0.1:$port ;;
		filtered) start_bg $k "$S" serve -a --config "$WORK/counter.yaml" --filter 'ret >= 0' \
				   --listen 127.0.0.1:$port ;;
		histogram) start_bg $k "$S" serve -a --config "$WORK/hist.yaml" --listen 127.0.0.1:$port ;;
		example) start_bg $k "$S" serve -a --config examples/metrics.yaml --listen 127.0.0.1:$port ;;
		esac || continue
		IDS[scry]=$(comm -13 <(echo "$before") <(prog_ids '^scry_(metrics|filter)') | tr '\n' ' ' | sed 's/ $//')
		sleep 0.3
		one "$kk"
		stop_bg
	done
done

kill "$FLOOR_PID" "$CLOCK_PID" 2>/dev/null; wait "$FLOOR_PID" "$CLOCK_PID" 2>/dev/null; FLOOR_PID=""; CLOCK_PID=""

echo
echo "== in-kernel metrics: cost per syscall (getppid loop, $CALLS calls, best of $ROUNDS rounds)"
printf '%-44s %12s %12s %10s %12s %10s %10s %14s\n' configuration "prog ns/call" "floor (same)" "vs floor" \
	"floor+clocks" "vs clocks" "goal" "ns/getppid"
# issue 29's goals, under ebpf_exporter's published +35 (simple update) / +96 ns (complex).  The
# histogram's +60 over the floor assumed cheap clock reads (a TSC read, ~10 ns each); it reads
# the clock twice (entry, exit), ~50 ns each with kvm-clock on a VM: its goal is restated
# against the floor whose programs read the clock once each, +40 (the +60 less two cheap reads)
declare -A GOAL=([counter]="<= +20" [histogram]="<= clk+40")
declare -A LABEL=([counter]="scry serve: 1 counter (calls by syscall)"
		  [filtered]="the same, --filter 'ret >= 0'"
		  [histogram]="scry serve: 1 histogram (latency by syscall)" [example]="scry serve: examples/metrics.yaml (4)")
median() { printf '%s\n' $1 | sort -g | awk '{v[NR] = $1} END {if (NR) printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; else print "nan"}'; }
declare -A BEST
for k in "${KEYS[@]}" "${BEFORE_KEYS[@]}"; do
	p=$(printf '%s\n' ${PROG[$k]:-nan} | minimum)
	f=$(printf '%s\n' ${FLR[$k]:-nan} | minimum)
	c=$(printf '%s\n' ${CLK[$k]:-nan} | minimum)
	g=$(printf '%s\n' ${GP[$k]:-nan} | minimum)
	BEST[$k]=$p
	d=$(printf '%s\n' ${DF[$k]:-nan} | minimum | awk '{printf "%+.1f", $1}')
	dc=$(printf '%s\n' ${DC[$k]:-nan} | minimum | awk '{printf "%+.1f", $1}')
	label=${LABEL[${k%@before}]}
	[[ $k == *@before ]] && label="  before: ${label#scry serve: }"
	printf '%-44s %12s %12s %10s %12s %10s %10s %14s\n' "$label" "$p" "$f" "$d" "$c" "$dc" "${GOAL[$k]:-}" "$g"
done
echo "(programs' run time per getppid call, kernel.bpf_stats_enabled, the least of the rounds; vs floor,"
echo " vs clocks: the least of the rounds' differences to the floor measured in the same round;"
echo " the floor's empty programs on sys_enter and sys_exit stay attached and are measured on the"
echo " same calls, and so do the floor's"
echo " programs that read the clock once each (floor+clocks); the counter's exit program alone"
echo " runs, against the floors' exit programs; the histogram adds the entry program that keeps the"
echo " entry time, against both of each floor's; filtered: the filter program's run time, which"
echo " holds the counter's program it tail-calls)"
if (( ${#BEFORE_KEYS[@]} )); then
	echo "before ($SCRY_BEFORE) / after ($SCRY), the same rounds: ns over the floor (min, median), over floor+clocks (min, median)"
	for k in "${KEYS[@]}"; do
		printf '%-44s %7s %7s -> %7s %7s   %7s %7s -> %7s %7s\n' "${LABEL[$k]}" \
			"$(printf '%s\n' ${DF[$k@before]:-nan} | minimum)" "$(median "${DF[$k@before]:-}")" \
			"$(printf '%s\n' ${DF[$k]:-nan} | minimum)" "$(median "${DF[$k]:-}")" \
			"$(printf '%s\n' ${DC[$k@before]:-nan} | minimum)" "$(median "${DC[$k@before]:-}")" \
			"$(printf '%s\n' ${DC[$k]:-nan} | minimum)" "$(median "${DC[$k]:-}")"
	done
fi
[[ ${METRICS_COST_ONLY:-0} == 1 ]] && exit 0

# --- a scrape of 10,000 series
port=$(free_port)
if start_bg bypid "$SCRY" serve -a --config "$WORK/bypid.yaml" --listen 127.0.0.1:$port; then
	build/workload/forker 10000 > /dev/null
	n=$(curl -s "127.0.0.1:$port/metrics" | grep -c '^bench_by_pid_total{')
	best=$(for _ in 1 2 3 4 5; do curl -s -o /dev/null -w '%{time_total}\n' "127.0.0.1:$port/metrics"; done | minimum)
	self=$(curl -s "127.0.0.1:$port/metrics" | sed -n 's/^scry_last_scrape_duration_seconds //p')
	stop_bg
	echo
	echo "== a scrape of $n series: $(awk -v s="$best" 'BEGIN {printf "%.1f ms", s * 1000}') over HTTP (best of 5);" \
	     "reading and rendering $(awk -v s="$self" 'BEGIN {printf "%.1f ms", s * 1000}')"
fi

# --- process spans: export throughput and scry's CPU per span (receiver: tests/node)
if have node && [[ -d tests/node/node_modules/@opentelemetry/otlp-transformer ]]; then
	N_SPANS=${BENCH_SPANS:-2000}
	rport=$(free_port)
	node tests/node/otlp_receiver.js "$rport" > "$WORK/spans.jsonl" 2>&1 & RECV=$!
	for _ in $(seq 50); do grep -q listening "$WORK/spans.jsonl" 2>/dev/null && break; sleep 0.1; done
	t0=$(date +%s%N)
	OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$rport "$SCRY" serve --config examples/spans.yaml \
		--listen 127.0.0.1:$(free_port) --duration 600 -- \
		sh -c "i=0; while [ \$i -lt $N_SPANS ]; do /bin/true; i=\$((i+1)); done" \
		> "$WORK/spans.serve" 2>&1 & BG_PID=$!
	for _ in $(seq 300); do grep -q serving "$WORK/spans.serve" 2>/dev/null && break; sleep 0.05; done
	cpu0=$(awk '{print ($14 + $15) * 10}' /proc/$BG_PID/stat 2>/dev/null)   # ms (100 Hz ticks), after loading
	# the command's end does not stop serve: wait for its spans, then stop it
	for _ in $(seq 1200); do
		(( $(grep -c '"spanId"' "$WORK/spans.jsonl") >= N_SPANS )) && break
		sleep 0.1
	done
	t1=$(date +%s%N)
	cpu=$(awk -v c0="${cpu0:-0}" '{print ($14 + $15) * 10 - c0}' /proc/$BG_PID/stat 2>/dev/null)
	stop_bg
	kill "$RECV" 2>/dev/null; wait "$RECV" 2>/dev/null
	got=$(grep -c '"spanId"' "$WORK/spans.jsonl")
	echo
	echo "== process spans: $got spans of $N_SPANS exec'd processes received in" \
	     "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f s", (b - a) / 1e9}') (the command's run);" \
	     "scry's CPU after loading ${cpu:-?} ms ($(awk -v c="${cpu:-0}" -v n="$got" 'BEGIN {if (n) printf "%.0f us", c * 1000 / n; else print "?"}') per span)"
	grep '^scry: .* spans sent' "$WORK/spans.serve"
else
	echo "bench (metrics): node or tests/node/node_modules missing: span rows skipped" >&2
fi
