"""tests/e2e/test_daemon_rules.py — LTTng's event rules through scryd (issue 26): any number of
rules per event, each with its own filter or none, enabled and disabled on their own; an event
is recorded when an enabled rule matching it accepts it.  A tracked shell runs dd with known
write sizes and counts; the trace (babeltrace2, bt2) holds exactly the writes the enabled
rules accept and every exec (an unfiltered rule of another event); list shows each rule with
its filter as lttng does; save (xmllint against session.xsd) and load round-trip every rule."""
import os
import subprocess

import pytest

from test_daemon import XSD, daemon, read_events  # noqa: F401 (daemon: a fixture)

# sizes x counts the shell's dd runs write (one write per block); the rules accept 777 and 555
RUNS = ((777, 3), (555, 2), (333, 4))
SHELL = "read x; " + "; ".join(f"dd if=/dev/zero of=/dev/null bs={b} count={n} status=none" for b, n in RUNS)


def configure(daemon, out):
    daemon.run("create", "rules", "-o", out)
    for size in (777, 555, 333):
        p = daemon.run("enable-event", "-k", "--syscall", "write", "--filter", f"count == {size}")
        assert p.stdout == "Kernel syscall write enabled in channel channel0\n"
    p = daemon.run("disable-event", "-k", "--syscall", "write")       # every rule of write (lttng's)
    assert p.stdout == "Kernel syscall write disabled in channel channel0\n"
    daemon.run("enable-event", "-k", "--syscall", "write", "--filter", "count == 777")
    daemon.run("enable-event", "-k", "--syscall", "write", "--filter", "count == 555")
    daemon.run("enable-event", "-k", "sched_process_exec")            # unfiltered, another event
    daemon.run("add-context", "-k", "-t", "pid", "-t", "procname")


def run_tracked(daemon):
    sh = subprocess.Popen(["/bin/sh", "-c", SHELL], stdin=subprocess.PIPE, text=True)
    try:
        daemon.run("track", "-k", "--pid", sh.pid)
        daemon.run("start")
        sh.communicate("go\n", timeout=60)
        assert sh.returncode == 0
    finally:
        if sh.poll() is None:
            sh.kill()
    daemon.run("stop")


def check_trace(bt2_read, out):
    tr = read_events(bt2_read, out)
    writes = sorted(e["fields"]["count"] for e in tr.events if e["name"] == "syscall_entry_write")
    assert writes == [555] * 2 + [777] * 3, writes
    execs = [e for e in tr.events if e["name"] == "sched_process_exec"]
    assert len(execs) == len(RUNS) and all(e["fields"]["filename"].endswith("/dd") for e in execs), execs
    # the exits have no `count`: a rule reading it never accepts them (as lttng-modules, whose
    # filter fails to link on them)
    assert {e["name"] for e in tr.events} == {"syscall_entry_write", "sched_process_exec"}


RULES = ("      sched_process_exec (type: tracepoint) [enabled]\n"
         "      write (type: syscall) [disabled] [filter: 'count == 333']\n"
         "      write (type: syscall) [enabled] [filter: 'count == 555']\n"
         "      write (type: syscall) [enabled] [filter: 'count == 777']\n")


def test_rules_filters_exact(daemon, tmp_path, bt2_read):
    out = tmp_path / "trace"
    configure(daemon, out)
    lst = daemon.run("list", "rules").stdout
    assert RULES in lst, lst
    run_tracked(daemon)
    check_trace(bt2_read, out)


def test_rules_save_load(daemon, tmp_path, bt2_read):
    if not os.path.exists(XSD):
        pytest.skip(f"{XSD} missing (Debian's lttng-tools installs it)")
    configure(daemon, tmp_path / "first")
    before = daemon.run("list", "rules").stdout
    xml = tmp_path / "rules.lttng"
    daemon.run("save", "-o", xml)
    lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(xml)], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stderr
    text = xml.read_text()
    for size in (777, 555, 333):
        assert f"<filter>count == {size}</filter>" in text, text
    assert text.count("<event>") == 4, text
    daemon.run("destroy")
    daemon.run("load", xml)
    after = daemon.run("list", "rules").stdout
    assert after == before, (before, after)
    assert RULES in after
    run_tracked(daemon)                 # the loaded rules record as the given ones
    check_trace(bt2_read, tmp_path / "first")


def test_rules_refusals(daemon, tmp_path):
    daemon.run("create", "bad", "-o", tmp_path / "t")
    p = daemon.run("enable-event", "-k", "--syscall", "write", "--filter", "count ==", check=False)
    assert p.returncode == 1 and p.stderr.startswith("scry: filter of rule syscall:write: ") and \
        p.stderr.count("\n") == 1, p.stderr
    daemon.run("enable-event", "-k", "--syscall", "write", "--filter", "count == 1")
    daemon.run("enable-event", "-k", "sched_process_exec", "--filter", "filename == '/bin/true'")
    daemon.run("start")
    # a tracepoint's front is on its own hook: its filters stay as they were at start
    p = daemon.run("enable-event", "-k", "sched_process_exec", "--filter", "filename == '/bin/false'", check=False)
    assert p.returncode == 1 and p.stderr == (
        "scry: the filters of sched_process_exec cannot change once recording (a syscall's can: a tracepoint's "
        "or a probe's front is attached on its own hook); change them before start\n"), p.stderr
    lst = daemon.run("list", "bad").stdout
    assert "sched_process_exec (type: tracepoint) [enabled] [filter: 'filename == '/bin/true'']\n" in lst, lst
    assert "/bin/false" not in lst, lst
    p = daemon.run("enable-event", "-k", "--syscall", "read", "--filter", "count ==", check=False)
    assert p.returncode == 1 and p.stderr.startswith("scry: filter of rule syscall:read: "), p.stderr


