"""tests/e2e/test_view_filter.py — `scry view DIR --filter EXPR` on a recorded workload prints
exactly the events that babeltrace2's Python bindings read from the same trace and that the
same expression, written in Python with LTTng's semantics (a field the event does not have makes
the expression false), selects; a bad filter exits nonzero with a one-line error and a caret
under the offending token on stderr, and prints nothing on stdout."""
import json
import subprocess
from collections import Counter

import pytest

N_BYTES = 2345
M_BYTES = 678
O_CREAT = 0o100


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)


def _py(field):
    import bt2
    if isinstance(field, bt2._StringFieldConst):
        return str(field)
    if isinstance(field, bt2._IntegerFieldConst):
        return int(field)
    if isinstance(field, bt2._RealFieldConst):
        return float(field)
    if isinstance(field, bt2._StructureFieldConst):
        return {k: _py(v) for k, v in field.items()}
    if isinstance(field, bt2._ArrayFieldConst):
        return [_py(v) for v in field]
    if isinstance(field, bt2._VariantFieldConst):
        return _py(field.selected_option)
    return field


def read_bt2(path):
    """Every event: dict(ts = ns from origin, name, cpu, ctx = common context, f = payload)."""
    import bt2
    out = []
    for msg in bt2.TraceCollectionMessageIterator(str(path)):
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        pkt = ev.packet
        cpu = int(pkt.context_field["cpu_id"]) if pkt is not None and pkt.context_field is not None \
            and "cpu_id" in pkt.context_field else None
        out.append(dict(ts=msg.default_clock_snapshot.ns_from_origin, name=ev.name, cpu=cpu,
                        ctx=_py(ev.common_context_field) if ev.common_context_field is not None else {},
                        f=_py(ev.payload_field) if ev.payload_field is not None else {}))
    return out


@pytest.fixture(scope="module")
def rec(tmp_path_factory, record, workload):
    base = tmp_path_factory.mktemp("vfilter")
    path1, path2 = base / "one.out", base / "two.out"
    r = record(base / "trace", "-c", "pid,tid,procname,ppid",
               cmd=[workload("scry_workload"), path1, N_BYTES, path2, M_BYTES])
    r.check()
    lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
    assert len(lines) == 1, f"workload output: {r.stdout!r}"
    r.wl = json.loads(lines[0])
    r.base = str(base)
    r.path1 = str(path1)
    r.events = read_bt2(r.dir)
    assert r.events, "empty trace"
    return r


def view(scry, rec, expr, json_out=True):
    argv = [scry, "view"] + (["--json"] if json_out else []) + [str(rec.dir), "--filter", expr]
    return run(argv)


def key_json(o):
    return (int(o["timestamp"]), o["name"], o["context"].get("tid"))


def key_bt2(e):
    return (e["ts"], e["name"], e["ctx"].get("tid"))


def has(e, *names):
    return all(n in e["f"] for n in names)


def check_same(scry, rec, expr, pred, at_least=1):
    p = view(scry, rec, expr)
    assert p.returncode == 0, f"{expr!r}: exit {p.returncode}\n{p.stderr}"
    got = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    want = [e for e in rec.events if pred(e)]
    assert len(want) >= at_least, f"{expr!r}: the workload should produce at least {at_least} matches"
    assert Counter(key_json(o) for o in got) == Counter(key_bt2(e) for e in want), expr
    ts = [int(o["timestamp"]) for o in got]
    assert ts == sorted(ts)
    return got


def test_ret_negative(scry, rec):
    got = check_same(scry, rec, "ret < 0", lambda e: has(e, "ret") and e["f"]["ret"] < 0)
    # the thread's faccessat failed with -ENOENT
    assert any(o["name"] == "syscall_exit_faccessat" and o["payload"]["ret"] == -2
               and o["context"]["tid"] == rec.wl["thread"]["tid"] for o in got)


def test_ret_negative_text(scry, rec):
    """The issue's command line: `scry view DIR --filter 'ret < 0'`, text output."""
    p = view(scry, rec, "ret < 0", json_out=False)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    want = [e for e in rec.events if has(e, "ret") and e["f"]["ret"] < 0]
    assert len(lines) == len(want)
    assert all("ret = -" in l for l in lines)


def test_not_missing_is_false(scry, rec):
    # LTTng: events without `ret` do not match, even under `!`
    check_same(scry, rec, "!(ret == 0)", lambda e: has(e, "ret") and not e["f"]["ret"] == 0)


