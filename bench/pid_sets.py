#!/usr/bin/python3
"""bench/pid_sets.py (run by `make bench`) — what per-process event sets cost on the syscall
path, through a private scryd (system-wide sessions): the kernel's own run time of
the programs on sys_enter and sys_exit per run (the dispatchers, or their doors on a daemon
whose filters may change while recording, which run them; bpf_stats, enabled by a BPF_ENABLE_STATS
file descriptor held for the run: run_time_ns / run_cnt) while getppid_loop
(BENCH_PIDSET_CALLS, default 2000000) runs pinned to one CPU, the median of
BENCH_PIDSET_ROUNDS (5) interleaved rounds of each case:
  no set                 getppid not recorded (the channel records openat)
  sets elsewhere         the same, with a set (openat) for another process
  other's set            getppid in another process's set only (the loop has none)
  own set                getppid in the loop's own set (recorded through it)
  everyone               getppid recorded for every process (no set)
A set for the loop is given before it starts: a shell waits for a line, then execs the loop
(the same pid)."""
import ctypes
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from bpfprogs import prog_ids

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRY = os.path.join(ROOT, "scry")
LOOP = os.path.join(ROOT, "build/workload/getppid_loop")
CALLS = int(os.environ.get("BENCH_PIDSET_CALLS", "2000000"))
ROUNDS = int(os.environ.get("BENCH_PIDSET_ROUNDS", "5"))
CPU = os.environ.get("BENCH_CPU", str(os.cpu_count() - 1))
CASES = ("no set", "sets elsewhere", "other's set", "own set", "everyone")


HOOKED = re.compile(r"scry_sys_(enter|exit)(_door|_all|_trk)?_btf")


def runs(ids):
    """(run_cnt, run_time_ns) of the syscall programs among ids by hook, "enter" and "exit":
    summed over the dispatchers' kinds (only the one on the hook runs; one a door or front
    tail-calls counts no run of its own)."""
    out = {"enter": (0, 0), "exit": (0, 0)}
    for i, p in prog_ids().items():
        m = HOOKED.fullmatch(p["name"]) if i in ids else None
        if m:
            c, t = out[m.group(1)]
            out[m.group(1)] = (c + p.get("run_cnt", 0), t + p.get("run_time_ns", 0))
    return out


def main():
    if os.geteuid() != 0:
        sys.exit("bench (pid sets): run as root")
    attr = (ctypes.c_uint32 * 16)()       # BPF_ENABLE_STATS, BPF_STATS_RUN_TIME
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(321, 32, ctypes.byref(attr), 64) < 0:
        sys.exit("bench (pid sets): BPF_ENABLE_STATS failed")
    tmp = tempfile.mkdtemp(prefix="scry-pidsets.")
    env = dict(os.environ, SCRY_RUNDIR=tmp + "/run", HOME=tmp)

    def scry(*a):
        p = subprocess.run([SCRY] + [str(x) for x in a], env=env, capture_output=True, text=True)
        if p.returncode:
            sys.exit(f"bench (pid sets): scry {' '.join(map(str, a))}: {p.stderr.strip()}")

    other = subprocess.Popen(["sleep", "3600"])
    rows = {c: [] for c in CASES}
    try:
        for r in range(ROUNDS):
            for case in CASES:
                scry("create", "b", "-o", f"{tmp}/t{r}-{CASES.index(case)}")
                scry("enable-event", "-k", "--syscall", "getppid" if case == "everyone" else "openat")
                if case == "sets elsewhere":
                    scry("enable-event", "-k", "--pid", other.pid, "--syscall", "openat")
                if case == "other's set":
                    scry("enable-event", "-k", "--pid", other.pid, "--syscall", "getppid")
                before = set(prog_ids())
                scry("start")
                ids = set(prog_ids()) - before
                sh = subprocess.Popen(["taskset", "-c", CPU, "sh", "-c", f"read x; exec {LOOP} {CALLS}"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                if case == "own set":
                    scry("enable-event", "-k", "--pid", sh.pid, "--syscall", "getppid")
                a = runs(ids)
                sh.communicate("go\n")
                b = runs(ids)
                scry("destroy")
                rows[case].append({k: (b[k][1] - a[k][1]) / max(1, b[k][0] - a[k][0]) for k in a})
    finally:
        other.kill()
        try:
            os.kill(int(open(tmp + "/run/scryd.pid").read().split()[0]), 15)
        except (OSError, ValueError, IndexError):
            pass
        time.sleep(0.5)
        shutil.rmtree(tmp, ignore_errors=True)
    print("per-process event sets: ns per run of the syscall programs (median of %d rounds, %d getppid calls "
          "pinned to CPU %s)" % (ROUNDS, CALLS, CPU))
    print("  %-16s %12s %12s" % ("case", "sys_enter", "sys_exit"))
    for case in CASES:
        en = statistics.median(x["enter"] for x in rows[case])
        ex = statistics.median(x["exit"] for x in rows[case])
        print("  %-16s %12.1f %12.1f" % (case, en, ex))


if __name__ == "__main__":
    main()
