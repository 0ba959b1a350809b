"""tests/e2e/test_daemon.py — scryd and the session verbs (issue 13): LTTng's commands driven
through the daemon (started on demand by the first one) with real workloads, the traces read
back by babeltrace2 and bt2 (exact events: dd's openat of its output in one channel, its three
777-byte writes in another); runtime enable/disable on a started session; two sessions at
once, each with exactly its events; malformed and oversized messages answered with an error
while the daemon keeps serving; non-root refused, at the socket and by SO_PEERCRED; the daemon
killed with SIGKILL: traces readable, none of its BPF programs or links left, a new daemon
starts clean.  Every test has its own run directory ($SCRY_RUNDIR) and home (~/.scryrc), and
its daemon is stopped by the fixture's finalizer."""
import json
import os
import re
import shutil
import signal
import socket
import stat
import struct
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import pid_alive, run_babeltrace2

MAGIC = 0x59524353
REFUSED = re.compile(r"^scry: the control socket is (root-only|for root and the group '[^']+' only)$")


class Daemon:
    def __init__(self, scry, rundir, home):
        self.scry = scry
        self.rundir = Path(rundir)
        self.home = Path(home)
        self.env = dict(os.environ, SCRY_RUNDIR=str(rundir), HOME=str(home))

    def run(self, *args, check=True, timeout=120, prefix=(), cwd=None):
        p = subprocess.run(list(prefix) + [self.scry] + [str(a) for a in args], capture_output=True,
                           text=True, env=self.env, timeout=timeout, stdin=subprocess.DEVNULL, cwd=cwd)
        if check:
            assert p.returncode == 0, f"scry {' '.join(map(str, args))} exited {p.returncode}:\n{p.stderr}"
        return p

    def pid(self):
        try:
            return int((self.rundir / "scryd.pid").read_text().split()[0])
        except (FileNotFoundError, IndexError, ValueError):
            return None

    def kill(self, sig=signal.SIGTERM, timeout=30):
        pid = self.pid()
        if not pid or not pid_alive(pid) or Path(f"/proc/{pid}/comm").read_text() != "scryd\n":
            return
        os.kill(pid, sig)
        deadline = time.monotonic() + timeout
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if pid_alive(pid):
            os.kill(pid, signal.SIGKILL)

    def request(self, payload_strings=None, raw=None):
        """Send one message (raw bytes, or a request of key=value strings); the reply's strings."""
        if raw is None:
            p = b"".join(s.encode() + b"\0" for s in payload_strings)
            raw = struct.pack("<IHHI", MAGIC, 1, 1, len(p)) + p
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(20)
            s.connect(str(self.rundir / "control"))
            s.sendall(raw)
            return read_reply(s)


def read_reply(s):
    head = b""
    while len(head) < 12:
        chunk = s.recv(12 - len(head))
        assert chunk, "the daemon closed the connection without a reply"
        head += chunk
    magic, version, mtype, length = struct.unpack("<IHHI", head)
    assert (magic, version, mtype) == (MAGIC, 1, 2), (magic, version, mtype)
    body = b""
    while len(body) < length:
        chunk = s.recv(length - len(body))
        assert chunk
        body += chunk
    assert body.endswith(b"\0")
    return [tuple(x.decode().split("=", 1)) for x in body[:-1].split(b"\0")]


