#!/usr/bin/python3
"""bench/relay.py — a session streamed to Debian's lttng-relayd on loopback against the same
session writing locally, in one run (issue 25): `scry record -e syscall:read,syscall:write`
of dd copying N 1-byte blocks (4 events a block), alternately to -o DIR and to --set-url,
ROUNDS times each; per output the median events/s (events recorded over the session's time,
as `scry record` reports them) and what was lost (discarded in the kernel, not delivered to
the relay: the goal is 0); the ratio streamed / local, the median of each round's ratio (its
two records back to back; goal >= 0.9x); lttng-relayd's CPU
time per event delivered (from /proc/PID/stat); then the live latency: a live session (live
timer 100 ms) followed by babeltrace2's lttng-live reader while a process writes 4321 bytes
every 20 ms, each event's latency the time babeltrace2 printed it minus its timestamp: p50
and p99 (the issue asks for 3 live-timer periods at most).
    bench/relay.py [N [ROUNDS]]    (default 750000 blocks, 5 rounds)"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "e2e"))
from relayd import Relayd  # noqa: E402

SCRY = os.path.join(os.path.dirname(__file__), "..", "build", "scry")
SUMMARY = re.compile(r"scry: (\d+) events recorded, (\d+) discarded, .* in ([\d.]+) s \((\d+) events/s\)")
UNDELIVERED = re.compile(r"(\d+) packets \((\d+) events\) not delivered")


def cpu_ticks(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])          # utime + stime


def record(out_args, n):
    p = subprocess.run([SCRY, "record", *out_args, "-e", "syscall:read,syscall:write", "--", "dd", "if=/dev/zero",
                        "of=/dev/null", "bs=1", f"count={n}", "status=none"], capture_output=True, text=True)
    m = SUMMARY.search(p.stderr)
    assert p.returncode == 0 and m, p.stderr
    u = UNDELIVERED.search(p.stderr)
    lost = int(m[2]) + (int(u[2]) if u else 0)
    return int(m[1]), lost, int(m[4])


def throughput(relay, tmp, n, rounds):
    res = {"local": [], "relay": []}
    lost = {"local": 0, "relay": 0}
    relay_cpu, relay_events = 0, 0
    hz = os.sysconf("SC_CLK_TCK")
    for k in range(rounds):
        ev, lo, rate = record(["-o", os.path.join(tmp, f"local{k}")], n)
        res["local"].append(rate)
        lost["local"] += lo
        t0 = cpu_ticks(relay.proc.pid)
        ev, lo, rate = record(["--set-url", relay.url, "--name", f"b{k}", "--hostname", "bench"], n)
        time.sleep(0.5)                   # the relay writes what it received
        relay_cpu += (cpu_ticks(relay.proc.pid) - t0) / hz
        relay_events += ev
        res["relay"].append(rate)
        lost["relay"] += lo
    for name in ("local", "relay"):
        print(f"{name:5s}: {statistics.median(res[name]):>12,.0f} events/s (median of {rounds}: "
              f"{', '.join(f'{r:,}' for r in res[name])}), {lost[name]} events lost")
    # each round's two records run back to back: the median of their ratios is steadier than
    # the ratio of the medians when the machine's load drifts
    pairs = [r / l for r, l in zip(res["relay"], res["local"])]
    print(f"streamed / local: {statistics.median(pairs):.2f}x events/s, median of the rounds' ratios "
          f"({', '.join(f'{x:.2f}' for x in pairs)}; goal >= 0.9x, 0 lost)")
    print(f"lttng-relayd: {relay_cpu:.2f} s CPU for {relay_events:,} events: "
          f"{relay_cpu / relay_events * 1e9:.0f} ns per event")


def latency(relay, tmp, samples=250):
    rec = subprocess.Popen([SCRY, "record", "-q", "--set-url", relay.url, "--live=100000", "--name", "lat",
                            "--hostname", "bench", "-e", "syscall:write", "-a", "--duration", "25"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    bt = subprocess.Popen(["babeltrace2", "--input-format=lttng-live", "--clock-seconds",
                           f"net://127.0.0.1:{relay.live}/host/bench/lat"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(2.0)
    code = (f"import os, time\nfd = os.open('/dev/null', os.O_WRONLY)\n"
            f"for i in range({samples}):\n    os.write(fd, b'x' * 4321)\n    time.sleep(0.02)\n")
    w = subprocess.Popen(["/usr/bin/python3", "-c", code], stdin=subprocess.DEVNULL)
    lat = []
    deadline = time.monotonic() + 30
    while len(lat) < samples and time.monotonic() < deadline:
        line = bt.stdout.readline()
        if not line:
            break
        if "syscall_entry_write" in line and "count = 4321" in line:
            lat.append(time.time() - float(line[1:line.index("]")]))
    w.wait()
    bt.kill()
    rec.kill()
    bt.wait()
    rec.wait()
    lat.sort()
    if len(lat) < samples:
        print(f"live latency: only {len(lat)} of {samples} events seen")
        return
    p50, p99 = lat[len(lat) // 2], lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    print(f"live latency (live timer 100 ms, babeltrace2 lttng-live, {len(lat)} events): "
          f"p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, max {lat[-1] * 1000:.0f} ms")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 750000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as tmp:
        relay = Relayd(tmp)
        try:
            throughput(relay, tmp, n, rounds)
            latency(relay, tmp)
        finally:
            relay.stop()


if __name__ == "__main__":
    main()
