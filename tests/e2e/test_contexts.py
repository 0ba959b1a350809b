"""tests/e2e/test_contexts.py — every context of `-c` recorded with its value: ids compared
with what the workload reports and what getppid returned, credentials and priority with
this process's (the workload inherits them), namespaces with /proc/self/ns inodes."""
import json
import os

import pytest

from conftest import read_trace

NS = ["cgroup", "ipc", "mnt", "net", "pid", "user", "uts"]
ALL = ["pid", "tid", "ppid", "vpid", "vtid", "procname", "cpu_id", "uid", "gid", "euid",
       "prio", "nice"] + [n + "_ns" for n in NS]


@pytest.fixture(scope="module")
def rec(tmp_path_factory, record, workload):
    out = tmp_path_factory.mktemp("ctx") / "trace"
    r = record(out, "-e", "syscall:getppid", "-c", ",".join(ALL), cmd=[workload("getppid_loop"), 5])
    r.check()
    r.wl = json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][0])
    r.trace = read_trace(r.dir)
    return r


def test_all_contexts_present_in_order(rec):
    evs = [e for e in rec.trace.events if e["name"].startswith("syscall_")]
    assert len(evs) == 10, [e["name"] for e in evs]
    for e in evs:
        assert list(e["ctx"].keys()) == ALL


def test_context_values(rec):
    pid = rec.wl["pid"]
    entries = [e for e in rec.trace.events if e["name"] == "syscall_entry_getppid"]
    exits = [e for e in rec.trace.events if e["name"] == "syscall_exit_getppid"]
    assert len(entries) == 5 and len(exits) == 5
    ncpu = os.cpu_count()
    for e in entries + exits:
        c = e["ctx"]
        assert c["pid"] == pid and c["tid"] == pid
        assert c["vpid"] == pid and c["vtid"] == pid          # the initial pid namespace
        assert c["procname"] == "getppid_loop"
        assert 0 <= c["cpu_id"] < ncpu and c["cpu_id"] == e["cpu"]
        assert (c["uid"], c["gid"], c["euid"]) == (os.getuid(), os.getgid(), os.geteuid())
        nice = os.getpriority(os.PRIO_PROCESS, 0)
        assert c["nice"] == nice and c["prio"] == 20 + nice  # LTTng: task->prio - 100
        for n in NS:
            assert c[n + "_ns"] == os.stat(f"/proc/self/ns/{n}").st_ino, n
    # ppid is what getppid() returned: the recorder that started the workload
    assert all(x["fields"]["ret"] == exits[0]["ctx"]["ppid"] for x in exits)
    assert exits[0]["ctx"]["ppid"] not in (0, 1, pid)