@pytest.fixture
def daemon(scry, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    d = Daemon(scry, tmp_path / "run", home)
    yield d
    d.kill()
    assert not d.pid() or not pid_alive(d.pid()), "the test's daemon is still running"


def dd(tmp_path, name="dd.out"):
    """dd writes 3 x 777 bytes to its output (opened as fd 1): returns (pid, path)."""
    out = tmp_path / name
    p = subprocess.Popen(["dd", "if=/dev/zero", f"of={out}", "bs=777", "count=3", "status=none"],
                         stdin=subprocess.DEVNULL)
    assert p.wait(timeout=30) == 0
    assert out.stat().st_size == 3 * 777
    return p.pid, str(out)


def read_events(bt2_read, trace):
    bt = run_babeltrace2(trace)
    assert bt.returncode == 0 and bt.stderr == "", bt.stderr
    tr = bt2_read(trace)
    assert len(tr.events) == len(bt.stdout.splitlines())
    return tr


def test_two_channels_exact_events(daemon, tmp_path, bt2_read):
    out = tmp_path / "trace"
    p = daemon.run("create", "web", "-o", out)
    assert p.stdout == f"Session web created.\nTraces will be output to {out}\n"
    assert (daemon.home / ".scryrc").read_text() == "session=web\n"
    st = os.stat(daemon.rundir)
    assert st.st_uid == 0 and stat.S_IMODE(st.st_mode) & 0o007 == 0, oct(st.st_mode)
    sock = os.stat(daemon.rundir / "control")
    assert stat.S_ISSOCK(sock.st_mode) and stat.S_IMODE(sock.st_mode) & 0o007 == 0, oct(sock.st_mode)
    daemon.run("enable-channel", "-k", "--discard", "--subbuf-size", "200K", "--num-subbuf", "3", "files")
    daemon.run("enable-event", "-k", "-c", "files", "--syscall", "openat")
    daemon.run("enable-channel", "-k", "io")
    daemon.run("enable-event", "-k", "-c", "io", "--syscall", "write")
    daemon.run("add-context", "-k", "-t", "pid", "-t", "procname")
    lst = daemon.run("list", "web").stdout
    # LTTng's rounding: 200K -> 256K sub-buffers, 3 -> 4 of them: 1 MiB per CPU
    assert "- files: [enabled]\n\n    Attributes:\n      Event-loss mode:  discard\n" \
        "      Sub-buffer size:  262144 bytes\n      Sub-buffer count: 4\n" in lst, lst
    assert "      openat (type: syscall) [enabled]\n" in lst and "      write (type: syscall) [enabled]\n" in lst
    assert "Recording session web: [inactive]" in lst
    daemon.run("start")
    assert "Recording session web: [active]" in daemon.run("status").stdout
    pid, path = dd(tmp_path)
    p = daemon.run("stop")
    assert p.stdout.startswith("Tracing stopped for session web: "), p.stdout
    assert "Recording session web: [inactive]" in daemon.run("list", "web").stdout

    ncpu = os.cpu_count()
    files = sorted(x.name for x in (out / "kernel").iterdir() if x.is_file())
    assert files == sorted(["metadata"] + [f"files_{c}" for c in range(ncpu)] + [f"io_{c}" for c in range(ncpu)])
    tr = read_events(bt2_read, out)
    names = {0: set(), 1: set()}
    for e in tr.events:
        names[e["channel"]].add(e["name"])
        assert set(e["ctx"]) == {"pid", "procname"}, e
    assert names[0] == {"syscall_entry_openat", "syscall_exit_openat"}, names
    assert names[1] == {"syscall_entry_write", "syscall_exit_write"}, names
    mine = [e for e in tr.events if e["pid"] == pid]
    opens = [e for e in mine if e["name"] == "syscall_entry_openat" and e["fields"]["filename"] == path]
    assert len(opens) == 1 and opens[0]["channel"] == 0 and opens[0]["procname"] == "dd"
    writes = [e for e in mine if e["name"] == "syscall_entry_write"]
    assert [(e["fields"]["fd"], e["fields"]["count"]) for e in writes] == [(1, 777)] * 3, writes
    assert [e["fields"]["ret"] for e in mine if e["name"] == "syscall_exit_write"] == [777] * 3

    p = daemon.run("destroy")
    assert p.stdout == "Session web destroyed.\n"
    assert not (daemon.home / ".scryrc").exists()
    assert daemon.run("list").stdout == "Currently no available recording session\n"


def test_runtime_enable_disable(daemon, tmp_path, bt2_read):
    out = tmp_path / "trace"
    a, b = tmp_path / "before.txt", tmp_path / "after.txt"
    a.write_text("a")
    b.write_text("b")
    daemon.run("create", "rt", "-o", out)
    daemon.run("enable-event", "-k", "--syscall", "openat,read")
    daemon.run("add-context", "-k", "-t", "pid")
    daemon.run("start")
    subprocess.run(["/bin/cat", a], check=True, capture_output=True)
    # on the started session: write enabled, openat disabled, each at once
    daemon.run("enable-event", "-k", "--syscall", "write")
    pid, path = dd(tmp_path)
    p = daemon.run("disable-event", "-k", "--syscall", "openat")
    assert p.stdout == "Kernel syscall openat disabled in channel channel0\n"
    subprocess.run(["/bin/cat", b], check=True, capture_output=True)
    daemon.run("stop")
    tr = read_events(bt2_read, out)
    opened = [e["fields"]["filename"] for e in tr.events if e["name"] == "syscall_entry_openat"]
    assert str(a) in opened and path in opened and str(b) not in opened, opened
    writes = [e["fields"]["count"] for e in tr.events if e["name"] == "syscall_entry_write" and e["pid"] == pid]
    assert writes == [777] * 3, writes
    # what a started session refuses, with the engine's reason
    daemon.run("create", "rt2", "-o", tmp_path / "t2")
    daemon.run("enable-event", "-k", "sched_switch")
    daemon.run("start")
    p = daemon.run("add-context", "-k", "-t", "vpid", check=False)
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and "is started" in p.stderr, p.stderr
    p = daemon.run("enable-channel", "-k", "more", check=False)
    assert p.returncode == 1 and p.stderr.startswith("scry: cannot add a channel to session 'rt2'"), p.stderr
    daemon.run("destroy", "-a")


def test_two_concurrent_sessions(daemon, tmp_path, bt2_read):
    ta, tb = tmp_path / "a", tmp_path / "b"
    daemon.run("create", "sa", "-o", ta)
    daemon.run("create", "sb", "-o", tb)
    assert (daemon.home / ".scryrc").read_text() == "session=sb\n"
    daemon.run("enable-event", "-k", "-s", "sa", "--syscall", "openat")
    daemon.run("add-context", "-k", "-s", "sa", "-t", "pid")
    daemon.run("enable-event", "-k", "--syscall", "write")      # the current one: sb
    daemon.run("add-context", "-k", "-t", "pid", "-t", "procname")
    daemon.run("start", "sa")
    daemon.run("start", "sb")
    lst = daemon.run("list").stdout
    assert re.search(r"1\) sa \[active\]", lst) and re.search(r"2\) sb \[active\] \(current\)", lst), lst
    pid, path = dd(tmp_path)
    daemon.run("stop", "sa")
    daemon.run("stop", "sb")
    ea = read_events(bt2_read, ta).events
    eb = read_events(bt2_read, tb).events
    assert {e["name"] for e in ea} == {"syscall_entry_openat", "syscall_exit_openat"}
    assert {e["name"] for e in eb} == {"syscall_entry_write", "syscall_exit_write"}
    assert all(set(e["ctx"]) == {"pid"} for e in ea) and all(set(e["ctx"]) == {"pid", "procname"} for e in eb)
    assert [e["fields"]["filename"] for e in ea if e["pid"] == pid and e["name"] == "syscall_entry_openat"
            and e["fields"]["filename"] == path] == [path]
    assert [e["fields"]["count"] for e in eb if e["pid"] == pid and e["name"] == "syscall_entry_write"] == [777] * 3
    daemon.run("destroy", "-a")


def test_malformed_messages_keep_the_daemon_serving(daemon, tmp_path):
    daemon.run("create", "m", "-o", tmp_path / "t")
    pid = daemon.pid()
    cases = [
        (struct.pack("<IHHI", 0x12345678, 1, 1, 0), "malformed message: bad magic 0x12345678"),
        (struct.pack("<IHHI", MAGIC, 9, 1, 0), "protocol version 9 not supported"),
        (struct.pack("<IHHI", MAGIC, 1, 7, 0), "malformed message: unknown message type 7"),
        (struct.pack("<IHHI", MAGIC, 1, 1, 1 << 30), "message too large: 1073741824 bytes of payload"),
        (struct.pack("<IHHI", MAGIC, 1, 1, 4) + b"abc\0", "malformed message: string 1 is not key=value"),
        (struct.pack("<IHHI", MAGIC, 1, 1, 4) + b"a=bc", "malformed message: its last string is not NUL-terminated"),
        (struct.pack("<IHHI", MAGIC, 1, 2, 9) + b"status=0\0", "malformed message: not a request"),
    ]
    for raw, reason in cases:
        kv = daemon.request(raw=raw)
        assert kv[0] == ("status", "1"), kv
        assert dict(kv)["error"].startswith(reason), (reason, kv)
    # a request with an unknown verb and one with a bad option: the daemon's reasons
    assert dict(daemon.request(["arg=frobnicate"]))["error"] == "unknown command 'frobnicate'"
    assert dict(daemon.request(["arg=create", "arg=--bogus"]))["error"] == \
        "create: invalid option '--bogus' (scry create --help)"
    # a client that sends half a message and goes away
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(str(daemon.rundir / "control"))
        s.sendall(struct.pack("<IHHI", MAGIC, 1, 1, 100) + b"arg=li")
    # an oversized command line from the CLI: refused before sending
    p = daemon.run("enable-event", "-k", "x" * (70 << 10), check=False)
    assert p.returncode == 1 and "larger than the protocol allows" in p.stderr
    assert daemon.pid() == pid and pid_alive(pid)
    assert "1) m [inactive]" in daemon.run("list").stdout


def test_cli_errors_are_one_line(daemon, tmp_path):
    p = daemon.run("enable-event", "--help")
    assert p.stdout.startswith("usage: scry enable-event -k") and "--syscall" in p.stdout
    assert not (daemon.rundir / "control").exists(), "--help started a daemon"
    for args, reason in [
        (["start"], "no current session: create one (scry create) or choose one (scry set-session NAME)"),
        (["create", "bad/name"], "invalid session name 'bad/name' (letters, digits, '_', '-', '.')"),
        (["set-session", "nope"], "session 'nope' not found (scry list shows the sessions)"),
    ]:
        p = daemon.run(*args, check=False)
        assert p.returncode == 1 and p.stderr == f"scry: {reason}\n", (args, p.stderr)
    nonempty = tmp_path / "full"
    nonempty.mkdir()
    (nonempty / "f").write_text("x")
    p = daemon.run("create", "x", "-o", nonempty, check=False)
    assert p.returncode == 1 and p.stderr == \
        f"scry: output directory '{nonempty}' exists and is not empty: refusing to overwrite it\n"
    daemon.run("create", "e", "-o", tmp_path / "t")
    p = daemon.run("enable-event", "-k", "sched_swich", check=False)
    assert p.returncode == 1 and p.stderr.startswith("scry: unknown event 'sched_swich'") and \
        p.stderr.count("\n") == 1, p.stderr
    p = daemon.run("start", check=False)
    assert p.stderr == "scry: session 'e' has no event enabled (scry enable-event first)\n"
    p = daemon.run("track", "-k", "--pid", "999999999", check=False)
    assert p.stderr == "scry: no process with pid 999999999\n"
    # default output directory, as lttng: ~/scry-traces/NAME-YYYYmmdd-HHMMSS
    p = daemon.run("create", "d")
    assert re.fullmatch(rf"Session d created\.\nTraces will be output to {daemon.home}/scry-traces/d-\d{{8}}-\d{{6}}\n",
                        p.stdout), p.stdout


def test_non_root_refused(daemon, tmp_path):
    nobody = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
    # no daemon yet: a non-root command does not start one
    p = daemon.run("create", "x", prefix=nobody, check=False)
    assert p.returncode == 1 and REFUSED.match(p.stderr.rstrip("\n")) and p.stderr.count("\n") == 1, p.stderr
    assert not (daemon.rundir / "control").exists()
    # a daemon in a directory nobody can reach: the socket's permissions refuse them
    rundir = Path(tempfile.mkdtemp(prefix="scry-run-", dir="/tmp"))
    os.chmod(rundir, 0o755)
    d = Daemon(daemon.scry, rundir / "run", daemon.home)
    try:
        d.run("create", "x", "-o", tmp_path / "t")
        p = d.run("list", prefix=nobody, check=False)
        assert p.returncode == 1 and REFUSED.match(p.stderr.rstrip("\n")), p.stderr
        # the socket opened to everyone: SO_PEERCRED refuses them, with the same line
        os.chmod(d.rundir, 0o755)
        os.chmod(d.rundir / "control", 0o666)
        p = d.run("destroy", "x", prefix=nobody, check=False)
        assert p.returncode == 1 and p.stderr.startswith("scry: the control socket is ") and \
            REFUSED.match(p.stderr.rstrip("\n")), p.stderr
        assert "1) x [inactive]" in d.run("list").stdout     # nothing was destroyed
        assert "scryd: refused uid 65534" in (d.rundir / "scryd.log").read_text()
    finally:
        d.kill()
        shutil.rmtree(rundir, ignore_errors=True)


def bpf_ids(pid):
    """The BPF program and link ids process pid holds (its fds' fdinfo)."""
    progs, links = set(), set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
        except OSError:
            continue
        if target == "anon_inode:bpf-prog":
            progs |= {int(m) for m in re.findall(r"^prog_id:\s*(\d+)", info, re.M)}
        elif target == "anon_inode:bpf_link":
            links |= {int(m) for m in re.findall(r"^link_id:\s*(\d+)", info, re.M)}
    return progs, links


def loaded_ids(kind):
    out = subprocess.run(["bpftool", kind, "show", "-j"], capture_output=True, text=True, check=True)
    return {x["id"] for x in json.loads(out.stdout or "[]")}


def test_sigkill_daemon(daemon, tmp_path, bt2_read):
    out = tmp_path / "trace"
    daemon.run("create", "k", "-o", out)
    daemon.run("enable-event", "-k", "--syscall", "openat,write")
    daemon.run("enable-event", "-k", "sched_process_exec")
    daemon.run("add-context", "-k", "-t", "pid")
    daemon.run("start")
    pid = daemon.pid()
    progs, links = bpf_ids(pid)
    assert progs and links, (progs, links)
    dpid, path = dd(tmp_path)
    time.sleep(2.5)                      # packets flushed every second
    daemon.kill(signal.SIGKILL)
    assert not pid_alive(pid)
    # its guardian recovers the trace: babeltrace2 reads it, dd's events in it
    deadline = time.monotonic() + 30
    while True:
        bt = run_babeltrace2(out)
        if bt.returncode == 0 and bt.stderr == "":
            break
        assert time.monotonic() < deadline, bt.stderr
        time.sleep(0.3)
    tr = bt2_read(out)
    assert [e["fields"]["count"] for e in tr.events if e["pid"] == dpid and e["name"] == "syscall_entry_write"] \
        == [777] * 3
    assert any(e["name"] == "syscall_entry_openat" and e["fields"]["filename"] == path for e in tr.events)
    # none of its programs or links left (freed with its last fd: deferred, poll a little)
    deadline = time.monotonic() + 15
    while (progs & loaded_ids("prog")) or (links & loaded_ids("link")):
        assert time.monotonic() < deadline, (progs & loaded_ids("prog"), links & loaded_ids("link"))
        time.sleep(0.2)
    # a new daemon starts clean (the dead one's socket and pid file replaced)
    daemon.run("create", "k2", "-o", tmp_path / "t2")
    assert daemon.pid() != pid and pid_alive(daemon.pid())
    lst = daemon.run("list").stdout
    assert "1) k2 [inactive] (current)" in lst and "2)" not in lst, lst
    daemon.run("enable-event", "-k", "--syscall", "write")
    daemon.run("start")
    dpid, _ = dd(tmp_path, "dd2.out")
    daemon.run("stop")
    tr = read_events(bt2_read, tmp_path / "t2")
    assert [e["fields"]["count"] for e in tr.events if e["name"] == "syscall_entry_write"
            and e["fields"]["count"] == 777] == [777] * 3


def test_foreground_daemon_and_sigterm(scry, tmp_path, bt2_read):
    """scryd --foreground (the systemd unit's way): logs to stderr, one per run directory, and
    SIGTERM stops every started session with its trace complete (no recovery needed)."""
    home = tmp_path / "home"
    home.mkdir()
    d = Daemon(scry, tmp_path / "run", home)
    scryd = str(Path(scry).resolve().parent / "scryd")
    p = subprocess.Popen([scryd, "--foreground"], env=d.env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not (d.rundir / "control").exists():
            assert p.poll() is None, p.stderr.read()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert d.pid() == p.pid
        second = subprocess.run([scryd, "--foreground"], env=d.env, capture_output=True, text=True, timeout=30)
        assert second.returncode == 1 and second.stderr == \
            f"scryd: a daemon already runs for {d.rundir} (pid {p.pid})\n", second.stderr
        out = tmp_path / "trace"
        d.run("create", "f", "-o", out)
        d.run("enable-event", "-k", "--syscall", "write")
        d.run("start")
        dpid, _ = dd(tmp_path)
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=60) == 0
        err = p.stderr.read()
        assert "scryd: session f started" in err and "scryd: Terminated: stopping 1 session(s)" in err, err
        assert "recover" not in err and not (d.rundir / "control").exists()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    tr = read_events(bt2_read, out)
    assert [e["fields"]["count"] for e in tr.events if e["name"] == "syscall_entry_write"
            and e["fields"]["count"] == 777] == [777] * 3


def test_track_and_filter(daemon, tmp_path, bt2_read):
    """track -k --pid before start (the process and its children recorded, no other), then
    on the started session; enable-event --filter (a rule's own filter, an unfiltered rule of
    another event beside it)."""
    out = tmp_path / "trace"
    daemon.run("create", "tr", "-o", out)
    p = daemon.run("enable-event", "-k", "--syscall", "write", "--filter", "count == 777 || count == 555")
    assert p.stdout == "Kernel syscall write enabled in channel channel0\n"
    p = daemon.run("enable-event", "-k", "--syscall", "openat")
    assert p.stdout == "Kernel syscall openat enabled in channel channel0\n"
    daemon.run("add-context", "-k", "-t", "pid", "-t", "procname")
    # echo writes 6 bytes: the filter keeps it out
    shell = "read x; echo hello >/dev/null; dd if=/dev/zero of=/dev/null bs=$x count=2 status=none"
    a = subprocess.Popen(["/bin/sh", "-c", shell], stdin=subprocess.PIPE, text=True)
    b = subprocess.Popen(["/bin/sh", "-c", shell], stdin=subprocess.PIPE, text=True)
    c = subprocess.Popen(["/bin/sh", "-c", shell], stdin=subprocess.PIPE, text=True)
    try:
        daemon.run("track", "-k", "--pid", a.pid)
        assert f"  Process IDs:          {a.pid}\n" in daemon.run("status").stdout
        daemon.run("start")
        p = daemon.run("track", "-k", "--pid", b.pid)
        assert p.stdout == f"Added {b.pid} to the process ID tracker inclusion set\n"   # lttng's
        p = daemon.run("untrack", "-k", "--pid", b.pid, check=False)
        assert p.returncode == 1 and "only track --pid changes a started session" in p.stderr
        a.communicate("777\n", timeout=30)
        b.communicate("555\n", timeout=30)
        c.communicate("777\n", timeout=30)      # not tracked
        unfiltered, _ = dd(tmp_path)            # tracked by nobody
    finally:
        for x in (a, b, c):
            if x.poll() is None:
                x.kill()
    daemon.run("stop")
    tr = read_events(bt2_read, out)
    writes = [(e["procname"], e["fields"]["count"]) for e in tr.events if e["name"] == "syscall_entry_write"]
    assert sorted(writes) == [("dd", 555)] * 2 + [("dd", 777)] * 2, writes


XSD = "/usr/share/xml/lttng/session.xsd"


def test_save_xmllint_load(daemon, tmp_path, bt2_read):
    """save writes LTTng's session XML (valid against lttng-tools' session.xsd, checked by
    xmllint); load of it gives the same configuration (list output equal), which records."""
    if not os.path.exists(XSD):
        pytest.skip(f"{XSD} missing (Debian's lttng-tools installs it)")
    out = tmp_path / "trace"
    daemon.run("create", "web", "-o", out)
    daemon.run("enable-channel", "-k", "--subbuf-size", "256K", "--num-subbuf", "8", "io")
    daemon.run("enable-event", "-k", "-c", "io", "--syscall", "write,writev", "--filter", "count == 777")
    daemon.run("enable-event", "-k", "-c", "io", "--syscall", "pwrite64", "--filter", "count == 777")
    daemon.run("disable-event", "-k", "-c", "io", "--syscall", "writev")
    daemon.run("add-context", "-k", "-t", "pid", "-t", "procname", "-t", "uid")
    # issue 14's: LTTng <type>s (vppid, callstack-user), app contexts (vsgid), <perf> (issue 26)
    daemon.run("add-context", "-k", "-t", "vppid", "-t", "vsgid", "-t", "perf:thread:page-fault",
               "-t", "callstack-user")
    daemon.run("track", "-k", "--uid", "root")
    daemon.run("enable-rotation", "--timer", "1h")
    daemon.run("enable-rotation", "--size", "1G")
    before = daemon.run("list", "web").stdout
    assert "  User IDs:             0\n" in before and "      writev (type: syscall) [disabled] [filter: 'count == 777']\n" in before, before
    xml = tmp_path / "web.lttng"
    p = daemon.run("save", "-o", xml)
    assert p.stdout == f"Session web saved successfully to {xml}\n"
    lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(xml)], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stderr
    assert "<subbuffer_count>8</subbuffer_count>" in xml.read_text()
    assert "<type>VPPID</type>" in xml.read_text() and "<type>CALLSTACK_USER</type>" in xml.read_text()
    assert "<name>perf_thread_page_fault</name>" in xml.read_text()
    assert "<time_us>3600000000</time_us>" in xml.read_text() and "<bytes>1073741824</bytes>" in xml.read_text()
    p = daemon.run("save", "-o", xml, check=False)
    assert p.returncode == 1 and p.stderr == f"scry: '{xml}' exists: give -f to overwrite it\n"
    # the default place, as lttng: ~/.scry/sessions/NAME.lttng, loaded by name
    daemon.run("save")
    assert (daemon.home / ".scry" / "sessions" / "web.lttng").read_text() == xml.read_text()
    p = daemon.run("load", xml, check=False)
    assert p.returncode == 1 and p.stderr == "scry: session 'web' already exists: give -f to replace it\n"
    daemon.run("destroy")
    p = daemon.run("load", xml)
    assert p.stdout == f"Session web loaded from {xml}\n"
    assert daemon.run("list", "web").stdout == before
    assert (daemon.home / ".scryrc").read_text() == "session=web\n"
    daemon.run("destroy")
    daemon.run("load", "web")        # LTTng's `load NAME`: from ~/.scry/sessions
    assert daemon.run("list", "web").stdout == before
    daemon.run("start")
    pid, _ = dd(tmp_path)
    daemon.run("stop")
    tr = read_events(bt2_read, out)
    assert [(e["procname"], e["fields"]["count"]) for e in tr.events if e["name"] == "syscall_entry_write"] \
        == [("dd", 777)] * 3
    assert {e["name"] for e in tr.events} == {"syscall_entry_write"}, "the filter and the rules as saved"
    # a started session saves as started; loading it starts it (as lttng)
    daemon.run("create", "s2", "-o", tmp_path / "t2")
    daemon.run("enable-event", "-k", "sched_process_exec")
    daemon.run("start")
    daemon.run("save", "-o", tmp_path)
    assert "<started>true</started>" in (tmp_path / "s2.lttng").read_text()
    p = daemon.run("load", tmp_path / "s2.lttng", "--override-name", "s3", "--override-url", tmp_path / "t3")
    assert p.stdout == f"Session s3 loaded from {tmp_path / 's2.lttng'}\nTracing started for session s3\n"
    assert "Recording session s3: [active]" in daemon.run("list", "s3").stdout
    daemon.run("destroy", "-a")


