"""tests/e2e/test_security.py — a root tracer people can trust (issue 24).

scryd serves root and the members of a tracing group; a session belongs to its creator, who
alone (with root) sees and acts on it, and every file of it — its trace, its save file, what
load and --metrics read — is made or read with the creator's rights, relative to the
directory the kernel says the caller has.  No path can redirect root: trace directories are
made through directory handles (util/dirh.c), an existing output is taken only when it is an
empty directory of the caller, and what a failed start removes is exactly what it made.
Traces are private: 0750 directories and 0640 files whatever the umask.

Run as root; the unprivileged member is a user and a group made here (useradd/groupadd)
and removed at the end."""
import grp
import os
import pwd
import shutil
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from test_daemon import Daemon, read_reply, MAGIC

USER, GROUP = "scrysec", "scrysecgrp"


@pytest.fixture(scope="module")
def member():
    """An unprivileged user in a group of its own that scryd serves: (name, uid, gid, home)."""
    subprocess.run(["pkill", "-KILL", "-u", USER], capture_output=True)
    subprocess.run(["userdel", USER], capture_output=True)
    subprocess.run(["groupdel", GROUP], capture_output=True)
    subprocess.run(["groupadd", GROUP], check=True)
    home = Path(tempfile.mkdtemp(prefix="scrysec-home-", dir="/tmp"))
    os.rmdir(home)
    subprocess.run(["useradd", "-M", "-d", str(home), "-G", GROUP, "-s", "/bin/sh", USER], check=True)
    home.mkdir(mode=0o700)
    pw = pwd.getpwnam(USER)
    os.chown(home, pw.pw_uid, pw.pw_gid)
    yield USER, pw.pw_uid, pw.pw_gid, home
    subprocess.run(["pkill", "-KILL", "-u", USER], capture_output=True)
    time.sleep(0.2)
    subprocess.run(["userdel", USER], capture_output=True)
    subprocess.run(["groupdel", GROUP], capture_output=True)
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def gdaemon(scry, member):
    """A daemon serving root and GROUP, its run directory reachable by the member."""
    top = Path(tempfile.mkdtemp(prefix="scry-run-", dir="/tmp"))
    os.chmod(top, 0o755)
    rhome = top / "roothome"
    rhome.mkdir()
    d = Daemon(scry, top / "run", rhome)
    subprocess.run([scry, "daemon", "--group", GROUP], env=d.env, check=True, capture_output=True,
                   stdin=subprocess.DEVNULL, timeout=60)
    yield d
    d.kill()
    shutil.rmtree(top, ignore_errors=True)


def as_member(d, member, *args, check=False, cwd=None):
    """scry ARGS run by the member (runuser), in its home unless cwd."""
    name, uid, gid, home = member
    env = dict(d.env, HOME=str(home))
    p = subprocess.run(["runuser", "-u", name, "--", d.scry] + [str(a) for a in args], capture_output=True,
                       text=True, env=env, timeout=120, stdin=subprocess.DEVNULL, cwd=cwd or home)
    if check:
        assert p.returncode == 0, f"scry {args} as {name} exited {p.returncode}:\n{p.stderr}"
    return p


def one_line_refusal(p, *words):
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert p.stderr.startswith("scry") and p.stderr.count("\n") == 1, p.stderr
    for w in words:
        assert w in p.stderr, (w, p.stderr)


def modes_of(top):
    """Every directory's and file's (path, mode, uid) under top, top included."""
    out = [(top, stat.S_IMODE(os.lstat(top).st_mode), os.lstat(top).st_uid)]
    for root, dirs, files in os.walk(top):
        for n in dirs + files:
            st = os.lstat(os.path.join(root, n))
            out.append((os.path.join(root, n), stat.S_IMODE(st.st_mode), st.st_uid))
    return out


