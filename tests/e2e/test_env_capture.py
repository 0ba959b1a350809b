"""tests/e2e/test_env_capture.py — execve's environment is opt-in (issue 24, part 3): by
default a trace holds what lttng-modules records for execve's envp (its pointer, `envp`, a
uint64 in hexadecimal) and scry's count of its strings (`_envp_count`), no string; `scry
record --capture env` records the strings too, after them, as `_envp`.  `scry trace` prints the environment as
strace 6.1 does: "0x7ffd... /* N vars */" without -v, the strings with -v (and reads them
only then, --record too).  The secret is passed in the environment, never in argv, and the
raw stream files are searched for it, so a string the metadata does not declare is found
too."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import read_trace
from test_daemon import daemon  # noqa: F401 (fixture)

SECRET = "topsecret-2f9c1e"
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C", "SCRY_SECRET_ENV": SECRET}


def streams_hold(trace, text):
    """The stream files (not the metadata) of trace that contain text."""
    return [p.name for p in Path(trace, "kernel").iterdir()
            if p.name != "metadata" and p.is_file() and text.encode() in p.read_bytes()]


def record_env(scry, out, *opts, cmd=("sh", "-c", "/bin/true")):
    p = subprocess.run([scry, "record", "-q", "-o", str(out), "-e", "syscall:execve,syscall:execveat", *opts,
                        "--", *cmd],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, env=ENV)
    assert p.returncode == 0, p.stderr
    return read_trace(out)


def execs(tr):
    return [e["fields"] for e in tr.events if e["name"] == "syscall_entry_execve"]


def metadata_entry(trace, name):
    """The field lines of syscall_entry_NAME in the trace's metadata."""
    text = Path(trace, "kernel", "metadata").read_text()
    body = text[text.index(f'name = "syscall_entry_{name}";'):]
    return body[:body.index("};")]


def test_default_no_env_strings(scry, tmp_path):
    out = tmp_path / "trace"
    tr = record_env(scry, out)
    assert streams_hold(out, "SCRY_SECRET_ENV") == [] and streams_hold(out, SECRET) == []
    ex = execs(tr)
    assert [e["filename"] for e in ex] == ["/usr/bin/sh", "/bin/true"]
    # sh's environment is scry's (ENV); sh adds PWD for /bin/true
    assert [e["_envp_count"] for e in ex] == [len(ENV), len(ENV) + 1]
    assert all(isinstance(e["envp"], int) and e["envp"] > 0x1000 for e in ex)
    assert "_envp_length" not in ex[0] and "_envp_ptr" not in ex[0]
    assert ex[0]["_argv"] == ["sh", "-c", "/bin/true"]        # argv is still recorded
    for name in ("execve", "execveat"):
        meta = metadata_entry(out, name)
        # lttng-modules: ctf_integer_hex(char *const *, envp, envp) (execveat: ctf_integer)
        assert re.search(r"integer \{ size = 64; align = 8; signed = 0; encoding = none; base = 16; \} _envp;",
                         meta), name
        assert re.search(r"integer \{ size = 32;[^}]*\} __envp_count;", meta), name
        assert "_envp[" not in meta and "__envp_ptr" not in meta, name


def test_capture_env_strings(scry, tmp_path):
    out = tmp_path / "trace"
    tr = record_env(scry, out, "--capture", "env")
    assert streams_hold(out, f"SCRY_SECRET_ENV={SECRET}")
    ex = execs(tr)
    want = sorted(f"{k}={v}" for k, v in ENV.items())
    # lttng-modules' pointer `envp` as without the option, then scry's strings as `_envp`
    assert sorted(ex[0]["_envp"]) == want and ex[0]["_envp_count"] == len(ENV)
    assert f"SCRY_SECRET_ENV={SECRET}" in ex[1]["_envp"] and len(ex[1]["_envp"]) == ex[1]["_envp_count"] == len(ENV) + 1
    assert ex[0]["envp"] > 0x1000 and "__envp_length" in ex[0] and "_envp_ptr" not in ex[0]


