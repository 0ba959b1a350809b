"""tests/e2e/test_daemon_channels.py — LTTng's channel switches and stop/start through scryd
(issue 13): disable-channel (its events stop being recorded at once, the channel stays in the
session, its trace, list and save), enable-channel of a disabled channel, and start after stop
(recording resumes into the same trace: babeltrace2 reads one trace with the events of both
periods and none from the stopped interval).  Real workloads, traces read by babeltrace2/bt2."""
import os
import subprocess
import time

from test_warm_start import warm_request
from test_daemon import XSD, chunk_positions, daemon, dd, index_seqs, pwrites, read_events  # noqa: F401 (daemon: a fixture)


def index_ends(path):
    """The timestamp_end of each packet of a stream's index (LTTng's index entries)."""
    data = open(path, "rb").read()
    import struct
    return [struct.unpack(">Q", data[off + 32:off + 40])[0] for off in range(16, len(data), 72)]


def opened(tr, path):
    return [e for e in tr.events if e["name"] == "syscall_entry_openat" and e["fields"]["filename"] == str(path)]


def test_disable_channel(daemon, tmp_path, bt2_read):
    out = tmp_path / "trace"
    daemon.run("create", "dc", "-o", out)
    daemon.run("enable-channel", "-k", "files")
    daemon.run("enable-channel", "-k", "io")
    daemon.run("enable-event", "-k", "-c", "files", "--syscall", "openat")
    daemon.run("enable-event", "-k", "-c", "io", "--syscall", "write")
    daemon.run("add-context", "-k", "-t", "pid")
    daemon.run("start")
    pid1, path1 = dd(tmp_path, "one")
    p = daemon.run("disable-channel", "-k", "io")
    assert p.stdout == "Kernel channel io disabled for session dc\n"
    lst = daemon.run("list", "dc").stdout
    assert "- io: [disabled]" in lst and "- files: [enabled]" in lst, lst
    assert "      write (type: syscall) [enabled]\n" in lst      # its rules stay as they were
    pid2, path2 = dd(tmp_path, "two")
    p = daemon.run("disable-channel", "-k", "io", check=False)
    assert p.returncode == 1 and p.stderr == "scry: channel 'io' of session 'dc' is already disabled\n"
    p = daemon.run("disable-channel", "-k", "nope", check=False)
    assert p.returncode == 1 and p.stderr == "scry: no channel 'nope' in session 'dc'\n"
    p = daemon.run("enable-channel", "-k", "--subbuf-size", "1M", "io", check=False)
    assert p.returncode == 1 and "already exists" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    p = daemon.run("enable-channel", "-k", "io")
    assert p.stdout == "Kernel channel io enabled for session dc\n"
    pid3, path3 = dd(tmp_path, "three")
    daemon.run("disable-channel", "-k", "io")       # disabled when saved
    daemon.run("stop")

    ncpu = os.cpu_count()
    files = sorted(x.name for x in (out / "kernel").iterdir() if x.is_file())
    assert files == sorted(["metadata"] + [f"files_{c}" for c in range(ncpu)] + [f"io_{c}" for c in range(ncpu)])
    tr = read_events(bt2_read, out)
    for pid, path in ((pid1, path1), (pid2, path2), (pid3, path3)):
        assert len([e for e in opened(tr, path) if e["pid"] == pid]) == 1, path
    writes = {pid: [e["fields"]["count"] for e in tr.events if e["pid"] == pid and e["name"] == "syscall_entry_write"]
              for pid in (pid1, pid2, pid3)}
    assert writes == {pid1: [777] * 3, pid2: [], pid3: [777] * 3}, writes

    # saved disabled (session.xsd's channel <enabled>), loaded disabled
    daemon.run("save", "dc", "-o", tmp_path)
    xml = (tmp_path / "dc.lttng").read_text()
    assert xml.count("<enabled>false</enabled>") == 1, xml
    if os.path.exists(XSD):
        lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(tmp_path / "dc.lttng")],
                              capture_output=True, text=True)
        assert lint.returncode == 0, lint.stderr
    daemon.run("load", tmp_path / "dc.lttng", "--override-name", "dc2", "--override-url", tmp_path / "t2")
    lst2 = daemon.run("list", "dc2").stdout
    assert "- io: [disabled]" in lst2 and "- files: [enabled]" in lst2, lst2

    # disabled before start: the channel's streams are in the trace, with no event
    daemon.run("start", "dc2")
    pid4, path4 = dd(tmp_path, "four")
    daemon.run("stop", "dc2")
    tr2 = read_events(bt2_read, tmp_path / "t2")
    assert len(opened(tr2, path4)) == 1
    assert not [e for e in tr2.events if e["name"].startswith("syscall_") and "write" in e["name"]]
    assert (tmp_path / "t2" / "kernel" / "io_0").exists()
    daemon.run("destroy", "-a")