def test_sessions_belong_to_their_creator(gdaemon, member, tmp_path, bt2_read):
    name, uid, gid, home = member
    d = gdaemon
    d.run("create", "rootsess", "-o", tmp_path / "rs")
    d.run("enable-event", "-k", "--syscall", "getppid", "-s", "rootsess")
    # the member neither sees nor touches root's session
    p = as_member(d, member, "list", check=True)
    assert "rootsess" not in p.stdout and "Currently no available recording session" in p.stdout
    for verb in (["destroy", "rootsess"], ["start", "rootsess"], ["view", "rootsess"],
                 ["set-session", "rootsess"], ["save", "rootsess"], ["rotate", "rootsess"],
                 ["enable-event", "-k", "--syscall", "openat", "-s", "rootsess"],
                 ["track", "-k", "--pid", "1", "-s", "rootsess"],
                 ["snapshot", "record", "-s", "rootsess"]):
        one_line_refusal(as_member(d, member, *verb), "session 'rootsess' not found")
    # list NAME of a session it cannot see is a list of kernel events (as without a daemon)
    p = as_member(d, member, "list", "rootsess")
    assert "Trace output" not in p.stdout and "getppid" not in p.stdout, p.stdout
    as_member(d, member, "destroy", "-a", check=True)
    assert "rootsess [inactive]" in d.run("list").stdout

    # the member's own session: its default output in its home, every file its own, private
    as_member(d, member, "create", "mine", check=True)
    as_member(d, member, "enable-event", "-k", "--syscall", "openat,getppid", check=True)
    as_member(d, member, "start", check=True)
    subprocess.run(["runuser", "-u", name, "--", "cat", "/etc/hostname"], check=True, capture_output=True)
    p = as_member(d, member, "stop", check=True)
    trace = Path(p.stdout.strip().split("trace in ")[-1])
    assert trace.parent == home / "scry-traces", trace
    seen = modes_of(trace)
    assert len(seen) >= 6, seen            # DIR, kernel/, index/, metadata, streams, indexes
    for path, mode, owner in seen:
        want = 0o750 if os.path.isdir(path) else 0o640
        assert (mode, owner) == (want, uid), (path, oct(mode), owner)
    opened = [e for e in bt2_read(trace).events if e["name"] == "syscall_entry_openat"
              and e["fields"].get("filename") == "/etc/hostname"]
    assert opened, "the member's cat of /etc/hostname is not in its trace"
    # root sees both and whose they are; it may act on the member's
    lst = d.run("list").stdout
    assert "rootsess [inactive]" in lst and "mine [stopped]" in lst, lst
    assert f"Owner: {name} (uid {uid})" in lst and "Owner: root (uid 0)" in lst, lst
    d.run("destroy", "mine")
    assert "mine" not in as_member(d, member, "list", check=True).stdout


def test_files_with_the_callers_rights(gdaemon, member, tmp_path):
    name, uid, gid, home = member
    d = gdaemon
    victim = Path("/root") / f"scry-victim-{os.getpid()}.txt"
    secret = Path("/root") / f"scry-secret-{os.getpid()}.lttng"
    victim.write_text("root's own\n")
    os.chmod(victim, 0o600)
    try:
        as_member(d, member, "create", "s1", "-o", home / "t1", check=True)
        # save over a file only root may write: the member's error, the file intact
        p = as_member(d, member, "save", "s1", "-o", victim, "-f")
        one_line_refusal(p, "Permission denied")
        assert victim.read_text() == "root's own\n" and stat.S_IMODE(victim.stat().st_mode) == 0o600
        # a trace where only root may write: refused at create, nothing made
        p = as_member(d, member, "create", "s2", "-o", f"/root/scry-sec-{os.getpid()}")
        one_line_refusal(p, "cannot write in '/root'", "Permission denied")
        assert not Path(f"/root/scry-sec-{os.getpid()}").exists()
        # a missing parent: refused at create, not at start
        p = as_member(d, member, "create", "s3", "-o", home / "missing" / "t")
        one_line_refusal(p, "missing")
        # load of a file only root may read: refused, no session
        d.run("save", "-a", "-o", tmp_path) if False else None
        secret.write_text("<sessions><session><name>stolen</name></session></sessions>\n")
        os.chmod(secret, 0o600)
        p = as_member(d, member, "load", "-i", secret)
        one_line_refusal(p, "Permission denied")
        assert "stolen" not in d.run("list").stdout
        # a metrics config only root may read: refused, its text never echoed
        p = as_member(d, member, "create", "s4", "-o", home / "t4", "--metrics", victim)
        one_line_refusal(p, "Permission denied")
        assert "root's own" not in p.stderr
        # the member's save lands in its home, its own, 0640
        as_member(d, member, "save", "s1", check=True)
        saved = home / ".scry" / "sessions" / "s1.lttng"
        st = saved.stat()
        assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (uid, 0o640), (st.st_uid, oct(st.st_mode))
        # --group: one of the member's groups gives its trace that group; another is refused
        one_line_refusal(as_member(d, member, "create", "s6", "-o", home / "t6", "--group", "root"),
                         "not in that group")
        as_member(d, member, "create", "s7", "-o", home / "t7", "--group", GROUP, check=True)
        as_member(d, member, "enable-event", "-k", "--syscall", "getppid", check=True)
        as_member(d, member, "start", check=True)
        as_member(d, member, "stop", check=True)
        ggid = grp.getgrnam(GROUP).gr_gid
        for path, mode, owner in modes_of(home / "t7"):
            assert (owner, os.lstat(path).st_gid) == (uid, ggid), path
        # a port below 1024 is root's
        p = as_member(d, member, "create", "s5", "-o", home / "t5", "--metrics",
                      Path(__file__).resolve().parents[2] / "examples" / "metrics.yaml", "--listen", "127.0.0.1:99")
        one_line_refusal(p, "below 1024")
    finally:
        victim.unlink(missing_ok=True)
        secret.unlink(missing_ok=True)


