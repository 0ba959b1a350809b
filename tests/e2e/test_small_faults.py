"""tests/e2e/test_small_faults.py — the smaller faults of issue 11, item 4: a -p pid without a
process, an empty event list, two runs in the same second without -o, the missing privilege
named for an unprivileged user, empty metadata in scry view, a timestamp going back in a
damaged stream, a buffer too small to be useful."""
import os
import re
import shutil
import struct
import subprocess
import time
from pathlib import Path

import pytest

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.mark.parametrize("cmd", ["trace", "record"])
@pytest.mark.parametrize("pids", ["999999", "999999,1", "1,999999"])
def test_pid_without_process(scry, tmp_path, cmd, pids):
    p = subprocess.run([scry, cmd, "-p", pids, *(["-o", str(tmp_path / "t")] if cmd == "record" else [])],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1
    assert p.stderr.splitlines()[-1].endswith("no process with pid 999999"), p.stderr
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize("spec", ["", ",", " , "])
def test_empty_event_list(scry, tmp_path, spec):
    p = subprocess.run([scry, "record", "-e", spec, "-o", str(tmp_path / "t"), "--", "/bin/true"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1
    assert p.stderr == f"scry: empty event list in -e '{spec}' (`scry list` shows the events)\n"
    assert not (tmp_path / "t").exists()
    t = subprocess.run([scry, "trace", "-e", spec, "--", "/bin/true"], capture_output=True, text=True, timeout=60)
    assert t.returncode == 1 and re.match(r"scry trace: (empty syscall|unknown syscall ' ')", t.stderr), t.stderr


def test_default_names_in_the_same_second(scry, tmp_path):
    """Three runs without -o started together: three directories, all complete traces."""
    ps = [subprocess.Popen([scry, "record", "-q", "-e", "syscall:getppid", "--", "/bin/true"], cwd=tmp_path,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    errs = [p.communicate(timeout=60)[1] for p in ps]
    assert [p.returncode for p in ps] == [0, 0, 0], errs
    dirs = sorted(d.name for d in tmp_path.iterdir())
    assert len(dirs) == 3, dirs
    base = min(dirs, key=len)
    assert re.fullmatch(r"scry-\d{8}-\d{6}", base)
    for d in dirs:
        assert d == base or re.fullmatch(re.escape(base) + r"-[12]", d) or re.fullmatch(r"scry-\d{8}-\d{6}", d), dirs
        assert (tmp_path / d / "kernel" / "metadata").exists()
    named = {re.search(r"bytes written to (\S+) in", e)[1] for e in errs}
    assert named == set(dirs)


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) missing")
def test_unprivileged_user_is_told_the_privilege(scry, tmp_path):
    os.chmod(tmp_path, 0o777)
    t = subprocess.run(NOBODY + [scry, "trace", "--", "/bin/true"], capture_output=True, text=True, cwd=tmp_path)
    assert t.returncode == 1
    assert t.stderr == ("scry trace: scry trace needs root, or CAP_BPF, CAP_PERFMON and CAP_DAC_READ_SEARCH; "
                        "missing CAP_BPF, CAP_PERFMON, CAP_DAC_READ_SEARCH (run it with sudo)\n")
    lst = subprocess.run(NOBODY + [scry, "list", "sched:*"], capture_output=True, text=True, cwd=tmp_path)
    assert lst.returncode == 1
    assert lst.stderr == "scry list: reading tracefs (/sys/kernel/tracing) needs root or CAP_DAC_READ_SEARCH (run scry with sudo)\n"
    assert "mount" not in lst.stderr + t.stderr


def test_view_empty_metadata(scry, record, tmp_path):
    out = tmp_path / "t"
    record(out, "-e", "syscall:getppid", cmd=["/bin/true"]).check()
    (out / "kernel" / "metadata").write_bytes(b"")
    v = subprocess.run([scry, "view", str(out)], capture_output=True, text=True)
    assert v.returncode == 1
    assert v.stderr == f"scry view: {out}/kernel/metadata: the metadata is empty: no event can be decoded\n"


def test_view_timestamp_going_back(scry, workload, record, tmp_path):
    """The first event of a stream's second packet is given timestamp 1: scry view stops that
    stream with an error naming it and the event's offset (never a huge positive delta)."""
    out = tmp_path / "t"
    record(out, "-e", "syscall:getppid", "--packet-size", "4K", cmd=[workload("getppid_loop"), "2000"]).check()
    f = max((p for p in (out / "kernel").iterdir() if p.name.startswith("channel0_")), key=lambda p: p.stat().st_size)
    data = bytearray(f.read_bytes())
    first_size = struct.unpack_from("<Q", data, 56)[0] // 8
    assert first_size < len(data)
    ev = first_size + 84                       # the second packet's first event
    struct.pack_into("<Q", data, ev + 2, 1)
    f.write_bytes(bytes(data))
    v = subprocess.run([scry, "view", str(out)], capture_output=True, text=True)
    assert v.returncode == 1
    assert re.search(rf"scry view: error: {re.escape(str(f))}: corrupt packet at offset {first_size}: "
                     rf"event at offset {ev}: timestamp goes back in time \(\d+ clock cycles before the "
                     r"previous event of the stream\)", v.stderr), v.stderr
    assert "+18446744073" not in v.stdout
    deltas = [float(m) for m in re.findall(r"\(\+([0-9.]+)\)", v.stdout)]
    assert deltas and max(deltas) < 1000


def test_small_buffer_warns(scry, tmp_path):
    p = subprocess.run([scry, "record", "-q", "--buffer-size", "4K", "-e", "syscall:getppid",
                        "-o", str(tmp_path / "t"), "--", "/bin/true"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0
    assert p.stderr.splitlines()[0] == ("scry: warning: --buffer-size 4096 bytes per CPU is below 64K (two of the "
                                        "largest events): large events never fit and most events will be lost")
    q = subprocess.run([scry, "record", "-q", "--buffer-size", "64K", "-e", "syscall:getppid",
                        "-o", str(tmp_path / "u"), "--", "/bin/true"], capture_output=True, text=True, timeout=60)
    assert q.returncode == 0 and "warning" not in q.stderr
