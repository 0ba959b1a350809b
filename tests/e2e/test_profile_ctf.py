"""tests/e2e/test_profile_ctf.py — cpu-clock samples as events of a recorded trace (issue 28:
`scry record -e profile:cpu-clock:HZ`, src/session/src_profile.c): each sample of
tests/workload/hotspots (main calls burn_a and burn_b, 75% / 25% of its CPU time) is a
profile_cpu_clock event beside the sched_switch events of the same trace, read by bt2
(babeltrace2's own Python bindings) with LTTng's callstack_kernel / callstack_user contexts,
its user frames named by `scry view` after the process exited: burn_a's share near the
truth; every event recorded or counted lost; bad specs refused in one line."""
import re
import subprocess

import pytest

from conftest import read_trace, run_babeltrace2

HZ = 499


@pytest.fixture(scope="module")
def rec(tmp_path_factory, record, workload):
    out = tmp_path_factory.mktemp("pctf") / "trace"
    r = record(out, "-e", f"profile:cpu-clock:{HZ}", "-e", "sched:sched_switch",
               "-c", "pid,tid,procname,callstack-kernel,callstack-user",
               cmd=[workload("hotspots"), 600], quiet=False)
    r.check()
    r.tr = read_trace(out)
    r.samples = [e for e in r.tr.events if e["name"] == "profile_cpu_clock"]
    return r


def test_samples_beside_events_with_callstacks(rec):
    bt = run_babeltrace2(rec.dir)
    assert bt.returncode == 0 and bt.stderr == "", bt.stderr
    names = {e["name"] for e in rec.tr.events}
    assert names == {"profile_cpu_clock", "sched_switch"}, names
    # 600 ms of CPU at 499 Hz is ~300 samples; the machine is shared, so far fewer may come
    assert len(rec.samples) >= 20, len(rec.samples)
    for e in rec.samples:
        c = e["ctx"]
        assert e["procname"] == "hotspots" and e["fields"] == {}, e
        assert c["_callstack_user_length"] == len(c["callstack_user"]) >= 2, c
        assert c["_callstack_kernel_length"] == len(c["callstack_kernel"]) >= 1, c
        assert all(a >= 0xffff800000000000 for a in c["callstack_kernel"]), c
        # the interrupted instruction first; a frame-pointer walk that meets a zero frame
        # (the loader, _start) stores it as the kernel's walk does
        assert 0 < c["callstack_user"][0] < 0x800000000000, c
        assert all(a < 0x800000000000 for a in c["callstack_user"]), c
    # interleaved in time with the scheduler's events, on the same per-CPU streams
    first, last = rec.samples[0]["ts"], rec.samples[-1]["ts"]
    assert any(first < e["ts"] < last for e in rec.tr.events if e["name"] == "sched_switch")
    assert {e["stream"] for e in rec.samples} <= {e["stream"] for e in rec.tr.events if e["name"] == "sched_switch"}


def test_every_sample_recorded_or_counted(rec):
    s = rec.summary()
    assert s["events"] == len(rec.tr.events), (s, len(rec.tr.events))
    assert s["discarded"] == rec.tr.discarded, (s, rec.tr.discarded)


def test_view_names_the_hot_functions(rec, scry):
    out = subprocess.run([scry, "view", str(rec.dir)], capture_output=True, text=True, check=True).stdout
    lines = [l for l in out.splitlines() if " profile_cpu_clock: " in l]
    assert len(lines) == len(rec.samples)
    leaf, in_main = [], 0
    for l in lines:
        m = re.search(r"callstack_user = \[(.*?) \]", l)
        assert m, l
        syms = [s.split("+")[0] for s in re.findall(r"<([^>]+)>", m.group(1))]
        in_main += "main" in syms
        leaf.append(next((s for s in syms if s in ("burn_a", "burn_b")), None))
    a, b = leaf.count("burn_a"), leaf.count("burn_b")
    # all but the samples of the process's start (the loader, before main) and of its end
    assert in_main >= 0.9 * len(leaf), (in_main, len(leaf))
    assert a + b >= 0.9 * len(leaf), leaf
    print(f"samples {len(leaf)}: burn_a {a}, burn_b {b}")
    assert 0.6 <= a / (a + b) <= 0.9, (a, b)


@pytest.mark.parametrize("spec,msg", [
    ("profile:cycles", "only cpu-clock samples are recorded as events"),
    ("profile:cpu-clock:0", "expected a frequency of 1 to 100000"),
    ("profile:cpu-clock:99x", "expected a frequency of 1 to 100000"),
])
def test_bad_spec_refused(record, tmp_path, spec, msg):
    r = record(tmp_path / "t", "-e", spec, cmd=["true"])
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and msg in lines[0] and spec in lines[0], r.stderr
    assert not (tmp_path / "t").exists()
