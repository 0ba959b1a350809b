#!/usr/bin/python3
"""bench/live_view.py — `scry view net://…` against babeltrace2's lttng-live on the same relay
(issue 25): Debian's lttng-relayd on 127.0.0.1, one `scry record --live` session per viewer (a
relay takes one viewer per session) running the same workload (dd of N 1-byte blocks: its
read and write system calls, entry and exit), the viewer attached before the workload and
printing to a file.  Per viewer: events printed, its CPU time (user + system, from wait4) and
events per CPU second; the ratio is the figure the issue asks for (goal >= 5x).
    bench/live_view.py [N]    (default 200000 blocks: 800000 events)"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "e2e"))
from relayd import Relayd  # noqa: E402

SCRY = os.path.join(os.path.dirname(__file__), "..", "build", "scry")


def run(relay, tmp, name, argv, n):
    rec = subprocess.Popen([SCRY, "record", "-q", "--set-url", relay.url, "--live=200000", "--name", name,
                            "--hostname", "bench", "-e", "syscall:read,syscall:write", "--", "sh", "-c",
                            f"sleep 2; dd if=/dev/zero of=/dev/null bs=1 count={n} status=none; sleep 25"],
                           stdin=subprocess.DEVNULL)
    time.sleep(0.7)
    out = open(os.path.join(tmp, name + ".txt"), "w")
    v = subprocess.Popen(argv + [f"net://127.0.0.1:{relay.live}/host/bench/{name}"], stdout=out,
                         stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    t0 = time.monotonic()
    _, status, ru = os.wait4(v.pid, 0)
    wall = time.monotonic() - t0
    rec.wait()
    out.close()
    lines = open(os.path.join(tmp, name + ".txt")).read().count("\n")
    dd = sum(1 for l in open(os.path.join(tmp, name + ".txt")) if 'procname' not in l)
    cpu = ru.ru_utime + ru.ru_stime
    return lines, cpu, wall


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
    with tempfile.TemporaryDirectory() as tmp:
        relay = Relayd(tmp)
        try:
            res = {}
            for name, argv in (("bt2", ["babeltrace2", "--input-format=lttng-live"]), ("scry", [SCRY, "view"])):
                res[name] = run(relay, tmp, name, argv, n)
                ev, cpu, wall = res[name]
                print(f"{name:5s}: {ev} events printed, {cpu:.2f} s CPU ({ev / cpu:,.0f} events/CPU-s), "
                      f"{wall:.1f} s attached")
            (eb, cb, _), (es, cs, _) = res["bt2"], res["scry"]
            print(f"scry view / babeltrace2 lttng-live: {(es / cs) / (eb / cb):.1f}x events per CPU second")
        finally:
            relay.stop()


if __name__ == "__main__":
    main()