LTTNG_STYLE = """<?xml version="1.0" encoding="UTF-8"?>
<sessions>
  <session>
    <name>{name}</name>
    <domains>
      <domain>
        <type>{domain}</type>
        <buffer_type>GLOBAL</buffer_type>
        <channels>
          <channel>
            <name>channel0</name>
            <enabled>true</enabled>
            <overwrite_mode>{mode}</overwrite_mode>
            <subbuffer_size>1048576</subbuffer_size>
            <subbuffer_count>4</subbuffer_count>
            <switch_timer_interval>0</switch_timer_interval>
            <read_timer_interval>200000</read_timer_interval>
            <output_type>SPLICE</output_type>
            <tracefile_size>0</tracefile_size>
            <tracefile_count>0</tracefile_count>
            <live_timer_interval>0</live_timer_interval>
            <monitor_timer_interval>1000000</monitor_timer_interval>
            <blocking_timeout>0</blocking_timeout>
            <events>
              <event>
                <name>sched_switch</name>
                <enabled>true</enabled>
                <type>TRACEPOINT</type>
                <loglevel_type>ALL</loglevel_type>
                <loglevel>-1</loglevel>
              </event>
              <event>
                <name>openat</name>
                <enabled>true</enabled>
                <type>SYSCALL</type>
              </event>{extra}
            </events>
            <contexts>
              <context><type>VTID</type></context>
            </contexts>
          </channel>
        </channels>
      </domain>
    </domains>
    <started>false</started>
    <attributes><snapshot_mode>false</snapshot_mode></attributes>
    <output>
      <consumer_output>
        <enabled>true</enabled>
        <destination><path>{path}</path></destination>
      </consumer_output>
    </output>
  </session>
</sessions>
"""


