"""tests/e2e/test_strings.py — syscalls with several user strings (built in the per-CPU
area, not the stage), a long path (near the 4096-byte limit), and a string that cannot be
read (a bad pointer): exact field values and return codes."""
import ctypes
import os
import subprocess

import pytest

from conftest import read_trace


def entry_exit(trace, name, **match):
    evs = trace.events
    for i, e in enumerate(evs):
        if e["name"] == f"syscall_entry_{name}" and all(e["fields"].get(k) == v for k, v in match.items()):
            for x in evs[i + 1:]:
                if x["tid"] == e["tid"] and x["name"].startswith("syscall_exit_"):
                    assert x["name"] == f"syscall_exit_{name}"
                    return e, x
    raise AssertionError(f"no syscall_entry_{name} with {match}")


@pytest.fixture(scope="module")
def rec(tmp_path_factory, record):
    base = tmp_path_factory.mktemp("strings")
    a, b, link = base / "a", base / "b", base / "link"
    a.write_text("x")
    deep = base / ("d" * 200)
    # a path of about 3000 bytes: many components under base
    long_path = str(base) + "/" + "/".join(["p" * 250] * 12) + "/missing"
    script = f"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
os.symlink({str(a)!r}, {str(link)!r})
os.rename({str(a)!r}, {str(b)!r})
try:
    os.stat({long_path!r})
except FileNotFoundError:
    pass
# openat with a pointer nobody mapped: the kernel says EFAULT, scry records "(fault)"
print(libc.syscall(257, -100, ctypes.c_void_p(8), 0, 0), ctypes.get_errno())
"""
    r = record(base / "trace", "-e", "syscall:symlink,syscall:symlinkat,syscall:renameat2,syscall:rename,syscall:newfstatat,syscall:openat",
               cmd=["/usr/bin/python3", "-c", script])
    r.check()
    r.paths = dict(a=str(a), b=str(b), link=str(link), long=long_path)
    r.trace = read_trace(r.dir)
    return r


def test_symlink_two_strings(rec):
    evs = [e for e in rec.trace.events if e["name"] in ("syscall_entry_symlink", "syscall_entry_symlinkat")]
    assert evs, "no symlink recorded"
    f = evs[0]["fields"]
    assert f["oldname"] == rec.paths["a"] and f["newname"] == rec.paths["link"]


def test_rename_two_strings(rec):
    evs = [e for e in rec.trace.events if e["name"] in ("syscall_entry_rename", "syscall_entry_renameat2")]
    assert evs, "no rename recorded"
    f = evs[0]["fields"]
    assert f["oldname"] == rec.paths["a"] and f["newname"] == rec.paths["b"]
    assert os.path.exists(rec.paths["b"])


def test_long_path(rec):
    assert len(rec.paths["long"]) > 2900
    e, x = entry_exit(rec.trace, "newfstatat", filename=rec.paths["long"])
    assert x["fields"]["ret"] == -2     # ENOENT


def test_unreadable_string(rec):
    """Pointer 8: the kernel answers EFAULT and scry records "(fault)".  (A path in a page
    not yet faulted in reads as "(fault)" too at syscall entry, so match the return.)"""
    evs = rec.trace.events
    faults = []
    for i, e in enumerate(evs):
        if e["name"] == "syscall_entry_openat" and e["fields"]["filename"] == "(fault)":
            x = next(x for x in evs[i + 1:] if x["tid"] == e["tid"] and x["name"].startswith("syscall_exit_"))
            faults.append(x["fields"]["ret"])
    assert -14 in faults
