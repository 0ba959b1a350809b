"""tests/e2e/test_metrics_latency.py — a latency histogram's entry kept per CPU and moved to
the task's storage when the task leaves the CPU (src/bpf/metrics.bpf.h, metric_slot): a
thread that sleeps a known time while another thread moves it to the other CPU (it enters
clock_nanosleep on one CPU and leaves it on the other, and the thread left behind sleeps
on the first CPU meanwhile, taking its slot) gets every sleep measured, each in the bucket
of its length; the other thread's short sleeps too.  System-wide and with the command
tracked (the target check's paths; system-wide, current from the helper or, as where a
helper's return is thunked, from the memo: SCRY_RET_THUNK)."""
import os
import subprocess
import sys
import time

import pytest

from test_metrics import samples, value, serve  # noqa: F401 (serve: the fixture)

N_SLEEPS, SLEEP_MS, SHORT_MS = 8, 40, 2

# The workload: thread B pins itself to CPU c and sleeps SLEEP_MS; meanwhile the main thread,
# pinned to c, sleeps SHORT_MS twice, moves B to the other CPU, and waits for B.  B
# checks that it woke on the other CPU.  Prints B's and main's tids, then the number of
# migrated sleeps, then the number of main's short sleeps.
WORKLOAD = r"""
import os, sys, threading, time
n, sleep_ms, short_ms = (int(a) for a in sys.argv[1:4])
go = [threading.Event() for _ in range(n)]
asleep = [threading.Event() for _ in range(n)]
done = [threading.Event() for _ in range(n)]
moved = [0]
tids = {}

def cpu():
    with open("/proc/thread-self/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[36])

def b():
    tids["b"] = threading.get_native_id()
    for i in range(n):
        c = i % 2
        os.sched_setaffinity(0, {c})
        go[i].wait()
        asleep[i].set()
        time.sleep(sleep_ms / 1000)
        moved[0] += cpu() == 1 - c
        done[i].set()

t = threading.Thread(target=b)
t.start()
short = 0
for i in range(n):
    c = i % 2
    os.sched_setaffinity(0, {c})
    go[i].set()
    asleep[i].wait()
    for _ in range(2):         # B is in its sleep after the first
        time.sleep(short_ms / 1000)
        short += 1
    os.sched_setaffinity(tids["b"], {1 - c})
    done[i].wait()
t.join()
print(tids["b"], threading.get_native_id(), moved[0], short, flush=True)
"""

CONFIG = """metrics:
  histograms:
    - name: wl_sleep_seconds
      syscalls: [clock_nanosleep]
      bucket_min: 10
      bucket_max: 34
      bucket_multiplier: 0.000000001
      labels: [{name: tid, source: tid}]
"""


def buckets(ss, tid):
    """{le (float): cumulative count} of tid's series."""
    return {float(l["le"]): v for n, l, v in ss if n == "wl_sleep_seconds_bucket" and l.get("tid") == str(tid)}


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs two CPUs")
@pytest.mark.parametrize("mode", ["command", "system-wide", "system-wide-memo"])
def test_sleep_across_cpus_lands_in_its_bucket(serve, tmp_path, mode):
    cfg = tmp_path / "sleep.yaml"
    cfg.write_text(CONFIG)
    out = tmp_path / "wl.out"
    cmd = ["/bin/sh", "-c", f'exec {sys.executable} -c "$0" {N_SLEEPS} {SLEEP_MS} {SHORT_MS} > {out}', WORKLOAD]
    if mode == "command":
        s = serve(cfg, cmd=cmd)
    else:
        s = serve(cfg, "-a", env={"SCRY_RET_THUNK": "1" if mode.endswith("-memo") else "0"})
        subprocess.run(cmd, check=True, timeout=30)
    deadline = time.time() + 20
    while not (out.exists() and out.read_text().strip()):
        assert time.time() < deadline, "the workload did not finish"
        time.sleep(0.1)
    b_tid, main_tid, moved, short = (int(x) for x in out.read_text().split())
    # B is moved during its sleep unless main's two short sleeps outlast it (a loaded machine)
    assert moved >= N_SLEEPS // 2, f"B woke on the other CPU {moved} times of {N_SLEEPS}"
    ss, text = s.wait_for(lambda ss: value(ss, "wl_sleep_seconds_count", tid=str(b_tid)) == N_SLEEPS, timeout=10)
    bb = buckets(ss, b_tid)
    lo, hi = 2.0 ** 25 * 1e-9, 2.0 ** 26 * 1e-9   # 33.6 ms < 40 ms (+ up to 27 ms late) <= 67.1 ms
    assert bb[lo] == 0 and bb[hi] == N_SLEEPS, f"B's sleeps not all in (2^25, 2^26] ns:\n{text}"
    total = value(ss, "wl_sleep_seconds_sum", tid=str(b_tid))
    assert N_SLEEPS * SLEEP_MS / 1000 <= total <= N_SLEEPS * hi, total
    # the main thread's short sleeps on the CPU B left, all measured, none as long as B's
    bm = buckets(ss, main_tid)
    assert value(ss, "wl_sleep_seconds_count", tid=str(main_tid)) == short, text
    assert bm[2.0 ** 20 * 1e-9] == 0, f"a {SHORT_MS} ms sleep under 2^20 ns:\n{text}"
    if mode == "command":      # system-wide, others' calls in flight at the start are not
        assert value(ss, "scry_latency_unmeasured_total") == 0, text
    assert s.close() == 0, s.err
