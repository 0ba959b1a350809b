"""tests/e2e/test_warm_start.py — scryd's ready object (issue 29, item 7; docs/DAEMON.md).

While scryd runs, it keeps the BPF object of `scry trace -- CMD`'s default loaded; a scry
trace with those settings takes it (the maps, rings and programs' descriptors, SCM_RIGHTS)
instead of verifying its own.  Checked here: a warm run prints exactly the lines a cold one
prints, and scryd's count of handovers says the object was taken; two warm runs in a row
each get a fresh object (nothing of the first in the second), the next one loaded once the
last one's taker has exited; a warm run writing far more
than the rings' first mapping loses nothing; a member of the daemon's group
without CAP_BPF/CAP_PERFMON asking with the very fingerprint gets no descriptor at all (at
the protocol level) while root gets them; a trace with other settings, or with
SCRY_NO_WARM=1, gets nothing and traces correctly, cold; a socket of another user's at
$SCRY_RUNDIR is never asked.  Each test has its own daemon and run directory."""
import array
import json
import os
import pwd
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from test_daemon import Daemon, MAGIC

USER, GROUP = "scrywarm", "scrywarmgrp"


def warm_request(rundir, fp=None):
    """One "warm" request (with fp: asking for the object): (reply dict, descriptors received,
    recvmsg flags seen).  Every descriptor received is closed."""
    strings = ["arg=warm"] + ([f"arg={fp}"] if fp else [])
    p = b"".join(s.encode() + b"\0" for s in strings)
    data, nfds, flags = b"", 0, 0
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(str(Path(rundir) / "control"))
        s.sendall(struct.pack("<IHHI", MAGIC, 1, 1, len(p)) + p)
        while True:
            msg, anc, fl, _ = s.recvmsg(1 << 16, socket.CMSG_SPACE(256 * 4))
            flags |= fl
            for level, kind, d in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds = array.array("i")
                    fds.frombytes(d[:len(d) - len(d) % fds.itemsize])
                    nfds += len(fds)
                    for f in fds:
                        os.close(f)
            if not msg:
                break
            data += msg
    magic, version, mtype, length = struct.unpack("<IHHI", data[:12])
    assert (magic, version, mtype, len(data)) == (MAGIC, 1, 2, 12 + length), data[:12]
    kv = [tuple(x.decode().split("=", 1)) for x in data[12:-1].split(b"\0")]
    reply = {}
    for k, v in kv:
        reply.setdefault(k, []).append(v)
    return reply, nfds, flags


def one(reply, key):
    return reply[key][0]


