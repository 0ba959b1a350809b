"""tests/e2e/test_lttng_analyses.py — a `scry record -- CMD` trace read by LTTng's analyses
(python3-lttnganalyses; issue 26 item 7, in part): lttng-cputop names the command by its
exec'd name, and lttng-syscallstats counts its reads as the trace holds them.

lttng-cputop names a task once, by its comm at its first sched_switch in the trace; the
command's first switch-in comes before its exec, so scry names the held child as the exec
will (util/spawn.c).  Not yet checked: that no other task shows above the command (scry
records the switches into and out of traced tasks only, so a task switched out to the
command without its switch-in in the trace, scry's own thread, is counted from the
trace's start)."""
import re
import shutil
import subprocess

import pytest

from conftest import read_trace

pytestmark = pytest.mark.skipif(not shutil.which("lttng-cputop"), reason="python3-lttnganalyses not installed")

ROW_RE = re.compile(r"([0-9.]+) %\s+(.+?) \((\d+)\)")
CALLS_RE = re.compile(r"^ - (\w+)\s+(\d+)\s")


def test_cputop_and_syscallstats_name_dd(record, tmp_path):
    out = tmp_path / "t"
    record(out, cmd=["dd", "if=/dev/zero", "of=/dev/null", "bs=4k", "count=3000"], timeout=120).check()
    tr = read_trace(out)
    pid = next(e["pid"] for e in tr.events if e["name"] == "sched_process_exec")
    reads = sum(1 for e in tr.events if e["name"] == "syscall_exit_read" and e["tid"] == pid)
    assert reads >= 3000          # dd's 3000, and the dynamic loader's

    p = subprocess.run(["lttng-cputop", "--no-progress", str(out)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    tids = p.stdout[p.stdout.index("Per-TID Usage"):p.stdout.index("Per-CPU Usage")]
    rows = [(float(m[1]), m[2], int(m[3])) for m in ROW_RE.finditer(tids)]
    assert [(name, tid) for share, name, tid in rows if tid == pid] == [("dd", pid)], p.stdout

    p = subprocess.run(["lttng-syscallstats", "--no-progress", str(out)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    block = p.stdout[p.stdout.index(f"dd ({pid}, TID: {pid})"):]
    block = block[:block.index("\n\n")] if "\n\n" in block else block
    calls = {m[1]: int(m[2]) for m in (CALLS_RE.match(l) for l in block.splitlines()) if m}
    assert calls["read"] == reads, p.stdout