def test_load_lttng_file_and_refusals(daemon, tmp_path):
    """An LTTng-style file (lttng's defaults: read timer, SPLICE, monitor timer...) loads;
    an unknown element or an unsupported value is refused with one line naming it, and
    nothing of the file is created."""
    good = tmp_path / "good.lttng"
    good.write_text(LTTNG_STYLE.format(name="lt", domain="KERNEL", mode="DISCARD", extra="", path=tmp_path / "t"))
    if os.path.exists(XSD):
        lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(good)], capture_output=True, text=True)
        assert lint.returncode == 0, lint.stderr
    daemon.run("load", good)
    lst = daemon.run("list", "lt").stdout
    assert "sched_switch (type: tracepoint) [enabled]" in lst and "      openat (type: syscall) [enabled]" in lst
    assert "Sub-buffer size:  1048576 bytes" in lst and "      vtid\n" in lst, lst
    daemon.run("destroy", "-a")
    cases = [
        (dict(extra="\n              <foo/>"), r"^scry: {f}:\d+: unknown element <foo> in <events>$"),
        (dict(mode="SOMETIMES"), r"^scry: {f}:\d+: <overwrite_mode> .*neither DISCARD nor OVERWRITE$"),
        (dict(domain="UST"), r"^scry: {f}:\d+: <type> UST: scry records the kernel domain only$"),
        (dict(extra="\n              <event><name>x</name><type>KPROBE</type></event>"),
         r"^scry: {f}:\d+: <event> event 'x' of type KPROBE: scry records tracepoints and syscalls$"),
        (dict(extra="\n              <event><name>no_such_tracepoint_x</name></event>"),
         r"^scry: unknown event 'no_such_tracepoint_x'.*$"),
        # LTTng's names stop at 255 bytes: a longer one is refused, not cut (fuzz_session_xml)
        (dict(extra="\n              <event><name>sched_switch" + " " * 250 + "x</name></event>"),
         r"^scry: {f}:\d+: <name> is longer than 255 bytes$"),
        # a cut path would name another file
        (dict(extra="\n              <event><name>p</name><type>USERSPACE_PROBE</type><attributes>"
                    "<userspace_probe_function_attributes><lookup_method>ELF</lookup_method><binary_path>/"
                    + "a" * 5000 + "</binary_path><function_name>f</function_name>"
                    "</userspace_probe_function_attributes></attributes></event>"),
         r"^scry: {f}:\d+: <binary_path> is longer than 4095 bytes$"),
    ]
    for k, (over, pattern) in enumerate(cases):
        args = dict(name="ok", domain="KERNEL", mode="DISCARD", extra="", path=tmp_path / f"t{k}")
        args.update(over)
        # two sessions, the second bad: neither is created
        bad = LTTNG_STYLE.format(**args)
        first = LTTNG_STYLE.format(name="first", domain="KERNEL", mode="DISCARD", extra="", path=tmp_path / f"f{k}")
        f = tmp_path / f"bad{k}.lttng"
        f.write_text(first.replace("</sessions>", "") + bad[bad.index("<session>"):])
        p = daemon.run("load", f, check=False)
        assert p.returncode == 1 and re.match(pattern.format(f=re.escape(str(f))), p.stderr.rstrip("\n")) \
            and p.stderr.count("\n") == 1, (over, p.stderr)
        assert daemon.run("list").stdout == "Currently no available recording session\n", over
    (tmp_path / "junk.lttng").write_text("<sessions><session>")
    p = daemon.run("load", tmp_path / "junk.lttng", check=False)
    assert p.returncode == 1 and p.stderr.startswith(f"scry: {tmp_path / 'junk.lttng'}:1: not XML: "), p.stderr


