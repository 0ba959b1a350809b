#!/usr/bin/python3
"""bench/sched_everyone.py (run by `make bench`) — what recording every task's scheduler events
in a command's (or -p's) trace costs (issue 26 item 7): the kernel's own run time of the
programs that record them (scry_btf_switch and scry_btf_wake on tp_btf where the kernel has
them, else the tracefs one, scry_tp; bpf_stats: run_time_ns / run_cnt over all of them) and
the events written per second, for `scry record -e sched:sched_switch,sched:sched_wakeup` of

  -a              every task (the descriptor's SCRY_TP_ANY_TASK test, then the -a check)
  -p PID          a sleeping process: every task's switches and wake-ups recorded
                  (SCRY_TP_ANY_TASK), as a command's trace has them

and, with BENCH_BASE_SCRY (a build of the branch before), the same two cases by it (-p then
records only the switches into or out of PID).  BENCH_SCHED_ROUNDS (3) interleaved rounds of
BENCH_SCHED_SECONDS (2) each, medians.  The machine's own switches are the workload."""
import ctypes
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from bpfprogs import held, prog_ids

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRY = os.path.join(ROOT, "scry")
BASE = os.environ.get("BENCH_BASE_SCRY")
ROUNDS = int(os.environ.get("BENCH_SCHED_ROUNDS", "3"))
SECONDS = os.environ.get("BENCH_SCHED_SECONDS", "2")
EVENTS = "sched:sched_switch,sched:sched_wakeup"
PROGS = {"scry_tp", "scry_btf_switch", "scry_btf_wake"}   # the programs of EVENTS


def held_run(binary, target, tmp):
    """(the event programs' ns per run, events written per second) over SECONDS of a recording, its
    program's stats read while it runs (other tracers' programs left out: new ids only)."""
    before = set(prog_ids())
    p = subprocess.Popen([binary, "record", "-q", *target, "-e", EVENTS, "-o", f"{tmp}/held"],
                         stderr=subprocess.PIPE, text=True)
    try:
        ids = []
        for _ in range(100):
            mine = held(p.pid)
            ids = [i for i, q in prog_ids().items() if i in mine and i not in before and q["name"] in PROGS]
            if ids:
                break
            time.sleep(0.1)
        a = prog_ids()
        time.sleep(float(SECONDS))
        b = prog_ids()
        cnt = sum(b[i].get("run_cnt", 0) - a[i].get("run_cnt", 0) for i in ids if i in a and i in b)
        tns = sum(b[i].get("run_time_ns", 0) - a[i].get("run_time_ns", 0) for i in ids if i in a and i in b)
    finally:
        p.send_signal(signal.SIGINT)
        _, err = p.communicate()
        shutil.rmtree(f"{tmp}/held", ignore_errors=True)
    line = [l for l in err.splitlines() if " events recorded" in l][-1]
    events = int(line.split(" events recorded")[0].split()[-1])
    secs = float(line.split(" in ")[-1].split()[0])
    return tns / max(1, cnt), events / secs


def main():
    if os.geteuid() != 0:
        sys.exit("bench (sched_everyone): run as root")
    attr = (ctypes.c_uint32 * 16)()       # BPF_ENABLE_STATS, BPF_STATS_RUN_TIME
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(321, 32, ctypes.byref(attr), 64) < 0:
        sys.exit("bench (sched_everyone): BPF_ENABLE_STATS failed")
    sleeper = subprocess.Popen(["sleep", "3600"])
    cases = {}
    for label, binary in (("", SCRY), (" (base)", BASE)):
        if binary:
            cases["-a" + label] = (binary, ["-a"])
            cases["-p sleeper" + label] = (binary, ["-p", str(sleeper.pid)])
    rows = {c: [] for c in cases}
    tmp = tempfile.mkdtemp(prefix="scry-sched.")
    try:
        for _ in range(ROUNDS):
            for case, (binary, target) in cases.items():
                rows[case].append(held_run(binary, target, tmp))
    finally:
        sleeper.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    print("every task's scheduler events: %s, %d rounds of %s s (medians)" % (EVENTS, ROUNDS, SECONDS))
    print("  %-22s %14s %12s" % ("case", "prog ns/run", "events/s"))
    for case in cases:
        print("  %-22s %14.1f %12.0f" % (case, statistics.median(x[0] for x in rows[case]),
                                          statistics.median(x[1] for x in rows[case])))


if __name__ == "__main__":
    main()
