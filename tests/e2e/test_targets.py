"""tests/e2e/test_targets.py — who gets traced: a command and its descendants only (not an
unrelated process, not scry itself), `-p PID` for a running process, `-a` system-wide."""
import json
import os
import subprocess
import time

import pytest

from conftest import read_trace


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
    pids = {e["pid"] for e in tr.events}
    tids = {e["tid"] for e in tr.events}
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
    assert {e["pid"] for e in tr.events} == {ticker.pid}, "events from other processes"
    assert all(e["procname"] == "ticker" for e in tr.events)
    assert ticker.poll() is None, "scry must leave the traced process running"
    assert r.summary()["events"] == len(tr.events)


def test_all_but_not_itself(scry, ticker, tmp_path):
    out = tmp_path / "trace"
    p = subprocess.Popen([scry, "record", "-q", "-a", "--duration", "1.5", "-o", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    tr = read_trace(out, fields=False)
    pids = {e["pid"] for e in tr.events}
    assert ticker.pid in pids, "system-wide trace misses a running process"
    assert p.pid not in pids, "scry recorded itself"


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
        assert {e["pid"] for e in tr.events} == {pid}
        assert tid in {e["tid"] for e in tr.events if e["name"] == "syscall_entry_getppid"}
    finally:
        p.kill()
        p.wait()
