"""tests/e2e/test_sigkill.py — `scry record -a` killed with SIGKILL mid-trace leaves a trace
babeltrace2 reads (events included), and no scry BPF program stays loaded."""
import os
import signal
import subprocess
import time

from conftest import pid_alive, run_babeltrace2, scry_progs


def test_sigkill_leaves_readable_trace(scry, tmp_path):
    out = tmp_path / "trace"
    p = subprocess.Popen([scry, "record", "-q", "-a", "-o", str(out)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        # Wait until it is recording (metadata and a stream file exist), then 2 s more.
        deadline = time.monotonic() + 60
        while not (out / "kernel" / "metadata").exists() and p.poll() is None:
            assert time.monotonic() < deadline, "scry record did not start writing the trace"
            time.sleep(0.1)
        assert p.poll() is None, f"scry record exited early: {p.stderr.read()}"
        progs = [x for x in scry_progs() if p.pid in [o.get("pid") for o in x.get("pids", [])]]
        time.sleep(2)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert p.returncode == -signal.SIGKILL

    bt = run_babeltrace2(out)
    assert bt.returncode == 0, bt.stderr
    assert len(bt.stdout.splitlines()) >= 1, "no event survived"

    # The kernel drops the programs once the last fd/link is gone (deferred: poll a little).
    deadline = time.monotonic() + 10
    while True:
        leaked = [x for x in scry_progs()
                  if not [o for o in x.get("pids", []) if pid_alive(o.get("pid", -1))]]
        mine = [x for x in scry_progs() if p.pid in [o.get("pid") for o in x.get("pids", [])]]
        if not leaked and not mine:
            break
        assert time.monotonic() < deadline, f"BPF programs left loaded: {leaked or mine}"
        time.sleep(0.2)
    assert progs, "bpftool showed no scry_* program owned by the running recorder"
