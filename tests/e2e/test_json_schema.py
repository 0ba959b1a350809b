"""tests/e2e/test_json_schema.py — `scry view --json-schema DIR`: the JSON Schema of what
`scry view --json DIR` prints, checked with Debian's python3-jsonschema (Draft 2020-12):
every object of a system-wide trace (`record -a`: every syscall, the scheduler's events, the
statedump; byte captures and execve's environment) against it, with its event classes
against the metadata's; objects changed in one way each (a type, a range, a member added or
missing, another class's name) rejected; a hand-written trace's enums, variants, floats,
arrays and structs described exactly; bad input refused in one line.

The schema does not describe `scry trace --json` (its objects are strace's calls, not CTF
event classes)."""
import datetime
import json
import multiprocessing
import re
import signal
import subprocess
from pathlib import Path

import jsonschema
import pytest

V = jsonschema.Draft202012Validator


def view(scry, *args, check=True):
    r = subprocess.run([scry, "view", *map(str, args)], capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    if check:
        assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def system_trace(scry, workload, tmp_path_factory):
    """A system-wide recording while workloads open and write files, fork, start a thread,
    exec, signal themselves, talk over sockets and pipes.  Returns (dir, the recorded count,
    scry_workload's report, its file paths)."""
    out = tmp_path_factory.mktemp("schema") / "t"
    wd = tmp_path_factory.mktemp("wl")
    p = subprocess.Popen([scry, "record", "-a", "--snaplen", "64", "--capture", "env", "-o", str(out)],
                         stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        line = p.stderr.readline()
        assert "recording to" in line, line + p.stderr.read()
        paths = (wd / "one", wd / "two")
        w = subprocess.run([workload("scry_workload"), str(paths[0]), "100", str(paths[1]), "200"],
                           capture_output=True, text=True, timeout=30, check=True)
        report = json.loads(w.stdout.splitlines()[0])
        # (signals ends in its SIGSEGV: statuses not checked)
        for args in (["signals"], ["iocalls", str(wd)], ["syscalls", str(wd)], ["tree"]):
            subprocess.run([workload(args[0])] + args[1:], capture_output=True, timeout=30)
    finally:
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    m = re.search(r"scry: (\d+) events recorded, (\d+) discarded", err)   # (losses to others' load:
    assert m, err                                                          # not this test's matter)
    return out, int(m[1]), report, paths


@pytest.fixture(scope="module")
def schema_and_objects(scry, system_trace):
    out = system_trace[0]
    schema = json.loads(view(scry, "--json-schema", out).stdout)
    objs = [json.loads(l) for l in view(scry, "--json", out).stdout.splitlines()]
    return schema, objs


def metadata_event_names(trace_dir):
    text = Path(trace_dir, "kernel", "metadata").read_text(errors="replace")
    return set(re.findall(r'event\s*\{\s*name\s*=\s*"?([^";]+)"?\s*;', text))


def iso(ns):
    t = datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ns % 10**9:09d}Z"


_CHECK = {}


def _check(todo):
    """The objects objs[i] of todo [(i, through the whole schema)] that fail: (object, errors)."""
    c, bad = _CHECK, []
    for i, whole in todo:
        o = c["objs"][i]
        errs = list(c["common"].iter_errors(o)) + list(c["by_class"][o["name"]].iter_errors(o))
        if whole:
            errs += list(c["full"].iter_errors(o))
        if errs:
            bad.append((o, [e.message for e in errs]))
    return bad


def test_every_object_of_a_system_trace(scry, system_trace, schema_and_objects):
    """Every object `view --json` prints validates.  Python's jsonschema takes ~1 ms an object
    through the whole schema, so: objects equal but for timestamp and time are validated once;
    each distinct one against the top level without its dispatch (the common members) and
    against $defs/NAME (what the dispatch sends it to, the same subschema); the first of each
    class through the whole schema, dispatch included; every object's timestamp and time
    checked here (the decimal string of ns since the epoch, and that instant in ISO 8601)."""
    out, recorded, report, paths = system_trace
    schema, objs = schema_and_objects
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    # one definition per event class the metadata declares, the top level's names the same
    names = metadata_event_names(out)
    assert len(names) > 600, len(names)   # every syscall's entry and exit, sched, statedump
    assert set(schema["$defs"]) == names
    assert set(schema["properties"]["name"]["enum"]) == names
    assert len(objs) == recorded
    todo, seen, firsts = [], set(), set()
    for i, o in enumerate(objs):
        ts = o["timestamp"]
        assert isinstance(ts, str) and re.fullmatch(r"1[0-9]{18}", ts), o   # > 2^53: a string
        assert o["time"] == iso(int(ts)), o
        key = json.dumps([o["name"], o["cpu_id"], o["context"], o["payload"]], sort_keys=True)
        if key not in seen:
            seen.add(key)
            todo.append((i, o["name"] not in firsts))
            firsts.add(o["name"])
    assert firsts == {o["name"] for o in objs}
    # two processes (forked: they share the objects and validators): other tests' load
    # takes the CPUs by task, and ~10,000 distinct objects take ~10 s of one
    _CHECK.update(objs=objs, full=V(schema), common=V({k: v for k, v in schema.items() if k != "allOf"}),
                  by_class={n: V(d) for n, d in schema["$defs"].items()})
    try:
        with multiprocessing.get_context("fork").Pool(2) as pool:
            bad = [b for part in pool.map(_check, [todo[0::2], todo[1::2]]) for b in part]
    finally:
        _CHECK.clear()
    assert not bad, bad[:5]
    # the workload's calls are among them, with their values
    pid = report["pid"]
    mine = [o for o in objs if o["context"]["pid"] == pid]
    opens = [o for o in mine if o["name"] == "syscall_entry_openat"]
    assert str(paths[0]) in {o["payload"]["filename"] for o in opens}, opens
    classes = {o["name"] for o in objs}
    for n in ("syscall_entry_openat", "syscall_exit_write", "syscall_entry_execve", "syscall_entry_socket",
              "syscall_entry_kill", "syscall_entry_rt_sigaction", "sched_process_fork", "sched_switch",
              "lttng_statedump_process_state", "lttng_statedump_file_descriptor"):
        assert n in classes, n
    # byte captures (--snaplen) are arrays of 0..255, execve's argv and envp arrays of strings
    writes = [o for o in mine if o["name"] == "syscall_entry_write" and o["payload"]["_buf"]]
    assert writes and all(0 <= b <= 255 for o in writes for b in o["payload"]["_buf"])
    assert schema["$defs"]["syscall_entry_write"]["properties"]["payload"]["properties"]["_buf"] == \
        {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}}
    execs = [o for o in objs if o["name"] == "syscall_entry_execve" and o["payload"]["_envp"]]
    assert execs and all(isinstance(s, str) for o in execs for s in o["payload"]["_argv"] + o["payload"]["_envp"])


