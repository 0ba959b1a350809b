#!/bin/bash
# bench/startup.sh (run by `make bench`) — issue 12's rows: how long a tracer takes to start
# and stop around a command that does nothing (`/bin/true`), the whole run timed from the
# outside (BENCH_STARTUP_RUNS runs, default 10, after 2 warm-ups; the median: by hyperfine, or
# where it is not installed by the script's own timer, the commands' runs interleaved): scry trace,
# scry record (default events), strace, perf trace, bpftrace with one probe.  And how long
# `scry record -a -e 'sched:*' --duration 1` takes in all, and how long its trace spans
# (the switch: the events start and stop at one instant, whatever attaching takes).
# "4 KiB heap": scry trace with its heap on ordinary pages (util/heap.c); "one lane": with its
# programs verified one after the other, "two lanes": on two CPUs even when they are busy
# (kernel/lanes.c; scry trace alone picks one lane when they are): the same run.  "warm": with
# scryd's ready object (docs/DAEMON.md), against cold with the same scryd up.  Then the time each
# program's load (verification and JIT) takes, by strace -T, and the instructions the verifier
# went through for each (build/bench/proginfo: its work, whatever the machine's load).
set -uo pipefail
cd "$(dirname "$0")/.."

SCRY=./scry
RUNS=${BENCH_STARTUP_RUNS:-10}
WORK=build/bench/startup.$$
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
have() { command -v "$1" >/dev/null 2>&1; }

make -s build/bench/proginfo || { echo "bench (start-up): building build/bench/proginfo failed" >&2; exit 1; }
export SCRY_NO_WARM=1   # these rows cold even when the machine runs a scryd (warm: below)
cmds=(-n "scry trace" "$SCRY trace -o /dev/null -- /bin/true"
      -n "scry trace, 4 KiB heap" "SCRY_NO_HUGE_HEAP=1 $SCRY trace -o /dev/null -- /bin/true"
      -n "scry trace, one lane" "SCRY_ONE_LANE=1 $SCRY trace -o /dev/null -- /bin/true"
      -n "scry trace, two lanes" "SCRY_TWO_LANES=1 $SCRY trace -o /dev/null -- /bin/true"
      -n "scry record" "rm -rf $WORK/t && $SCRY record -q -o $WORK/t -- /bin/true")
have strace && cmds+=(-n "strace" "strace -f -o /dev/null /bin/true")
have perf && cmds+=(-n "perf trace" "perf trace -o /dev/null -- /bin/true")
have bpftrace && cmds+=(-n "bpftrace, one probe" "bpftrace -e 'tracepoint:raw_syscalls:sys_enter { @n = count(); }' -c /bin/true")
if have hyperfine; then
	echo "bench (start-up): a tracer around /bin/true, start to exit, median of $RUNS runs (hyperfine)"
	hyperfine -w 2 -r "$RUNS" --export-json "$WORK/h.json" "${cmds[@]}" >/dev/null 2>"$WORK/h.err" ||
		{ echo "bench (start-up): hyperfine failed: $(tail -n 3 "$WORK/h.err")" >&2; exit 0; }
else
	# hyperfine's JSON from our own timer: each command run in turn, RUNS rounds after 2
	echo "bench (start-up): a tracer around /bin/true, start to exit, median of $RUNS runs" \
	     "(hyperfine not installed: timed here, the commands interleaved)"
	/usr/bin/python3 - "$WORK/h.json" "$RUNS" "${cmds[@]}" <<'PY' || exit 0
