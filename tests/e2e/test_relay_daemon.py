"""tests/e2e/test_relay_daemon.py — scryd's sessions streamed to Debian's lttng-relayd (issue
25): `create NAME --set-url` and `-C/-D`, the relay's copy holding exactly dd's events (and
the same as the -o copy of the same session); `create --live`: babeltrace2's lttng-live
reader, attached during the session, prints dd's writes before the session stops, within 3
live-timer periods, though the other CPU's streams are idle (beacons, a first packet per
stream); the relay killed mid-session: the session goes on, the packets not delivered are
counted in status and at stop ("N packets (M events) not delivered to RELAY"), stop exits 1,
and what was delivered is readable."""
import os
import signal
import subprocess
import time

import pytest

from conftest import run_babeltrace2
from relayd import Relayd
from test_daemon import daemon, dd  # noqa: F401  (the fixture and the workload)


@pytest.fixture
def relayd(tmp_path):
    r = Relayd(tmp_path)
    yield r
    r.stop()


def exact(bt2_read, trace, pid, path):
    bt = run_babeltrace2(trace)
    assert bt.returncode == 0 and bt.stderr == "", bt.stderr
    tr = bt2_read(trace)
    assert len(tr.events) == len(bt.stdout.splitlines()) and tr.discarded == 0
    mine = [e for e in tr.events if e["pid"] == pid]
    opens = [e for e in mine if e["name"] == "syscall_entry_openat" and e["fields"]["filename"] == path]
    writes = [(e["fields"]["fd"], e["fields"]["count"]) for e in mine if e["name"] == "syscall_entry_write"]
    assert len(opens) == 1 and writes == [(1, 777)] * 3, (opens, writes)
    return tr


def create_session(daemon, *create):
    p = daemon.run("create", *create)
    daemon.run("enable-event", "-k", "--syscall", "openat,write")
    daemon.run("add-context", "-k", "-t", "pid", "-t", "procname")
    return p


def test_daemon_streamed_exact_and_local_copy(daemon, relayd, tmp_path, bt2_read):
    out = tmp_path / "local"
    p = create_session(daemon, "web", "--set-url", relayd.url, "-o", out, "--hostname", "h1")
    assert p.stdout == f"Session web created.\nTraces will be streamed to relayd {relayd.url} and written to {out}\n"
    assert f"Trace output: {out}" in daemon.run("status").stdout
    daemon.run("start")
    pid, path = dd(tmp_path)
    p = daemon.run("stop")
    assert "not delivered" not in p.stdout + p.stderr
    st = daemon.run("status").stdout
    assert f"streamed to {relayd.url}" in st and "Error" not in st, st
    daemon.run("destroy")
    ra = exact(bt2_read, relayd.trace("h1", "web"), pid, path)
    la = exact(bt2_read, out, pid, path)
    strip = lambda tr: [(e["name"], e["ts"], e["cpu"], e["pid"], e["fields"]) for e in tr.events]
    assert strip(ra) == strip(la)


def test_daemon_ctrl_data_urls(daemon, relayd, tmp_path, bt2_read):
    p = create_session(daemon, "cd", "-C", f"tcp://127.0.0.1:{relayd.ctrl}", "-D", f"tcp://127.0.0.1:{relayd.data}",
              "--hostname", "h2")
    assert p.stdout == f"Session cd created.\nTraces will be streamed to relayd {relayd.url}\n", p.stdout
    assert f"Trace output: tcp4://127.0.0.1:{relayd.ctrl}/ [data: {relayd.data}]\n" in daemon.run("list", "cd").stdout
    daemon.run("start")
    pid, path = dd(tmp_path)
    p = daemon.run("stop")
    assert p.stdout.splitlines()[-1].endswith(f"streamed to {relayd.url}"), p.stdout
    daemon.run("destroy")
    exact(bt2_read, relayd.trace("h2", "cd"), pid, path)


def test_daemon_refused_step_fails_start(daemon, tmp_path):
    from relayd import FakeRelay
    fake = FakeRelay(major=3, minor=1)
    create_session(daemon, "bad", "--set-url", fake.url)
    p = daemon.run("start", check=False)
    fake.close()
    assert p.returncode == 1
    assert p.stderr.strip() == f"scry: relay {fake.url}: VERSION: the relay speaks 3.1, scry speaks 2.x: another major"


