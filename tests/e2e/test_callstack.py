"""tests/e2e/test_callstack.py — the callstack-kernel and callstack-user contexts (issue 14,
item 5): LTTng's fields (`_callstack_user_length` + `callstack_user`, unsigned long hex),
recorded for a syscall made three known functions deep (tests/workload/nested_calls.c),
read by babeltrace2 with no warning, and symbolized by `scry view` after the process has
exited: kernel frames from kallsyms, user ones from the mappings captured in the trace
(scry-maps) and the ELF files, not when the file's build id changed since."""
import json
import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import read_trace, run_babeltrace2


@pytest.fixture(scope="module")
def rec(tmp_path_factory, record, workload):
    base = tmp_path_factory.mktemp("cs")
    exe = base / "nested_calls"          # a copy: the build-id test replaces it afterwards
    shutil.copy(workload("nested_calls"), exe)
    out = base / "trace"
    r = record(out, "-e", "syscall:getppid", "-c", "pid,callstack-kernel,callstack-user", cmd=[exe, 300])
    r.check()
    r.wl = json.loads(r.stdout.splitlines()[0])
    r.exe = exe
    return r


def test_babeltrace2_reads_lttng_fields(rec):
    bt = run_babeltrace2(rec.dir)
    assert bt.returncode == 0 and bt.stderr == "", bt.stderr
    meta = open(rec.dir / "kernel" / "metadata").read()
    for k in ("kernel", "user"):
        assert f"integer {{ size = 32; align = 8; signed = 0; encoding = none; base = 10; }} __callstack_{k}_length;" in meta
        assert (f"integer {{ size = 64; align = 8; signed = 0; encoding = none; base = 16; }} "
                f"_callstack_{k}[ __callstack_{k}_length ];") in meta
    evs = [e for e in read_trace(rec.dir).events if e["ctx"]["pid"] == rec.wl["pid"]]
    assert [e["name"] for e in evs] == ["syscall_entry_getppid", "syscall_exit_getppid"]
    assert evs[1]["fields"]["ret"] == rec.wl["ret"]
    for e in evs:
        c = e["ctx"]
        assert c["_callstack_user_length"] == len(c["callstack_user"]) >= 4
        assert c["_callstack_kernel_length"] == len(c["callstack_kernel"]) >= 3
        assert all(a >= 0xffff800000000000 for a in c["callstack_kernel"])
        assert all(0 < a < 0x800000000000 for a in c["callstack_user"])
    # babeltrace2's own reading: each stack exactly the frames there are, as LTTng writes it
    # (not 129 slots, zero-padded, as records once carried them), the same frames as bt2's above
    lines = [l for l in bt.stdout.splitlines() if f"pid = {rec.wl['pid']}" in l]
    assert len(lines) == 2, bt.stdout[-2000:]
    for l, e in zip(lines, evs):
        for k in ("kernel", "user"):
            n = int(re.search(rf"_callstack_{k}_length = (\d+)", l).group(1))
            m = re.search(rf"callstack_{k} = \[(.*?) \]", l)
            got = [int(v, 16) for v in re.findall(r"\] = (0x[0-9a-fA-F]+|0)\b", m.group(1))]
            assert 3 <= n < 129 and len(got) == n and 0 not in got, l
            assert got == e["ctx"][f"callstack_{k}"], l


def frames(line, field):
    m = re.search(field + r" = \[(.*?) \]", line)
    assert m, line
    return re.findall(r"\] = (0x[0-9A-F]+)(?: <([^>]+)>)?", m.group(1))


def test_view_symbolizes_after_exit(rec, scry):
    out = subprocess.run([scry, "view", str(rec.dir)], capture_output=True, text=True, check=True).stdout
    lines = [l for l in out.splitlines() if f"pid = {rec.wl['pid']}," in l]
    assert len(lines) == 2
    for l in lines:
        user = [s.split("+")[0] for _, s in frames(l, "callstack_user") if s]
        assert user[:4] == ["scry_leaf", "scry_middle", "scry_outer", "main"], l
        kern = [s.split("+")[0] for _, s in frames(l, "callstack_kernel")]
        assert "do_syscall_64" in kern and all(kern), l
    # the mappings that made it possible, captured while the process lived
    maps = (rec.dir / "scry-maps").read_text().splitlines()
    assert any(m.split()[0] == str(rec.wl["pid"]) and m.endswith(str(rec.exe)) for m in maps), maps