def pwrites(first, n):
    """A process pinned to CPU 0 that pwrites one byte at positions first..first+n-1: its pid."""
    code = f"import os\nfd = os.open('/dev/null', os.O_WRONLY)\nfor i in range({first}, {first + n}): os.pwrite(fd, b'x', i)\n"
    p = subprocess.Popen(["taskset", "-c", "0", "/usr/bin/python3", "-c", code], stdin=subprocess.DEVNULL)
    assert p.wait(timeout=120) == 0
    return p.pid


def index_seqs(path):
    data = Path(path).read_bytes()
    assert struct.unpack(">I", data[:4])[0] == 0xC1F1DCC1
    return [struct.unpack(">Q", data[off + 64:off + 72])[0] for off in range(16, len(data), 72)]


def snapshot_dir(stdout, base, name, n):
    m = re.fullmatch(rf"Snapshot recorded successfully for session box in ({re.escape(str(base))}/{name}-{n}-\d{{8}}-\d{{6}}) "
                     r"\((\d+) bytes\)\n", stdout)
    assert m, stdout
    snap = Path(m[1])
    files = [f for f in (snap / "kernel").iterdir() if f.is_file() and f.name != "metadata"]
    assert sum(f.stat().st_size for f in files) == int(m[2])
    return snap, int(m[2])


