"""tests/e2e/test_sigkill.py — `scry record -a` killed with SIGKILL mid-trace leaves a trace
babeltrace2 reads (events included), and none of its BPF programs stays loaded."""
import signal
import subprocess
import time

from conftest import run_babeltrace2, scry_progs


def test_sigkill_leaves_readable_trace(scry, tmp_path):
    out = tmp_path / "trace"
    before = {x["id"] for x in scry_progs()}
    p = subprocess.Popen([scry, "record", "-q", "-a", "-o", str(out)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        # Wait until it is recording: the trace exists and its scry_* programs are loaded.
        deadline = time.monotonic() + 60
        mine = set()
        while p.poll() is None and not ((out / "kernel" / "metadata").exists() and mine):
            assert time.monotonic() < deadline, "scry record did not start recording"
            time.sleep(0.1)
            mine = {x["id"] for x in scry_progs()} - before
        assert p.poll() is None, f"scry record exited early: {p.stderr.read()}"
        time.sleep(2)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert p.returncode == -signal.SIGKILL
    assert mine, "no scry_* BPF program was loaded while recording"
    # the recording's guardian holds stderr until it has made the trace whole
    assert "scry: the recorder of " in p.stderr.read()

    bt = run_babeltrace2(out)
    assert bt.returncode == 0, bt.stderr
    assert len(bt.stdout.splitlines()) >= 1, "no event survived"

    # The kernel frees the programs with the last fd/link (deferred: poll a little).
    deadline = time.monotonic() + 10
    while True:
        left = mine & {x["id"] for x in scry_progs()}
        if not left:
            break
        assert time.monotonic() < deadline, f"scry BPF programs left loaded after SIGKILL: {left}"
        time.sleep(0.2)
