"""tests/e2e/test_lttng_analyses.py — a `scry record -- CMD` trace read by LTTng's analyses
(python3-lttnganalyses; issue 26 item 7): lttng-cputop names the command by its exec'd name
and lists no task above it, and lttng-syscallstats counts its reads as the trace holds them.

lttng-cputop names a task once, by its comm at its first sched_switch in the trace; the
command's first switch-in comes before its exec, so scry names the held child as the exec
will (util/spawn.c).  It counts a task switched out without its switch-in in the trace from
the trace's start: a command's trace holds the scheduler's switches of every task (the
command's other events only), so each CPU's switches form one chain (a switch's next is the
following switch's prev) and no task is counted for time it did not run.

This machine runs other builds on every CPU, which a trace of the whole machine's switches
rightly shows: a compiler busy on another CPU all along is above a command that ran for part
of the trace.  So the recorder runs pinned to one CPU at SCHED_FIFO (the command inherits
both), where the others' load cannot take the CPU from it: there dd must be first, and no
task of the recorder's may be above dd in the whole machine's table.  The statedump (at the
trace's start, in the recorder's context) reads its files before the session's switch, so
that the recorder's time in the trace before the command runs is the kernel walk alone."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import read_trace
from test_state_reconstruction import hidden_tids

pytestmark = pytest.mark.skipif(not shutil.which("lttng-cputop"), reason="python3-lttnganalyses not installed")

ROW_RE = re.compile(r"([0-9.]+) %\s+(.+?) \((\d+)\)")
CALLS_RE = re.compile(r"^ - (\w+)\s+(\d+)\s")


def cputop(out, *args):
    p = subprocess.run(["lttng-cputop", "--no-progress", *args, str(out)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    tids = p.stdout[p.stdout.index("Per-TID Usage"):p.stdout.index("Per-CPU Usage")]
    return [(float(m[1]), m[2], int(m[3])) for m in ROW_RE.finditer(tids)], p.stdout


def test_cputop_and_syscallstats_name_dd(scry, tmp_path):
    out = tmp_path / "t"
    cpu = max(os.sched_getaffinity(0))

    def pin():
        os.sched_setaffinity(0, {cpu})
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))

    # another task that switches out every half millisecond, on another CPU than dd's: a
    # command's trace lasts a few ms, in which a quiet machine may switch no other task
    napper_cpu = min(os.sched_getaffinity(0))
    napper = subprocess.Popen(["/usr/bin/python3", "-c", "import time\nprint(flush=True)\nwhile True: time.sleep(0.0005)"],
                              stdout=subprocess.PIPE, preexec_fn=lambda: os.sched_setaffinity(0, {napper_cpu}))
    try:
        napper.stdout.readline()      # napping from now on
        rec = subprocess.run([scry, "record", "-q", "-o", str(out), "--", "dd", "if=/dev/zero", "of=/dev/null",
                              "bs=4k", "count=3000"], capture_output=True, text=True, timeout=120,
                             stdin=subprocess.DEVNULL, preexec_fn=pin)
    finally:
        napper.kill()
        napper.wait()
    assert rec.returncode == 0, rec.stderr
    tr = read_trace(out)
    assert tr.discarded == 0
    pid = next(e["pid"] for e in tr.events if e["name"] == "sched_process_exec")
    reads = sum(1 for e in tr.events if e["name"] == "syscall_exit_read" and e["tid"] == pid)
    assert reads >= 3000          # dd's 3000, and the dynamic loader's

    # every task's switches in and out: on each CPU one chain, other tasks in it
    switches = {}
    for e in tr.events:
        if e["name"] == "sched_switch":
            switches.setdefault(e["cpu"], []).append(e["fields"])
    # this machine runs no BPF program while one of pid 1's threads (the sandbox's agent) is
    # current, so a switch out of one is never recorded: the chain may break after a switch
    # into one, nowhere else (test_state_reconstruction.py)
    hidden = hidden_tids() | {e["fields"]["tid"] for e in tr.events
                              if e["name"] == "lttng_statedump_process_state" and e["fields"]["pid"] == 1}
    for c, sw in switches.items():
        breaks = [(a["next_tid"], b["prev_tid"]) for a, b in zip(sw, sw[1:])
                  if a["next_tid"] != b["prev_tid"] and a["next_tid"] not in hidden]
        assert not breaks, f"CPU {c}: a switch's next is not the following switch's prev: {breaks[:5]}"
    others = {f["prev_tid"] for sw in switches.values() for f in sw} - {pid, 0} - {e["tid"] for e in tr.events if e["pid"] == rec_pid(tr, pid)}
    assert napper.pid in others, "the napper's switches are not in a command's trace"
    assert b'"sched_wakeup"' in b"".join(p.read_bytes() for p in out.rglob("metadata"))

    rows, text = cputop(out)
    assert [(name, tid) for share, name, tid in rows if tid == pid] == [("dd", pid)], text
    dd_share = next(share for share, name, tid in rows if tid == pid)
    above = [(share, name, tid) for share, name, tid in rows if share > dd_share]
    on_cpu, text_cpu = cputop(out, "--cpu", str(cpu))
    # on its CPU dd is first: a task above it in the whole table is above it thanks to the
    # other CPUs only (the machine's other work), never the recorder
    assert on_cpu and on_cpu[0][1:] == ("dd", pid), text_cpu
    mine = {e["tid"] for e in tr.events if e["pid"] == rec_pid(tr, pid)}
    assert not [r for r in above if r[2] in mine], text
    assert next(share for share, name, tid in on_cpu if tid == pid) > 50, text_cpu

    p = subprocess.run(["lttng-syscallstats", "--no-progress", str(out)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    block = p.stdout[p.stdout.index(f"dd ({pid}, TID: {pid})"):]
    block = block[:block.index("\n\n")] if "\n\n" in block else block
    calls = {m[1]: int(m[2]) for m in (CALLS_RE.match(l) for l in block.splitlines()) if m}
    assert calls["read"] == reads, p.stdout


def rec_pid(tr, pid):
    """The recorder's pid: the process that wrote the statedump (at start)."""
    return next(e["pid"] for e in tr.events if e["name"] == "lttng_statedump_start")