def test_snapshot_flight_recorder(daemon, tmp_path, bt2_read):
    """create --snapshot: overwrite channels kept in memory, nothing written while recording;
    snapshot record writes their last sub-buffers as a complete trace (the last events, in
    order, none older than the buffers hold; the overwritten packets a gap in packet_seq_num)
    while tracing goes on; -m bounds its size."""
    box = tmp_path / "box"
    p = daemon.run("create", "box", "--snapshot", "-o", box)
    assert p.stdout == f"Snapshot session box created.\nDefault snapshot output set to {box}\n"
    p = daemon.run("enable-channel", "-k", "--discard", "fr", check=False)
    assert p.returncode == 1 and "overwrite" in p.stderr
    daemon.run("enable-channel", "-k", "--overwrite", "--subbuf-size", "16K", "--num-subbuf", "4", "fr")
    daemon.run("enable-event", "-k", "-c", "fr", "--syscall", "pwrite64")
    daemon.run("add-context", "-k", "-t", "pid")
    assert "Event-loss mode:  overwrite" in daemon.run("list", "box").stdout
    daemon.run("start")
    n = 20000
    pid = pwrites(0, n)
    assert not box.exists() or not any(box.iterdir()), "a snapshot session wrote before snapshot record"
    snap, size = snapshot_dir(daemon.run("snapshot", "record").stdout, box, "snapshot", 1)
    tr = read_events(bt2_read, snap)
    pos = [e["fields"]["pos"] for e in tr.events if e["pid"] == pid and e["name"] == "syscall_entry_pwrite64"]
    assert pos and pos[-1] == n - 1 and pos == list(range(pos[0], n)), pos[:3] + pos[-3:]
    # none older than 4 sub-buffers and the current packet can hold (an entry is > 40 bytes)
    assert 0 < pos[0] and len(pos) < 5 * 16384 // 40, (pos[0], len(pos))
    seqs = index_seqs(snap / "kernel" / "index" / "fr_0.idx")
    assert seqs[0] > 0 and seqs == list(range(seqs[0], seqs[0] + len(seqs))) and len(seqs) <= 5, seqs
    # tracing goes on: a later snapshot has the later events
    pid2 = pwrites(n, 100)
    snap2, _ = snapshot_dir(daemon.run("snapshot", "record", "-n", "late").stdout, box, "late", 2)
    pos2 = [e["fields"]["pos"] for e in read_events(bt2_read, snap2).events
            if e["pid"] == pid2 and e["name"] == "syscall_entry_pwrite64"]
    assert pos2 == list(range(n, n + 100)), pos2[:3]
    # -m: at most that many bytes in all; less than a sub-buffer per stream refused (lttng's)
    out = tmp_path / "elsewhere"
    streams = len(os.sched_getaffinity(0)) if not os.path.exists("/sys/devices/system/cpu/possible") else \
        sum(int(r.split("-")[-1]) - int(r.split("-")[0]) + 1
            for r in open("/sys/devices/system/cpu/possible").read().strip().split(","))
    p = daemon.run("snapshot", "record", "-m", f"{16 * streams - 1}K", out, check=False)
    assert p.returncode == 1 and p.stderr.startswith("scry: Snapshot max size is invalid"), p.stderr
    snap3, size3 = snapshot_dir(daemon.run("snapshot", "record", "-m", f"{32 * streams}K", out).stdout, out,
                                "snapshot", 3)
    assert 0 < size3 <= 32 * streams * 1024, size3
    read_events(bt2_read, snap3)
    p = daemon.run("stop")
    assert "3 snapshot(s) recorded" in p.stdout, p.stdout
    daemon.run("create", "plain", "-o", tmp_path / "plain")
    p = daemon.run("snapshot", "record", check=False)
    assert p.stderr == "scry: session 'plain' is not a snapshot session (create --snapshot)\n"
    p = daemon.run("enable-channel", "-k", "--overwrite", "x")    # in a normal session too (issue 26)
    assert "- x: [enabled]\n\n    Attributes:\n      Event-loss mode:  overwrite\n" in daemon.run("list", "plain").stdout
    # saved and loaded as a snapshot session (snapshot_mode, OVERWRITE, its snapshot output)
    if os.path.exists(XSD):
        daemon.run("save", "box", "-o", tmp_path)
        xml = (tmp_path / "box.lttng").read_text()
        assert "<snapshot_mode>true</snapshot_mode>" in xml and "<overwrite_mode>OVERWRITE</overwrite_mode>" in xml
        lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(tmp_path / "box.lttng")],
                              capture_output=True, text=True)
        assert lint.returncode == 0, lint.stderr
        daemon.run("load", tmp_path / "box.lttng", "--override-name", "box2", "--override-url", tmp_path / "box2")
        lst = daemon.run("list", "box2").stdout
        assert "Snapshot mode:" in lst and "Event-loss mode:  overwrite" in lst and "Sub-buffer size:  16384 bytes" in lst, lst
    daemon.run("destroy", "-a")


