"""tests/e2e/test_json.py — JSON a program can trust (issue 17): `scry trace --json` and
`scry view --json` read by Python's json module and by jq — integers beyond 2^53 (the
timestamps, RLIM64_INFINITY) as exact decimal strings, bytes that are not UTF-8 recovered
exactly (surrogateescape), each trace argument with its name, type and typed value beside
strace's text, and no CTF length fields in view's objects (scry's own `_X` fields kept)."""
import json
import os
import subprocess
import time

import pytest

NAME = b"/tmp/scry-json-\xff\xfe-" + str(os.getpid()).encode()
PROG = ("import os, resource\n"
        f"fd = os.open({NAME!r}, os.O_CREAT | os.O_WRONLY, 0o600)\n"
        "os.write(fd, b'ab\\xffcd')\n"
        "os.close(fd)\n"
        f"os.unlink({NAME!r})\n"
        "resource.getrlimit(resource.RLIMIT_CORE)\n")


def lines_of(path):
    return [json.loads(l) for l in open(path, encoding="utf-8", errors="surrogateescape")]


def test_trace_json(scry, tmp_path):
    out = tmp_path / "t.json"
    before = time.time_ns()
    p = subprocess.run([scry, "trace", "--json", "-o", str(out), "-e", "trace=openat,write,prlimit64", "--",
                        "/usr/bin/python3", "-c", PROG], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    evs = [e for e in lines_of(out) if e["event"] == "syscall"]
    for e in evs:       # ns since the epoch, exact: a string (above 2^53)
        assert isinstance(e["ts"], str) and before <= int(e["ts"]) <= time.time_ns()
    op = [e for e in evs if e["syscall"] == "openat" and e["args"][1]["value"].startswith("/tmp/scry-json-")]
    assert len(op) == 1
    dfd, name, flags, mode = op[0]["args"]
    assert (dfd["name"], dfd["type"], dfd["value"], dfd["text"]) == ("dfd", "dirfd", -100, "AT_FDCWD")
    assert name["name"] == "filename" and name["type"] == "path"
    assert name["value"].encode("utf-8", "surrogateescape") == NAME     # the bytes, exactly
    assert flags["value"] == os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC
    assert sorted(flags["names"]) == ["O_CLOEXEC", "O_CREAT", "O_WRONLY"]
    assert (mode["type"], mode["value"], mode["text"]) == ("oct", 0o600, "0600")
    fd = int(op[0]["ret"])      # a long: a string, as every 64-bit value
    wr = [e for e in evs if e["syscall"] == "write" and e["args"][0]["value"] == fd]
    assert len(wr) == 1 and wr[0]["ret"] == "5"
    assert wr[0]["args"][1]["value"].encode("utf-8", "surrogateescape") == b"ab\xffcd"
    assert wr[0]["args"][2] == {"name": "count", "type": "uint", "value": "5", "text": "5"}   # size_t
    pl = [e for e in evs if e["syscall"] == "prlimit64" and e["args"][1]["text"] == "RLIMIT_CORE"]
    assert pl, [e["args"] for e in evs if e["syscall"] == "prlimit64"]
    old = pl[-1]["args"][3]
    assert old["type"] == "struct" and set(old["value"]) == {"rlim_cur", "rlim_max"}
    import resource
    cur, mx = resource.getrlimit(resource.RLIMIT_CORE)
    want = [v if v != resource.RLIM_INFINITY else 2**64 - 1 for v in (cur, mx)]
    assert all(isinstance(old["value"][k], str) for k in ("rlim_cur", "rlim_max"))   # u64: strings
    got = [int(old["value"][k]) for k in ("rlim_cur", "rlim_max")]
    assert got == want
    # jq reads every line, and the exact values survive it
    q = subprocess.run(["jq", "-r", 'select(.event == "syscall") | .ts'], stdin=open(out, "rb"),
                       capture_output=True, text=True)
    assert q.returncode == 0 and q.stdout.split() == [e["ts"] for e in evs]


TYPES_PROG = ("import os, resource, signal, socket\n"
              "signal.signal(signal.SIGUSR1, lambda *a: None)\n"
              "signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR2])\n"
              "resource.getrlimit(resource.RLIMIT_CORE); resource.getrlimit(resource.RLIMIT_NOFILE)\n"
              "os.kill(os.getpid(), signal.SIGUSR1)\n"
              "os.lseek(os.open('/etc/hostname', os.O_RDONLY), 0, os.SEEK_END)\n")


def json_type(v):
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(v), "number")


