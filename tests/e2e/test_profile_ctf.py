"""tests/e2e/test_profile_ctf.py — cpu-clock samples as events of a recorded trace (issue 28:
`scry record -e profile:cpu-clock:HZ`, src/session/src_profile.c): each sample of
tests/workload/hotspots (main calls burn_a and burn_b, 75% / 25% of its CPU time) is a
profile_cpu_clock event beside the sched_switch events of the same trace, read by bt2
(babeltrace2's own Python bindings) with LTTng's callstack_kernel / callstack_user contexts,
its user frames named by `scry view` after the process exited: burn_a's share near the
truth; every event recorded or counted lost; bad specs refused in one line.  The build-id
keyed copies in scry's cache (SCRY_CACHE_DIR): a binary replaced after sampling still
named, from the copy of the one that ran; none kept in a directory that is not scry's own."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import read_trace, run_babeltrace2

HZ = 499


@pytest.fixture(scope="module")
def rec(tmp_path_factory, record, workload):
    out = tmp_path_factory.mktemp("pctf") / "trace"
    r = record(out, "-e", f"profile:cpu-clock:{HZ}", "-e", "sched:sched_switch",
               "-c", "pid,tid,procname,callstack-kernel,callstack-user",
               cmd=[workload("hotspots"), 1000], quiet=False)
    r.check()
    r.tr = read_trace(out)
    r.samples = [e for e in r.tr.events if e["name"] == "profile_cpu_clock"]
    return r


def test_samples_beside_events_with_callstacks(rec):
    bt = run_babeltrace2(rec.dir)
    assert bt.returncode == 0 and bt.stderr == "", bt.stderr
    names = {e["name"] for e in rec.tr.events}
    assert names == {"profile_cpu_clock", "sched_switch"}, names
    # 1 s of CPU at 499 Hz is ~500 samples; the machine is shared, so far fewer may come
    assert len(rec.samples) >= 20, len(rec.samples)
    for e in rec.samples:
        c = e["ctx"]
        assert e["procname"] == "hotspots" and e["fields"] == {}, e
        assert c["_callstack_user_length"] == len(c["callstack_user"]) >= 1, c
        # the interrupted registers': empty when user code was interrupted (the loops)
        assert c["_callstack_kernel_length"] == len(c["callstack_kernel"]), c
        assert all(a >= 0xffff800000000000 for a in c["callstack_kernel"]), c
        # the interrupted instruction first; a frame-pointer walk that meets a zero frame
        # (the loader, _start) stores it as the kernel's walk does
        assert 0 < c["callstack_user"][0] < 0x800000000000, c
        assert all(a < 0x800000000000 for a in c["callstack_user"]), c
    # the frame-pointer walk goes past the leaf but in code without frame pointers (the
    # loader, libc's system call wrappers)
    in_user = sum(not e["ctx"]["callstack_kernel"] for e in rec.samples)
    assert in_user >= 0.8 * len(rec.samples), (in_user, len(rec.samples))
    deep = sum(len(e["ctx"]["callstack_user"]) >= 2 for e in rec.samples)
    assert deep >= 0.9 * len(rec.samples), (deep, len(rec.samples))
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


def burn_frames(scry, trace, env):
    out = subprocess.run([scry, "view", str(trace)], capture_output=True, text=True, check=True, env=env).stdout
    lines = [l for l in out.splitlines() if " profile_cpu_clock: " in l]
    return lines, sum(bool(re.search(r"<burn_[ab]\+", l)) for l in lines)


def test_replaced_binary_named_from_cache(scry, workload, tmp_path):
    cache, exe, trace = tmp_path / "cache", tmp_path / "hot", tmp_path / "trace"
    shutil.copy(workload("hotspots"), exe)
    env = dict(os.environ, SCRY_CACHE_DIR=str(cache))
    env.pop("SCRY_NO_CACHE", None)
    subprocess.run([scry, "record", "-q", "-o", str(trace), "-e", f"profile:cpu-clock:{HZ}", "-c",
                    "pid,procname,callstack-user", "--", str(exe), "300"], env=env, check=True,
                   capture_output=True, timeout=60)
    bid = re.search(r"Build ID: ([0-9a-f]+)", subprocess.run(["readelf", "-n", str(exe)], capture_output=True,
                                                            text=True, check=True).stdout)[1]
    kept = cache / f"elf-{bid}"
    assert kept.read_bytes() == exe.read_bytes()
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    shutil.copy("/bin/true", exe)              # another build at the path that was sampled
    lines, named = burn_frames(scry, trace, env)
    assert lines and named >= 0.9 * len(lines), (named, len(lines))
    lines, named = burn_frames(scry, trace, dict(env, SCRY_NO_CACHE="1"))
    assert lines and named == 0                # the file now at the path is not used


def test_cache_not_scrys_own_not_used(scry, workload, tmp_path):
    cache, trace = tmp_path / "cache", tmp_path / "trace"
    cache.mkdir()
    cache.chmod(0o777)                         # anyone could plant a file there
    env = dict(os.environ, SCRY_CACHE_DIR=str(cache))
    env.pop("SCRY_NO_CACHE", None)
    subprocess.run([scry, "record", "-q", "-o", str(trace), "-e", f"profile:cpu-clock:{HZ}", "-c",
                    "pid,callstack-user", "--", workload("hotspots"), "100"], env=env, check=True,
                   capture_output=True, timeout=60)
    assert not [p.name for p in cache.iterdir() if p.name.startswith("elf-")]
