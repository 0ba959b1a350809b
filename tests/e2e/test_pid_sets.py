"""tests/e2e/test_pid_sets.py — per-process event sets (issue 13, item 6) driven through the
daemon: `enable-event -k --pid PID` records events for that process only (every thread of it)
while the channel's own events go on for every process, added and removed on a started
session; a set given before start (in a channel of per-process events only, a tracepoint);
the bound on sets (`create --max-pid-sets`): the least recently used set evicted, said by
enable-event, `list`/`status` and the daemon's log, counted; a set ending with its process;
`save` saying in one line that the sets are not saved (the file still validates against
session.xsd); bad input refused in one line.  The workloads are two (or three) steppers
(tests/workload/stepper.c) told which syscalls to make; the traces are read by babeltrace2
and bt2, and every check is exact: an event for the set's process with its values, never one
for the other process."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from test_daemon import XSD, daemon, read_events  # noqa: F401 (the fixture)


class Stepper:
    """A stepper process: step('open /x') makes the syscall and waits for its "ok"."""

    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.pid = json.loads(self.p.stdout.readline())["pid"]

    def step(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        assert self.p.stdout.readline() == "ok\n"

    def end(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            self.p.wait(timeout=10)


@pytest.fixture
def steppers(workload):
    made = []

    def make(n):
        made.extend(Stepper(workload("stepper")) for _ in range(n))
        return made[-n:]

    yield make
    for s in made:
        if s.p.poll() is None:
            s.p.kill()
            s.p.wait()


def files(tmp_path, *names):
    out = []
    for n in names:
        f = tmp_path / n
        f.write_text(n)
        out.append(str(f))
    return out


def opened(events, pid):
    return [e["fields"]["filename"] for e in events if e["name"] == "syscall_entry_openat" and e["pid"] == pid]


def renamed(events, pid):
    return [e["fields"]["newcomm"] for e in events if e["name"] == "task_rename" and e["pid"] == pid]


def one_line_error(p, *words):
    assert p.returncode == 1 and p.stdout == "" and p.stderr.startswith("scry: ") and p.stderr.count("\n") == 1, \
        (p.returncode, p.stdout, p.stderr)
    for w in words:
        assert w in p.stderr, p.stderr


def test_pid_set_added_and_removed_while_running(daemon, tmp_path, steppers, bt2_read):
    out = tmp_path / "trace"
    a, b = steppers(2)
    a1, b1, a2, b2 = files(tmp_path, "a1", "b1", "a2", "b2")
    daemon.run("create", "ps", "-o", out)
    daemon.run("enable-event", "-k", "--syscall", "getppid")        # for every process
    daemon.run("add-context", "-k", "-t", "pid")
    daemon.run("start")
    # a per-process set for A, on the started session
    p = daemon.run("enable-event", "-k", "--pid", a.pid, "--syscall", "openat")
    assert p.stdout == f"Kernel syscall openat enabled in channel channel0 for process {a.pid}\n", p.stdout
    daemon.run("enable-event", "-k", "--pid", a.pid, "task_rename")
    lst = daemon.run("list", "ps").stdout
    assert "Per-process event sets: 1 of at most 64, 0 evicted" in lst, lst
    assert f"  PID {a.pid}: " in lst and "syscall:openat (type: syscall) [enabled, channel channel0]" in lst \
        and "task_rename (type: tracepoint) [enabled, channel channel0]" in lst, lst
    for s, f, n in ((a, a1, "pa1"), (b, b1, "pb1")):
        s.step(f"open {f}")
        s.step(f"name {n}")
        s.step("getppid")
    # openat removed from A's set while it runs: task_rename stays
    p = daemon.run("disable-event", "-k", "--pid", a.pid, "--syscall", "openat")
    assert p.stdout == f"Kernel syscall openat disabled in channel channel0 for process {a.pid}\n", p.stdout
    for s, f, n in ((a, a2, "pa2"), (b, b2, "pb2")):
        s.step(f"open {f}")
        s.step(f"name {n}")
        s.step("getppid")
    # the set's last rule removed: the set goes
    daemon.run("disable-event", "-k", "--pid", a.pid, "task_rename")
    a.step("name pa3")
    assert "Per-process event sets" not in daemon.run("list", "ps").stdout
    daemon.run("stop")
    ev = read_events(bt2_read, out).events
    assert opened(ev, a.pid) == [a1], opened(ev, a.pid)
    assert opened(ev, b.pid) == []
    assert renamed(ev, a.pid) == ["pa1", "pa2"] and renamed(ev, b.pid) == []
    assert not [e for e in ev if e["name"] in ("syscall_exit_openat", "task_rename") and e["pid"] not in (a.pid,)]
    rets = [e["fields"]["ret"] for e in ev if e["name"] == "syscall_exit_openat" and e["pid"] == a.pid]
    assert len(rets) == 1 and rets[0] >= 0, rets      # the file opened: a descriptor
    # the channel's own event, for both (getppid returns this test's pid)
    for s in (a, b):
        rets = [e["fields"]["ret"] for e in ev if e["name"] == "syscall_exit_getppid" and e["pid"] == s.pid]
        assert rets == [os.getpid()] * 2, (s.pid, rets)
    daemon.run("destroy", "-a")


def test_pid_set_before_start_in_its_own_channel(daemon, tmp_path, steppers, bt2_read):
    """A set given before start, in a channel of per-process events only (a tracepoint), then
    the tracepoint enabled for every process and disabled again: the set keeps it."""
    out = tmp_path / "trace"
    a, b = steppers(2)
    daemon.run("create", "pre", "-o", out)
    daemon.run("enable-channel", "-k", "all,mine")
    daemon.run("enable-event", "-k", "-c", "all", "--syscall", "getppid")
    # a channel whose only events are per-process ones, given before start
    daemon.run("enable-event", "-k", "-c", "mine", "--pid", a.pid, "task_rename")
    daemon.run("add-context", "-k", "-t", "pid")
    daemon.run("start")
    for s, n in ((a, "qa"), (b, "qb")):
        s.step(f"name {n}")
        s.step("getppid")
    # enabled for every process in that channel too, then disabled for them: A's set keeps it
    daemon.run("enable-event", "-k", "-c", "mine", "task_rename")
    for s, n in ((a, "ra"), (b, "rb")):
        s.step(f"name {n}")
    daemon.run("disable-event", "-k", "-c", "mine", "task_rename")
    for s, n in ((a, "sa"), (b, "sb")):
        s.step(f"name {n}")
    daemon.run("stop")
    tr = read_events(bt2_read, out)
    mine = [(e["pid"], e["fields"]["newcomm"]) for e in tr.events if e["name"] == "task_rename"
            and e["pid"] in (a.pid, b.pid)]
    assert mine == [(a.pid, "qa"), (a.pid, "ra"), (b.pid, "rb"), (a.pid, "sa")], mine
    assert {e["pid"] for e in tr.events if e["name"] == "syscall_exit_getppid"} >= {a.pid, b.pid}
    daemon.run("destroy", "-a")



def test_set_is_the_process_of_a_thread_not_its_children(daemon, tmp_path, bt2_read):
    """--pid TID names TID's process: every thread of it records; a child it forks does not."""
    out = tmp_path / "trace"
    fmain, fthread, fchild = files(tmp_path, "main", "thread", "child")
    code = (
        "import os, sys, threading\n"
        "go, tid = threading.Event(), []\n"
        "def other():\n"
        "    tid.append(threading.get_native_id()); go.wait()\n"
        "    os.close(os.open(sys.argv[2], os.O_RDONLY))\n"
        "t = threading.Thread(target=other); t.start()\n"
        "while not tid: pass\n"
        "print(os.getpid(), tid[0], flush=True)\n"
        "sys.stdin.readline()\n"
        "os.close(os.open(sys.argv[1], os.O_RDONLY)); go.set(); t.join()\n"
        "c = os.fork()\n"
        "if c == 0:\n"
        "    os.close(os.open(sys.argv[3], os.O_RDONLY)); os._exit(0)\n"
        "os.waitpid(c, 0)\n"
        "print('done', flush=True)\n")
    p = subprocess.Popen(["/usr/bin/python3", "-c", code, fmain, fthread, fchild], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    try:
        tgid, tid = map(int, p.stdout.readline().split())
        assert tid != tgid
        daemon.run("create", "thr", "-o", out)
        daemon.run("enable-event", "-k", "--syscall", "getppid")
        daemon.run("add-context", "-k", "-t", "pid", "-t", "tid")
        daemon.run("start")
        r = daemon.run("enable-event", "-k", "--pid", tid, "--syscall", "openat")
        assert r.stdout == f"Kernel syscall openat enabled in channel channel0 for process {tid}\n"
        assert f"  PID {tgid}: " in daemon.run("list", "thr").stdout
        p.stdin.write("go\n")
        p.stdin.flush()
        assert p.stdout.readline() == "done\n"
        p.wait(timeout=10)
    finally:
        if p.poll() is None:
            p.kill()
    daemon.run("stop")
    ev = read_events(bt2_read, out).events
    mine = [(e["tid"], e["fields"]["filename"]) for e in ev
            if e["name"] == "syscall_entry_openat" and e["fields"]["filename"] in (fmain, fthread, fchild)]
    assert sorted(mine) == sorted([(tgid, fmain), (tid, fthread)]), mine
    assert all(e["pid"] == tgid for e in ev if e["name"] == "syscall_entry_openat"), \
        {e["pid"] for e in ev if e["name"] == "syscall_entry_openat"}
    daemon.run("destroy", "-a")


def test_least_recently_used_set_evicted_and_counted(daemon, tmp_path, steppers, bt2_read):
    out = tmp_path / "trace"
    a, b, c = steppers(3)
    fa, fb, fc = files(tmp_path, "fa", "fb", "fc")
    daemon.run("create", "lru", "-o", out, "--max-pid-sets", "2")
    daemon.run("enable-event", "-k", "--syscall", "getppid")
    daemon.run("add-context", "-k", "-t", "pid")
    daemon.run("start")
    daemon.run("enable-event", "-k", "--pid", a.pid, "--syscall", "openat")
    daemon.run("enable-event", "-k", "--pid", b.pid, "--syscall", "openat")
    a.step(f"open {fa}")        # A records an event: B is now the least recently used
    p = daemon.run("enable-event", "-k", "--pid", c.pid, "--syscall", "openat")
    assert p.stdout == (f"Per-process event set of process {b.pid} evicted (the least recently used: at most 2 sets)\n"
                        f"Kernel syscall openat enabled in channel channel0 for process {c.pid}\n"), p.stdout
    for s, f in ((a, fa), (b, fb), (c, fc)):
        s.step(f"open {f}")
    lst = daemon.run("status").stdout
    assert "Per-process event sets: 2 of at most 2, 1 evicted (least recently used), 0 ended" in lst, lst
    assert f"  PID {a.pid}: 4 events" in lst and f"  PID {c.pid}: 2 events" in lst and f"PID {b.pid}:" not in lst, lst
    log = (daemon.rundir / "scryd.log").read_text()
    assert f"session lru: per-process event set of process {b.pid} evicted" in log, log
    # a set ends with its process
    c.end()
    lst = daemon.run("status").stdout
    assert "Per-process event sets: 1 of at most 2, 1 evicted (least recently used), 1 ended" in lst, lst
    daemon.run("stop")
    ev = read_events(bt2_read, out).events
    assert opened(ev, a.pid) == [fa, fa] and opened(ev, b.pid) == [] and opened(ev, c.pid) == [fc]
    daemon.run("destroy", "-a")


def test_eviction_before_start(daemon, tmp_path, steppers):
    """Before start (the configuration rebuilt at each verb) the bound holds the same way."""
    a, b = steppers(2)
    daemon.run("create", "pre1", "-o", tmp_path / "trace", "--max-pid-sets", "1")
    daemon.run("enable-event", "-k", "--syscall", "getppid")
    daemon.run("enable-event", "-k", "--pid", a.pid, "--syscall", "openat")
    p = daemon.run("enable-event", "-k", "--pid", b.pid, "--syscall", "openat")
    assert p.stdout.splitlines()[0] == \
        f"Per-process event set of process {a.pid} evicted (the least recently used: at most 1 sets)", p.stdout
    lst = daemon.run("list", "pre1").stdout
    assert "Per-process event sets: 1 of at most 1, 1 evicted" in lst and f"  PID {b.pid}: " in lst \
        and f"PID {a.pid}:" not in lst, lst
    daemon.run("destroy", "-a")


def test_save_says_sets_are_not_saved(daemon, tmp_path, steppers):
    (a,) = steppers(1)
    daemon.run("create", "sv", "-o", tmp_path / "trace")
    daemon.run("enable-event", "-k", "--syscall", "getppid")
    daemon.run("enable-event", "-k", "--pid", a.pid, "--syscall", "openat")
    p = daemon.run("save", "-o", tmp_path / "sv.lttng")
    assert p.stdout.splitlines()[1] == ("Note: its 1 per-process event set(s) are not saved (LTTng's session XML "
                                        "has no place for them): enable-event --pid them again after load"), p.stdout
    lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(tmp_path / "sv.lttng")], capture_output=True,
                          text=True)
    assert lint.returncode == 0, lint.stderr
    assert "openat" not in (tmp_path / "sv.lttng").read_text()
    daemon.run("destroy", "-a")


