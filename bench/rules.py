#!/usr/bin/python3
"""bench/rules.py (run by `make bench`) — what LTTng's event rules with their own filters cost
on the syscall path, through a private scryd (system-wide sessions): the kernel's own run time
of the program on sys_enter (the filter front when the channel has filtered rules, else
scry_sys_enter_btf; a front's run includes the dispatcher it tail-calls) per run (bpf_stats,
enabled by a BPF_ENABLE_STATS file descriptor held for the run: run_time_ns / run_cnt) while
getppid_loop (BENCH_RULES_CALLS, default 2000000) runs pinned to one CPU, the median (and the
minimum: interference only adds time) of BENCH_RULES_ROUNDS (5) interleaved rounds of each case;
on a daemon whose syscall fronts may change while recording, the dispatcher stays on the hook
and its door tail-calls the front (its run includes the front and the dispatcher's copy the
front tail-calls):
  0 filtered rules       getppid recorded by a rule without a filter
  1 filtered rule        getppid by one rule, filter `$ctx.tid > 0` (true)
  4 filtered rules       getppid by four rules: tid == 1, == 2, == 3, > 0 (the last true)
  no filter (base)       getppid without a filter, by the daemon of BENCH_BASE_SCRY
  session filter (base)  the same one filter as the session filter of the daemon given in
                         BENCH_BASE_SCRY (a build of the branch before rules: its
                         `enable-event --filter`), when set
Every case records the loop's getppid entries (and exits, in the unfiltered case)."""
import ctypes
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from bpfprogs import held, prog_ids

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRY = os.path.join(ROOT, "scry")
BASE = os.environ.get("BENCH_BASE_SCRY")
LOOP = os.path.join(ROOT, "build/workload/getppid_loop")
CALLS = int(os.environ.get("BENCH_RULES_CALLS", "2000000"))
ROUNDS = int(os.environ.get("BENCH_RULES_ROUNDS", "5"))
CPU = os.environ.get("BENCH_CPU", str(os.cpu_count() - 1))
CASES = {
    "0 filtered rules": (SCRY, [None]),
    "1 filtered rule": (SCRY, ["$ctx.tid > 0"]),
    "4 filtered rules": (SCRY, ["$ctx.tid == 1", "$ctx.tid == 2", "$ctx.tid == 3", "$ctx.tid > 0"]),
}
if BASE:
    CASES["no filter (base)"] = (BASE, [None])
    CASES["session filter (base)"] = (BASE, ["$ctx.tid > 0"])
# the program on the hook: a front, the dispatcher's door (a daemon's: it runs the front or
# the dispatcher), or a dispatcher of any kind
PROGS = ("scry_filter", "scry_sys_enter_door_btf", "scry_sys_enter_btf", "scry_sys_enter_all_btf",
         "scry_sys_enter_trk_btf")


def runs(ids, daemon):
    """(run_cnt, run_time_ns) of the sys_enter hook's program among ids held by the daemon's
    process (other engineers' tracers may load programs meanwhile): the front if any."""
    found = {p["name"]: (p.get("run_cnt", 0), p.get("run_time_ns", 0)) for i, p in prog_ids().items()
             if i in ids and p["name"] in PROGS and i in held(daemon)}
    for name in PROGS:
        if name in found and found[name][0]:
            return name, found[name]
    return None, (0, 0)


def main():
    if os.geteuid() != 0:
        sys.exit("bench (rules): run as root")
    attr = (ctypes.c_uint32 * 16)()       # BPF_ENABLE_STATS, BPF_STATS_RUN_TIME
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(321, 32, ctypes.byref(attr), 64) < 0:
        sys.exit("bench (rules): BPF_ENABLE_STATS failed")
    tmp = tempfile.mkdtemp(prefix="scry-rules.")
    envs = {b: dict(os.environ, SCRY_RUNDIR=f"{tmp}/run{i}", HOME=tmp) for i, b in enumerate({SCRY, BASE} - {None})}

    def scry(binary, *a):
        p = subprocess.run([binary] + [str(x) for x in a], env=envs[binary], capture_output=True, text=True)
        if p.returncode:
            sys.exit(f"bench (rules): {binary} {' '.join(map(str, a))}: {p.stderr.strip()}")

    rows = {c: [] for c in CASES}
    try:
        for r in range(ROUNDS):
            for n, (case, (binary, filters)) in enumerate(CASES.items()):
                scry(binary, "create", "b", "-o", f"{tmp}/t{r}-{n}")
                for f in filters:
                    scry(binary, "enable-event", "-k", "--syscall", "getppid", *(["--filter", f] if f else []))
                before = set(prog_ids())
                scry(binary, "start")
                ids = set(prog_ids()) - before
                sh = subprocess.Popen(["taskset", "-c", CPU, "sh", "-c", f"read x; exec {LOOP} {CALLS}"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                daemon = int(open(envs[binary]["SCRY_RUNDIR"] + "/scryd.pid").read().split()[0])
                name, a = runs(ids, daemon)
                sh.communicate("go\n")
                _, b = runs(ids, daemon)
                scry(binary, "destroy")
                rows[case].append((name, (b[1] - a[1]) / max(1, b[0] - a[0])))
    finally:
        for b, env in envs.items():
            try:
                os.kill(int(open(env["SCRY_RUNDIR"] + "/scryd.pid").read().split()[0]), 15)
            except (OSError, ValueError, IndexError):
                pass
        time.sleep(0.5)
        shutil.rmtree(tmp, ignore_errors=True)
    print("event rules: ns per run of the sys_enter program (median of %d rounds, %d getppid calls pinned to "
          "CPU %s)" % (ROUNDS, CALLS, CPU))
    print("  %-24s %-20s %10s %8s" % ("case", "program", "ns/run", "min"))
    for case in CASES:
        print("  %-24s %-20s %10.1f %8.1f" % (case, rows[case][0][0], statistics.median(x[1] for x in rows[case]),
                                            min(x[1] for x in rows[case])))


if __name__ == "__main__":
    main()
