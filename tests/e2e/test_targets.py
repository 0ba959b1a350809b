"""tests/e2e/test_targets.py — who gets traced: a command and its descendants only (not an
unrelated process, not scry itself), `-p PID` for a running process, `-a` system-wide."""
import json
import os
import subprocess
import time

import pytest

from conftest import read_trace, split_switch_ins


@pytest.fixture
def ticker(workload):
    """An unrelated long-lived process doing getppid + nanosleep every 20 ms."""
    p = subprocess.Popen([workload("ticker"), "120"], stdout=subprocess.PIPE, text=True)
    info = json.loads(p.stdout.readline())
    assert info["pid"] == p.pid
    yield p
    p.kill()
    p.wait()


def test_descendants_only(record, workload, ticker, tmp_path):
    r = record(tmp_path / "trace", cmd=[workload("tree")])
    r.check()
    tree = json.loads(r.stdout.strip().splitlines()[-1])
    assert len(tree["pids"]) == 4 and len(tree["tids"]) == 6
    tr = read_trace(tmp_path / "trace")
    own, ins, rest = split_switch_ins(tr.events, set(tree["pids"]))
    assert not rest, f"events from outside the tree: {rest[:3]}"
    assert ins, "no switch into the tree from another task"
    pids = {e["pid"] for e in own}
    tids = {e["tid"] for e in own}
    assert set(tree["pids"]) <= pids, f"missing pids: {set(tree['pids']) - pids}"
    assert set(tree["tids"]) <= tids, f"missing tids: {set(tree['tids']) - tids}"
    assert ticker.pid not in pids, "an unrelated process was traced"
    assert pids <= set(tree["pids"]), f"events from outside the tree: {pids - set(tree['pids'])}"
    # each of the 5 forks (3 processes, 2 threads) is in the trace
    forks = {e["fields"]["child_tid"] for e in tr.events if e["name"] == "sched_process_fork"}
    assert set(tree["tids"]) - {tree["root"]} <= forks


def test_pid_option(scry, record, ticker, tmp_path):
    r = record(tmp_path / "trace", "-p", str(ticker.pid), "--duration", "1.5")
    r.check()
    tr = read_trace(tmp_path / "trace")
    getppid = [e for e in tr.events if e["name"] == "syscall_entry_getppid"]
    assert getppid, "no getppid from the traced pid"
    assert all(e["pid"] == ticker.pid for e in getppid)
    own, ins, rest = split_switch_ins(tr.events, {ticker.pid})
    assert not rest, f"events from other processes: {rest[:3]}"
    assert all(e["procname"] == "ticker" for e in own)
    assert all(e["fields"]["next_tid"] == ticker.pid for e in ins)
    assert ticker.poll() is None, "scry must leave the traced process running"
    assert r.summary()["events"] == len(tr.events)


def test_all_but_not_itself(scry, ticker, tmp_path):
    out = tmp_path / "trace"
    p = subprocess.Popen([scry, "record", "-q", "-a", "--duration", "1.5", "-o", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    tr = read_trace(out)
    pids = {e["pid"] for e in tr.events}
    assert ticker.pid in pids, "system-wide trace misses a running process"
    # scry is current only in the switches out of it (their next is followed) and in the
    # statedump it writes (as LTTng's carries its session daemon's context)...
    mine = [e for e in tr.events if e["pid"] == p.pid and not e["name"].startswith("lttng_statedump_")]
    assert all(e["name"] == "sched_switch" and e["fields"]["next_tid"] != e["tid"] for e in mine), \
        f"scry recorded itself: {[e['name'] for e in mine][:5]}"
    # ...which describes every process but scry's own: neither its threads nor its files
    states = [e["fields"] for e in tr.events if e["name"] == "lttng_statedump_process_state"]
    assert any(f["pid"] == ticker.pid for f in states), "the statedump is in -a's default events"
    assert not [f for f in states if f["pid"] == p.pid], "scry's own threads are in the statedump"
    tables = {f["file_table_address"] for f in states}
    fds = [e["fields"] for e in tr.events if e["name"] == "lttng_statedump_file_descriptor"]
    assert fds and all(f["file_table_address"] in tables for f in fds)


def test_pid_option_with_thread_id(record, tmp_path):
    """-p with a thread id follows the whole process, as perf -p does."""
    script = ("import os, sys, threading, time\n"
              "def spin():\n"
              "    while True:\n"
              "        os.getppid(); time.sleep(0.01)\n"
              "t = threading.Thread(target=spin, daemon=True); t.start()\n"
              "time.sleep(0.1)\n"
              "print(os.getpid(), t.native_id, flush=True)\n"
              "time.sleep(60)\n")
    p = subprocess.Popen(["/usr/bin/python3", "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        pid, tid = map(int, p.stdout.readline().split())
        assert tid != pid
        r = record(tmp_path / "trace", "-p", str(tid), "--duration", "1")
        r.check()
        tr = read_trace(tmp_path / "trace")
        own, ins, rest = split_switch_ins(tr.events, {pid})
        assert not rest, rest[:3]
        assert {e["pid"] for e in own} == {pid}
        assert tid in {e["tid"] for e in tr.events if e["name"] == "syscall_entry_getppid"}
    finally:
        p.kill()
        p.wait()