def wait_ready(d, timeout=25):
    """The daemon's ready object, once loaded: its status reply."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r, n, _ = warm_request(d.rundir)
        assert n == 0
        if one(r, "ready") == "1":
            return r
        time.sleep(0.05)
    raise AssertionError(f"no ready object after {timeout} s: {r}; log: {read_log(d)}")


def read_log(d):
    try:
        return (d.rundir / "scryd.log").read_text()[-2000:]
    except FileNotFoundError:
        return ""


@pytest.fixture
def wdaemon(scry, tmp_path):
    top = Path(tempfile.mkdtemp(prefix="scry-warm-", dir="/tmp"))
    os.chmod(top, 0o755)
    home = top / "home"
    home.mkdir()
    d = Daemon(scry, top / "run", home)
    yield d
    d.kill()
    shutil.rmtree(top, ignore_errors=True)


def start(d, *args):
    subprocess.run([d.scry, "daemon", *args], env=d.env, check=True, capture_output=True,
                   stdin=subprocess.DEVNULL, timeout=60)


def trace(d, out, *cmd, opts=(), env=None):
    p = subprocess.run([d.scry, "trace", "-o", str(out), *opts, "--", *map(str, cmd)], capture_output=True,
                       text=True, env=env or d.env, timeout=60, stdin=subprocess.DEVNULL)
    return p, Path(out).read_text()


PID = re.compile(r"\b\d{2,7}\b")
HEX = re.compile(r"0x[0-9a-f]+")
BYTES = re.compile(r'"(\\x[0-9a-f]{2})+"')


def normal(text):
    """Lines without what differs between two runs of one command: pids, addresses, random
    bytes."""
    return [BYTES.sub('"B"', HEX.sub("0xX", PID.sub("N", line))) for line in text.splitlines()]


def test_warm_run_prints_what_a_cold_one_prints(wdaemon, tmp_path):
    d = wdaemon
    data = tmp_path / "data"
    cmd = ["dd", f"if=/dev/zero", f"of={data}", "bs=777", "count=3", "status=none"]
    # cold first: no daemon, the same environment
    pc, cold = trace(d, tmp_path / "cold.txt", *cmd)
    assert pc.returncode == 0, pc.stderr
    start(d)
    ready = wait_ready(d)
    assert one(ready, "handed") == "0"
    data.unlink()
    pw, warm = trace(d, tmp_path / "warm.txt", *cmd)
    assert pw.returncode == 0, pw.stderr
    after, _, _ = warm_request(d.rundir)
    assert one(after, "handed") == "1", after         # the warm path was taken
    assert data.stat().st_size == 3 * 777
    writes = [l for l in warm.splitlines() if l.startswith("write(1, ")]
    assert len(writes) == 3 and all(l.endswith(", 777) = 777") for l in writes), warm
    assert any(f'"{data}"' in l and "O_WRONLY|O_CREAT|O_TRUNC" in l for l in warm.splitlines()), warm
    assert normal(warm) == normal(cold), "\n".join(
        f"{a!r} != {b!r}" for a, b in zip(normal(warm), normal(cold)) if a != b) or (len(warm), len(cold))
    assert warm.splitlines()[-1] == "+++ exited with 0 +++"


def test_two_warm_runs_each_get_a_fresh_object(wdaemon, tmp_path):
    d = wdaemon
    start(d)
    wait_ready(d)
    a, b = tmp_path / "first-only.txt", tmp_path / "second-only.txt"
    a.write_text("a")
    b.write_text("b")
    p1, out1 = trace(d, tmp_path / "t1", "sh", "-c", f"read x < {a}; exit 3")   # one process: sh itself
    assert p1.returncode == 3, p1.stderr              # the command's status is scry's
    r = wait_ready(d)
    assert one(r, "handed") == "1", r
    p2, out2 = trace(d, tmp_path / "t2", "cat", b)
    assert p2.returncode == 0, p2.stderr
    r, _, _ = warm_request(d.rundir)
    assert one(r, "handed") == "2" and one(r, "made") in ("2", "3"), r
    assert f'"{a}"' in out1 and "+++ exited with 3 +++" in out1, out1
    # nothing of the first run in the second: its file, its exit, its processes
    assert str(a) not in out2 and "exited with 3" not in out2 and "exit_group(3)" not in out2, out2
    assert f'"{b}"' in out2 and out2.splitlines()[-1] == "+++ exited with 0 +++", out2
    pids = {int(m) for m in re.findall(r"^\[pid\s+(\d+)\]", out2, re.M)}
    assert len(pids) <= 1, out2                       # one process: cat


def test_next_object_waits_for_the_taker(wdaemon, tmp_path):
    """scryd loads its next object once the process its last one went to has exited (or a
    second later), not beside a short trace: while a warm trace runs (well within that
    second), no new object is made; after it exits, one is."""
    d = wdaemon
    start(d)
    wait_ready(d)
    p = subprocess.Popen([d.scry, "trace", "-o", str(tmp_path / "t"), "--", "sleep", "2"], env=d.env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while one(warm_request(d.rundir)[0], "handed") != "1":
            assert p.poll() is None and time.monotonic() < deadline, "the trace took no object"
            time.sleep(0.01)
        time.sleep(0.7)
        r, _, _ = warm_request(d.rundir)
        assert p.poll() is None                       # the taker still runs (its sleep)
        assert (one(r, "made"), one(r, "ready")) == ("1", "0"), r
    finally:
        _, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    r = wait_ready(d)
    assert (one(r, "made"), one(r, "handed")) == ("2", "1"), r


def test_warm_run_past_the_rings_first_mapping(wdaemon, tmp_path):
    """The rings handed over are mapped as their records reach them (consumer/ring.c: 64 KiB
    first, then doubled in place): 8,000 one-byte calls (~0.5 MB of records) all come out."""
    d = wdaemon
    start(d)
    wait_ready(d)
    p, out = trace(d, tmp_path / "dd.txt", "dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=4000",
                   "status=none")
    assert p.returncode == 0, p.stderr
    r, _, _ = warm_request(d.rundir)
    assert one(r, "handed") == "1", r
    assert "lost" not in p.stderr, p.stderr
    lines = out.splitlines()
    assert sum(1 for l in lines if re.fullmatch(r'read\(0, "\\0", 1\) +=  ?1', l)) == 4000, out[-2000:]
    assert sum(1 for l in lines if re.fullmatch(r'write\(1, "\\0", 1\) +=  ?1', l)) == 4000, out[-2000:]
    assert lines[-1] == "+++ exited with 0 +++"


@pytest.fixture
def member():
    """A user in a group of its own, without any capability: (name, uid)."""
    subprocess.run(["pkill", "-KILL", "-u", USER], capture_output=True)
    subprocess.run(["userdel", USER], capture_output=True)
    subprocess.run(["groupdel", GROUP], capture_output=True)
    subprocess.run(["groupadd", GROUP], check=True)
    subprocess.run(["useradd", "-M", "-d", "/nonexistent", "-G", GROUP, "-s", "/bin/sh", USER], check=True)
    yield USER, pwd.getpwnam(USER).pw_uid
    subprocess.run(["pkill", "-KILL", "-u", USER], capture_output=True)
    subprocess.run(["userdel", USER], capture_output=True)
    subprocess.run(["groupdel", GROUP], capture_output=True)


def test_a_member_without_capabilities_gets_no_descriptor(wdaemon, member):
    d = wdaemon
    start(d, "--group", GROUP)
    fp = one(wait_ready(d), "fingerprint")
    assert re.fullmatch(r"[0-9a-f]{32}", fp), fp
    code = f"""