def test_trace_json_one_type_per_field(scry, tmp_path):
    """Each field has one JSON type across every object of a trace, whatever its value: a
    u64 (sa_mask, rlim_cur, rlim_max: 0 in one object and 2^64-1 in the next) is a string
    in both, an int a number; keyed by (syscall, argument, struct field) and by the other
    events' fields."""
    out = tmp_path / "t.json"
    # sh's sigactions have sa_mask=~[RTMIN RT_1] (above 2^53), most others []
    p = subprocess.run([scry, "trace", "-f", "--json", "-o", str(out), "--", "sh", "-c",
                        'trap : INT; /usr/bin/python3 -c "$0"', TYPES_PROG], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    types, values = {}, {}

    def note(key, v):
        types.setdefault(key, set()).add(json_type(v))
        values.setdefault(key, []).append(v)

    for e in lines_of(out):
        for k, v in e.items():
            if k != "args" or e["event"] != "syscall":
                if e["event"] != "syscall" or k not in ("ret", "error") or v is not None:   # unfinished
                    note((e["event"], k), v)
                continue
            for a in v:
                for ak, av in a.items():
                    if ak == "value" and isinstance(av, dict):
                        for sk, sv in av.items():
                            note((e["syscall"], a["name"], sk), sv)
                    elif ak != "names":
                        note((e["syscall"], a["name"], ak), av)
    mixed = {k: t for k, t in types.items() if len(t) > 1}
    assert not mixed, mixed
    # the fields of the issue: values of both kinds seen, each field one type (a string)
    for f in ("sa_mask", "sa_handler", "sa_flags"):
        assert types[("rt_sigaction", "act", f)] == types[("rt_sigaction", "oact", f)] == {"string"}
    masks = {int(v) for v in values[("rt_sigaction", "act", "sa_mask")] + values[("rt_sigaction", "oact", "sa_mask")]}
    assert 0 in masks and max(masks) > 2**53, masks
    for f in ("rlim_cur", "rlim_max"):
        assert types[("prlimit64", "old_rlim", f)] == {"string"}
    assert {int(v) for v in values[("prlimit64", "old_rlim", "rlim_max")]} >= {2**64 - 1}
    assert types[("lseek", "fd", "value")] == {"number"} and types[("lseek", "offset", "value")] == {"string"}
    assert types[("syscall", "ret")] == {"string"} and types[("syscall", "pid")] == {"number"}
    assert types[("signal", "signo")] == {"number"} and types[("exit", "exit_code")] == {"number"}


def test_view_json(scry, tmp_path):
    tdir = tmp_path / "trace"
    p = subprocess.run([scry, "record", "-q", "-o", str(tdir), "-e", "syscall:openat", "-e", "syscall:prlimit64",
                        "-e", "syscall:execve", "-e", "syscall:read", "--", "/usr/bin/python3", "-c", PROG],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    out = tmp_path / "v.json"
    with open(out, "wb") as f:
        assert subprocess.run([scry, "view", "--json", str(tdir)], stdout=f).returncode == 0
    evs = lines_of(out)
    assert evs
    for e in evs:
        assert isinstance(e["timestamp"], str) and int(e["timestamp"]) > 2**53
        # no CTF length fields, nor the count beside a string array; scry's own `_X` fields kept
        assert not [k for k in e["payload"] if k.startswith("_") and k.endswith(("_length", "_count", "_ptr"))], \
            e["payload"]
    ex = [e for e in evs if e["name"] == "syscall_entry_execve"]
    assert ex and ex[0]["payload"]["_argv"][:2] == ["/usr/bin/python3", "-c"]
    assert isinstance(ex[0]["payload"]["argv"], int) and "_argv_count" not in ex[0]["payload"]
    # read's entry: fd, count and scry's `_buf` (the pointer; lttng-modules' buf is on the exit)
    rd = [e["payload"] for e in evs if e["name"] == "syscall_entry_read"]
    assert rd and all(sorted(p) == ["_buf", "count", "fd"] and p["_buf"] > 0 for p in rd), rd[:3]
    rx = [e["payload"] for e in evs if e["name"] == "syscall_exit_read"]
    assert rx and all(sorted(p) == ["buf", "ret"] for p in rx), rx[:3]
    op = [e for e in evs if e["name"] == "syscall_entry_openat" and e["payload"]["filename"].startswith("/tmp/scry-json")]
    assert len(op) == 1 and op[0]["payload"]["filename"].encode("utf-8", "surrogateescape") == NAME
    import resource
    if resource.getrlimit(resource.RLIMIT_CORE)[1] == resource.RLIM_INFINITY:
        ends = [e for e in evs if e["name"] == "syscall_exit_prlimit64" and "_old_rlim" in e["payload"]]
        # lttng-modules' old_rlim pointer, then the struct scry reads, a sequence of 0 or 1 in the trace
        assert all(isinstance(e["payload"]["old_rlim"], int) for e in ends), ends
        assert any(r.get("rlim_max") == "18446744073709551615" for e in ends for r in e["payload"]["_old_rlim"]), ends
    q = subprocess.run(["jq", "-s", "-e", "[.[] | .timestamp | tonumber] | length > 0 and all(. > 0)"],
                       stdin=open(out, "rb"), capture_output=True, text=True)
    assert q.returncode == 0, q.stderr
