"""tests/e2e/test_libscry.py — libscry's examples (examples/c, linked with build/libscry.so)
against `scry record` of the same workload (build/workload/opener: after a byte on stdin,
ROUNDS x open each PATH, close what opened, getppid; the same calls every run), read back
by babeltrace2's bt2: opensnoop's "PID COMM RET PATH" lines are the trace's openat entry
and exit pairs; syscount's per-process counts are the trace's syscall entries; scryctl's
session in scryd (started by hand, as the library never starts one) writes the trace
`scry record` writes.  Bad input: one line and a nonzero exit."""
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import ROOT, pid_alive, read_trace, wait_started
from test_daemon import Daemon

EXAMPLES = ROOT / "build" / "examples"
PATHS = ["/etc/hostname", "/nonexistent-libscry", "/dev/null"]
ROUNDS = 4


def example(name):
    p = EXAMPLES / name
    assert p.exists(), f"{p} missing: run `make` first"
    return str(p)


def opener(workload):
    """The workload, waiting for its byte on stdin."""
    return subprocess.Popen([workload("opener"), str(ROUNDS)] + PATHS, stdin=subprocess.PIPE)


def go(w):
    w.stdin.write(b"x")
    w.stdin.close()
    assert w.wait(timeout=30) == 0


def run_example(name, workload, *args):
    """Run example name on a fresh workload (its pid as the last argument): (stdout, stderr)."""
    w = opener(workload)
    p = subprocess.Popen([example(name)] + list(args) + [str(w.pid)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    line = p.stderr.readline()
    if line != f"{name}: tracing\n":
        w.kill()
        out, err = p.communicate(timeout=60)
        pytest.fail(f"{name} did not start: {line}{err}")
    go(w)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, f"{name} exited {p.returncode}: {err}"
    return out, err, w.pid


def record_workload(scry, workload, out_dir, *events):
    """`scry record -p` of a fresh workload: its pid."""
    w = opener(workload)
    argv = [scry, "record", "-o", str(out_dir), "-p", str(w.pid)]
    for e in events:
        argv += ["-e", e]
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         stdin=subprocess.DEVNULL)
    wait_started(p)
    go(w)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    return w.pid


def openat_calls(events, pid):
    """(comm or None, ret, path) of each openat of pid, entry and exit paired by thread in
    time order."""
    entries, calls = {}, []
    for e in events:
        if e["name"] == "syscall_entry_openat" and (pid is None or e["pid"] == pid):
            entries[e["tid"]] = e
        elif e["name"] == "syscall_exit_openat" and (pid is None or e["pid"] == pid) and e["tid"] in entries:
            en = entries.pop(e["tid"])
            calls.append((en["procname"], e["fields"]["ret"], en["fields"]["filename"]))
    return calls


def test_opensnoop_matches_record(scry, workload, tmp_path):
    out, err, pid = run_example("opensnoop", workload)
    lines = [l.split(" ", 3) for l in out.splitlines()]
    assert lines and all(int(l[0]) == pid for l in lines), out
    got = Counter((l[1], int(l[2]), l[3]) for l in lines)
    assert got[("opener", -2, "/nonexistent-libscry")] == ROUNDS, out
    assert got[("opener", 3, "/etc/hostname")] == ROUNDS, out

    rpid = record_workload(scry, workload, tmp_path / "t", "syscall:openat")
    want = Counter(openat_calls(read_trace(tmp_path / "t").events, rpid))
    assert got == want, f"opensnoop:\n{out}\nscry record: {want}"


def test_syscount_matches_record(scry, workload, tmp_path):
    out, err, pid = run_example("syscount", workload)
    assert ", 0 lost, 0 not counted" in err, err
    rows = [l.split(" ") for l in out.splitlines()]
    assert all(int(r[0]) == pid and r[1] == "opener" for r in rows), out
    got = {r[2]: int(r[3]) for r in rows}
    assert got["openat"] == ROUNDS * len(PATHS) and got["getppid"] == ROUNDS and got["close"] == 2 * ROUNDS, got
    assert got["exit_group"] == 1, got
    counts = [int(r[3]) for r in rows]
    assert counts == sorted(counts, reverse=True), out

    rpid = record_workload(scry, workload, tmp_path / "t", "syscall:*")
    want = Counter(e["name"][len("syscall_entry_"):] for e in read_trace(tmp_path / "t").events
                   if e["pid"] == rpid and e["name"].startswith("syscall_entry_"))
    assert got == dict(want), f"syscount: {got}\nscry record: {dict(want)}"


def test_scryctl_matches_record(scry, workload, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    d = Daemon(scry, tmp_path / "run", home)
    env = d.env
    try:
        # no daemon yet: the library says so, and starts none
        p = subprocess.run([example("scryctl"), "s1", str(tmp_path / "c0"), "1"], capture_output=True,
                           text=True, env=env, timeout=30, stdin=subprocess.DEVNULL)
        assert p.returncode == 1 and p.stdout == ""
        assert p.stderr == f"scryctl: no daemon answers on {tmp_path / 'run'}/control (start scryd, or " \
                           "systemctl start scry-sessiond)\n", p.stderr
        assert not d.pid()

        subprocess.run([str(Path(scry).resolve().parent / "scryd")], env=env, check=True, timeout=60,
                       stdin=subprocess.DEVNULL, capture_output=True)
        w = opener(workload)
        c = subprocess.Popen([example("scryctl"), "s1", str(tmp_path / "c"), str(w.pid)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert c.stderr.readline() == "scryctl: s1 started\n"
        go(w)
        out, err = c.communicate(input="", timeout=60)
        assert c.returncode == 0, err
        assert out.startswith(f"Recording session s1: [inactive]\n    Trace output: {tmp_path / 'c'}\n"), out
        assert "openat (type: syscall) [enabled]" in out and f"Process IDs:          {w.pid}\n" in out, out
        # destroyed: the daemon lists no session s1, its trace stays
        assert "s1" not in d.run("list").stdout
        got = [c[1:] for c in openat_calls(read_trace(tmp_path / "c").events, None)]
        assert Counter(got)[(-2, "/nonexistent-libscry")] == ROUNDS, got

        rpid = record_workload(scry, workload, tmp_path / "t", "syscall:openat")
        want = [c[1:] for c in openat_calls(read_trace(tmp_path / "t").events, rpid)]
        assert got == want

        # bad input: the daemon's reason, one line
        p = subprocess.run([example("scryctl"), "s2", str(tmp_path / "c2"), "1", "nosuch:event"],
                           capture_output=True, text=True, env=env, timeout=30, stdin=subprocess.DEVNULL)
        assert p.returncode == 1 and p.stderr.count("\n") == 1 and p.stderr.startswith("scryctl: "), p.stderr
        assert "s2" not in d.run("list").stdout
    finally:
        d.kill()


def test_opensnoop_bad_pid():
    p = subprocess.run([example("opensnoop"), "999999999"], capture_output=True, text=True, timeout=30,
                       stdin=subprocess.DEVNULL)
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr == "opensnoop: scry_session_track_pid: no process 999999999\n", p.stderr


def test_loss_reaches_callback(workload):
    """A callback stuck at the first event until the process that makes 2 x 150000 getppid
    events has ended (about 13 MB of records): what the 1 MiB rings could not hold reaches the callback as loss
    records, whose sum with the records seen is exactly what the process made, and matches
    stop's counts; each CPU's records in time order."""
    n = 150000
    w = subprocess.Popen([workload("opener"), str(n), "/dev/null"], stdin=subprocess.PIPE)
    p = subprocess.Popen([example("lossy"), str(w.pid)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, stdin=subprocess.DEVNULL)
    assert p.stderr.readline() == "lossy: tracing\n"
    go(w)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    v = dict(kv.split("=") for kv in out.split())
    v = {k: int(x) for k, x in v.items()}
    assert v["losses"] >= 1 and v["lost"] > 0, out
    assert v["records"] + v["lost"] == 2 * n, out
    assert v["records"] == v["events"] and v["lost"] == v["discarded"] + v["dropped"], out
    assert v["disorder"] == 0, out
    assert "unexpected" not in err, err


def test_install_lib_pkg_config(tmp_path):
    """make install-lib into a DESTDIR: the .so, its soname link and dev link, the header and
    scry.pc; the examples built from examples/c/Makefile with pkg-config only, and run; the
    library exports scry_* alone, in version SCRY_0.1."""
    dest, libdir = tmp_path / "root", "/usr/lib/x86_64-linux-gnu"
    p = subprocess.run(["make", "-s", "-C", str(ROOT), "install-lib", f"DESTDIR={dest}", "PREFIX=/usr",
                        f"LIBDIR={libdir}"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lib = dest / libdir.lstrip("/")
    assert os.readlink(lib / "libscry.so") == "libscry.so.0"
    assert os.readlink(lib / "libscry.so.0") == "libscry.so.0.1.0"
    assert (dest / "usr/include/scry/scry.h").read_bytes() == (ROOT / "include/scry/scry.h").read_bytes()
    assert (dest / "usr/share/man/man3/libscry.3").read_bytes() == (ROOT / "dist/libscry.3").read_bytes()
    pc = (lib / "pkgconfig/scry.pc").read_text()
    assert "prefix=/usr\n" in pc and f"libdir={libdir}\n" in pc and "Version: 0.1.0\n" in pc, pc
    soname = subprocess.run(["objdump", "-p", str(lib / "libscry.so.0.1.0")], capture_output=True, text=True).stdout
    assert "SONAME               libscry.so.0" in soname
    syms = subprocess.run(["nm", "-D", "--defined-only", str(lib / "libscry.so.0.1.0")], capture_output=True,
                          text=True, check=True).stdout.split("\n")
    names = [l.split()[-1] for l in syms if l.strip()]
    assert "SCRY_0.1" in names and "scry_session_new@@SCRY_0.1" in names, names
    assert all(n == "SCRY_0.1" or (n.startswith("scry_") and n.endswith("@@SCRY_0.1")) for n in names), names

    env = dict(os.environ, PKG_CONFIG_PATH=str(lib / "pkgconfig"), PKG_CONFIG_SYSROOT_DIR=str(dest))
    out = tmp_path / "bin"
    out.mkdir()
    p = subprocess.run(["make", "-s", "-C", str(ROOT / "examples/c"), f"OUT={out}"], capture_output=True,
                       text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    run = subprocess.run([str(out / "opensnoop"), "999999999"], capture_output=True, text=True, timeout=30,
                         env=dict(os.environ, LD_LIBRARY_PATH=str(lib)))
    assert (run.returncode, run.stderr) == (1, "opensnoop: scry_session_track_pid: no process 999999999\n")
    needed = subprocess.run(["objdump", "-p", str(out / "syscount")], capture_output=True, text=True).stdout
    assert "NEEDED               libscry.so.0" in needed


def test_relay_output(workload, tmp_path):
    """A session streamed to Debian's lttng-relayd (options.relay_url, relay_name) and handed
    to the callback: the relay's trace, read by bt2, holds exactly the openat entries and
    exits the callback got, in order; nothing lost.  A malformed URL: one line."""
    from relayd import Relayd
    r = Relayd(tmp_path)
    try:
        w = opener(workload)
        p = subprocess.Popen([example("relayed"), r.url, "lib", str(w.pid)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        assert p.stderr.readline() == "relayed: tracing\n"
        go(w)
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        lines = out.splitlines()
        assert lines[-1].startswith("relay_lost=0 events="), out
        got = lines[:-1]
        assert got.count("ENTRY /nonexistent-libscry") == ROUNDS and got.count("EXIT -2") == ROUNDS, out
        tr = read_trace(r.trace(os.uname().nodename, "lib") / "kernel")
        want = []
        for e in sorted(tr.events, key=lambda e: e["ts"]):
            if e["name"] == "syscall_entry_openat":
                want.append(f"ENTRY {e['fields']['filename']}")
            elif e["name"] == "syscall_exit_openat":
                want.append(f"EXIT {e['fields']['ret']}")
        assert Counter(got) == Counter(want) and len(want) == 2 * ROUNDS * len(PATHS), (got, want)
    finally:
        r.stop()
    p = subprocess.run([example("relayed"), "net://", "lib", "1"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and p.stderr.startswith("relayed: scry_session_new: relay_url: ") and \
        p.stderr.count("\n") == 1, p.stderr


def run_opener_once(workload, path):
    w = subprocess.Popen([workload("opener"), "1", path], stdin=subprocess.PIPE)
    go(w)
    return w.pid


def test_ctl_verbs(scry, workload, tmp_path):
    """The control part's other verbs (tests/api/ctl_verbs.c) on scryd: a snapshot session's
    snapshot holds the openat of the process run before it and not of the one after; a
    rotated session's two chunks (its filter: /etc files) hold one process each; list shows
    both sessions stopped; a verb the daemon refuses (status without a current session,
    start of a destroyed session) gives its reason."""
    home = tmp_path / "home"
    home.mkdir()
    d = Daemon(scry, tmp_path / "run", home)
    try:
        subprocess.run([str(Path(scry).resolve().parent / "scryd")], env=d.env, check=True, timeout=60,
                       stdin=subprocess.DEVNULL, capture_output=True)
        out_dir = tmp_path / "t"
        out_dir.mkdir()
        c = subprocess.Popen([example("ctl_verbs"), str(out_dir)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=d.env)
        assert c.stderr.readline() == "step 1\n"
        a = run_opener_once(workload, "/etc/hostname")
        c.stdin.write("\n")
        c.stdin.flush()
        assert c.stderr.readline() == "step 2\n"
        b = run_opener_once(workload, "/etc/hostname")
        out, err = c.communicate(input="\n", timeout=60)
        assert c.returncode == 0, err
        assert "  1) SNAP [stopped]\n" in out and "  2) ROT [stopped]\n" in out, out
        assert "status: no current session: create one (scry create) or choose one (scry set-session NAME)\n" in out
        assert "start: session 'SNAP' not found (scry list shows the sessions)\n" in out

        def opens(path):
            return {e["pid"] for e in read_trace(path).events
                    if e["name"] == "syscall_entry_openat" and e["procname"] == "opener"
                    and e["fields"]["filename"] == "/etc/hostname"}

        snaps = list((out_dir / "snap").glob("snapshot-1-*"))
        assert len(snaps) == 1, list((out_dir / "snap").iterdir())
        assert opens(snaps[0] / "kernel") == {a}
        chunks = sorted((out_dir / "rot" / "archives").iterdir(), key=lambda p: p.name.rsplit("-", 1)[1])
        assert [p.name.rsplit("-", 1)[1] for p in chunks] == ["0", "1"], chunks
        assert opens(chunks[0] / "kernel") == {a} and opens(chunks[1] / "kernel") == {b}
        assert "ROT" not in d.run("list").stdout
    finally:
        d.kill()


def test_opensnoop_system_wide_until_sigint(workload):
    """Without a pid, the whole machine until SIGINT (the stop flag): the calls of a process
    run meanwhile are printed, drained at stop."""
    import signal
    import time
    p = subprocess.Popen([example("opensnoop")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         stdin=subprocess.DEVNULL)
    assert p.stderr.readline() == "opensnoop: tracing\n"
    pid = run_opener_once(workload, "/nonexistent-libscry")
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    assert f"{pid} opener -2 /nonexistent-libscry\n" in out, out[-2000:]


@pytest.mark.parametrize("args,code,msg", [
    (["syscall:nosuch"], -2, "scry_session_start: unknown event 'syscall:nosuch'\n"),
    (["nosuch:thing"], -2, "scry_session_start: unknown event 'nosuch:thing'\n"),
    (["syscall:openat", "filename ==="], -22, "scry_session_start: filter of rule syscall:openat: filter: '=' "
     "is not an operator (did you mean '=='?)\nfilename ===\n           ^\n"),
    (["syscall:openat", "ret < 0"], 0, "started\nrun_for=1 after 200 ms\n"),
])
def test_start_refusals(args, code, msg):
    """What start refuses, as a program sees it: the errno and the reason (a filter's syntax
    error with its place); nothing else printed."""
    p = subprocess.run([example("badstart")] + args, capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    assert (p.returncode, p.stdout, p.stderr) == (1 if code else 0, f"{code} {msg}", ""), p


def test_header_map_man_agree():
    """Every function the header declares is exported by the version script and named in
    libscry(3)'s synopsis, and nothing else is; the page renders without a groff warning."""
    import re
    header = (ROOT / "include/scry/scry.h").read_text()
    declared = set(re.findall(r"\b(scry_[a-z_]+)\(", re.sub(r"/\*.*?\*/", "", header, flags=re.S)))
    mapped = set(re.findall(r"^\t\t(scry_[a-z_]+);$", (ROOT / "src/api/libscry.map").read_text(), re.M))
    page = (ROOT / "dist/libscry.3").read_text()
    synopsis = page[page.index(".SH SYNOPSIS"):page.index(".SH DESCRIPTION")]
    named = set(re.findall(r"\b(scry_[a-z_]+)\(", synopsis))
    assert declared == mapped == named, (declared ^ mapped, declared ^ named)
    p = subprocess.run(["groff", "-ww", "-man", "-Tutf8", "-z", str(ROOT / "dist/libscry.3")], capture_output=True,
                       text=True)
    assert p.returncode == 0 and p.stderr == "", p.stderr


@pytest.mark.parametrize("compiler,std,suffix", [("gcc", "c99", "c"), ("g++", "c++11", "cc")])
def test_header_c99_cxx11(tmp_path, compiler, std, suffix):
    """The public header alone, pedantic C99 and C++11 with every warning an error: its
    initialisers, extern "C" (the program links and calls into build/libscry.so)."""
    src = tmp_path / f"h.{suffix}"
    src.write_text('#include <scry/scry.h>\n#include <stdio.h>\n#include <string.h>\n'
                   'int main(void) {\n'
                   '  struct scry_session_options o = SCRY_SESSION_OPTIONS_INIT;\n'
                   '  struct scry_session_stats st = SCRY_SESSION_STATS_INIT;\n'
                   '  struct scry_channel_options co = SCRY_CHANNEL_OPTIONS_INIT;\n'
                   '  char err[128];\n'
                   '  o.buffer_size = 3;\n'
                   '  if (scry_session_new(&o, err, sizeof(err)) || !strstr(err, "not a power of two")) return 1;\n'
                   '  printf("%s %d %d %d\\n", scry_version(), (int)(o.size == sizeof(o)), (int)(st.size == sizeof(st)),\n'
                   '         (int)(co.size == sizeof(co) && !co.overwrite && !co.switch_timer_us));\n'
                   '  return 0;\n}\n')
    exe = tmp_path / "h"
    p = subprocess.run([compiler, f"-std={std}", "-Wall", "-Wextra", "-pedantic", "-Werror", f"-I{ROOT / 'include'}",
                        "-o", str(exe), str(src), f"-L{ROOT / 'build'}", "-lscry",
                        f"-Wl,-rpath,{ROOT / 'build'}"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert subprocess.run([str(exe)], capture_output=True, text=True).stdout == "0.1.0 1 1 1\n"


def test_uid_tracker(workload):
    """A system-wide session with the uid tracker 65534: the openat of the process run as
    nobody is there, with its uid context, and not that of the same program run as root; the
    events' contexts listed by scry_event_context_count/_name."""
    import signal
    import time
    p = subprocess.Popen([example("uidsnoop"), "65534"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, stdin=subprocess.DEVNULL)
    assert p.stderr.readline() == "uidsnoop: tracing\n"
    w = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", workload("opener"), "1",
                          "/nonexistent-libscry-nobody"], stdin=subprocess.PIPE)
    go(w)
    root = run_opener_once(workload, "/nonexistent-libscry-root")
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    lines = out.splitlines()
    assert lines[0] == "CTX pid tid procname uid", out[:200]   # the defaults, then the one added
    lines = lines[1:]
    assert f"{w.pid} 65534 /nonexistent-libscry-nobody" in lines, out[-2000:]
    assert not [l for l in lines if "-root" in l or l.startswith(f"{root} ")], out[-2000:]
    assert all(l.split(" ")[1] == "65534" for l in lines if not l.startswith("LOST")), out[-2000:]