CHUNK_RE = re.compile(r"^\d{8}T\d{6}[+-]\d{4}-\d{8}T\d{6}[+-]\d{4}-(\d+)$")


def chunk_positions(bt2_read, trace, pids):
    """Each archived chunk read alone (babeltrace2 with no warning): the pwrite64 positions of pids."""
    chunks = sorted((trace / "archives").iterdir(), key=lambda p: int(CHUNK_RE.match(p.name)[1]))
    assert [int(CHUNK_RE.match(c.name)[1]) for c in chunks] == list(range(len(chunks))), chunks
    assert not (trace / "kernel").exists(), "the last chunk is archived at stop"
    return [[e["fields"]["pos"] for e in read_events(bt2_read, c).events
             if e["pid"] in pids and e["name"] == "syscall_entry_pwrite64"] for c in chunks]


def test_rotation(daemon, tmp_path, bt2_read):
    """rotate and enable-rotation --timer/--size: each chunk DIR/archives/<begin>-<end>-<index>
    is a trace babeltrace2 reads alone; across the chunks every event appears exactly once."""
    out = tmp_path / "trace"
    daemon.run("create", "rot", "-o", out)
    daemon.run("enable-event", "-k", "--syscall", "pwrite64")
    daemon.run("add-context", "-k", "-t", "pid")
    p = daemon.run("rotate", check=False)
    assert p.stderr == "scry: session 'rot' is not started: nothing to rotate\n"
    daemon.run("start")
    pids = []
    for k in range(3):
        pids.append(pwrites(1000 * k, 1000))
        if k < 2:
            p = daemon.run("rotate")
            m = re.fullmatch(rf"Trace chunk archive for session rot is now readable at ({re.escape(str(out))}/archives/(\S+))\n",
                             p.stdout)
            assert m and CHUNK_RE.match(m[2]) and int(CHUNK_RE.match(m[2])[1]) == k, p.stdout
    daemon.run("stop")
    per_chunk = chunk_positions(bt2_read, out, set(pids))
    assert per_chunk == [list(range(0, 1000)), list(range(1000, 2000)), list(range(2000, 3000))]

    # by time: a writer running across several rotations, every pwrite in exactly one chunk
    out2 = tmp_path / "timed"
    daemon.run("create", "timed", "-o", out2)
    daemon.run("enable-event", "-k", "--syscall", "pwrite64")
    daemon.run("add-context", "-k", "-t", "pid")
    p = daemon.run("enable-rotation", "--timer", "300ms")
    assert p.stdout == "Rotation every 0.300 s enabled for session timed\n"
    daemon.run("start")
    code = "import os, time\nfd = os.open('/dev/null', os.O_WRONLY)\nfor i in range(3000):\n    os.pwrite(fd, b'x', i)\n    if i % 100 == 0: time.sleep(0.05)\n"
    w = subprocess.Popen(["/usr/bin/python3", "-c", code], stdin=subprocess.DEVNULL)
    assert w.wait(timeout=120) == 0
    time.sleep(0.1)
    assert "chunk(s) archived" in daemon.run("status").stdout
    daemon.run("stop")
    chunks = [c for c in (out2 / "archives").iterdir()]
    per_chunk = chunk_positions(bt2_read, out2, {w.pid})
    allpos = [x for c in per_chunk for x in c]
    assert sorted(allpos) == list(range(3000)), (len(allpos), len(set(allpos)))
    assert len(chunks) >= 4 and sum(1 for c in per_chunk if c) >= 3, [len(c) for c in per_chunk]

    # by size: a new chunk once 64 KiB were written since the last one
    out3 = tmp_path / "sized"
    daemon.run("create", "sized", "-o", out3)
    daemon.run("enable-event", "-k", "--syscall", "pwrite64")
    daemon.run("add-context", "-k", "-t", "pid")
    daemon.run("enable-rotation", "--size", "64K")
    daemon.run("start")
    pids = []
    for k in range(4):
        pids.append(pwrites(5000 * k, 5000))
        time.sleep(1.3)                 # flushed (1 s) and seen by the size check (250 ms)
    daemon.run("stop")
    per_chunk = chunk_positions(bt2_read, out3, set(pids))
    allpos = [x for c in per_chunk for x in c]
    assert sorted(allpos) == list(range(20000)) and len(per_chunk) >= 3, [len(c) for c in per_chunk]
    p = daemon.run("disable-rotation", "-s", "sized", "--size")     # a stopped session takes it
    assert p.stdout == "Size rotation disabled for session sized\n"
    daemon.run("destroy", "-a")


