"""tests/e2e/test_btf_cache.py — the CO-RE BTF cache (src/kernel/btf_cache.c, issue 12's
start-up): a first run relocates against the kernel's BTF and leaves, for the next, the
few kernel types scry's object reads (bpftool gen min_core_btf, in the background); the
next run relocates against that file and records the same.  A cache that is not BTF, or
one the load fails with, is removed and the run goes on without it; SCRY_NO_BTF_CACHE=1
leaves no cache."""
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
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    types = btf_types(files[0])
    names = " ".join(types)
    # the types scry's programs read, and only a few hundred of vmlinux's ~100k
    assert "STRUCT 'task_struct'" in names and "STRUCT 'pt_regs'" in names, names[:2000]
    assert 20 < len(types) < 2000, len(types)
    assert not [p for p in cache.iterdir() if p.suffix == ".o" or ".btf." in p.name], list(cache.iterdir())

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
    line, _ = run(scry, tmp_path, cache, "first", SCRY_NO_BTF_CACHE="1")
    assert line == KERNEL
    time.sleep(1)
    assert not cache.exists() or not list(cache.iterdir())
