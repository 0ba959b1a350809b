"""tests/e2e/test_channels.py — channels (issue 12): `scry record --channel NAME` makes a
stream class of its own (NAME_<cpu> stream files, its contexts, its event ids).  Two
channels with different events and contexts in one trace are read back by babeltrace2 (no
warning) and bt2: each event in its channel with that channel's contexts and the values
the workload produced; one event enabled in two channels is recorded once in each."""
import json
import os
import subprocess

from conftest import run_babeltrace2


def test_two_channels(record, tmp_path, bt2_read, scry):
    src = tmp_path / "data.txt"
    src.write_text("twelve bytes")
    out = tmp_path / "t"
    rec = record(out, "-c", "pid,tid",
                 "--channel", "files", "-e", "syscall:openat,syscall:read,syscall:close", "-c", "pid,procname",
                 "--channel", "procs", "-e", "sched:sched_process_exec,sched:sched_process_exit", "-c", "tid,prio",
                 cmd=["/bin/cat", src]).check()
    files = sorted(p.name for p in (out / "kernel").iterdir() if p.is_file())
    ncpu = os.cpu_count()
    assert files == sorted(["metadata"] + [f"files_{c}" for c in range(ncpu)] +
                           [f"procs_{c}" for c in range(ncpu)]), files
    assert sorted(p.name for p in (out / "kernel" / "index").iterdir()) == \
        sorted([f"files_{c}.idx" for c in range(ncpu)] + [f"procs_{c}.idx" for c in range(ncpu)])

    bt = run_babeltrace2(out)
    assert bt.returncode == 0 and bt.stderr == "", bt.stderr
    tr = bt2_read(out)
    assert len(tr.events) == rec.summary()["events"] == len(bt.stdout.splitlines())
    by_channel = {}
    for e in tr.events:
        by_channel.setdefault(e["channel"], set()).add(e["name"])
        assert set(e["ctx"]) == ({"pid", "procname"} if e["channel"] == 0 else {"tid", "prio"}), e
    assert by_channel[0] <= {"syscall_entry_openat", "syscall_exit_openat", "syscall_entry_read",
                             "syscall_exit_read", "syscall_entry_close", "syscall_exit_close"}, by_channel
    assert by_channel[1] == {"sched_process_exec", "sched_process_exit"}, by_channel

    execs = [e for e in tr.events if e["name"] == "sched_process_exec"]
    assert len(execs) == 1 and execs[0]["fields"]["filename"] == "/bin/cat", execs
    pid = execs[0]["ctx"]["tid"]
    cat = [e for e in tr.events if e["channel"] == 0 and e["pid"] == pid and e["procname"] == "cat"]
    # cat opens the file, reads its 12 bytes, closes that fd
    i = next(k for k, e in enumerate(cat) if e["name"] == "syscall_entry_openat"
             and e["fields"]["filename"] == str(src))
    assert cat[i + 1]["name"] == "syscall_exit_openat"
    fd = cat[i + 1]["fields"]["ret"]
    assert fd >= 3
    reads = [cat[k + 1]["fields"]["ret"] for k in range(i, len(cat) - 1)
             if cat[k]["name"] == "syscall_entry_read" and cat[k]["fields"]["fd"] == fd]
    assert reads[0] == 12 and reads[-1] == 0, reads
    assert any(e["name"] == "syscall_entry_close" and e["fields"]["fd"] == fd for e in cat[i:])
    exits = [e for e in tr.events if e["name"] == "sched_process_exit" and e["ctx"]["tid"] == pid]
    assert len(exits) == 1 and exits[0]["fields"]["comm"] == "cat"

    view = subprocess.run([scry, "view", str(out)], capture_output=True, text=True, timeout=60)
    assert view.returncode == 0 and len(view.stdout.splitlines()) == len(tr.events), view.stderr


def test_one_event_in_two_channels(record, tmp_path, bt2_read, workload):
    out = tmp_path / "t"
    rec = record(out, "--channel", "a", "-e", "syscall:getppid", "-c", "pid",
                 "--channel", "b", "-e", "syscall:getppid", "-c", "vtid,procname",
                 cmd=[workload("getppid_loop"), "5000"]).check()
    pid = json.loads(rec.stdout)["pid"]
    tr = bt2_read(out)
    a = [e for e in tr.events if e["channel"] == 0 and e["pid"] == pid and e["name"] == "syscall_entry_getppid"]
    b = [e for e in tr.events if e["channel"] == 1 and e["ctx"]["vtid"] == pid and e["name"] == "syscall_entry_getppid"]
    assert len(a) == len(b) == 5000
    assert all(e["ctx"]["procname"] == "getppid_loop" for e in b)
    assert rec.summary()["discarded"] == 0


def test_channel_errors(scry, tmp_path):
    def run(*args):
        return subprocess.run([scry, "record", "-q", "-o", str(tmp_path / "t")] + list(args) + ["--", "/bin/true"],
                              capture_output=True, text=True, timeout=60)
    p = run("--channel", "a/b", "-e", "syscall:getpid")
    assert p.returncode != 0 and "invalid channel name 'a/b'" in p.stderr, p.stderr
    p = run("--channel", "x", "-e", "syscall:getpid", "--channel", "y")
    assert p.returncode != 0 and "channel 'y' has no events" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "t").exists()