def test_live_viewer_sees_events_during_session(daemon, relayd, tmp_path):
    period_us = 250000
    daemon.run("create", "lv", "--set-url", relayd.url, f"--live={period_us}", "--hostname", "lvhost")
    # only dd's 777-byte writes, dd pinned to CPU 0: every other CPU's stream stays idle
    daemon.run("enable-event", "-k", "--syscall", "write", "--filter", "count == 7777")
    daemon.run("add-context", "-k", "-t", "procname")
    daemon.run("start")
    bt = subprocess.Popen(["babeltrace2", "--input-format=lttng-live",
                           f"net://127.0.0.1:{relayd.live}/host/lvhost/lv"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(2.0)                 # attached (it shows what comes after it attaches)
        assert bt.poll() is None, bt.stderr.read()
        os.set_blocking(bt.stdout.fileno(), False)
        lat = []
        for k in range(3):
            out = tmp_path / f"dd{k}"
            t0 = time.monotonic()
            subprocess.run(["taskset", "-c", "0", "dd", "if=/dev/zero", f"of={out}", "bs=7777", "count=3",
                            "status=none"], check=True)
            t1 = time.monotonic()
            seen = ""
            while seen.count("syscall_entry_write") < 3:
                try:
                    seen += bt.stdout.read() or ""
                except TypeError:
                    pass
                assert time.monotonic() - t1 < 10, f"the live viewer shows no event after 10 s: {seen!r}"
                time.sleep(0.01)
            lat.append(time.monotonic() - t1)
            assert seen.count("syscall_entry_write") == 3 and 'procname = "dd"' in seen, seen
        print(f"live latency: {[round(x * 1000) for x in lat]} ms (period {period_us / 1000:.0f} ms)")
        assert max(lat) < 3 * period_us / 1e6, lat
        assert bt.poll() is None         # still following: the session has not stopped
        st = daemon.run("status").stdout
        assert f"Live timer interval: {period_us} us" in st, st
    finally:
        daemon.run("stop")
        daemon.run("destroy")
        try:
            bt.wait(timeout=15)       # the session ended at the relay: the viewer ends
        except subprocess.TimeoutExpired:
            bt.kill()
            bt.wait()
    err = bt.stderr.read()
    assert bt.returncode == 0 and " E " not in err and " W " not in err, err


def test_relay_killed_mid_session(daemon, relayd, tmp_path, bt2_read):
    create_session(daemon, "k", "--set-url", relayd.url, "--hostname", "kh")
    daemon.run("start")
    pid, path = dd(tmp_path, "first")
    time.sleep(2.5)                     # flushed (each second) and delivered
    trace = relayd.trace("kh", "k")
    relayd.proc.send_signal(signal.SIGKILL)
    relayd.proc.wait()
    for k in range(3):                  # more packets, to a relay that is gone
        dd(tmp_path, f"more{k}")
        time.sleep(1.2)
    st = daemon.run("status").stdout
    assert "Recording session k: [active]" in st and "not delivered to" in st, st
    p = daemon.run("stop", check=False)
    assert p.returncode == 1
    line = p.stderr.strip()
    assert line.startswith("scry: session 'k': ") and f" not delivered to {relayd.url}: relay {relayd.url}: " in line, \
        p.stderr
    n_pk, n_ev = int(line.split(": ")[2].split()[0]), int(line.split("(")[1].split()[0])
    assert n_pk >= 1 and n_ev >= 6, line          # the later dd's writes at least
    daemon.run("destroy")
    exact(bt2_read, trace, pid, path)             # the part delivered is readable, dd's first run whole


def test_live_viewer_gets_packets_flushed_at_stop(daemon, relayd, tmp_path):
    """stop then destroy while the viewer is stopped (SIGSTOP): the packets flushed at stop
    still reach it when it goes on (the last rotation to no chunk at destroy, as
    lttng-sessiond's, keeps the chunk readable to its end; without it the viewer gets none)."""
    daemon.run("create", "lag", "--set-url", relayd.url, "--live=1000000", "--hostname", "lh")
    daemon.run("enable-event", "-k", "--syscall", "write", "--filter", "count == 7331 || count == 7332")
    daemon.run("add-context", "-k", "-t", "pid")
    daemon.run("start")
    bt = subprocess.Popen(["babeltrace2", "--input-format=lttng-live", f"net://127.0.0.1:{relayd.live}/host/lh/lag"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def dd(bs):
        p = subprocess.Popen(["taskset", "-c", "0", "dd", "if=/dev/zero", f"of={tmp_path / 'o'}", f"bs={bs}", "count=3",
                              "status=none"], stdin=subprocess.DEVNULL)
        assert p.wait(timeout=30) == 0
        return p.pid

    try:
        time.sleep(1.5)
        marker = dd(7332)               # seen by the viewer: it is attached and following
        seen = ""
        while f"pid = {marker} " not in seen:
            seen += bt.stdout.readline()
            assert bt.poll() is None, bt.stderr.read()
        bt.send_signal(signal.SIGSTOP)  # a viewer that lags: it reads after the session is gone
        pid = dd(7331)
        daemon.run("stop")              # dd's packet flushed here, not by the live timer (1 s)
        daemon.run("destroy")
        bt.send_signal(signal.SIGCONT)
        out, err = bt.communicate(timeout=20)
    finally:
        if bt.poll() is None:
            bt.kill()
            bt.wait()
    assert bt.returncode == 0 and " E " not in err, err
    mine = [ln for ln in out.splitlines() if f"pid = {pid} " in ln and "syscall_entry_write" in ln]
    assert len(mine) == 3, out
