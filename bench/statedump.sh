#!/bin/bash
# bench/statedump.sh (run by `make bench`) — issue 14's row: how long scry's statedump takes
# (lttng_statedump_start to lttng_statedump_end in the trace) on this machine as it is, and
# with a process holding 500 threads and 10,000 open files added (the issue's target: at
# most 200 ms); and what it adds to `scry record -- /bin/true`, whose default events include
# it: the defaults with and without it (BENCH_SD_RUNS runs, default 5).
set -uo pipefail
cd "$(dirname "$0")/.."

SCRY=./scry
RUNS=${BENCH_SD_RUNS:-5}
WORK=build/bench/statedump.$$
mkdir -p "$WORK"
LOAD=
trap '[ -n "$LOAD" ] && kill "$LOAD" 2>/dev/null; rm -rf "$WORK"' EXIT

# one run: the dump's span (ms), its events, the whole run's wall time (ms)
run() {
	rm -rf "$WORK/t"
	local t0 t1
	t0=$(date +%s%N)
	$SCRY record -q -o "$WORK/t" "$@" -- /bin/true >/dev/null 2>&1 || { echo "scry record failed" >&2; return 1; }
	t1=$(date +%s%N)
	/usr/bin/python3 - "$WORK/t" $(( (t1 - t0) / 1000000 )) <<'PY'
import sys, bt2
start = end = None
n = 0
for m in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(m) is bt2._EventMessageConst:
        name = m.event.name
        if name.startswith("lttng_statedump_"):
            n += 1
            if name == "lttng_statedump_start":
                start = m.default_clock_snapshot.value
            elif name == "lttng_statedump_end":
                end = m.default_clock_snapshot.value
span = (end - start) / 1e6 if start is not None and end is not None else float("nan")
print(f"{span:.1f} {n} {sys.argv[2]}")
PY
}

rows() {   # label, then scry record options
	local label=$1; shift
	local spans=() evs=0 walls=()
	for _ in $(seq "$RUNS"); do
		read -r span n wall < <(run "$@") || return
		spans+=("$span"); walls+=("$wall"); evs=$n
	done
	/usr/bin/python3 - "$label" "$evs" "${#spans[@]}" "${spans[@]}" "${walls[@]}" <<'PY'
import sys, statistics
label, evs, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
spans = [float(x) for x in sys.argv[4:4 + k]]
walls = [float(x) for x in sys.argv[4 + k:]]
s = f"{statistics.median(spans):7.1f}" if spans and spans[0] == spans[0] else "      -"
print(f"{label:44} {s} {evs:8d} {statistics.median(walls):8.0f}")
PY
}

echo "bench (statedump): median of $RUNS runs of scry record [-e ...] -- /bin/true"
printf '%-44s %7s %8s %8s\n' "configuration" "dump ms" "events" "run ms"
NOSD=(-e 'syscall:*' -e sched:sched_switch -e sched:sched_process_fork -e sched:sched_process_exec
      -e sched:sched_process_exit)
rows "defaults without the statedump" "${NOSD[@]}"
rows "defaults (statedump included)"
rows "statedump alone, this machine" -e 'lttng_statedump_*'
threads=$(ls -d /proc/[0-9]*/task/* 2>/dev/null | wc -l)
/usr/bin/python3 - <<'PY' &
import os, resource, threading, time
resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))
fds = [os.open("/dev/null", os.O_RDONLY) for _ in range(10000)]
ev = threading.Event()
ts = [threading.Thread(target=ev.wait, daemon=True) for _ in range(499)]
for t in ts:
    t.start()
time.sleep(600)
PY
LOAD=$!
sleep 2
rows "statedump, +500 threads, +10,000 fds" -e 'lttng_statedump_*'
echo "(this machine: $threads threads before the load)"
