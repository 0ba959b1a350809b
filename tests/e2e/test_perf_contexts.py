"""tests/e2e/test_perf_contexts.py — the perf counter contexts perf:cpu:NAME and
perf:thread:NAME (issue 14, item 5), LTTng's names and fields (`_perf_cpu_page_fault`,
uint64): a workload that touches N fresh pages between two getppid() calls
(tests/workload/perfctx.c) moves page-fault and minor-faults by N, and K sleeps between
calls count K context switches; cpu counters count the whole CPU, thread ones only the
thread.  Hardware counters need a PMU: without one (most VMs) the context is refused in one
line naming the counter.  Readers: babeltrace2 (no warning) and its Python bindings."""
import json
import os

import pytest

from conftest import read_trace, run_babeltrace2

N, K = 1000, 20


@pytest.fixture(scope="module")
def rec(tmp_path_factory, record, workload):
    out = tmp_path_factory.mktemp("perf") / "trace"
    r = record(out, "-e", "syscall:getppid", "-c",
               "pid,perf:cpu:page-fault,perf:thread:faults,perf:thread:minor-faults,perf:thread:cs,"
               "perf:thread:task-clock,perf:cpu:cpu-clock", cmd=[workload("perfctx"), N, K])
    r.check()
    r.wl = json.loads(r.stdout.splitlines()[0])
    bt = run_babeltrace2(out)
    assert bt.returncode == 0 and bt.stderr == "", bt.stderr
    r.evs = [e for e in read_trace(out).events if e["ctx"]["pid"] == r.wl["pid"]]
    return r


def test_lttng_field_names(rec):
    assert list(rec.evs[0]["ctx"].keys()) == [
        "pid", "perf_cpu_cpu_clock", "perf_cpu_page_fault", "perf_thread_task_clock", "perf_thread_page_fault",
        "perf_thread_context_switches", "perf_thread_minor_faults"]
    meta = open(rec.dir / "kernel" / "metadata").read()
    assert "integer { size = 64; align = 8; signed = 0; encoding = none; base = 10; } _perf_thread_page_fault;" in meta


def test_page_faults_of_n_fresh_pages(rec):
    evs = rec.evs
    assert len(evs) == 2 * (2 + K)
    before, after = evs[1]["ctx"], evs[2]["ctx"]      # exit of call 1, entry of call 2
    d = after["perf_thread_page_fault"] - before["perf_thread_page_fault"]
    assert N <= d <= N + 8, d
    assert after["perf_thread_minor_faults"] - before["perf_thread_minor_faults"] == d
    # the CPU's counter saw them too (and whatever else ran there)
    assert after["perf_cpu_page_fault"] - before["perf_cpu_page_fault"] >= N or evs[1]["cpu"] != evs[2]["cpu"]


def test_context_switches_across_sleeps(rec):
    evs = rec.evs
    first, last = evs[3]["ctx"], evs[-1]["ctx"]       # exit of call 2 .. entry of the last call
    d = last["perf_thread_context_switches"] - first["perf_thread_context_switches"]
    assert K <= d <= K + 20, d
    # within one call (entry -> exit) the thread did not sleep
    for a, b in zip(evs[0::2], evs[1::2]):
        assert b["ctx"]["perf_thread_context_switches"] - a["ctx"]["perf_thread_context_switches"] <= 1


def test_counters_only_grow(rec):
    for k in ("perf_thread_task_clock", "perf_thread_page_fault", "perf_thread_context_switches"):
        vals = [e["ctx"][k] for e in rec.evs]
        assert vals == sorted(vals), k
    tc = [e["ctx"]["perf_thread_task_clock"] for e in rec.evs]
    assert tc[-1] > tc[0]


def test_hardware_counter_needs_a_pmu(tmp_path, record):
    r = record(tmp_path / "t", "-e", "syscall:getppid", "-c", "pid,perf:cpu:cpu-cycles", cmd=["true"])
    if os.path.exists("/sys/bus/event_source/devices/cpu"):
        r.check()
        evs = read_trace(r.dir).events
        assert evs and all(e["ctx"]["perf_cpu_cpu_cycles"] > 0 for e in evs)
        return
    assert r.returncode == 1
    err = r.stderr.strip()
    assert err.count("\n") == 0 and "context perf:cpu:cpu-cycles: this machine has no hardware counter cpu-cycles" \
        in err, err


@pytest.mark.parametrize("bad,near", [("perf:cpu:page-faults", "perf:cpu:page-fault"),
                                      ("perf:thread:context-switch", "perf:thread:context-switches")])
def test_misspelt_counter(tmp_path, record, bad, near):
    r = record(tmp_path / "t", "-e", "syscall:getppid", "-c", bad, cmd=["true"])
    assert r.returncode != 0 and f"did you mean '{near}'" in r.stderr and r.stderr.count("\n") == 1, r.stderr