def test_changed_file_is_not_used(rec, scry, tmp_path):
    """Another program at the same path (another build id): its symbols would lie.  (The
    copy kept by build id in scry's cache would name them: test_profile_ctf.py; none here.)"""
    shutil.copy(rec.dir / "scry-maps", tmp_path / "keep")
    shutil.copy("/bin/true", rec.exe)
    try:
        out = subprocess.run([scry, "view", str(rec.dir)], capture_output=True, text=True, check=True,
                             env=dict(os.environ, SCRY_NO_CACHE="1")).stdout
        l = [l for l in out.splitlines() if f"pid = {rec.wl['pid']}," in l][0]
        assert not any(s.startswith("scry_") for _, s in frames(l, "callstack_user")), l
    finally:
        shutil.copy(tmp_path / "keep", rec.dir / "scry-maps")


def ring_sizes(scry, tmp_path, *args):
    """The sizes of the BPF ring buffers (map type 27) scry record holds while it records."""
    out = tmp_path / ("t" + str(len(list(tmp_path.iterdir()))))
    p = subprocess.Popen([scry, "record", "-q", *args, "-o", str(out), "--", "sleep", "1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    sizes = set()
    try:
        for _ in range(100):           # the session loaded: its rings appear among its fds
            time.sleep(0.1)
            for fd in os.listdir(f"/proc/{p.pid}/fdinfo"):
                try:
                    info = open(f"/proc/{p.pid}/fdinfo/{fd}").read()
                except OSError:
                    continue
                if re.search(r"^map_type:\s+27$", info, re.M):
                    sizes.add(int(re.search(r"^max_entries:\s+(\d+)$", info, re.M).group(1)))
            if sizes:
                break
    finally:
        _, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    return sizes


def test_rings_sized_for_stack_records(scry, tmp_path):
    """Call stack records (~1 KiB) get rings 4x the default, so that as long a stall of the
    consumer is held; a size given is kept."""
    plain = max(ring_sizes(scry, tmp_path, "-c", "pid"))
    assert max(ring_sizes(scry, tmp_path, "-c", "pid,callstack-user")) == 4 * plain
    assert max(ring_sizes(scry, tmp_path, "-c", "pid,callstack-kernel")) == 4 * plain
    assert max(ring_sizes(scry, tmp_path, "-c", "pid,callstack-kernel", "--buffer-size", "2M")) == 2 << 20


def test_reserved_records_keep_their_payload(tmp_path, record):
    """Signal events take a fixed ring reservation (room for 129 frames a stack, most of it
    unused): their stacks are the frames there are, and the payload after the contexts is
    read where it was written, not shifted by the reservation's room."""
    r = record(tmp_path / "t", "-e", "signal:signal_generate", "-e", "signal:signal_deliver",
               "-c", "pid,callstack-kernel,callstack-user", cmd=["sh", "-c", "kill -USR1 $$"])
    assert r.returncode in (0, 128 + 10), r.stderr     # the signal's exit status passed on
    evs = [e for e in read_trace(r.dir).events if e["name"].startswith("signal_")]
    assert sorted(e["name"] for e in evs) == ["signal_deliver", "signal_generate"], evs
    for e in evs:
        c, f = e["ctx"], e["fields"]
        assert f["sig"] == 10 and f["si_pid"] == c["pid"], e
        assert c["_callstack_kernel_length"] == len(c["callstack_kernel"]) >= 3, c
        assert all(a >= 0xffff800000000000 for a in c["callstack_kernel"]), c
        assert all(0 < a < 0x800000000000 for a in c["callstack_user"]), c
    gen = [e for e in evs if e["name"] == "signal_generate"][0]["fields"]
    assert gen["comm"] == "sh" and gen["pid"] == gen["tgid"] == gen["si_pid"], gen


def test_misspelt_callstack(tmp_path, record):
    r = record(tmp_path / "t", "-e", "syscall:getppid", "-c", "callstack_usr", cmd=["true"])
    assert r.returncode != 0 and "did you mean 'callstack_user'" in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_trace_k_matches_strace_k(scry, workload):
    """`scry trace -k` prints strace -k's frame lines: the same files, functions, offsets."""
    exe = workload("nested_calls")
    ours = subprocess.run([scry, "trace", "-k", "-e", "trace=getppid", "--", exe], capture_output=True,
                          text=True, timeout=120)
    assert ours.returncode == 0, ours.stderr
    theirs = subprocess.run(["strace", "-k", "-e", "trace=getppid", exe], capture_output=True, text=True,
                            timeout=120)
    if "-k" in theirs.stderr and "not" in theirs.stderr and "support" in theirs.stderr:
        pytest.skip("this strace was built without -k (stack trace) support")
    pick = lambda err: [l for l in err.splitlines() if l.startswith(" > ")]
    a, b = pick(ours.stderr), pick(theirs.stderr)
    assert len(a) >= 4 and a[:4] == b[:4], (a, b)
    assert [l.split("(")[1].split("+")[0] for l in a[:4]] == ["scry_leaf", "scry_middle", "scry_outer", "main"]
