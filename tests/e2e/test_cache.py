"""tests/e2e/test_cache.py — what scry keeps between runs of one kernel and build
(src/util/cache.c, issue 12's start-up).  The CO-RE BTF (src/kernel/btf_cache.c): a first
run relocates against the kernel's BTF and leaves, for the next, the few kernel types
scry's object reads (bpftool gen min_core_btf, in the background); the next run relocates
against that file and records the same.  A cache that is not BTF, or one the load fails
with, is removed and the run goes on without it.  What a load reads of the kernel's BTF
(src/kernel/kfacts.c), read instead of parsing it.  The syscall formats
(src/catalog/syscalls.c): what the kernel's ~400 sys_enter_* format files say, in one file
equal to them, read instead of them; one that does not fit the table is read past and
written again.  SCRY_NO_CACHE=1 leaves no cache."""
import os
import struct
import subprocess
import time
from pathlib import Path

import pytest

from conftest import read_trace

KERNEL = "scry: CO-RE relocations against the kernel's BTF"


def run(scry, tmp_path, cache, name, **env):
    out = tmp_path / name
    e = dict(os.environ, SCRY_CACHE_DIR=str(cache), **env)
    p = subprocess.run([scry, "record", "--verbose", "-q", "-o", str(out), "-e", "syscall:getppid",
                        "--", "/usr/bin/python3", "-c", "import os; [os.getppid() for _ in range(7)]"],
                       capture_output=True, text=True, timeout=120, env=e)
    assert p.returncode == 0, p.stderr[-3000:]
    tr = read_trace(out)
    n = sum(1 for ev in tr.events if ev["name"] == "syscall_entry_getppid")
    assert n >= 7, n
    core = [l for l in p.stderr.splitlines() if l.startswith("scry: CO-RE relocations against ")]
    assert len(core) == 1, p.stderr[-3000:]
    return core[0], p.stderr


def cached(cache, timeout=20):
    """The cache file, once bpftool has renamed it into place."""
    for _ in range(int(timeout * 10)):
        files = list(Path(cache).glob("core-*.btf"))
        if files:
            return files
        time.sleep(0.1)
    return []


def btf_types(path):
    out = subprocess.run(["bpftool", "btf", "dump", "file", str(path)], capture_output=True, text=True, check=True)
    return [l for l in out.stdout.splitlines() if l.startswith("[")]


def test_cache_filled_then_used(scry, tmp_path):
    if subprocess.run(["which", "bpftool"], capture_output=True).returncode:
        pytest.skip("bpftool missing: the cache is never filled (scry says nothing and runs without it)")
    cache = tmp_path / "cache"
    line, _ = run(scry, tmp_path, cache, "first")
    assert line == KERNEL
    files = cached(cache)
    assert len(files) == 1, list(Path(cache).iterdir()) if cache.exists() else "no cache directory"
    assert len(list(cache.glob("syscalls-*.txt"))) == 1
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    types = btf_types(files[0])
    names = " ".join(types)
    # the types scry's programs read, and only a few hundred of vmlinux's ~100k
    assert "STRUCT 'task_struct'" in names and "STRUCT 'pt_regs'" in names, names[:2000]
    assert 20 < len(types) < 2000, len(types)
    # the background job removes its temporary object and file after the rename that
    # cached() waits for: give it a moment, then none may be left
    temps = lambda: [p for p in cache.iterdir() if p.suffix == ".o" or ".btf." in p.name]
    for _ in range(100):
        if not temps():
            break
        time.sleep(0.1)
    assert not temps(), list(cache.iterdir())

    line, _ = run(scry, tmp_path, cache, "second")
    assert line == f"scry: CO-RE relocations against {files[0]}"


def test_bad_cache_removed(scry, tmp_path):
    cache = tmp_path / "cache"
    run(scry, tmp_path, cache, "first")
    files = cached(cache)
    if not files:
        pytest.skip("bpftool missing: no cache to spoil")
    # not BTF: removed before the load
    files[0].write_bytes(b"garbage")
    line, err = run(scry, tmp_path, cache, "garbage")
    assert line == KERNEL and f"scry: {files[0]} is not BTF: removed" in err, err[-2000:]
    # BTF without the types scry needs (one int): the load fails with it, then succeeds without
    files = cached(cache)
    assert files
    strs = b"\0int\0"
    types = struct.pack("<IIII", 1, 1 << 24, 4, 32)          # INT 'int' size 4, 32 bits
    hdr = struct.pack("<HBBIIIII", 0xEB9F, 1, 0, 24, 0, len(types), len(types), len(strs))
    files[0].write_bytes(hdr + types + strs)
    line, err = run(scry, tmp_path, cache, "int-only")
    assert f"scry: loading with the cached BTF {files[0]} failed" in err, err[-2000:]
    assert line == KERNEL


def test_no_cache(scry, tmp_path):
    cache = tmp_path / "cache"
    line, _ = run(scry, tmp_path, cache, "first", SCRY_NO_CACHE="1")
    assert line == KERNEL
    time.sleep(1)
    assert not cache.exists() or not list(cache.iterdir())


def format_pairs(name):
    """A syscall's arguments as its tracefs format file gives them."""
    text = Path(f"/sys/kernel/tracing/events/syscalls/sys_enter_{name}/format").read_text()
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("field:") or "common_" in line or "__syscall_nr" in line:
            continue
        decl = line.split(";")[0][len("field:"):]
        type_, _, fname = decl.rpartition(" ")
        pairs.append((fname, type_))
    return pairs