def test_start_after_stop_same_trace(daemon, tmp_path, bt2_read):
    out = tmp_path / "trace"
    a, b, c = (tmp_path / n for n in ("a.txt", "b.txt", "c.txt"))
    for f in (a, b, c):
        f.write_text(f.name)
    daemon.run("create", "rs", "-o", out)
    daemon.run("enable-event", "-k", "--syscall", "openat")
    daemon.run("add-context", "-k", "-t", "pid")
    daemon.run("start")
    subprocess.run(["/bin/cat", a], check=True, capture_output=True)
    t_stopping = time.monotonic_ns()
    p = daemon.run("stop")
    t_stopped = time.monotonic_ns()
    assert p.stdout.startswith("Tracing stopped for session rs: "), p.stdout
    # as LTTng's stop flushes: every stream (CPUs without an event too) has packets up to the stop
    for k in range(os.cpu_count()):
        ends = index_ends(out / "kernel" / "index" / f"channel0_{k}.idx")
        assert ends and t_stopping <= ends[-1] <= t_stopped, (k, ends, t_stopping, t_stopped)
    first = read_events(bt2_read, out)          # complete on disk while stopped
    assert len(opened(first, a)) == 1 and not opened(first, c)
    subprocess.run(["/bin/cat", b], check=True, capture_output=True)   # while stopped: not recorded
    # a stopped session takes changes, as LTTng's: this one once it starts again
    daemon.run("enable-event", "-k", "--syscall", "close")
    t_restart = time.monotonic_ns()
    p = daemon.run("start")
    assert p.stdout == "Tracing started for session rs\n"
    assert "Recording session rs: [active]" in daemon.run("status").stdout
    subprocess.run(["/bin/cat", c], check=True, capture_output=True)
    daemon.run("stop")
    p = daemon.run("stop", check=False)
    assert p.returncode == 1 and p.stderr == "scry: session 'rs' is not started\n"

    # one trace: the same stream files, their packets in sequence, read with no warning
    ncpu = os.cpu_count()
    files = sorted(x.name for x in (out / "kernel").iterdir() if x.is_file())
    assert files == sorted(["metadata"] + [f"channel0_{k}" for k in range(ncpu)])
    for k in range(ncpu):
        seqs = index_seqs(out / "kernel" / "index" / f"channel0_{k}.idx")
        assert seqs == list(range(len(seqs))), seqs
    tr = read_events(bt2_read, out)
    assert len(opened(tr, a)) == 1 and len(opened(tr, c)) == 1 and not opened(tr, b)
    assert opened(tr, a)[0]["ts"] < t_stopped < t_restart < opened(tr, c)[0]["ts"]
    between = [e for e in tr.events if t_stopped <= e["ts"] <= t_restart]
    assert between == [], between[:3]
    closes = [e for e in tr.events if e["name"] == "syscall_entry_close"]
    assert closes and all(e["ts"] > t_restart for e in closes)
    daemon.run("destroy")


def test_snapshot_after_stop(daemon, tmp_path, bt2_read):
    """As LTTng: a stopped snapshot session keeps its buffers; snapshot record writes them."""
    box = tmp_path / "box"
    daemon.run("create", "box", "--snapshot", "-o", box)
    daemon.run("enable-event", "-k", "--syscall", "openat")
    f = tmp_path / "seen.txt"
    f.write_text("x")
    daemon.run("start")
    subprocess.run(["/bin/cat", f], check=True, capture_output=True)
    daemon.run("stop")
    p = daemon.run("snapshot", "record")
    assert p.stdout.startswith("Snapshot recorded successfully for session box in "), p.stdout
    snaps = [d for d in box.iterdir() if d.name.startswith("snapshot-1-")]
    assert len(snaps) == 1
    assert len(opened(read_events(bt2_read, snaps[0]), f)) == 1
    daemon.run("destroy")


