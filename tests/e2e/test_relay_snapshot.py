"""tests/e2e/test_relay_snapshot.py — snapshots sent to Debian's lttng-relayd (issue 25), as
LTTng's `snapshot record` to a network output: a snapshot session at the relay whose one
trace chunk is the snapshot (HOST/SESSION-DATE/NAME-N-DATE), closed where it is.  `create
--snapshot --set-url` records there by default; `snapshot record net://...` sends a local
snapshot session's snapshot to a relay.  Each snapshot is read by babeltrace2 and holds the
workload's pwrites."""
import re

import pytest

from relayd import Relayd
from test_daemon import daemon, pwrites, read_events  # noqa: F401  (the fixture)


@pytest.fixture
def relayd(tmp_path):
    r = Relayd(tmp_path)
    yield r
    r.stop()


def recorded(relayd, stdout, session, host, n):
    m = re.fullmatch(rf"Snapshot recorded successfully for session {session} on relay tcp://127\.0\.0\.1/"
                     rf"({host}/{session}-\d{{8}}-\d{{6}}/snapshot-{n}-\d{{8}}-\d{{6}}) \[control port {relayd.ctrl}, "
                     rf"data port {relayd.data}\] \((\d+) bytes\)\n", stdout)
    assert m and int(m[2]) > 0, stdout
    path = relayd.out / m[1]
    assert (path / "kernel" / "metadata").exists(), list(relayd.out.rglob("*"))
    return path


def positions(bt2_read, trace, pid):
    return [e["fields"]["pos"] for e in read_events(bt2_read, trace).events
            if e["pid"] == pid and e["name"] == "syscall_entry_pwrite64"]


def test_snapshot_session_at_relay(daemon, relayd, bt2_read):
    p = daemon.run("create", "box", "--snapshot", "--set-url", relayd.url, "--hostname", "sh")
    assert p.stdout == f"Snapshot session box created.\nDefault snapshot output set to {relayd.url}\n", p.stdout
    daemon.run("enable-event", "-k", "--syscall", "pwrite64")
    daemon.run("add-context", "-k", "-t", "pid")
    daemon.run("start")
    pid = pwrites(0, 500)
    first = recorded(relayd, daemon.run("snapshot", "record").stdout, "box", "sh", 1)
    assert positions(bt2_read, first, pid) == list(range(500))
    pid2 = pwrites(500, 300)            # recording goes on: a second snapshot holds both
    second = recorded(relayd, daemon.run("snapshot", "record").stdout, "box", "sh", 2)
    assert positions(bt2_read, second, pid) == list(range(500))
    assert positions(bt2_read, second, pid2) == list(range(500, 800))
    daemon.run("destroy")


def test_snapshot_record_net_url(daemon, relayd, tmp_path, bt2_read):
    daemon.run("create", "loc", "--snapshot", "-o", tmp_path / "snaps")
    daemon.run("enable-event", "-k", "--syscall", "pwrite64")
    daemon.run("add-context", "-k", "-t", "pid")
    daemon.run("start")
    pid = pwrites(0, 400)
    host = __import__("socket").gethostname()
    snap = recorded(relayd, daemon.run("snapshot", "record", relayd.url).stdout, "loc", re.escape(host), 1)
    assert positions(bt2_read, snap, pid) == list(range(400))
    p = daemon.run("snapshot", "record", "ftp://x", check=False)
    assert p.returncode == 1 and p.stderr == \
        "scry: snapshot record: 'ftp://x': a path, file://PATH or a relay's net://HOST\n", p.stderr
    daemon.run("destroy")
