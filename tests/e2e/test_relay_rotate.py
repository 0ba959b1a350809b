"""tests/e2e/test_relay_rotate.py — rotation of a session streamed to Debian's lttng-relayd
(issue 25), through the relay's trace chunks as lttng-sessiond does (CREATE_TRACE_CHUNK,
ROTATE_STREAMS, CLOSE_TRACE_CHUNK): `rotate` prints where the relay archived the chunk,
each archive HOST/NAME-DATE/archives/BEGIN-END-ID is a trace babeltrace2 reads alone, and
across the archives every pwrite of the workload appears exactly once; `enable-rotation
--timer` likewise, across a stop and a start; a session streamed and written locally
rotates both; a live session's rotation refused (as LTTng refuses it)."""
import re
import subprocess
import time

import pytest

from relayd import Relayd
from test_daemon import CHUNK_RE, chunk_positions, daemon, pwrites  # noqa: F401  (the fixture)


@pytest.fixture
def relayd(tmp_path):
    r = Relayd(tmp_path)
    yield r
    r.stop()


def create(daemon, name, url, *more):
    daemon.run("create", name, "--set-url", url, "--hostname", "rh", *more)
    daemon.run("enable-event", "-k", "--syscall", "pwrite64")
    daemon.run("add-context", "-k", "-t", "pid")


def test_rotate_streamed_session(daemon, relayd, bt2_read):
    create(daemon, "rot", relayd.url)
    daemon.run("start")
    trace = relayd.trace("rh", "rot")
    pids = []
    for k in range(3):
        pids.append(pwrites(1000 * k, 1000))
        if k < 2:
            p = daemon.run("rotate")
            m = re.fullmatch(r"Trace chunk archive for session rot is now readable on relay tcp://127\.0\.0\.1/"
                             rf"(rh/rot-\S+/archives/(\S+)) \[control port {relayd.ctrl}, data port {relayd.data}\]\n",
                             p.stdout)
            assert m and CHUNK_RE.match(m[2]) and int(CHUNK_RE.match(m[2])[1]) == k, p.stdout
            assert (relayd.out / m[1] / "kernel" / "metadata").exists(), m[1]
    assert "2 chunk(s) archived" in daemon.run("status").stdout
    p = daemon.run("stop")
    assert "not delivered" not in p.stdout + p.stderr
    daemon.run("destroy")
    # the chunk current at stop archived at destroy (the session rotated), as LTTng does
    per_chunk = chunk_positions(bt2_read, trace, set(pids))
    assert per_chunk == [list(range(0, 1000)), list(range(1000, 2000)), list(range(2000, 3000))]


def test_rotate_streamed_timer_and_stopped(daemon, relayd, bt2_read):
    create(daemon, "timed", relayd.url)
    assert daemon.run("enable-rotation", "--timer", "400ms").returncode == 0
    daemon.run("start")
    trace = relayd.trace("rh", "timed")
    # a writer running across several rotations: every pwrite in exactly one archive
    code = ("import os, time\nfd = os.open('/dev/null', os.O_WRONLY)\nfor i in range(1000):\n"
            "    os.pwrite(fd, b'x', i)\n    if i % 100 == 0: time.sleep(0.12)\n")
    w = subprocess.Popen(["/usr/bin/python3", "-c", code], stdin=subprocess.DEVNULL)
    assert w.wait(timeout=60) == 0
    pids = [w.pid]
    time.sleep(0.1)
    daemon.run("stop")                  # the chunk archived at stop, the next made at start
    p = daemon.run("rotate", check=False)
    assert p.returncode == 1 and "nothing to rotate" in p.stderr, p.stderr
    daemon.run("disable-rotation", "--timer")
    daemon.run("start")
    pids.append(pwrites(1000, 500))
    daemon.run("stop")
    daemon.run("destroy")
    per_chunk = chunk_positions(bt2_read, trace, set(pids))
    allpos = [x for c in per_chunk for x in c]
    assert sorted(allpos) == list(range(1500)), (len(allpos), len(set(allpos)))
    assert len(per_chunk) >= 4 and sum(1 for c in per_chunk if c) >= 3, [len(c) for c in per_chunk]
    assert per_chunk[-1] == list(range(1000, 1500)), [len(c) for c in per_chunk]


def test_rotate_streamed_and_local(daemon, relayd, tmp_path, bt2_read):
    """-o and --set-url: each rotation archives the local chunk and the relay's alike."""
    out = tmp_path / "local"
    create(daemon, "both", relayd.url, "-o", out)
    daemon.run("start")
    trace = relayd.trace("rh", "both")
    pids = [pwrites(0, 700)]
    p = daemon.run("rotate")
    assert p.stdout.startswith(f"Trace chunk archive for session both is now readable at {out}/archives/"), p.stdout
    pids.append(pwrites(700, 700))
    daemon.run("stop")                  # both archive their chunk at stop
    daemon.run("start")
    pids.append(pwrites(1400, 300))
    daemon.run("destroy")
    want = [list(range(0, 700)), list(range(700, 1400)), list(range(1400, 1700))]
    assert chunk_positions(bt2_read, out, set(pids)) == want
    assert chunk_positions(bt2_read, trace, set(pids)) == want


def test_rotate_refused_live(daemon, relayd):
    create(daemon, "lv", relayd.url, "--live=500000")
    daemon.run("start")
    p = daemon.run("rotate", check=False)
    assert p.returncode == 1 and p.stderr == \
        "scry: a live session cannot rotate (as with LTTng: its viewers follow one trace)\n", p.stderr
    daemon.run("destroy")
