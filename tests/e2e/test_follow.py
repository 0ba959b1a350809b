"""tests/e2e/test_follow.py — the follow sets (issue 11, item 3): a followed process leaves
them when it exits, so a pid reused by an unrelated process is never followed (the command's
descendants and --track-vpid's alike); more than 65,536 processes followed over one run are
all recorded; a full set is counted and reported, never silent."""
import json
import os
import re
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import wait_started

PID_MAX = Path("/proc/sys/kernel/pid_max")


@contextmanager
def pid_max(value):
    old = PID_MAX.read_text().strip()
    PID_MAX.write_text(str(value))
    try:
        yield
    finally:
        PID_MAX.write_text(old)


def wait_recording(p, out):
    deadline = time.monotonic() + 60
    while not (out / "kernel" / "channel0_0").exists():
        assert p.poll() is None, p.stderr.read()
        assert time.monotonic() < deadline, "scry record did not start"
        time.sleep(0.02)


FOREIGN = "for i in $(seq 2500); do /bin/true; done"


@pytest.mark.parametrize("how", ["command", "track-vpid"])
def test_reused_pid_is_not_followed(scry, tmp_path, bt2_read, how):
    """pid_max 1000: the command's 400 short-lived children use up pids, then an unrelated
    loop runs 2500 /bin/true while the command sleeps: its processes get those pids again.
    None of its events may be recorded (the old follow set recorded ~2000 of its execs)."""
    out = tmp_path / "t"
    cmd = "for i in $(seq 400); do /bin/true; done; sleep 4"
    with pid_max(1000):
        if how == "command":
            p = subprocess.Popen([scry, "record", "-q", "-o", str(out), "-c", "pid,ppid,procname",
                                  "-e", "sched:sched_process_exec", "--", "sh", "-c", cmd],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            wait_recording(p, out)
            target = None
        else:
            target = subprocess.Popen(["sh", "-c", "read x; " + cmd], stdin=subprocess.PIPE, text=True)
            p = subprocess.Popen([scry, "record", "-q", "-a", "-o", str(out), "-c", "pid,ppid,procname",
                                  "-e", "sched:sched_process_exec", "--track-vpid", str(target.pid)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            wait_started(p)
            target.stdin.write("go\n")
            target.stdin.flush()
        time.sleep(1.5)                       # the 400 children come and go
        foreign = subprocess.Popen(["sh", "-c", FOREIGN])
        foreign.wait()
        if target:
            target.wait()
            p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    execs = [e for e in bt2_read(out).events if e["name"] == "sched_process_exec"]
    mine = [e for e in execs if e["procname"] == "true" and e["ctx"]["ppid"] != foreign.pid]
    theirs = [e for e in execs if e["ctx"]["ppid"] == foreign.pid or e["pid"] == foreign.pid]
    assert len(mine) == 400, f"{len(mine)} of the command's 400 execs recorded"
    assert theirs == [], f"{len(theirs)} execs of the unrelated loop recorded"


def test_more_than_65536_followed(scry, workload, tmp_path):
    """70,000 children, one after the other (pid_max raised so they do not wrap): every one
    is followed and its getppid recorded."""
    out = tmp_path / "t"
    n = 70000
    with pid_max(4194304):
        p = subprocess.run([scry, "record", "-q", "-o", str(out), "-e", "syscall:getppid", "--",
                            workload("forker"), str(n)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["children"] == n
    c = subprocess.run(["babeltrace2", str(out), "-c", "sink.utils.counter", "-p", "step=+1000000000"],
                       capture_output=True, text=True, timeout=300)
    assert c.returncode == 0 and not c.stderr, c.stderr
    assert int(re.findall(r"(\d+) Event messages?", c.stdout)[-1]) == 2 * n
    assert "could not be followed" not in p.stderr


@pytest.mark.parametrize("how", ["command", "track-vpid"])
def test_full_follow_set_is_counted(scry, workload, tmp_path, bt2_read, how):
    """A follow set of 16 (SCRY_FOLLOW_MAX, tests only) and 40 children alive at once: the
    children recorded and those reported as not followed add up to 40."""
    out = tmp_path / "t"
    env = dict(os.environ, SCRY_FOLLOW_MAX="16")
    if how == "command":
        p = subprocess.run([scry, "record", "-q", "-o", str(out), "-e", "syscall:getppid", "--",
                            workload("forker"), "40", "--live"], capture_output=True, text=True,
                           timeout=120, env=env)
    else:
        fk = subprocess.Popen(["sh", "-c", f"read x; exec {workload('forker')} 40 --live"],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        rec = subprocess.Popen([scry, "record", "-q", "-a", "-o", str(out), "-e", "syscall:getppid",
                                "--track-vpid", str(fk.pid)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, env=env)
        wait_started(rec)
        fk.stdin.write("go\n")
        fk.stdin.flush()
        fk.wait()
        rec.send_signal(signal.SIGINT)
        _, err = rec.communicate(timeout=60)
        p = subprocess.CompletedProcess(rec.args, rec.returncode, "", err)
    assert p.returncode == 0, p.stderr
    m = re.search(r"^scry: (\d+) processes could not be followed \(the follow set was full\): "
                  r"their events are missing$", p.stderr, re.M)
    assert m, p.stderr
    recorded = {e["pid"] for e in bt2_read(out).events if e["name"] == "syscall_entry_getppid"}
    assert len(recorded) + int(m[1]) == 40
    assert 0 < len(recorded) <= 16
