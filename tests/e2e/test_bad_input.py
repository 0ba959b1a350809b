"""tests/e2e/test_bad_input.py — `scry record` refuses bad input: nonzero exit and a single
line on stderr that names the problem; an existing non-empty output directory is untouched."""
import hashlib
import os
import shutil
import subprocess

import pytest


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, **kw)


def one_line(p):
    assert p.returncode != 0, f"accepted: stdout={p.stdout!r} stderr={p.stderr!r}"
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected a one-line message, got:\n{p.stderr}"
    return lines[0]


def test_unknown_event_suggests(scry, tmp_path):
    msg = one_line(run([scry, "record", "-q", "-o", str(tmp_path / "t"), "-e", "sched:sched_swich",
                        "--", "/bin/true"]))
    assert "sched_swich" in msg
    assert "sched_switch" in msg.replace("sched_swich", "")
    assert not (tmp_path / "t" / "kernel").exists()


def test_nonexistent_pid(scry, tmp_path):
    msg = one_line(run([scry, "record", "-q", "-o", str(tmp_path / "t"), "-p", "999999999",
                        "--duration", "1"]))
    assert "999999999" in msg


def test_existing_nonempty_output_dir(scry, tmp_path):
    out = tmp_path / "existing"
    out.mkdir()
    keep = out / "keep.txt"
    data = os.urandom(4096)
    keep.write_bytes(data)
    msg = one_line(run([scry, "record", "-q", "-o", str(out), "--", "/bin/true"]))
    assert str(out) in msg or "existing" in msg
    assert keep.read_bytes() == data
    assert sorted(os.listdir(out)) == ["keep.txt"]


def test_empty_output_dir_accepted(record, tmp_path):
    out = tmp_path / "empty"
    out.mkdir()
    r = record(out, cmd=["/bin/true"])
    r.check()
    assert (out / "kernel" / "metadata").exists()


def test_unknown_context(scry, tmp_path):
    msg = one_line(run([scry, "record", "-q", "-o", str(tmp_path / "t"), "-c", "bogus",
                        "--", "/bin/true"]))
    assert "bogus" in msg


def test_bad_duration(scry, tmp_path):
    msg = one_line(run([scry, "record", "-q", "-o", str(tmp_path / "t"), "-a",
                        "--duration", "abc"]))
    assert "abc" in msg


def test_no_target(scry, tmp_path):
    p = run([scry, "record", "-q", "-o", str(tmp_path / "t")])
    assert p.returncode != 0 and p.stderr.strip()


def test_command_exit_status_propagates(record, tmp_path):
    r = record(tmp_path / "t", cmd=["/bin/sh", "-c", "exit 7"])
    assert r.returncode == 7, r.stderr
    assert r.summary()["events"] > 0


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) missing")
def test_not_root(scry, tmp_path):
    os.chmod(tmp_path, 0o777)
    p = run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
             scry, "record", "-q", "-a", "--duration", "1", "-o", str(tmp_path / "t")])
    msg = one_line(p)
    assert "root" in msg or "CAP_BPF" in msg or "CAP_PERFMON" in msg


@pytest.mark.parametrize("kind,why", [("missing", "not found"), ("not-executable", "Permission denied")])
def test_command_that_cannot_run(scry, tmp_path, kind, why):
    if kind == "missing":
        cmd = "scry-no-such-command"
    else:
        f = tmp_path / "data.txt"
        f.write_text("not a program")
        f.chmod(0o644)
        cmd = str(f)
    msg = one_line(run([scry, "record", "-q", "-o", str(tmp_path / "t"), "--", cmd]))
    assert cmd in msg and why in msg
    assert not (tmp_path / "t").exists()     # refused before anything was created