class Shell:
    """A tracked shell that runs one command line per phase and says when it is done."""

    def __init__(self):
        self.p = subprocess.Popen(["/bin/sh", "-c", 'while read -r c; do eval "$c"; echo ok; done'],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def phase(self, runs):
        self.p.stdin.write("; ".join(f"dd if=/dev/zero of=/dev/null bs={b} count={n} status=none"
                                     for b, n in runs) + "\n")
        self.p.stdin.flush()
        assert self.p.stdout.readline() == "ok\n"

    def close(self):
        self.p.stdin.close()
        assert self.p.wait(timeout=30) == 0


# (change on the started session, dd runs of the phase after it, writes and reads recorded then)
PHASES = (
    (None, ((1001, 3), (2001, 2), (3001, 1)), {1001: 3}, {}),
    # a second filtered rule of the same event
    (("enable-event", "-k", "--syscall", "write", "--filter", "count > 2000 && count < 3000"),
     ((1002, 3), (2002, 2), (3002, 1)), {1002: 3, 2002: 2}, {}),
    # both filtered rules off (disable-event: every rule of write, lttng's)
    (("disable-event", "-k", "--syscall", "write"), ((1003, 3), (2003, 2)), {}, {}),
    # one enabled again
    (("enable-event", "-k", "--syscall", "write", "--filter", "count > 1000 && count < 2000"),
     ((1004, 3), (2004, 2)), {1004: 3}, {}),
    # a filtered rule of an event that had none
    (("enable-event", "-k", "--syscall", "read", "--filter", "count > 3000 && count < 4000"),
     ((1005, 3), (3005, 2), (4005, 1)), {1005: 3}, {3005: 2}),
)


def test_rules_change_while_recording(daemon, tmp_path, bt2_read):
    """Filtered rules enabled, disabled and enabled again on a started session: each phase's
    trace holds exactly the writes and reads the rules enabled then accept."""
    out = tmp_path / "trace"
    daemon.run("create", "live", "-o", out)
    daemon.run("enable-event", "-k", "--syscall", "write", "--filter", "count > 1000 && count < 2000")
    daemon.run("enable-event", "-k", "sched_process_exec")
    sh = Shell()
    try:
        daemon.run("track", "-k", "--pid", sh.p.pid)
        daemon.run("start")
        for change, runs, _, _ in PHASES:
            if change:
                p = daemon.run(*change)
                assert p.stdout.startswith("Kernel syscall "), p.stdout
            sh.phase(runs)
        sh.close()
    finally:
        if sh.p.poll() is None:
            sh.p.kill()
    daemon.run("stop")
    lst = daemon.run("list", "live").stdout
    assert ("      read (type: syscall) [enabled] [filter: 'count > 3000 && count < 4000']\n"     # newest first
            "      write (type: syscall) [disabled] [filter: 'count > 2000 && count < 3000']\n"
            "      sched_process_exec (type: tracepoint) [enabled]\n"
            "      write (type: syscall) [enabled] [filter: 'count > 1000 && count < 2000']\n") in lst, lst
    tr = read_events(bt2_read, out)
    got = {"syscall_entry_write": {}, "syscall_entry_read": {}}
    for e in tr.events:
        if e["name"] in got:
            c = e["fields"]["count"]
            got[e["name"]][c] = got[e["name"]].get(c, 0) + 1
    want_w, want_r = {}, {}
    for _, _, w, r in PHASES:
        want_w.update(w)
        want_r.update(r)
    assert got == {"syscall_entry_write": want_w, "syscall_entry_read": want_r}, got
    execs = [e for e in tr.events if e["name"] == "sched_process_exec"]
    assert len(execs) == sum(len(runs) for _, runs, _, _ in PHASES), execs
    # no exit has a count: none is recorded (lttng's)
    assert {e["name"] for e in tr.events} == {"syscall_entry_write", "syscall_entry_read", "sched_process_exec"}
    # the rules as changed round-trip through save and load
    xml = tmp_path / "live.lttng"
    daemon.run("save", "-o", xml)
    daemon.run("destroy")
    os.rename(out, tmp_path / "read")     # (load refuses an output directory in use)
    daemon.run("load", xml)
    def rules(text):
        return [ln for ln in text.splitlines() if "(type: " in ln]
    assert rules(daemon.run("list", "live").stdout) == rules(lst) and len(rules(lst)) == 4, lst


def test_rules_flips_lose_nothing(daemon, tmp_path):
    """The syscall fronts flipped again and again while dd writes: every 1-byte write's entry
    (count == 1) and exit (ret == 1) is recorded once, none lost or doubled by a flip."""
    n = 150000
    daemon.run("create", "flips", "-o", tmp_path / "trace")
    daemon.run("enable-channel", "-k", "--subbuf-size", "1M", "--num-subbuf", "8", "channel0")
    daemon.run("enable-event", "-k", "--syscall", "write", "--filter", "count == 1")
    daemon.run("enable-event", "-k", "--syscall", "write", "--filter", "ret == 1")
    sh = subprocess.Popen(["/bin/sh", "-c", f"read x; exec dd if=/dev/zero of=/dev/null bs=1 count={n} status=none"],
                          stdin=subprocess.PIPE, text=True)
    flips = 0
    try:
        daemon.run("track", "-k", "--pid", sh.pid)
        daemon.run("start")
        sh.stdin.write("go\n")
        sh.stdin.close()
        # each rule another OR: another front, flipped in (at most 40: an OR has at most 4096 bytes)
        while sh.poll() is None and flips < 40:
            flips += 1
            daemon.run("enable-event", "-k", "--syscall", "write", "--filter", f"count == 1 && $ctx.tid != {flips}")
        assert sh.wait(timeout=30) == 0
    finally:
        if sh.poll() is None:
            sh.kill()
    p = daemon.run("stop")
    assert flips >= 3, flips
    assert f": {2 * n} events recorded, 0 discarded, 0 lost;" in p.stdout, (flips, p.stdout)


def test_rules_change_refused_with_pid_sets(daemon, tmp_path):
    """A per-process event set has no filter: a filtered rule cannot join its channel once
    recording (refused in one line, the rules as they were)."""
    sl = subprocess.Popen(["sleep", "30"])
    try:
        daemon.run("create", "ps", "-o", tmp_path / "t")
        daemon.run("enable-event", "-k", "--syscall", "openat")
        daemon.run("enable-event", "-k", "--pid", sl.pid, "--syscall", "read")
        daemon.run("start")
        p = daemon.run("enable-event", "-k", "--syscall", "write", "--filter", "count == 1", check=False)
        assert p.returncode == 1 and p.stderr == ("scry: per-process event sets cannot be combined with filters "
                                                  "yet (disable them first)\n"), p.stderr
        assert "write (type: syscall)" not in daemon.run("list", "ps").stdout
    finally:
        sl.kill()
        sl.wait()


def test_tracepoint_disabled_and_enabled_again(daemon, tmp_path, bt2_read):
    """A tracepoint disabled and enabled again on a started session records again, filtered
    (its front stays on its hook, its descriptor off then on) or not (detached, attached
    anew): exact counts of /bin/true's and /bin/false's execs per phase."""
    daemon.run("create", "tpre", "-o", tmp_path / "t")
    daemon.run("enable-event", "-k", "sched_process_exec", "--filter", "filename == '/bin/true'")
    daemon.run("enable-event", "-k", "task_newtask")            # unfiltered (a tracepoint of its own hook)
    daemon.run("enable-event", "-k", "--syscall", "getppid")          # a channel with syscalls: rules live
    daemon.run("start")

    def phase(n):
        for _ in range(n):
            subprocess.run(["/bin/true"], check=True)
            subprocess.run(["/bin/false"])
    phase(2)                                                           # both on: 2 execs, 4+ forks
    daemon.run("disable-event", "-k", "sched_process_exec")
    daemon.run("disable-event", "-k", "task_newtask")
    assert "sched_process_exec (type: tracepoint) [disabled]" in daemon.run("list", "tpre").stdout
    phase(3)                                                           # both off
    daemon.run("enable-event", "-k", "sched_process_exec", "--filter", "filename == '/bin/true'")
    daemon.run("enable-event", "-k", "task_newtask")
    phase(5)                                                           # both on again
    # not with another filter, nor without one: the front on the hook stays as it was
    daemon.run("disable-event", "-k", "sched_process_exec")
    for other in (["--filter", "filename == '/bin/false'"], []):
        p = daemon.run("enable-event", "-k", "sched_process_exec", *other, check=False)
        assert p.returncode == 1 and "cannot change once recording" in p.stderr, p.stderr
        assert "sched_process_exec (type: tracepoint) [disabled]" in daemon.run("list", "tpre").stdout
    phase(1)                                                           # exec off: none
    daemon.run("stop")
    daemon.run("destroy")
    tr = bt2_read(tmp_path / "t")
    execs = [e for e in tr.events if e["name"] == "sched_process_exec"]
    assert [e["fields"]["filename"] for e in execs] == ["/bin/true"] * 7, execs
    mine = {e["fields"]["pid"] for e in tr.events if e["name"] == "task_newtask"}
    pids = {e["fields"]["tid"] for e in execs}
    assert pids <= mine, (pids, mine)                 # every recorded exec's new task recorded too
    assert tr.discarded == 0