def test_relative_paths_against_the_kernels_cwd(gdaemon, member):
    """A relative -o is resolved against the directory the kernel says the caller has, not
    the cwd= its request claims."""
    name, uid, gid, home = member
    d = gdaemon
    code = f"""
import socket, struct, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_daemon import read_reply
p = b"".join(s.encode() + b"\\0" for s in ["cwd=/root", "home=/root", "arg=create", "arg=forged", "arg=-o",
                                           "arg=reltrace"])
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
    s.connect({str(d.rundir / "control")!r})
    s.sendall(struct.pack("<IHHI", {MAGIC}, 1, 1, len(p)) + p)
    print(dict(read_reply(s)).get("out", ""), dict(read_reply.__defaults__ or {{}}))
"""
    p = subprocess.run(["runuser", "-u", name, "--", sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=home, timeout=60)
    assert p.returncode == 0, p.stderr
    assert f"Traces will be output to {home}/reltrace" in p.stdout, p.stdout
    lst = d.run("list", "forged").stdout
    assert f"{home}/reltrace" in lst and "/root/reltrace" not in lst, lst


def test_modes_whatever_the_umask(scry, tmp_path, member):
    gid = grp.getgrnam(GROUP).gr_gid
    for umask, group in (("000", None), ("022", None), ("077", GROUP)):
        out = tmp_path / f"t{umask}"
        opt = f"--group {group}" if group else ""
        p = subprocess.run(["sh", "-c", f"umask {umask}; exec {scry} record -q {opt} -o {out} -e syscall:getppid "
                            "-- /bin/true"], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        seen = modes_of(out)
        assert len(seen) >= 6, seen
        for path, mode, owner in seen:
            want = 0o750 if os.path.isdir(path) else 0o640
            assert mode == want, (umask, path, oct(mode))
            assert os.lstat(path).st_gid == (gid if group else 0), (path, os.lstat(path).st_gid)
    p = subprocess.run([scry, "record", "--group", "no-such-group-here", "-o", tmp_path / "x", "--", "/bin/true"],
                       capture_output=True, text=True, timeout=60)
    one_line_refusal(p, "no group 'no-such-group-here'")
    assert not (tmp_path / "x").exists()


def test_outputs_that_are_not_root_s_refused(scry, member, tmp_path):
    name, uid, gid, home = member
    pub = tmp_path / "pub"
    pub.mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("victim\n")
    # a symlink as the output: not followed
    (pub / "lnk").symlink_to(victim)
    p = subprocess.run([scry, "record", "-o", pub / "lnk", "-e", "syscall:getppid", "--", "/bin/true"],
                       capture_output=True, text=True, timeout=60)
    one_line_refusal(p, "not a directory")
    assert sorted(os.listdir(victim)) == ["keep"]
    # an empty directory of another user: not root's to write a private trace in
    (pub / "theirs").mkdir()
    os.chown(pub / "theirs", uid, gid)
    p = subprocess.run([scry, "record", "-o", pub / "theirs", "-e", "syscall:getppid", "--", "/bin/true"],
                       capture_output=True, text=True, timeout=60)
    one_line_refusal(p, f"belongs to uid {uid}")
    assert os.listdir(pub / "theirs") == []
    # strace's -o: a file of another user, or a symlink of another user, is not written
    (pub / "out.txt").write_text("theirs\n")
    os.chown(pub / "out.txt", uid, gid)
    p = subprocess.run([scry, "trace", "-o", pub / "out.txt", "--", "/bin/true"], capture_output=True, text=True,
                       timeout=60)
    one_line_refusal(p, f"belongs to uid {uid}")
    assert (pub / "out.txt").read_text() == "theirs\n"
    os.symlink(victim / "keep", pub / "ln.txt")
    os.lchown(pub / "ln.txt", uid, gid)
    p = subprocess.run([scry, "trace", "-o", pub / "ln.txt", "--", "/bin/true"], capture_output=True, text=True,
                       timeout=60)
    one_line_refusal(p, "symlink of another user")
    assert (victim / "keep").read_text() == "victim\n"


ATTACKER = r"""
import os, sys, time
pub, victim, stop = sys.argv[1:4]
out = os.path.join(pub, "out")
n = 0
while not os.path.exists(stop):
    n += 1
    for act in range(6):
        try:
            if act == 0:
                os.symlink(victim, out)                  # the output itself a symlink
            elif act == 1:
                os.unlink(out)
            elif act == 2:
                os.rename(out, "%s.moved%d" % (out, n))  # what scry made, moved away...
            elif act == 3:
                os.symlink(victim, out)                  # ...and a symlink in its place
            elif act == 4:
                os.unlink(out)
                os.mkdir(out)                            # the output the attacker's own...
            elif act == 5:
                os.symlink(victim, os.path.join(out, "kernel"))   # ...its kernel/ the victim
        except OSError:
            pass
"""


def snapshot_tree(top):
    return sorted((str(p.relative_to(top)), p.read_bytes() if p.is_file() else None, p.stat().st_mtime_ns)
                  for p in top.rglob("*"))


@pytest.fixture
def open_tmp():
    """A directory every user can reach (pytest's tmp_path is under a 0700 directory)."""
    top = Path(tempfile.mkdtemp(prefix="scry-sec-", dir="/tmp"))
    os.chmod(top, 0o755)
    yield top
    shutil.rmtree(top, ignore_errors=True)


def test_symlink_swaps_never_redirect_root(scry, member, open_tmp):
    """200 recordings into a directory the member owns while it swaps the output and its
    kernel/ for symlinks to a victim directory; half of them fail to start (their rings
    cannot be made: RLIMIT_NOFILE 12) after the directory was made.  The victim is intact
    every time, and nothing is written outside the output (nor outside pub/)."""
    name, uid, gid, home = member
    tmp_path = open_tmp
    pub = tmp_path / "pub"
    pub.mkdir()
    os.chown(pub, uid, gid)
    victim = tmp_path / "victim"
    (victim / "kernel" / "index").mkdir(parents=True)
    for f in ("a", "kernel/metadata", "kernel/channel0_0", "kernel/index/channel0_0.idx"):
        (victim / f).write_text(f"victim {f}\n")
    before = snapshot_tree(victim)
    stop = tmp_path / "stop"
    attacker = subprocess.Popen(["runuser", "-u", name, "--", sys.executable, "-c", ATTACKER, str(pub), str(victim),
                                 str(stop)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs = failed = succeeded = 0
    try:
        for i in range(200):
            prefix = ["prlimit", "--nofile=12:12"] if i % 2 else []
            p = subprocess.run(prefix + [scry, "record", "-q", "-o", pub / "out", "-e", "syscall:getppid", "--",
                                         "/bin/true"], capture_output=True, text=True, timeout=60)
            runs += 1
            failed += p.returncode != 0
            succeeded += p.returncode == 0
            assert snapshot_tree(victim) == before, f"run {i}: the victim changed: {p.stderr}"
    finally:
        stop.touch()
        try:
            attacker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            attacker.kill()
            raise
    # the attacker ran (it could reach pub/): scry's outputs were moved aside
    assert list(pub.glob("out.moved*")), sorted(os.listdir(pub))
    assert snapshot_tree(victim) == before
    print(f"runs {runs}: {succeeded} recorded, {failed} failed")
    assert runs == 200 and failed >= 100 and succeeded > 0, (runs, failed, succeeded)
    # every file scry wrote is under pub/, in an output it made (root's, 0750), never the victim
    for path, mode, owner in modes_of(pub):
        if owner == 0:
            assert path.startswith(str(pub / "out")), path
            assert mode == (0o750 if os.path.isdir(path) and not os.path.islink(path) else 0o640), (path, oct(mode))