def test_disk_full(daemon, tmp_path, workload, bt2_read):
    """Disk full: the session stops writing, status and the daemon's log say why, stop fails
    with the reason, the trace is readable up to its last complete packet, and every event is
    in it, discarded in the kernel or counted lost."""
    fs = tmp_path / "fs"
    fs.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(fs)], check=True)
    try:
        out = fs / "t"
        daemon.run("create", "full", "-o", out)
        daemon.run("enable-event", "-k", "--syscall", "getppid")
        # only the workload (held until tracked), so that every one of its events is counted
        w = subprocess.Popen(["/bin/sh", "-c", f"read x; exec {workload('getppid_loop')} 2000000"],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        daemon.run("track", "-k", "--pid", w.pid)
        daemon.run("start")
        w.communicate("go\n", timeout=300)
        assert w.returncode == 0
        time.sleep(1.5)
        st = daemon.run("status").stdout
        m = re.search(r"^    Error: disk full after (\d+) events: the trace ends at its last complete packet; "
                      r"(\d+) events lost$", st, re.M)
        assert m, st
        assert re.search(r"scryd: session full: disk full after \d+ events", (daemon.rundir / "scryd.log").read_text())
        p = daemon.run("stop", check=False)
        assert p.returncode == 1, p.stdout
        m = re.fullmatch(r"scry: session 'full': disk full after (\d+) events: the trace ends at its last complete "
                         r"packet; (\d+) events lost\n", p.stderr)
        assert m, p.stderr
        recorded, lost = int(m[1]), int(m[2])
        s = re.search(r"(\d+) events recorded, (\d+) discarded, (\d+) lost", p.stdout)
        assert s and int(s[1]) == recorded, p.stdout
        assert recorded + int(s[2]) + lost == 2 * 2000000 and lost > 0
        bt = run_babeltrace2(out)
        assert bt.returncode == 0 and bt.stderr == ""
        assert len(bt.stdout.splitlines()) == recorded
        daemon.run("destroy")
    finally:
        daemon.kill()
        subprocess.run(["umount", "-l", str(fs)], check=False)