@pytest.mark.parametrize("bad", ["foo", "env,foo", "", "env,"])
def test_capture_bad_value(scry, tmp_path, bad):
    p = subprocess.run([scry, "record", "-o", str(tmp_path / "t"), "--capture", bad, "--", "/bin/true"],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode != 0
    assert p.stderr == f"scry: invalid --capture '{bad}' (expected: env, sock)\n"
    assert not (tmp_path / "t").exists()


def test_trace_record_default_and_v(scry, tmp_path):
    for opts, held in (([], False), (["-v"], True)):
        out = tmp_path / f"rec{len(opts)}"
        p = subprocess.run([scry, "trace", "-o", str(tmp_path / "lines"), "--record", str(out), *opts,
                            "--", "sh", "-c", "/bin/true"], capture_output=True, text=True, timeout=120,
                           stdin=subprocess.DEVNULL, env=ENV)
        assert p.returncode == 0, p.stderr
        assert bool(streams_hold(out, SECRET)) == held, opts
        assert (SECRET in (tmp_path / "lines").read_text()) == held, opts


def normalize(text):
    return [re.sub(r"0x[0-9a-f]+", "ADDR", l) for l in text.splitlines()]


@pytest.mark.skipif(not shutil.which("strace"), reason="strace not installed")
@pytest.mark.parametrize("opts", [[], ["-v"]], ids=["default", "v"])
def test_trace_envp_as_strace(scry, tmp_path, opts):
    cmd = ["env", "FOO=bar", "/bin/true"]
    st, sc = tmp_path / "strace.out", tmp_path / "scry.out"
    a = subprocess.run(["strace", *opts, "-e", "trace=execve", "-o", str(st), *cmd], env=ENV, timeout=60)
    b = subprocess.run([scry, "trace", *opts, "-e", "trace=execve", "-o", str(sc), "--", *cmd], env=ENV,
                       capture_output=True, text=True, timeout=120)
    assert a.returncode == b.returncode == 0, b.stderr
    theirs, ours = normalize(st.read_text()), normalize(sc.read_text())
    assert ours == theirs
    if opts:
        assert ours[1] == ('execve("/bin/true", ["/bin/true"], ["PATH=/usr/bin:/bin", "LANG=C", '
                           f'"SCRY_SECRET_ENV={SECRET}", "FOO=bar"]) = 0')
    else:
        assert ours[0] == 'execve("/usr/bin/env", ["env", "FOO=bar", "/bin/true"], ADDR /* 3 vars */) = 0'
        assert ours[1] == 'execve("/bin/true", ["/bin/true"], ADDR /* 4 vars */) = 0'


def test_daemon_session_default(daemon, tmp_path):
    """A daemon session records execve's environment as LTTng does: no string, whoever runs."""
    out = tmp_path / "dtrace"
    daemon.run("create", "envs", "-o", out)
    daemon.run("enable-event", "-k", "--syscall", "execve")
    daemon.run("add-context", "-k", "-t", "pid")
    daemon.run("start")
    p = subprocess.Popen(["/usr/bin/env", "/bin/true"], env=ENV)    # two execs, one pid
    assert p.wait(timeout=60) == 0
    daemon.run("stop")
    assert streams_hold(out, SECRET) == []
    mine = [e["fields"] for e in read_trace(out).events
            if e["name"] == "syscall_entry_execve" and e["pid"] == p.pid]
    assert [e["filename"] for e in mine] == ["/usr/bin/env", "/bin/true"], mine
    assert [e["_envp_count"] for e in mine] == [len(ENV), len(ENV)]
    assert all(isinstance(e["envp"], int) and e["envp"] > 0x1000 for e in mine)
    daemon.run("destroy")


@pytest.mark.parametrize("opts", [[], ["-v"]], ids=["default", "v"])
def test_trace_json_envp(scry, tmp_path, opts):
    """--json: the environment's pointer and count; its strings ("value") with -v only."""
    out = tmp_path / "trace.json"
    p = subprocess.run([scry, "trace", "--json", *opts, "-e", "trace=execve", "-o", str(out), "--", "/bin/true"],
                       env=ENV, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    ev, = [json.loads(l) for l in out.read_text().splitlines() if '"syscall":"execve"' in l]
    envp = ev["args"][2]
    assert envp["name"] == "envp" and envp["count"] == len(ENV) and int(envp["ptr"]) > 0x1000   # a pointer: a string
    assert envp["text"] == (f"0x{int(envp['ptr']):x} /* {len(ENV)} vars */" if not opts else
                            '["PATH=/usr/bin:/bin", "LANG=C", "SCRY_SECRET_ENV=' + SECRET + '"]')
    if opts:
        assert envp["value"] == ["PATH=/usr/bin:/bin", "LANG=C", f"SCRY_SECRET_ENV={SECRET}"]
    else:
        assert "value" not in envp and SECRET not in out.read_text()