import json, statistics, subprocess, sys, time
out, runs, args = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cmds = [(args[i + 1], args[i + 2]) for i in range(0, len(args), 3)]   # -n NAME COMMAND
times = {name: [] for name, _ in cmds}
for rnd in range(runs + 2):
    for name, cmd in cmds:
        t = time.perf_counter()
        p = subprocess.run(cmd, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        dt = time.perf_counter() - t
        if p.returncode:
            sys.exit(f"bench (start-up): '{cmd}' failed (exit {p.returncode})")
        if rnd >= 2:
            times[name].append(dt)
json.dump({"results": [{"command": n, "median": statistics.median(v), "stddev": statistics.stdev(v), "times": v}
                       for n, v in times.items()]}, open(out, "w"))
PY
fi
/usr/bin/python3 - "$WORK/h.json" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
print(f"{'configuration':26} {'ms':>8} {'± ms':>7} {'min ms':>7}")
for r in rs:
    print(f"{r['command']:26} {r['median'] * 1e3:8.1f} {r['stddev'] * 1e3:7.1f} {min(r['times']) * 1e3:7.1f}")
scry = next(r for r in rs if r["command"] == "scry trace")
print(f"target: scry trace -- /bin/true <= 100 ms : {scry['median'] * 1e3:.0f} ms  "
      f"{'met' if scry['median'] <= 0.1 else 'NOT met'}")
PY

# warm (issue 29, item 7): with scryd running, scry trace takes the object scryd loaded ahead
# of time (docs/DAEMON.md) instead of verifying its own.  Cold (SCRY_NO_WARM=1, the same
# scryd up) and warm runs interleaved, each warm run once scryd has its next object ready
# (it loads one after each handover, at nice 19, once the taker has exited), and checked to have
# been taken.
RUN=$WORK/run
if env -u SCRY_NO_WARM SCRY_RUNDIR="$RUN" "$SCRY" daemon >/dev/null 2>"$WORK/scryd.err"; then   # (it keeps none with it)
	/usr/bin/python3 - "$SCRY" "$RUN" "$RUNS" <<'PY'
import os, socket, statistics, struct, subprocess, sys, time
scry, run, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
MAGIC = 0x59524353

def status():
    p = b"arg=warm\0"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(os.path.join(run, "control"))
        s.sendall(struct.pack("<IHHI", MAGIC, 1, 1, len(p)) + p)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return dict(x.decode().split("=", 1) for x in data[12:-1].split(b"\0"))

def ready(timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        st = status()
        if st.get("ready") == "1":
            return st
        time.sleep(0.02)
    sys.exit("bench (start-up): scryd has no ready object (see its scryd.log)")

cmd = [scry, "trace", "-o", "/dev/null", "--", "/bin/true"]
env_warm = {k: v for k, v in os.environ.items() if k != "SCRY_NO_WARM"}   # the rows above are cold
env_warm["SCRY_RUNDIR"] = run
env_cold = dict(env_warm, SCRY_NO_WARM="1")
times = {"cold": [], "warm": []}
missed = 0
for rnd in range(runs + 2):
    handed = int(ready()["handed"])
    time.sleep(0.2)                   # scryd's thread idle again: the run alone on its CPUs
    t = time.perf_counter()
    subprocess.run(cmd, env=env_warm, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dt = time.perf_counter() - t
    if int(status()["handed"]) != handed + 1:
        missed += 1
    elif rnd >= 2:
        times["warm"].append(dt)
    ready()
    time.sleep(0.2)
    t = time.perf_counter()
    subprocess.run(cmd, env=env_cold, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if rnd >= 2:
        times["cold"].append(time.perf_counter() - t)
print(f"scryd's ready object: scry trace -o /dev/null -- /bin/true, cold and warm interleaved, median of {runs} runs"
      + (f" ({missed} runs not warm, left out)" if missed else ""))
print(f"{'configuration':26} {'ms':>8} {'± ms':>7} {'min ms':>7}")
for name, label in (("cold", "scry trace, cold (scryd)"), ("warm", "scry trace, warm")):
    v = times[name]
    if v:
        print(f"{label:26} {statistics.median(v) * 1e3:8.1f} {statistics.stdev(v) * 1e3 if len(v) > 1 else 0:7.1f}"
              f" {min(v) * 1e3:7.1f}")
if times["warm"]:
    w = statistics.median(times["warm"]) * 1e3
    print(f"target: scry trace -- /bin/true warm <= 20 ms : {w:.0f} ms  {'met' if w <= 20 else 'NOT met'}")
PY
	kill "$(cut -d' ' -f1 "$RUN/scryd.pid")" 2>/dev/null
else
	echo "bench (start-up): scryd did not start: $(tail -n 2 "$WORK/scryd.err")" >&2
fi

# the verifier's share: each program's BPF_PROG_LOAD as strace -T times it (cold) (the kernel's
# verification and JIT), scry trace's default set, one run
if have strace; then
	strace -f -T -e trace=bpf -o "$WORK/bpf.strace" "$SCRY" trace -o /dev/null -- /bin/true 2>/dev/null
	/usr/bin/python3 - "$WORK/bpf.strace" <<'PY'
import re, sys
pend, loads = {}, []
for line in open(sys.argv[1]):
    pid = line.split(None, 1)[0]
    if "BPF_PROG_LOAD" in line:
        name = re.search(r'prog_name="([^"]*)"', line).group(1) or "?"
        insns = int(re.search(r'insn_cnt=(\d+)', line).group(1))
        t = re.search(r'<([\d.]+)>$', line.strip())
        if t:
            loads.append((float(t.group(1)), name, insns))
        else:
            pend[pid] = (name, insns)
    elif "resumed" in line and pid in pend:
        t = re.search(r'<([\d.]+)>$', line.strip())
        if t:
            name, insns = pend.pop(pid)
            loads.append((float(t.group(1)), name, insns))
loads.sort(reverse=True)
print(f"verifier + JIT per program (scry trace -- /bin/true, strace -T of BPF_PROG_LOAD): "
      f"{sum(l[0] for l in loads) * 1e3:.1f} ms over {len(loads)} loads (on the lanes' threads)")
for t, name, insns in loads[:6]:
    print(f"  {name:18} {insns:6} insns {t * 1e3:7.1f} ms")
PY
fi

# the verifier's work per program, in instructions: the same on a loaded machine and an idle one
"$SCRY" trace -o /dev/null -- sleep 3 >/dev/null 2>&1 &
tpid=$!
prev= same=0
for _ in $(seq 100); do     # until the lanes have loaded them all: the same list for 0.5 s
	build/bench/proginfo "$tpid" > "$WORK/progs" 2>/dev/null
	cur=$(awk '$1 ~ /^scry_/ { print $1 }' "$WORK/progs" | sort | tr '\n' ' ')
	if [ -n "$cur" ] && [ "$cur" = "$prev" ]; then same=$((same + 1)); else same=0; fi
	[ "$same" -ge 5 ] && break
	prev=$cur
	sleep 0.1
done
wait "$tpid"
awk '$1 ~ /^scry_/ { n++; v += $2; x += $3; row[n] = sprintf("  %-18s %7d insns verified %7d B xlated", $1, $2, $3) }
     END { printf "instructions verified (the programs of scry trace, bpf_prog_info): %d over %d programs, %d B xlated\n", v, n, x
	   for (i = 1; i <= n; i++) print row[i] }' "$WORK/progs"

# --duration: the wall time of the run, and the span of its events (the summary's seconds)
start=$(date +%s%N)
"$SCRY" record -q -a -e 'sched:*' --duration 1 -o "$WORK/d" 2> "$WORK/d.err" >/dev/null
end=$(date +%s%N)
secs=$(sed -n 's/.* in \([0-9.]*\) s .*/\1/p' "$WORK/d.err")
awk -v a="$start" -v b="$end" -v s="${secs:-?}" 'BEGIN {
	printf "scry record -a -e sched:* --duration 1: %.2f s in all, recording %s s (switch on to off)\n", (b - a) / 1e9, s }'