import json, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_warm_start import warm_request
r, n, flags = warm_request({str(d.rundir)!r}, {fp!r})
print(json.dumps([r, n, flags]))
"""
    p = subprocess.run(["runuser", "-u", member[0], "--", sys.executable, "-c", code], capture_output=True,
                       text=True, timeout=30, cwd="/")
    assert p.returncode == 0, p.stderr
    r, n, flags = json.loads(p.stdout)
    assert n == 0 and not flags & socket.MSG_CTRUNC, (r, n, flags)   # no SCM_RIGHTS at all
    assert r["status"] == ["1"] and "fd" not in r, r
    assert "CAP_BPF" in r["error"][0] and "CAP_PERFMON" in r["error"][0], r
    st, _, _ = warm_request(d.rundir)
    assert (one(st, "ready"), one(st, "handed"), one(st, "refused")) == ("1", "0", "1"), st
    # the same request from root takes it: the refusal was the caller's, not the fingerprint's
    r, n, _ = warm_request(d.rundir, fp)
    assert r["status"] == ["0"] and n == len(r["fd"]) and n > 10, (r, n)
    names = r["fd"]
    assert any(x.startswith("prog:") and x.endswith(":scry_sys_enter_trk_pt_btf") for x in names), names
    assert [x for x in names if x.startswith("ring:")] == [f"ring:{c}" for c in range(os.cpu_count())], names
    st, _, _ = warm_request(d.rundir)
    assert one(st, "handed") == "1", st


def test_other_settings_trace_cold(wdaemon, tmp_path):
    d = wdaemon
    start(d)
    wait_ready(d)
    f = tmp_path / "file.txt"
    f.write_text("x" * 10)
    p, out = trace(d, tmp_path / "t", "cat", f, opts=("-e", "trace=openat,read"))
    assert p.returncode == 0, p.stderr
    st, _, _ = warm_request(d.rundir)
    assert (one(st, "ready"), one(st, "handed")) == ("1", "0"), st   # not taken: other settings
    lines = [re.sub(r"\s+= ", " = ", l) for l in out.splitlines()]   # strace's alignment
    at = lines.index(f'openat(AT_FDCWD, "{f}", O_RDONLY) = 3')
    assert re.fullmatch(r'read\(3, "xxxxxxxxxx", \d+\) = 10', lines[at + 1]), lines[at:]
    assert re.fullmatch(r'read\(3, "", \d+\) = 0', lines[at + 2]), lines[at:]
    assert not [l for l in lines if l.startswith(("write(", "close(", "mmap("))], out
    # the default settings, but SCRY_NO_WARM=1: not asked for either
    p, out = trace(d, tmp_path / "t2", "cat", f, env=dict(d.env, SCRY_NO_WARM="1"))
    assert p.returncode == 0 and f'"{f}"' in out and out.splitlines()[-1] == "+++ exited with 0 +++", out
    st, _, _ = warm_request(d.rundir)
    assert (one(st, "ready"), one(st, "handed")) == ("1", "0"), st


def test_no_object_from_a_socket_not_roots(scry, member, tmp_path):
    """$SCRY_RUNDIR may name any socket: scry trace asks root's scryd only.  A member's
    listener there gets the connection and not one byte of request; the trace is cold and
    correct."""
    top = Path(tempfile.mkdtemp(prefix="scry-fake-", dir="/tmp"))
    os.chmod(top, 0o777)
    code = f"""
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind({str(top / "control")!r})
s.listen(1)
s.settimeout(25)
print("listening", flush=True)
c, _ = s.accept()
c.settimeout(10)
got = b""
while chunk := c.recv(4096):
    got += chunk
print(len(got), flush=True)
"""
    srv = subprocess.Popen(["runuser", "-u", member[0], "--", sys.executable, "-c", code], stdout=subprocess.PIPE,
                           text=True, cwd="/")
    try:
        assert srv.stdout.readline() == "listening\n"
        out = tmp_path / "t"
        p = subprocess.run([scry, "trace", "-o", str(out), "--", "/bin/true"], capture_output=True, text=True,
                           env=dict(os.environ, SCRY_RUNDIR=str(top)), timeout=60, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, p.stderr
        assert out.read_text().splitlines()[-1] == "+++ exited with 0 +++"
        assert srv.stdout.readline() == "0\n"          # connected, and closed without a request
        assert srv.wait(timeout=10) == 0
    finally:
        srv.kill()
        shutil.rmtree(top, ignore_errors=True)
