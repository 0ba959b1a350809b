"""tests/e2e/test_capture.py — syscall arguments captured in the kernel and written as CTF
fields (issue 3): a C workload (tests/workload/syscalls.c) runs a known sequence and prints
what it saw; `scry record --snaplen 64 --capture env` must hold exactly those values, read
back with python3-bt2: buffers written and read, the stat struct filled on exit, pipe fds,
socket addresses on entry (bind/connect) and on exit (accept), execve's argv/envp, mmap's
address, a failing call's errno.  (The default envp, without its strings: test_env_capture.)"""
import json
import os
import socket
import struct

import pytest

from conftest import read_trace


@pytest.fixture(scope="module")
def rec(tmp_path_factory, record, workload):
    base = tmp_path_factory.mktemp("capture")
    out = base / "trace"
    prog = workload("syscalls")
    r = record(out, "--snaplen", "64", "--capture", "env", "-e", "syscall:*", cmd=[prog, base]).check()
    seen = json.loads(r.stdout.strip().splitlines()[-1])
    seen["prog"], seen["base"] = prog, str(base)
    return seen, read_trace(out)


def calls(tr, name, pid=None, **match):
    """(entry fields, exit fields) of every completed call of `name` whose entry matches."""
    out, pending = [], {}
    for e in tr.events:
        if pid is not None and e["pid"] != pid:
            continue
        if e["name"] == f"syscall_entry_{name}":
            pending[e["tid"]] = e
        elif e["name"] == f"syscall_exit_{name}" and e["tid"] in pending:
            en = pending.pop(e["tid"])
            if all(en["fields"].get(k) == v for k, v in match.items()):
                out.append((en["fields"], e["fields"]))
    return out


def test_open_write_read_close(rec):
    seen, tr = rec
    (en, ex), = calls(tr, "openat", filename=seen["path"], flags=0o1 | 0o100 | 0o1000 | 0o2000000)
    assert en["mode"] == 0o640 and en["dfd"] == -100
    assert ex["ret"] == seen["fd"]
    (wen, wex), = calls(tr, "write", fd=seen["fd"])
    assert bytes(wen["_buf"]) == b"hello scry\n" and wen["count"] == 11 and wex["ret"] == 11
    assert wen["buf"] != 0                        # lttng-modules' pointer, then scry's bytes
    (ren, rex), = calls(tr, "read", fd=seen["fd2"], count=64)
    assert ren["count"] == 64 and rex["ret"] == seen["read"] == 11
    assert bytes(rex["_buf"]) == b"hello scry\n"
    # lttng-modules' read: buf on the exit; scry's entry keeps the pointer as _buf
    assert rex["buf"] == ren["_buf"] != 0


def test_stat_struct_on_exit(rec):
    seen, tr = rec
    (en, ex), = calls(tr, "newfstatat", filename=seen["path"], dfd=-100)
    assert ex["ret"] == 0
    st, = ex["_statbuf"]
    assert ex["statbuf"] == en["_statbuf"] != 0    # lttng-modules' pointer on the exit
    assert st["st_size"] == seen["size"] == 11
    assert st["st_mode"] == seen["mode"]


def test_pipe_fds(rec):
    seen, tr = rec
    pipes = [ex for en, ex in calls(tr, "pipe2") if ex["ret"] == 0 and ex["fildes"] == seen["pipe"]]
    assert len(pipes) == 1


def sockaddr_in(b):
    fam, port = struct.unpack_from("<H", bytes(b))[0], struct.unpack_from(">H", bytes(b), 2)[0]
    return fam, port, socket.inet_ntoa(bytes(b[4:8]))


def test_socket_addresses(rec):
    seen, tr = rec
    (cen, cex), = calls(tr, "connect", fd=seen["connect"])
    assert cex["ret"] == 0 and cen["addrlen"] == 16
    assert sockaddr_in(cen["_uservaddr"]) == (socket.AF_INET, seen["port"], "127.0.0.1")
    (aen, aex), = calls(tr, "accept", fd=seen["listen"])
    assert aex["ret"] == seen["accept"]
    assert sockaddr_in(aex["_upeer_sockaddr"]) == (socket.AF_INET, seen["peer_port"], "127.0.0.1")


def test_mmap_and_failure(rec):
    seen, tr = rec
    maps = [ex["ret"] for en, ex in calls(tr, "mmap", len=8192)]
    assert seen["map"] in [m & (2**64 - 1) for m in maps]
    (en, ex), = calls(tr, "openat", filename="/nonexistent/scry-test")
    assert ex["ret"] == -2 and seen["bad"] == -1


def test_execve_argv_envp(rec):
    # scry's own exec of the workload, then the workload's child's, right after fork
    seen, tr = rec
    (en, ex), = calls(tr, "execve", filename=seen["prog"])
    assert en["_argv"] == [seen["prog"], seen["base"]] and ex["ret"] == 0
    assert en["_argv_count"] == 2 and en["argv"] != 0
    assert en["_envp_count"] == len(os.environ)
    assert len(en["_envp"]) == len(os.environ)    # every string, not the first 32
    assert all("=" in v for v in en["_envp"]) and en["envp"] != 0
    (en, ex), = calls(tr, "execve", pid=seen["child"])
    assert en["filename"] == "/bin/true" and ex["ret"] == 0
    assert en["_argv"] == ["true", "arg1"] and en["_argv_count"] == 2
    assert en["_envp"] == ["SCRY_TEST=1"] and en["_envp_count"] == 1