def test_a_valid_schema(schema_and_objects):
    """The kernel trace's schema is a schema: valid against Draft 2020-12's meta-schema
    (~2 s for Python's jsonschema: a test of its own)."""
    V.check_schema(schema_and_objects[0])


def first(objs, name, pred=lambda o: True):
    for o in objs:
        if o["name"] == name and pred(o):
            return json.loads(json.dumps(o))
    pytest.fail(f"no {name} event")


def test_schema_rejects_other_types(schema_and_objects):
    """The schema is not permissive: one change at a time to valid objects fails it."""
    schema, objs = schema_and_objects
    full = V(schema)
    op = first(objs, "syscall_entry_openat")
    rd = first(objs, "syscall_exit_read", lambda o: len(o["payload"]["_buf"]) > 0)
    sw = first(objs, "sched_switch")
    for o in (op, rd, sw):
        assert full.is_valid(o), [e.message for e in full.iter_errors(o)]

    def rejected(o, path, value=None, delete=False):
        o = json.loads(json.dumps(o))
        d = o
        for k in path[:-1]:
            d = d[k]
        if delete:
            del d[path[-1]]
        else:
            d[path[-1]] = value
        return not full.is_valid(o)

    assert rejected(op, ["payload", "filename"], 5)                  # a number where a string is declared
    assert rejected(op, ["context", "pid"], str(op["context"]["pid"]))   # a 32-bit integer as a string
    assert rejected(op, ["context", "pid"], 2**31)                   # beyond int32
    assert rejected(op, ["context", "procname"], "x" * 17)           # char[16]
    assert rejected(op, ["payload", "flags"], "12")                  # a 64-bit integer below 2^53 is a number
    assert rejected(op, ["payload", "flags"], 1.5)
    assert not rejected(op, ["payload", "flags"], "9223372036854775807")   # beyond 2^53: a string
    assert rejected(op, ["payload", "mode"], -1)                     # unsigned
    assert rejected(op, ["payload", "bogus"], 1)                     # no such member
    assert rejected(op, ["payload", "flags"], delete=True)           # a member missing
    assert rejected(op, ["cpu_id"], delete=True)
    assert rejected(op, ["timestamp"], 1.5)
    assert rejected(op, ["time"], "yesterday")
    assert rejected(op, ["name"], "sched_switch")                    # another class's members
    assert rejected(sw, ["name"], "syscall_entry_openat")
    assert rejected(op, ["name"], "no_such_event")
    assert rejected(rd, ["payload", "_buf", 0], 256)                 # a byte
    assert rejected(rd, ["payload", "_buf"], "text")
    assert rejected(sw, ["payload", "prev_comm"], ["a"])


