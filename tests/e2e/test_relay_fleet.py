"""tests/e2e/test_relay_fleet.py — a fleet (issue 25): 8 `scry record --set-url` sessions with
distinct --hostname values streaming to one Debian lttng-relayd at once, each tracing its own
dd (3 writes of 777 bytes, by pid); every trace lands in the relay under its host's name, is
read by babeltrace2 without a warning, and holds exactly its dd's events (one openat of its
output, 3 writes with their exits) and as many events as its recorder said it streamed."""
import subprocess

import pytest

from conftest import run_babeltrace2
from relayd import Relayd

N = 8


@pytest.fixture
def relayd(tmp_path):
    r = Relayd(tmp_path)
    yield r
    r.stop()


def test_fleet_of_8_hosts(scry, relayd, tmp_path, bt2_read):
    procs = []
    for i in range(N):
        out = tmp_path / f"dd{i}.out"
        # each records only its own command (its dd, after a pause that lets all 8 start)
        procs.append((out, subprocess.Popen(
            [scry, "record", "-q", "-e", "syscall:openat,syscall:write", "-c", "pid,procname", "--set-url",
             relayd.url, "--name", "fleet", "--hostname", f"host{i}", "--", "sh", "-c",
             f"sleep 3; exec dd if=/dev/zero of={out} bs=777 count=3 status=none"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)))
    for i, (out, p) in enumerate(procs):
        _, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
        lines = [l for l in err.splitlines() if "streamed to" in l]
        assert len(lines) == 1 and "not delivered" not in err, err
        streamed = int(lines[0].split("(")[1].split()[0])
        trace = relayd.trace(f"host{i}", "fleet")
        bt = run_babeltrace2(trace)
        assert bt.returncode == 0 and bt.stderr == "", bt.stderr
        tr = bt2_read(trace)
        assert len(tr.events) == streamed and tr.discarded == 0
        dd = [e for e in tr.events if e["procname"] == "dd"]
        opens = [e for e in dd if e["name"] == "syscall_entry_openat" and e["fields"]["filename"] == str(out)]
        writes = [e for e in dd if e["name"] == "syscall_entry_write" and e["fields"]["count"] == 777]
        wrets = [e for e in dd if e["name"] == "syscall_exit_write" and e["fields"]["ret"] == 777]
        assert len(opens) == 1 and len(writes) == 3 and len(wrets) == 3, (i, len(opens), len(writes), len(wrets))
        assert len({e["pid"] for e in dd}) == 1          # one dd: this host's own
