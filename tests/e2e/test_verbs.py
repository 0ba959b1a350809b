"""tests/e2e/test_verbs.py — the session's verbs on a running session (issue 12).
build/tools/verbs enable records a child's getppid, enables getpid while recording, and the
child calls getppid N times, getpid N times, getppid N times: the trace (read by bt2 and
babeltrace2) holds exactly those calls, in that order, every getpid after the enable, and
its metadata describes getpid; the procname context added before load (add_context) is in
every record, adding prio after start is refused.  build/tools/verbs disable disables getppid and the
sched_process_exit tracepoint (detached) between two phases of getppid and getpid calls: the
second phase's getppid and the child's exit are not recorded, getpid is."""
import json
import subprocess

from conftest import ROOT

TOOL = ROOT / "build" / "tools" / "verbs"
N = 1000


def run(verb, out, bt2_read):
    """Run the tool; check babeltrace2 reads the trace; the child's event names and info."""
    p = subprocess.run([str(TOOL), verb, str(out), str(N)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    assert info["discarded"] == 0
    bt = subprocess.run(["babeltrace2", str(out)], capture_output=True, text=True, timeout=120)
    assert bt.returncode == 0 and not bt.stderr, bt.stderr
    evs = [e for e in bt2_read(out, fields=False).events if e["pid"] == info["child"]]
    return info, evs


def test_event_enabled_after_start(tmp_path, bt2_read):
    out = tmp_path / "t"
    info, evs = run("enable", out, bt2_read)
    names = [e["name"] for e in evs]
    assert names == (["syscall_entry_getppid", "syscall_exit_getppid"] * N +
                     ["syscall_entry_getpid", "syscall_exit_getpid"] * N +
                     ["syscall_entry_getppid", "syscall_exit_getppid"] * N)
    assert info["events"] == 6 * N
    # the clock values are CLOCK_MONOTONIC ns: every getpid after the enable returned
    assert all(e["ts"] > info["changed_ns"] for e in evs if e["name"].endswith("_getpid"))
    meta = (out / "kernel" / "metadata").read_text()
    assert 'name = "syscall_entry_getpid";' in meta and 'name = "syscall_exit_getpid";' in meta
    # the context added before load is in every record, one added after start is refused
    assert all(e["procname"] == "verbs" for e in evs), {e["procname"] for e in evs}
    assert info["again"] == "cannot add context 'prio' to channel 'channel0': the session is loaded"
    # fixed_events: the tracefs tracepoints' program was not loaded, so one cannot come later
    assert info["tp"].startswith("sched:sched_switch: tracepoints cannot be added to a channel loaded without one"), info
    assert not any(e["name"] == "sched_switch" for e in bt2_read(out, fields=False).events)
    assert not list((out / "kernel").glob(".*"))      # no hidden metadata file left


def test_enable_unknown_event_is_an_error(scry, tmp_path):
    """(the verb's errors are the CLI's: an unknown event after start gets the same message)"""
    p = subprocess.run([scry, "record", "-q", "-e", "syscall:nosuchcall", "-o", str(tmp_path / "t"),
                        "--", "/bin/true"], capture_output=True, text=True)
    assert p.returncode == 1 and "unknown event 'syscall:nosuchcall'" in p.stderr


def test_events_disabled_while_recording(tmp_path, bt2_read):
    info, evs = run("disable", tmp_path / "t", bt2_read)
    assert info["again"] == "no enabled event matches 'syscall:getppid'"
    names = [e["name"] for e in evs]
    assert names == (["syscall_entry_getppid", "syscall_exit_getppid"] * N +
                     ["syscall_entry_getpid", "syscall_exit_getpid"] * N +
                     ["syscall_entry_getpid", "syscall_exit_getpid"] * N)
