"""tests/e2e/test_filter_fronts.py — what the filter fronts (issue 4) must keep of the
dispatchers they stand in front of: a call whose entry was deferred (strings not mapped at
entry) still gets that entry written when the front rejects its exit, and scry's own fork
event obeys the filter in the kernel (contexts) and the trackers."""
import json
import os
import subprocess

import pytest

from conftest import read_trace


@pytest.mark.parametrize("path", ["prepare_exec", "new_image"])
def test_rejected_exit_still_writes_the_deferred_entry(scry, workload, tmp_path, path):
    data = tmp_path / "data"
    data.mkdir()
    out = tmp_path / "trace"
    env = {**os.environ, **({"SCRY_NO_PREPARE_EXEC": "1"} if path == "new_image" else {})}
    # the child's execve entry is accepted but deferred (its strings are not mapped yet);
    # its exit comes with the new image's name, so the exit front rejects it: the entry
    # must still be written (at the exit when sched_prepare_exec is not used)
    p = subprocess.run([scry, "record", "-q", "-o", str(out), "-e", "syscall:execve",
                        "--filter", '$ctx.procname == "fault_strings"', "--",
                        workload("fault_strings"), data], capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL, env=env)
    assert p.returncode == 0, p.stderr
    assert " 0 discarded" in p.stderr, p.stderr
    seen = json.loads(p.stdout.strip().splitlines()[-1])
    ev = [e for e in read_trace(out).events if e["pid"] == seen["child"]]
    assert [e["name"] for e in ev] == ["syscall_entry_execve"], ev
    assert ev[0]["fields"]["filename"] == "/bin/true" and ev[0]["fields"]["_argv"] == ["true", "x"]


def forks(scry, tmp_path, name, *opts):
    out = tmp_path / name
    script = "for i in 1 2 3; do /bin/true; done"
    p = subprocess.run([scry, "record", "-q", "-v", "-o", str(out), "-e", "sched:sched_process_fork", *opts,
                        "--", "sh", "-c", script], capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    return [e for e in read_trace(out).events if e["name"] == "sched_process_fork"], p.stderr


def test_fork_event_filtered_in_the_kernel(scry, tmp_path):
    every, _ = forks(scry, tmp_path, "all")
    assert len(every) >= 3 and {e["procname"] for e in every} == {"sh"}
    kept, err = forks(scry, tmp_path, "sh", "--filter", '$ctx.procname == "sh" && $ctx.tid == $ctx.pid')
    assert len(kept) == len(every) or len(kept) >= 3
    assert all(e["fields"]["parent_pid"] == e["pid"] for e in kept)
    assert "user space" not in err     # contexts only: decided by the fork front
    none, _ = forks(scry, tmp_path, "none", "--filter", '$ctx.procname == "nosuchproc"')
    assert none == []
    uid = os.getuid()
    none, _ = forks(scry, tmp_path, "uid", "--filter", f"$ctx.uid != {uid}")
    assert none == []


def test_fork_event_obeys_the_trackers(scry, tmp_path):
    mine, _ = forks(scry, tmp_path, "mine", "--track-uid", str(os.getuid()))
    assert len(mine) >= 3
    other, _ = forks(scry, tmp_path, "other", "--track-uid", "4242")
    assert other == []
