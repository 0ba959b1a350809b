"""tests/e2e/test_regenerate.py — `scry regenerate statedump` (LTTng's `lttng regenerate
statedump`) on a started daemon session: a second, complete statedump in the running trace,
describing what exists at that moment (a process started after the first dump is in the
second only, with its thread names and open files), scryd itself left out of both; the
refusals (not started, stopped, no statedump in the session, `regenerate metadata`, an
unknown item) are one line each."""
import json
import os
import subprocess

from test_daemon import daemon, read_events   # noqa: F401 (the fixture)


def dumps(tr):
    """The statedumps of a trace, in order: each a list of its events (start to end)."""
    out, cur = [], None
    for e in tr.events:
        if e["name"] == "lttng_statedump_start":
            assert cur is None, "a statedump started inside another"
            cur = [e]
        elif e["name"].startswith("lttng_statedump_"):
            assert cur is not None, f"{e['name']} outside a statedump"
            cur.append(e)
            if e["name"] == "lttng_statedump_end":
                out.append(cur)
                cur = None
    assert cur is None, "a statedump without its end"
    return out


def test_regenerate_statedump(daemon, workload, tmp_path, bt2_read):
    out = tmp_path / "trace"
    daemon.run("create", "sd", "-o", out)
    daemon.run("enable-event", "-k", "lttng_statedump_*")
    daemon.run("enable-event", "-k", "--syscall", "getpgrp")
    p = daemon.run("regenerate", "statedump", check=False)
    assert p.returncode == 1 and p.stderr == ("scry: session 'sd' is not started: its statedump is written "
                                              "when it starts\n"), p.stderr
    daemon.run("start")
    files = tmp_path / "files"
    files.mkdir()
    wl = subprocess.Popen([workload("sd_files"), str(files)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True)
    try:
        info = json.loads(wl.stdout.readline())
        p = daemon.run("regenerate", "statedump")
        assert p.stdout == "Statedump successfully regenerated for session sd\n"
    finally:
        wl.stdin.close()
        wl.wait(timeout=10)
    scryd = daemon.pid()
    daemon.run("stop")
    p = daemon.run("regenerate", "statedump", check=False)
    assert p.returncode == 1 and p.stderr == "scry: session 'sd' is stopped: its trace is complete\n", p.stderr
    tr = read_events(bt2_read, out)        # babeltrace2 reads it with no warning
    d = dumps(tr)
    assert len(d) == 2
    assert d[0][-1]["ts"] < d[1][0]["ts"]
    states = [{e["fields"]["tid"]: e["fields"] for e in dump if e["name"] == "lttng_statedump_process_state"}
              for dump in d]
    pid, worker = info["pid"], info["worker"]
    assert pid not in states[0] and worker not in states[0]     # started after the first dump
    assert states[1][pid]["name"] == "sd_files" and states[1][worker]["name"] == "sd_worker"
    assert states[1][worker]["pid"] == pid
    # both dumps describe the machine (kthreadd in each), never scryd
    for s in states:
        assert s[2]["name"] == "kthreadd" and len(s) > 20
        assert not [f for f in s.values() if f["pid"] == scryd], "scryd is in its statedump"
    # the workload's open files, in the second dump, by its file table
    table = states[1][pid]["file_table_address"]
    fds = {e["fields"]["fd"]: e["fields"]["filename"] for e in d[1]
           if e["name"] == "lttng_statedump_file_descriptor" and e["fields"]["file_table_address"] == table}
    assert all(fds.get(int(fd)) == path for fd, path in info["fds"].items()), (fds, info["fds"])
    assert set(fds) == {int(fd) for fd in info["fds"]} | {0, 1, 2}     # and its stdin, stdout, stderr
    # each dump complete: the CPUs and the end, once each
    for dump in d:
        assert sum(1 for e in dump if e["name"] == "lttng_statedump_cpu_topology") == os.cpu_count()
    daemon.run("destroy", "-a")


def test_regenerate_refusals(daemon, tmp_path):
    daemon.run("create", "nosd", "-o", tmp_path / "t")
    daemon.run("enable-event", "-k", "--syscall", "getpgrp")
    daemon.run("start")
    for args, err in [
            (["regenerate", "statedump"], "scry: session 'nosd': no channel of the session records the statedump "
                                          "(enable-event -k 'lttng_statedump_*' before start)\n"),
            (["regenerate", "metadata"], "scry: regenerate metadata: not needed: scry rewrites a trace's metadata "
                                         "whole at each change\n"),
            (["regenerate"], "scry: regenerate: say what to regenerate: statedump (scry regenerate --help)\n"),
            (["regenerate", "foo"], "scry: regenerate: unknown item 'foo' (statedump)\n"),
            (["regenerate", "statedump", "-s", "none"], None)]:
        p = daemon.run(*args, check=False)
        assert p.returncode == 1 and p.stderr.count("\n") == 1, (args, p.stderr)
        if err:
            assert p.stderr == err, (args, p.stderr)
        else:
            assert p.stderr.startswith("scry: session 'none' not found"), p.stderr
    p = daemon.run("regenerate", "--help")
    assert p.returncode == 0 and p.stdout.startswith("usage: scry regenerate statedump [-s NAME]")
    daemon.run("destroy", "-a")
