"""tests/e2e/test_record_workload.py — `scry record -- scry_workload ...` with the default
events: exact syscall arguments and return values, fork/exec tracepoints, pids of the child
and of a thread, per-stream time order, the summary line, and babeltrace2's verdict."""
import json
import os
from collections import Counter

import pytest

from conftest import O_CLOEXEC, O_CREAT, O_TRUNC, O_WRONLY, read_trace, run_babeltrace2, split_switch_ins

N_BYTES = 4321
M_BYTES = 1234
FLAGS = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC


@pytest.fixture(scope="module")
def rec(tmp_path_factory, record, workload):
    base = tmp_path_factory.mktemp("workload")
    path1, path2 = base / "first.out", base / "second.out"
    r = record(base / "trace", cmd=[workload("scry_workload"), path1, N_BYTES, path2, M_BYTES])
    r.check()
    lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
    assert len(lines) == 1, f"workload output: {r.stdout!r}"
    r.wl = json.loads(lines[0])
    r.path1, r.path2 = str(path1), str(path2)
    r.trace = read_trace(r.dir)
    return r


def next_exit(events, entry, prefix="syscall_exit_"):
    """The first syscall exit event of the same tid after `entry`."""
    i = events.index(entry)
    for ev in events[i + 1:]:
        if ev["tid"] == entry["tid"] and ev["name"].startswith(prefix):
            return ev
    return None


def entries(trace, name, **match):
    return [e for e in trace.events if e["name"] == name
            and all(e["fields"].get(k) == v for k, v in match.items())]


def test_workload_ran_as_expected(rec):
    wl = rec.wl
    assert wl["flags"] == FLAGS and wl["mode"] == 0o640
    assert wl["file1"]["written"] == N_BYTES
    assert wl["child"]["status"] == 0
    assert wl["thread"]["ret"] == -2
    assert os.path.getsize(rec.path1) == N_BYTES
    assert os.path.getsize(rec.path2) == M_BYTES


def test_layout(rec):
    kdir = rec.dir / "kernel"
    assert (kdir / "metadata").read_bytes().startswith(b"/* CTF 1.8 */")
    channels = sorted(p.name for p in kdir.glob("channel0_*"))
    assert channels, "no channel0_<cpu> stream files"
    assert sorted(p.name for p in (kdir / "index").glob("*.idx")) == [c + ".idx" for c in channels]


def test_openat_parent(rec):
    ev = entries(rec.trace, "syscall_entry_openat", filename=rec.path1)
    assert len(ev) == 1, f"expected one openat of {rec.path1}, got {len(ev)}"
    ev = ev[0]
    assert ev["fields"]["flags"] == FLAGS
    assert ev["fields"]["mode"] == 0o640
    assert ev["pid"] == rec.wl["pid"] and ev["tid"] == rec.wl["tid"]
    assert ev["procname"] == "scry_workload"
    ex = next_exit(rec.trace.events, ev)
    assert ex is not None and ex["name"] == "syscall_exit_openat"
    assert ex["fields"]["ret"] == rec.wl["file1"]["fd"]


def test_write_parent(rec):
    fd = rec.wl["file1"]["fd"]
    ev = [e for e in entries(rec.trace, "syscall_entry_write", fd=fd, count=N_BYTES)
          if e["tid"] == rec.wl["tid"]]
    assert len(ev) == 1
    ex = next_exit(rec.trace.events, ev[0])
    assert ex is not None and ex["name"] == "syscall_exit_write"
    assert ex["fields"]["ret"] == N_BYTES
    close = [e for e in entries(rec.trace, "syscall_entry_close", fd=fd)
             if e["tid"] == rec.wl["tid"] and e["ts"] >= ex["ts"]]
    assert close, "close of the first file missing"


def test_child_events(rec):
    child = rec.wl["child"]
    ev = entries(rec.trace, "syscall_entry_openat", filename=rec.path2)
    assert len(ev) == 1
    ev = ev[0]
    assert (ev["pid"], ev["tid"]) == (child["pid"], child["tid"])
    assert ev["fields"]["flags"] == FLAGS and ev["fields"]["mode"] == 0o640
    ex = next_exit(rec.trace.events, ev)
    assert ex["name"] == "syscall_exit_openat" and ex["fields"]["ret"] == child["fd"]
    w = [e for e in entries(rec.trace, "syscall_entry_write", fd=child["fd"], count=M_BYTES)
         if e["tid"] == child["tid"]]
    assert len(w) == 1
    wex = next_exit(rec.trace.events, w[0])
    assert wex["name"] == "syscall_exit_write" and wex["fields"]["ret"] == M_BYTES
    # everything the child did is attributed to the child
    for e in rec.trace.events:
        if e["tid"] == child["tid"]:
            assert e["pid"] == child["pid"]