META = r'''/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
trace { major = 1; minor = 8; byte_order = le;
  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
clock { name = monotonic; freq = 1000000000; };
typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := clk_t;
stream { id = 0; event.header := struct { uint32_t id; clk_t timestamp; };
  packet.context := struct { uint64_t content_size; uint64_t packet_size; uint32_t cpu_id; };
  event.context := struct { integer { size = 16; align = 8; signed = true; } prio; }; };
enum kind : uint8_t { ZERO = 0, A_LOT = 10 ... 20, "with space" = 30 };
event { name = "odd/name~1"; id = 0; stream_id = 0;
  context := struct { string where; };
  fields := struct {
    enum kind k;
    variant <k> { uint32_t ZERO; string _A_LOT; } v;
    floating_point { exp_dig = 11; mant_dig = 53; align = 8; } f;
    integer { size = 8; align = 8; signed = true; } s8[3];
    uint8_t __n_length;
    integer { size = 8; align = 8; encoding = UTF8; } _n[__n_length];
    struct { uint64_t a; integer { size = 54; align = 8; signed = true; } b; } st;
  }; };
event { name = a_second; id = 1; stream_id = 0; };
event { name = "a third"; id = 2; stream_id = 0; fields := struct { string s; }; };
'''


def test_declared_types_of_a_written_trace(scry, tmp_path):
    """A trace's metadata written here: each declared type's schema, exactly."""
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "metadata").write_text(META)
    s = json.loads(view(scry, "--json-schema", tmp_path / "t").stdout)
    V.check_schema(s)
    assert s["properties"]["name"] == {"enum": ["a third", "a_second", "odd/name~1"]}   # sorted
    d = s["$defs"]["odd/name~1"]["properties"]
    assert d["cpu_id"] == {"type": "integer", "minimum": 0, "maximum": 2**32 - 1}
    assert d["context"] == {"type": "object", "properties": {
        "prio": {"type": "integer", "minimum": -2**15, "maximum": 2**15 - 1},
        "where": {"type": "string"}}, "required": ["prio", "where"], "additionalProperties": False}
    u8 = {"type": "integer", "minimum": 0, "maximum": 255}
    u64 = {"type": ["integer", "string"], "minimum": 0, "maximum": 2**53, "pattern": "^[1-9][0-9]{15,19}$"}
    p = d["payload"]
    assert p["required"] == ["k", "v", "f", "s8", "n", "st"]   # __n_length: the layout's
    assert p["additionalProperties"] is False
    pp = p["properties"]
    # an enum: a label, or a number no label maps
    labeled = [{"minimum": 0, "maximum": 0}, {"minimum": 10, "maximum": 20}, {"minimum": 30, "maximum": 30}]
    assert pp["k"] == {"anyOf": [{"enum": ["ZERO", "A_LOT", "with space"]}, dict(u8, **{"not": {"anyOf": labeled}})]}
    assert pp["v"] == {"anyOf": [{"type": "integer", "minimum": 0, "maximum": 2**32 - 1}, {"type": "string"}]}
    assert pp["f"] == {"type": ["number", "null"]}
    assert pp["s8"] == {"type": "array", "items": {"type": "integer", "minimum": -128, "maximum": 127},
                        "minItems": 3, "maxItems": 3}
    assert pp["n"] == {"type": "string"}
    assert pp["st"]["properties"] == {"a": u64, "b": {"type": "integer", "minimum": -2**53, "maximum": 2**53 - 1}}
    # the dispatch reaches the name with / and ~ (a JSON pointer's ~1 and ~0)
    full = V(s)
    o = {"timestamp": "1795825796608662026", "time": "2026-11-28T00:29:56.608662026Z", "name": "odd/name~1",
         "cpu_id": 1, "context": {"prio": -3, "where": "here"},
         "payload": {"k": "A_LOT", "v": "x", "f": 0.5, "s8": [1, -2, 3], "n": "ab",
                     "st": {"a": "18446744073709551615", "b": -5}}}
    assert full.is_valid(o), [e.message for e in full.iter_errors(o)]
    for k, ok in (("ZERO", True), (25, True), (9, True), (15, False), (30, False), (256, False), ("ONE", False)):
        assert full.is_valid(dict(o, payload=dict(o["payload"], k=k))) == ok, k
    o["payload"]["st"]["a"] = -1
    assert not full.is_valid(o)
    base = {k: o[k] for k in ("timestamp", "time", "cpu_id")}
    assert full.is_valid(dict(base, name="a_second", context={"prio": 0}, payload={}))
    assert full.is_valid(dict(base, name="a third", context={"prio": 0}, payload={"s": ""}))
    assert not full.is_valid(dict(base, name="a_second", context={"prio": 0}, payload={"s": ""}))
    assert not full.is_valid(dict(base, name="a third", context={"prio": 0}, payload={}))
    # names in a balanced if/then/else (log2 tests an object), each leaf its $defs/NAME
    assert s["allOf"] == [{"if": {"properties": {"name": {"enum": ["a third"]}}},
                           "then": {"$ref": "#/$defs/a%20third"},
                           "else": {"if": {"properties": {"name": {"enum": ["a_second"]}}},
                                    "then": {"$ref": "#/$defs/a_second"},
                                    "else": {"$ref": "#/$defs/odd~1name~01"}}}]


