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


def test_buffer_size_over_the_kernel_limit(scry, tmp_path):
    # a BPF ring's size is a u32 power of two: 2G at most; refused before anything is made
    for size in ("4G", "3G", "5000M"):
        out = tmp_path / f"t{size}"
        msg = one_line(run([scry, "record", "-q", "-a", "--duration", "0.5", "--buffer-size", size,
                            "-o", str(out)]))
        assert msg == (f"scry: --buffer-size {size}: a CPU's ring buffer is at most 2G (the kernel's "
                       "limit: a power of two, sizes rounded up to one, below 4G)"), msg
        assert not out.exists()


def test_daemon_channel_over_the_kernel_limit(scry, tmp_path):
    from test_daemon import Daemon
    home = tmp_path / "home"
    home.mkdir()
    d = Daemon(scry, tmp_path / "run", home)
    try:
        d.run("create", "big", "-o", tmp_path / "t")
        p = d.run("enable-channel", "-k", "--subbuf-size", "1G", "--num-subbuf", "4", "ch", check=False)
        assert p.returncode == 1 and p.stderr == (
            "scry: enable-channel: --subbuf-size x --num-subbuf is 4096M per CPU, over the kernel's limit "
            "for a ring buffer (2G: a power of two below 4G)\n"), p.stderr
        d.run("enable-channel", "-k", "--subbuf-size", "1M", "--num-subbuf", "4", "ch")
    finally:
        d.kill()
    assert not (tmp_path / "t").exists()


def test_soft_open_file_limit_raised(scry, tmp_path):
    # soft 64, hard 20000: scry raises its soft limit (record -a holds ~200 fds) ...
    out = tmp_path / "t"
    p = run(["prlimit", "--nofile=64:20000", scry, "record", "-q", "-a", "--duration", "0.5",
             "-e", "sched:sched_switch,syscall:getppid", "-o", str(out)])
    assert p.returncode == 0, p.stderr
    assert (out / "kernel" / "metadata").exists()
    # ... and its command keeps the limit it was given
    p = run(["prlimit", "--nofile=64:20000", scry, "record", "-q", "-o", str(tmp_path / "c"), "--",
             "sh", "-c", "ulimit -Sn"])
    assert p.returncode == 0 and p.stdout == "64\n", (p.stdout, p.stderr)


def test_hard_open_file_limit_named(scry, tmp_path):
    out = tmp_path / "t"
    msg = one_line(run(["prlimit", "--nofile=64:64", scry, "record", "-q", "-a", "--duration", "0.5",
                        "-o", str(out)]))
    assert msg.startswith("scry: too many open files: the open-file limit (RLIMIT_NOFILE) is 64,"), msg
    assert not out.exists()