def test_syscall_formats_cached(scry, tmp_path):
    cache = tmp_path / "cache"
    run(scry, tmp_path, cache, "first")
    files = list(cache.glob("syscalls-*.txt"))
    assert len(files) == 1
    lines = files[0].read_text().splitlines()
    assert lines[0] == "scry-syscalls 1"
    rows = {l.split("\t")[0]: l.split("\t")[1:] for l in lines[1:]}
    for name in ("openat", "read", "execve", "clone3", "getppid"):
        f = rows[name]
        assert list(zip(f[0::2], f[1::2])) == format_pairs(name), (name, f)
    assert len(rows) > 300

    assert rows["getppid"] == [], rows["getppid"]
    # the next run reads that file, not the format files, and leaves it as it is
    mtime = files[0].stat().st_mtime_ns
    p = subprocess.run(["strace", "-f", "-e", "trace=openat", "-o", str(tmp_path / "opens"), scry, "list", "syscalls"],
                       capture_output=True, text=True, timeout=60, env=dict(os.environ, SCRY_CACHE_DIR=str(cache)))
    assert p.returncode == 0, p.stderr
    opens = (tmp_path / "opens").read_text()
    assert str(files[0]) in opens and "/format" not in opens, opens[-2000:]
    assert files[0].stat().st_mtime_ns == mtime
    # with the cache, scry trace decodes exactly as without it
    cmd = ["/bin/cat", "/etc/hostname"]
    outs = []
    for env in ({"SCRY_CACHE_DIR": str(cache)}, {"SCRY_NO_CACHE": "1"}):
        p = subprocess.run([scry, "trace", "-e", "trace=openat,read,close", "--"] + cmd, capture_output=True,
                           text=True, timeout=60, env=dict(os.environ, **env))
        assert p.returncode == 0, p.stderr
        outs.append([l for l in p.stderr.splitlines() if "/etc/hostname" in l or l.startswith("read(")])
    assert outs[0] == outs[1] and any('openat(AT_FDCWD, "/etc/hostname", O_RDONLY) = 3' == l for l in outs[0]), outs

    # a cache that does not fit the table (a row renamed): read past, written again
    spoiled = files[0].read_text().replace("\nopenat\t", "\nopenatX\t")
    files[0].write_text(spoiled)
    run(scry, tmp_path, cache, "spoiled")
    again = files[0].read_text().splitlines()
    assert again == lines


def test_kernel_facts_cached(scry, tmp_path):
    """What a load reads of the kernel's BTF (src/kernel/kfacts.c) is kept in one file: the
    next run reads it (and records the same), a spoiled one is written again, equal."""
    cache = tmp_path / "cache"
    run(scry, tmp_path, cache, "first")
    files = list(cache.glob("kfacts-*.bin"))
    assert len(files) == 1, list(cache.iterdir())
    data = files[0].read_bytes()
    magic, size = struct.unpack("<II", data[:8])
    assert magic == 0x5346464B and len(data) >= 8 + size > 64, (hex(magic), size, len(data))
    mtime = files[0].stat().st_mtime_ns
    p = subprocess.run(["strace", "-f", "-e", "trace=openat", "-o", str(tmp_path / "opens"), scry, "trace",
                        "-o", "/dev/null", "--", "/bin/true"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, SCRY_CACHE_DIR=str(cache), SCRY_NO_WARM="1"))
    assert p.returncode == 0, p.stderr
    opens = (tmp_path / "opens").read_text()
    assert f'"{files[0]}", O_RDONLY' in opens, opens[-2000:]
    assert files[0].stat().st_mtime_ns == mtime
    # a trace with the cache and one without it (the BTF parsed): the same calls
    for t, env in (("t1", {"SCRY_CACHE_DIR": str(cache)}), ("t2", {"SCRY_NO_CACHE": "1"})):
        p = subprocess.run([scry, "trace", "-o", str(tmp_path / t), "--", "/bin/true"], capture_output=True,
                           text=True, timeout=60, env=dict(os.environ, SCRY_NO_WARM="1", **env))
        assert p.returncode == 0, p.stderr
    calls = [[l.split("(")[0] for l in (tmp_path / t).read_text().splitlines()] for t in ("t1", "t2")]
    assert calls[0] == calls[1] and "execve" in calls[0], calls
    # spoiled (a short file): read past, found again and written whole
    files[0].write_bytes(data[:20])
    run(scry, tmp_path, cache, "spoiled")
    assert files[0].read_bytes() == data


def test_old_files_pruned(scry, tmp_path):
    """Other builds' and kernels' files do not pile up: the newest few of each kind stay."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    for i in range(6):
        for prefix, suffix in (("core", "btf"), ("syscalls", "txt")):
            f = cache / f"{prefix}-0000000{i}-00000000.{suffix}"
            f.write_text("old")
            os.utime(f, (1000000 + i, 1000000 + i))
    run(scry, tmp_path, cache, "first")
    cached(cache)
    time.sleep(0.5)
    for prefix in ("core", "syscalls"):
        names = sorted(p.name for p in cache.glob(f"{prefix}-*"))
        assert len(names) == 4, names
        # the three newest old ones and this run's
        assert [n for n in names if n.startswith(f"{prefix}-0000000")] == \
            [f"{prefix}-0000000{i}-00000000.{'btf' if prefix == 'core' else 'txt'}" for i in (3, 4, 5)], names
