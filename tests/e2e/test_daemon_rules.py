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
    daemon.run("start")
    p = daemon.run("enable-event", "-k", "--syscall", "read", "--filter", "count == 1", check=False)
    assert p.returncode == 1 and p.stderr == ("scry: cannot enable 'syscall:read' on a loaded session with a filter "
                                              "(filters are compiled into the kernel when the session loads: change "
                                              "them before start)\n"), p.stderr