def small_trace(d, fields, env="", ctx="uint32_t pid;"):
    d.mkdir(parents=True)
    (d / "metadata").write_text(
        "/* CTF 1.8 */\n"
        "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
        "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
        "trace { major = 1; minor = 8; byte_order = le; };\n" + env +
        "stream { id = 0; event.header := struct { uint32_t id; uint64_t timestamp; };\n"
        f"  event.context := struct {{ {ctx} }}; }};\n"
        f"event {{ name = e; id = 0; stream_id = 0; fields := struct {{ {fields} }}; }};\n")


def test_classes_of_several_traces(scry, tmp_path):
    """Traces under one directory (scry view merges them): a class name with two layouts is
    the anyOf of both, with one layout once; "container" is in the context, optional, when
    the trace names cgroup ids of a cgroup_id context."""
    small_trace(tmp_path / "two" / "a", "uint32_t x;")
    small_trace(tmp_path / "two" / "b", "string x;")
    small_trace(tmp_path / "same" / "a", "uint32_t x;")
    small_trace(tmp_path / "same" / "b", "uint32_t x;")
    u32 = {"type": "integer", "minimum": 0, "maximum": 2**32 - 1}
    two = json.loads(view(scry, "--json-schema", tmp_path / "two").stdout)["$defs"]["e"]
    assert [o["properties"]["payload"]["properties"]["x"] for o in two["anyOf"]] in \
        ([u32, {"type": "string"}], [{"type": "string"}, u32])
    same = json.loads(view(scry, "--json-schema", tmp_path / "same").stdout)["$defs"]["e"]
    assert same["properties"]["payload"]["properties"] == {"x": u32}
    small_trace(tmp_path / "cg", "", env='env { scry_cgroup_4242 = "web-1"; };\n', ctx="uint64_t cgroup_id;")
    c = json.loads(view(scry, "--json-schema", tmp_path / "cg").stdout)["$defs"]["e"]["properties"]["context"]
    assert c["properties"]["container"] == {"type": "string"} and c["required"] == ["cgroup_id"]
    small_trace(tmp_path / "nocg", "", ctx="uint64_t cgroup_id;")
    c = json.loads(view(scry, "--json-schema", tmp_path / "nocg").stdout)["$defs"]["e"]["properties"]["context"]
    assert set(c["properties"]) == {"cgroup_id"}


def test_bad_input(scry, tmp_path):
    """Not a trace, a file, a broken metadata, options that do not go with it: one line on
    stderr, nothing on stdout, exit status 1."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("x")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "metadata").write_text("event { name = ; };\n")
    cases = [[tmp_path / "missing"], [tmp_path / "file"], [tmp_path / "empty"], [tmp_path / "broken"],
             ["--filter", "ret < 0", tmp_path / "broken"], ["-n", "3", tmp_path / "broken"],
             ["net://localhost/host/h/s"]]
    for args in cases:
        r = view(scry, "--json-schema", *args, check=False)
        assert r.returncode == 1 and r.stdout == "", (args, r)
        assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith("scry view: "), (args, r.stderr)
