"""tests/e2e/test_daemon_tracefiles.py — enable-channel --tracefile-size/--tracefile-count
(issue 13, LTTng's stream file splitting): each CPU's stream in files CHANNEL_<cpu>_<index> of
at most the size (packets whole), their indexes likewise, the oldest deleted past the count;
babeltrace2 reads what remains with no error: the newest events, in order; without a count
every event is there once.  Saved in the session XML (session.xsd's tracefile_size/count)."""
import os
import re
import subprocess

from test_daemon import XSD, daemon, index_seqs, pwrites, read_events  # noqa: F401 (daemon: a fixture)

SIZE = 128 * 1024


def split_files(kernel, chan):
    """{cpu: [indexes]} of chan's stream files, each checked against its index file."""
    out = {}
    for f in kernel.iterdir():
        m = re.fullmatch(rf"{chan}_(\d+)_(\d+)", f.name)
        if not f.is_file() or not m:
            continue
        assert (kernel / "index" / f"{f.name}.idx").exists(), f.name
        out.setdefault(int(m[1]), []).append(int(m[2]))
    return {cpu: sorted(v) for cpu, v in out.items()}


def positions(tr, pid):
    return [e["fields"]["pos"] for e in tr.events if e["pid"] == pid and e["name"] == "syscall_entry_pwrite64"]


def test_tracefile_size_and_count(daemon, tmp_path, bt2_read):
    out = tmp_path / "trace"
    daemon.run("create", "tf", "-o", out)
    p = daemon.run("enable-channel", "-k", "--tracefile-size", "32K", "--subbuf-size", "64K", "x", check=False)
    assert p.returncode == 1 and p.stderr == "scry: enable-channel: a trace file size of 32768 bytes is smaller " \
        "than a sub-buffer (65536 bytes; --subbuf-size sets it)\n", p.stderr
    p = daemon.run("enable-channel", "-k", "--tracefile-count", "3", "x", check=False)
    assert p.returncode == 1 and p.stderr == "scry: enable-channel: --tracefile-count needs --tracefile-size\n"
    daemon.run("enable-channel", "-k", "--subbuf-size", "64K", "--num-subbuf", "64", "--tracefile-size", "128K",
               "--tracefile-count", "3", "ring")
    daemon.run("enable-channel", "-k", "--subbuf-size", "64K", "--num-subbuf", "64", "--tracefile-size", "128K", "all")
    daemon.run("enable-event", "-k", "-c", "ring", "--syscall", "pwrite64")
    daemon.run("enable-event", "-k", "-c", "all", "--syscall", "pwrite64")
    daemon.run("add-context", "-k", "-t", "pid")
    lst = daemon.run("list", "tf").stdout
    assert "      Trace file count: 3 per stream\n      Trace file size:  131072 bytes\n" in lst, lst
    daemon.run("start")
    n = 20000
    pid = pwrites(0, n)                    # on CPU 0: ~1.4 MB of events per channel
    daemon.run("stop")
    daemon.run("destroy")

    kernel = out / "kernel"
    ring, every = split_files(kernel, "ring"), split_files(kernel, "all")
    assert sorted(ring) == sorted(every) == list(range(os.cpu_count())), (ring, every)
    # every file at most the size, packets whole (their index entries cover the file)
    for f in kernel.iterdir():
        if f.is_file() and f.name != "metadata":
            assert f.stat().st_size <= SIZE, (f.name, f.stat().st_size)
    # without a count: files 0..k, each CPU's packets numbered on across them
    assert len(every[0]) >= 8 and every[0] == list(range(len(every[0]))), every[0]
    seqs = [s for i in every[0] for s in index_seqs(kernel / "index" / f"all_0_{i}.idx")]
    assert seqs == list(range(len(seqs))), seqs
    # with count 3: the last three files of CPU 0 remain, the oldest deleted
    assert len(ring[0]) == 3 and ring[0][0] >= 5 and ring[0] == list(range(ring[0][0], ring[0][0] + 3)), ring[0]
    tr = read_events(bt2_read, out)          # babeltrace2 reads what remains, no error
    by_chan = {0: [], 1: []}
    for e in tr.events:
        if e["pid"] == pid and e["name"] == "syscall_entry_pwrite64":
            by_chan[e["channel"]].append(e["fields"]["pos"])
    ring_pos, all_pos = by_chan[0], by_chan[1]
    if tr.discarded == 0:
        assert all_pos == list(range(n)), (len(all_pos), all_pos[:3])
    # the newest events, in order, none older than the three files hold
    assert ring_pos and ring_pos[-1] == n - 1 and ring_pos == sorted(ring_pos), ring_pos[-3:]
    assert 0 < ring_pos[0] and len(ring_pos) <= 3 * SIZE // 40, (ring_pos[0], len(ring_pos))
    if tr.discarded == 0:
        assert ring_pos == list(range(ring_pos[0], n))


def test_tracefile_save_load(daemon, tmp_path):
    daemon.run("create", "s", "-o", tmp_path / "t")
    daemon.run("enable-channel", "-k", "--tracefile-size", "4M", "--tracefile-count", "5", "big")
    daemon.run("enable-event", "-k", "-c", "big", "--syscall", "openat")
    daemon.run("save", "-o", tmp_path)
    xml = (tmp_path / "s.lttng").read_text()
    assert "<tracefile_size>4194304</tracefile_size>" in xml and "<tracefile_count>5</tracefile_count>" in xml
    if os.path.exists(XSD):
        lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(tmp_path / "s.lttng")],
                              capture_output=True, text=True)
        assert lint.returncode == 0, lint.stderr
    before = daemon.run("list", "s").stdout
    daemon.run("destroy", "s")
    daemon.run("load", tmp_path / "s.lttng")
    assert daemon.run("list", "s").stdout == before
    daemon.run("destroy", "-a")