def test_fork_event(rec):
    child = rec.wl["child"]
    forks = [e for e in rec.trace.events if e["name"] == "sched_process_fork"
             and e["fields"]["child_pid"] == child["pid"]]
    assert len(forks) == 1
    f = forks[0]["fields"]
    assert f["parent_pid"] == rec.wl["pid"]
    assert f["parent_tid"] == rec.wl["tid"]
    assert f["child_tid"] == child["tid"]
    assert f["parent_comm"] == "scry_workload"
    assert forks[0]["pid"] == rec.wl["pid"]
    # the fork syscall's exit in the parent returns the child's pid
    cl = [e for e in rec.trace.events if e["tid"] == rec.wl["tid"]
          and e["name"] in ("syscall_exit_clone", "syscall_exit_clone3", "syscall_exit_fork")
          and e["fields"]["ret"] == child["pid"]]
    assert len(cl) == 1


def test_thread_events(rec):
    th = rec.wl["thread"]
    ev = entries(rec.trace, "syscall_entry_faccessat", filename=th["path"])
    assert len(ev) == 1
    assert ev[0]["tid"] == th["tid"] and ev[0]["pid"] == rec.wl["pid"]
    assert th["tid"] != rec.wl["pid"]
    ex = next_exit(rec.trace.events, ev[0])
    assert ex["name"] == "syscall_exit_faccessat" and ex["fields"]["ret"] == -2
    # the thread's creation is a fork event with child_pid = the process, child_tid = the thread
    forks = [e for e in rec.trace.events if e["name"] == "sched_process_fork"
             and e["fields"]["child_tid"] == th["tid"]]
    assert len(forks) == 1
    assert forks[0]["fields"]["child_pid"] == rec.wl["pid"]


def test_exec_event(rec):
    ex = [e for e in rec.trace.events if e["name"] == "sched_process_exec"
          and e["pid"] == rec.wl["pid"] and e["fields"]["filename"] == rec.wl["exec"]]
    assert len(ex) == 1
    assert ex[0]["fields"]["filename"] == "/bin/true"
    assert ex[0]["fields"]["tid"] == rec.wl["pid"]
    # after the exec the process is called "true"
    later = [e for e in rec.trace.events if e["pid"] == rec.wl["pid"] and e["ts"] > ex[0]["ts"]
             and e["name"].startswith("syscall_entry_")]
    assert later and all(e["procname"] == "true" for e in later)


def test_exit_events(rec):
    exits = {e["fields"]["tid"] for e in rec.trace.events if e["name"] == "sched_process_exit"}
    assert {rec.wl["pid"], rec.wl["child"]["tid"], rec.wl["thread"]["tid"]} <= exits


def test_priorities_as_lttng(rec):
    """LTTng records task->prio - 100: the workload runs at nice 0 (kernel prio 120)."""
    nice = os.getpriority(os.PRIO_PROCESS, 0)
    exits = [e for e in rec.trace.events if e["name"] == "sched_process_exit"
             and e["fields"]["tid"] == rec.wl["pid"]]
    assert exits and exits[0]["fields"]["prio"] == 20 + nice
    switches = [e for e in rec.trace.events if e["name"] == "sched_switch"
                and e["fields"]["prev_tid"] == rec.wl["pid"]]
    assert switches and all(e["fields"]["prev_prio"] == 20 + nice for e in switches)


def test_only_workload_traced(rec):
    pids = {rec.wl["pid"], rec.wl["child"]["pid"]}
    _, _, rest = split_switch_ins(rec.trace.events, pids)
    others = Counter((e["pid"], e["procname"]) for e in rest)
    assert not others, f"events from processes other than the workload: {others.most_common(5)}"


def test_timestamps_per_stream_non_decreasing(rec):
    last = {}
    for e in rec.trace.events:
        key = (e["stream"], e["cpu"])
        assert e["ts"] >= last.get(key, 0), f"time goes backwards in stream {key}"
        last[key] = e["ts"]
    assert len(last) >= 1


def test_summary_line(rec):
    s = rec.summary()
    assert s["events"] == len(rec.trace.events)
    assert s["discarded"] == rec.trace.discarded == 0
    assert s["dir"].rstrip("/") == str(rec.dir).rstrip("/")
    channel_bytes = sum(p.stat().st_size for p in (rec.dir / "kernel").glob("channel0_*"))
    total = sum(p.stat().st_size for p in rec.dir.rglob("*") if p.is_file())
    assert channel_bytes <= s["bytes"] <= total, \
        f"summary says {s['bytes']} bytes; stream files hold {channel_bytes}, the directory {total}"


def test_babeltrace2_clean(rec):
    p = run_babeltrace2(rec.dir)
    assert p.returncode == 0
    assert p.stderr == ""
    assert len(p.stdout.splitlines()) == len(rec.trace.events)
    assert rec.path1 in p.stdout