def test_bad_input_refused_in_one_line(daemon, tmp_path, steppers):
    (a,) = steppers(1)
    daemon.run("create", "bad", "-o", tmp_path / "trace")
    daemon.run("enable-event", "-k", "--syscall", "getppid")
    one_line_error(daemon.run("enable-event", "-k", "--pid", "999999999", "--syscall", "openat", check=False),
                   "no process 999999999")
    one_line_error(daemon.run("enable-event", "-k", "--pid", "12x", "--syscall", "openat", check=False),
                   "invalid pid '12x'")
    one_line_error(daemon.run("enable-event", "-u", "--pid", a.pid, "openat", check=False),
                   "kernel domain only", "--pid")
    one_line_error(daemon.run("enable-event", "--python", "--pid", a.pid, "openat", check=False),
                   "kernel domain only")
    one_line_error(daemon.run("enable-event", "-k", "--pid", a.pid, "sched_process_fork", check=False),
                   "cannot be in a per-process event set")
    one_line_error(daemon.run("enable-event", "-k", "--pid", a.pid, "--filter", "ret < 0", "--syscall", "openat",
                              check=False), "--pid and --filter")
    one_line_error(daemon.run("disable-event", "-k", "--pid", a.pid, "--syscall", "openat", check=False),
                   f"no per-process event set for process {a.pid}")
    one_line_error(daemon.run("create", "x", "--max-pid-sets", "0", check=False), "--max-pid-sets")
    one_line_error(daemon.run("enable-event", "-k", "--pid", a.pid, "no_such_event_xyz", check=False),
                   "unknown event")
    daemon.run("destroy", "-a")
