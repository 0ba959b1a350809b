"""tests/e2e/test_trace_filter_signals.py — `scry trace --filter` and the lines that are not
calls: with a filter the signal lines keep their siginfo (si_pid, si_status: compared with
strace on the same command; they read 0 when the filter sent the signals through the generic
tracepoint path), and `-a --filter` shows the signal and exit lines of the processes whose
calls the filter accepted only (before: every process on the machine)."""
import re
import shutil
import subprocess
import time

import pytest

SCRIPT = 'sh -c "exit 3"; sh -c "kill -USR1 \\$\\$"; true'


def sig_lines(text):
    """The signal and exit lines, pids replaced by P and the child's CPU times by T (the
    runs' pids differ, and so do their children's clock ticks: a 0.01 s tick or not)."""
    out = []
    for line in text.splitlines():
        line = re.sub(r"^\[pid +\d+\] ", "", line)
        if line.startswith(("---", "+++")):
            line = re.sub(r"(si_[us]time)=\d+( /\* [\d.]+ s \*/)?", r"\1=T", line)
            out.append(re.sub(r"si_pid=\d+", "si_pid=P", line))
    return out


def test_filter_keeps_siginfo(scry):
    if not shutil.which("strace"):
        pytest.skip("strace is not installed")
    mine = subprocess.run([scry, "trace", "-f", "-e", "trace=none", "--filter", '$ctx.procname == "sh"',
                           "--", "sh", "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    theirs = subprocess.run(["strace", "-f", "-e", "trace=none", "--", "sh", "-c", SCRIPT],
                            capture_output=True, text=True, timeout=60)
    assert mine.returncode == theirs.returncode == 0, mine.stderr
    lines = sig_lines(mine.stderr)
    assert lines == sig_lines(theirs.stderr), (mine.stderr, theirs.stderr)
    # the values themselves: the child's pid and status
    kids = re.findall(r"Process (\d+) attached", mine.stderr)
    assert f"si_pid={kids[0]}, si_uid=0, si_status=3" in mine.stderr, mine.stderr
    assert f"si_pid={kids[1]}, si_uid=0, si_status=SIGUSR1" in mine.stderr, mine.stderr


def test_all_with_filter_shows_only_accepted_processes(scry, tmp_path):
    out = tmp_path / "all.txt"
    marker = tmp_path / "marker"
    marker.write_text("x\n")
    p = subprocess.Popen([scry, "trace", "-a", "-e", "trace=openat", "--filter", f'filename == "{marker}"',
                          "-o", str(out)], stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(2.5)   # attached
        pids = []
        for _ in range(3):
            c = subprocess.run(["cat", str(marker)], capture_output=True)
            assert c.returncode == 0
            noise = subprocess.run(["sh", "-c", "kill -USR1 $$"])   # killed: a signal and an exit
            assert noise.returncode == -10
        time.sleep(1.0)
    finally:
        p.send_signal(2)
        p.wait(timeout=30)
    text = out.read_text()
    opened = {int(m) for m in re.findall(r"^(\d+) +openat\(.*" + re.escape(str(marker)), text, re.M)}
    assert len(opened) >= 3, text[:2000]
    other = [l for l in text.splitlines() if not re.match(r"^\d+ +openat\(", l)]
    for line in other:   # only the cats' exits: no signal line, no other process's exit
        pid = int(line.split()[0])
        assert pid in opened and "+++ exited with 0 +++" in line, line
    assert len([l for l in other if "+++ exited" in l]) == len(opened), other