def test_start_after_stop_rotated(daemon, tmp_path, bt2_read):
    """A session that rotated archives its chunk at stop; start opens the next chunk."""
    out = tmp_path / "trace"
    daemon.run("create", "rr", "-o", out)
    daemon.run("enable-event", "-k", "--syscall", "pwrite64")
    daemon.run("add-context", "-k", "-t", "pid")
    daemon.run("start")
    pids = [pwrites(0, 100)]
    daemon.run("rotate")
    pids.append(pwrites(100, 100))
    daemon.run("stop")
    assert not (out / "kernel").exists() and len(list((out / "archives").iterdir())) == 2
    p = daemon.run("rotate", check=False)
    assert p.returncode == 1 and "nothing to rotate" in p.stderr, p.stderr
    daemon.run("start")
    pids.append(pwrites(200, 100))
    daemon.run("stop")
    assert chunk_positions(bt2_read, out, set(pids)) == [list(range(0, 100)), list(range(100, 200)),
                                                         list(range(200, 300))]
    daemon.run("destroy")


def daemon_prog_ids(daemon):
    """The ids of the BPF programs the daemon holds (its fds' fdinfo): other scry processes
    on the machine do not count."""
    pid, ids = daemon.pid(), set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != "anon_inode:bpf-prog":
                continue
            for line in open(f"/proc/{pid}/fdinfo/{fd}"):
                if line.startswith("prog_id:"):
                    ids.add(int(line.split()[1]))
        except OSError:
            continue
    return ids


def test_loaded_ahead_of_start(daemon, tmp_path, bt2_read):
    """A configured session's BPF objects are loaded once its configuration has rested
    (LTTng's enable-event registers its probes before start): start only makes the trace,
    attaches and flips the switch, and records the same.  A change after that loads the
    new configuration again; destroy of a session never started frees what was loaded."""
    out = tmp_path / "trace"
    a = tmp_path / "a.txt"
    a.write_text("a")
    log = daemon.rundir / "scryd.log"
    # the ready object for scry trace (docs/DAEMON.md) is scryd's own, no session's: left out
    daemon.run("daemon")
    deadline = time.monotonic() + 60
    while warm_request(daemon.rundir)[0]["ready"] != ["1"]:
        assert time.monotonic() < deadline, "scryd made no ready object"
        time.sleep(0.05)
    ready = daemon_prog_ids(daemon)

    def session_prog_ids(d):
        return daemon_prog_ids(d) - ready

    daemon.run("create", "ah", "-o", out)
    daemon.run("enable-event", "-k", "--syscall", "openat")
    daemon.run("add-context", "-k", "-t", "pid")

    def loaded_lines():
        return [l for l in log.read_text().splitlines() if "scryd: session ah: BPF objects loaded ahead of start" in l]

    deadline = time.monotonic() + 30
    while not loaded_lines() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(loaded_lines()) == 1, log.read_text()
    ours = session_prog_ids(daemon)
    assert ours, "no program loaded ahead"             # loaded, not attached: no trace yet
    assert not out.exists()
    # a change: the configuration is loaded again (the old objects freed)
    daemon.run("add-context", "-k", "-t", "tid")
    deadline = time.monotonic() + 30
    while len(loaded_lines()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(loaded_lines()) == 2, log.read_text()
    again = session_prog_ids(daemon)
    assert again and not (ours & again), "the first configuration's programs were not freed"
    daemon.run("start")
    started = [l for l in log.read_text().splitlines() if "scryd: session ah started" in l]
    assert len(started) == 1 and "(loaded ahead)" in started[0], started
    subprocess.run(["/bin/cat", a], check=True, capture_output=True)
    daemon.run("stop")
    tr = read_events(bt2_read, out)
    ev = opened(tr, a)
    assert len(ev) == 1 and set(ev[0]["ctx"]) == {"pid", "tid"}, ev
    daemon.run("destroy")

    # never started: destroy frees the objects loaded ahead
    assert not session_prog_ids(daemon)
    daemon.run("create", "nv", "-o", tmp_path / "nv")
    daemon.run("enable-event", "-k", "--syscall", "getppid")
    deadline = time.monotonic() + 30
    while not [l for l in log.read_text().splitlines() if "session nv: BPF objects loaded ahead" in l] \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert session_prog_ids(daemon)
    daemon.run("destroy")
    assert not session_prog_ids(daemon)