def test_glob_prefix(scry, rec):
    check_same(scry, rec, f'filename == "{rec.base}/*"',
               lambda e: isinstance(e["f"].get("filename"), str) and e["f"]["filename"].startswith(rec.base + "/"),
               at_least=3)


def test_glob_middle_and_suffix(scry, rec):
    got = check_same(scry, rec, 'filename == "*/one.out*" || filename == "*.thread"',
                     lambda e: isinstance(e["f"].get("filename"), str) and
                     ("/one.out" in e["f"]["filename"] or e["f"]["filename"].endswith(".thread")),
                     at_least=2)
    assert any(o["name"] == "syscall_entry_faccessat" for o in got)


def test_exact_string_and_bitwise_precedence(scry, rec):
    # LTTng: `flags & 0x40 == 0x40` is `(flags & 0x40) == 0x40` (O_CREAT)
    got = check_same(scry, rec, f'flags & 0x40 == 0x40 && $ctx.procname == "scry_workload" && filename == "{rec.path1}"',
                     lambda e: has(e, "flags", "filename") and e["f"]["flags"] & O_CREAT == O_CREAT
                     and e["ctx"].get("procname") == "scry_workload" and e["f"]["filename"] == rec.path1)
    assert len(got) == 1 and got[0]["name"] == "syscall_entry_openat"


def test_counts(scry, rec):
    got = check_same(scry, rec, f"count == {N_BYTES} || count == 0x{M_BYTES:x} || count == 0{N_BYTES:o}",
                     lambda e: has(e, "count") and e["f"]["count"] in (N_BYTES, M_BYTES), at_least=2)
    assert {o["payload"]["count"] for o in got} >= {N_BYTES, M_BYTES}


def test_contexts(scry, rec):
    tid = rec.wl["thread"]["tid"]
    check_same(scry, rec, f"$ctx.tid == {tid}", lambda e: e["ctx"].get("tid") == tid, at_least=2)
    pid = rec.wl["pid"]
    check_same(scry, rec, f"$ctx.ppid == {pid} && $ctx.pid != {pid}",
               lambda e: e["ctx"].get("ppid") == pid and e["ctx"].get("pid") != pid, at_least=2)


def test_cpu_id_from_packet(scry, rec):
    """cpu_id is not recorded per event here: $ctx.cpu_id is the stream's CPU."""
    cpus = Counter(e["cpu"] for e in rec.events)
    cpu = cpus.most_common(1)[0][0]
    check_same(scry, rec, f"$ctx.cpu_id == {cpu}", lambda e: e["cpu"] == cpu)
    p = view(scry, rec, "$ctx.cpu_id >= 0")
    assert p.returncode == 0 and len(p.stdout.splitlines()) == len(rec.events)


def test_fields_compared_with_fields(scry, rec):
    # sched_process_fork: vtids[0] is the child's tid; the child inherits the comm
    got = check_same(scry, rec, "vtids[0] == child_tid && parent_comm == child_comm",
                     lambda e: has(e, "vtids", "child_tid", "parent_comm", "child_comm")
                     and len(e["f"]["vtids"]) > 0 and e["f"]["vtids"][0] == e["f"]["child_tid"]
                     and e["f"]["parent_comm"] == e["f"]["child_comm"])
    assert all(o["name"] == "sched_process_fork" for o in got)


def test_limit_counts_matches(scry, rec):
    p = run([scry, "view", "--json", "-n", "1", str(rec.dir), "--filter", "ret < 0"])
    assert p.returncode == 0
    assert len(p.stdout.splitlines()) == 1


@pytest.mark.parametrize("expr,offset,msg", [
    ("ret < 0)", 7, "unexpected ')'"),
    ("nosuch == 1", 0, "no selected event has a field 'nosuch'"),
    ("filename == 3", 9, "cannot compare a string with an integer"),
    ("ret < \"x\"", 4, "strings cannot be compared with '<'"),
    ("$ctx.uid == 0", 0, "no selected event has the context 'uid'"),
    ("ret == 1 &&", 11, "unexpected end of expression"),
    ("ret * 2 > 1", 4, "arithmetic operators are not supported"),
    ("count == 1 || filename == \"x\"", 14, "no selected event has both 'count' and 'filename'"),
])
def test_bad_filter(scry, rec, expr, offset, msg):
    p = view(scry, rec, expr, json_out=False)
    assert p.returncode != 0
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 3, p.stderr
    assert lines[0].startswith("scry: filter: ") and msg in lines[0], lines[0]
    assert lines[1] == expr
    assert lines[2].startswith(" " * offset + "^") and lines[2][:offset].strip() == "", lines[2]
