"""tests/e2e/test_view_list.py — `scry view [--json]` shows the same events as babeltrace2's
Python bindings (count, names, time order, values); `scry list` shows tracepoints, syscalls
and contexts."""
import json
import re
import subprocess
from collections import Counter

import pytest

from conftest import read_trace


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def trace(tmp_path_factory, record, workload):
    base = tmp_path_factory.mktemp("view")
    path1 = base / "viewed.out"
    r = record(base / "trace", cmd=[workload("scry_workload"), path1, 777, base / "b.out", 55])
    r.check()
    r.path1 = str(path1)
    r.trace = read_trace(r.dir)
    return r


def flatten(obj, out=None):
    """All (key, value) leaves of a JSON object, nested objects included."""
    out = [] if out is None else out
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, (dict, list)):
                flatten(v, out)
            else:
                out.append((k, v))
    elif isinstance(obj, list):
        for v in obj:
            flatten(v, out)
    return out


def first_key(obj, *keys):
    for k in keys:
        if k in obj:
            return obj[k]
    raise AssertionError(f"none of {keys} in {obj}")


def test_view_text_matches_bt2(scry, trace):
    p = run([scry, "view", str(trace.dir)])
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == len(trace.trace.events)
    names = Counter()
    for line in lines:
        m = re.search(r"\b(syscall_(?:entry|exit)_\w+|sched_\w+|lttng_statedump_\w+)\b", line)
        assert m, f"no event name in {line!r}"
        names[m[1]] += 1
    assert names == Counter(e["name"] for e in trace.trace.events)
    opens = [l for l in lines if f'filename = "{trace.path1}"' in l]
    assert len(opens) == 1 and "syscall_entry_openat" in opens[0]


def test_view_json_matches_bt2(scry, trace):
    p = run([scry, "view", "--json", str(trace.dir)])
    assert p.returncode == 0, p.stderr
    objs = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    assert len(objs) == len(trace.trace.events)
    # the timestamp: ns since the epoch, an exact decimal string (above 2^53: docs/FORMAT.md)
    got = [(int(o["timestamp"]), o["name"]) for o in objs]
    ts = [t for t, _ in got]
    assert ts == sorted(ts), "scry view --json is not time-ordered"
    # Same (timestamp, name) multiset; the clock snapshot may be printed as cycles/ns since
    # the epoch (bt2 ts + offset) or since boot: compare after removing the constant offset.
    ref = [(e["ts"], e["name"]) for e in trace.trace.events]
    delta = got[0][0] - ref[0][0]
    assert Counter((t - delta, n) for t, n in got) == Counter(ref)
    # values of the openat of the known path
    opens = [o for o in objs if (("filename", trace.path1) in flatten(o))]
    assert len(opens) == 1
    leaves = dict(flatten(opens[0]))
    assert first_key(opens[0], "name", "event") == "syscall_entry_openat"
    assert leaves["flags"] == 0o2001101 and leaves["mode"] == 0o640
    ref_open = [e for e in trace.trace.events if e["fields"].get("filename") == trace.path1][0]
    assert leaves["tid"] == ref_open["tid"] and leaves["pid"] == ref_open["pid"]
    assert leaves["procname"] == "scry_workload"


def test_list_sched(scry):
    p = run([scry, "list", "sched:*"])
    assert p.returncode == 0, p.stderr
    words = set(re.findall(r"[\w:]+", p.stdout))
    assert "sched_switch" in words or "sched:sched_switch" in words
    assert "sched_process_fork" in words or "sched:sched_process_fork" in words
    assert "block_rq_issue" not in p.stdout


def test_list_syscalls(scry):
    p = run([scry, "list", "syscalls"])
    assert p.returncode == 0, p.stderr
    assert [l for l in p.stdout.splitlines() if re.search(r"\bopenat\b", l) and re.search(r"\b257\b", l)]
    assert [l for l in p.stdout.splitlines() if re.search(r"\bgetppid\b", l) and re.search(r"\b110\b", l)]


def test_list_contexts(scry):
    p = run([scry, "list", "contexts"])
    assert p.returncode == 0, p.stderr
    for c in ("pid", "tid", "procname", "ppid", "vpid", "cpu_id", "prio"):
        assert re.search(rf"\b{c}\b", p.stdout), c
