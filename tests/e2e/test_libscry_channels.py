"""tests/e2e/test_libscry_channels.py — libscry's channels and trackers (issue 30), through
tests/api/channels.c (each flag one call): a session of two channels, each with its events
and a context of its own, whose trace babeltrace2 reads with each event in its channel's
streams and what the callback got (scry_event_channel); an overwrite channel under a flood
faster than its writer, whose overwritten packets are the gaps in packet_seq_num and the
session's lost_packets; a channel's stream split in trace files, the oldest deleted; the cgroup tracker with a workload in a cgroup made here, the vpid
tracker with one in a pid namespace; bad channel options: one line."""
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

from conftest import read_trace, run_babeltrace2
from test_daemon import index_seqs, pwrites
from test_libscry import PATHS, ROUNDS, example, go, opener
from test_metrics_filter import cgroup  # noqa: F401 (a fixture: a cgroup v2 directory made here)


def start(args):
    p = subprocess.Popen([example("channels")] + [str(a) for a in args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    line = p.stderr.readline()
    if line != "channels: tracing\n":
        p.kill()
        raise AssertionError(line + p.communicate()[1])
    return p


def finish(p):
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    return out.splitlines()


def stats(lines):
    assert lines[-1].startswith("stats "), lines[-5:]
    return {k: int(v) for k, v in (kv.split("=") for kv in lines[-1].split()[1:])}


def test_two_channels(workload, tmp_path):
    """files: openat, with ppid added to it alone; misc: getppid and close, its own ring and
    switch timer.  Each stream class (channel) holds its events only, with its contexts; the
    callback's events name their channel and match the trace's, one for one."""
    out = tmp_path / "t"
    w = opener(workload)
    p = start(["-o", out, "-c", "files", "-e", "syscall:openat", "-x", "ppid",
               "-B", 1 << 20, "-T", 100000, "-c", "misc", "-e", "syscall:getppid", "-e", "syscall:close",
               "-p", w.pid])
    go(w)
    lines = finish(p)
    st = stats(lines)
    assert st["discarded"] == st["lost"] == st["lost_packets"] == 0, st
    got = Counter((l.split()[0], l.split()[1], int(l.split()[3])) for l in lines[:-1] if int(l.split()[2]) == w.pid)
    n = ROUNDS * len(PATHS)
    assert got == {("files", "syscall_entry_openat", 4): n, ("files", "syscall_exit_openat", 4): n,
                   ("misc", "syscall_entry_getppid", 3): ROUNDS, ("misc", "syscall_exit_getppid", 3): ROUNDS,
                   ("misc", "syscall_entry_close", 3): 2 * ROUNDS, ("misc", "syscall_exit_close", 3): 2 * ROUNDS}, got
    kernel = next(out.rglob("metadata")).parent
    streams = sorted(f.name.rsplit("_", 1)[0] for f in kernel.iterdir() if f.is_file() and f.name != "metadata")
    assert set(streams) == {"files", "misc"}, streams
    bt = run_babeltrace2(kernel)
    assert bt.returncode == 0 and bt.stderr == "", bt.stderr
    tr = read_trace(kernel)
    names = {0: "files", 1: "misc"}
    want = Counter((names[e["channel"]], e["name"], len(e["ctx"])) for e in tr.events if e["pid"] == w.pid)
    assert want == got, (want, got)
    assert all("ppid" in e["ctx"] for e in tr.events if e["channel"] == 0)
    assert not any("ppid" in e["ctx"] for e in tr.events if e["channel"] == 1)
    assert st["events"] == len(tr.events) == len(lines) - 1, (st, len(tr.events))


def test_overwrite_channel(tmp_path):
    """An overwrite channel of 4 sub-buffers of 16 KiB under 100000 pwrite64 on one CPU in well
    under the writer's second: the packets overwritten are the gaps in each stream's
    packet_seq_num and stats.lost_packets; the trace keeps the newest, in order, ending with
    the flood's last call; the callback had every event."""
    out = tmp_path / "t"
    n = 100000
    p = start(["-o", out, "-q", "-O", "-S", 16384, "-N", 4, "-c", "fr", "-e", "syscall:pwrite64", "-a"])
    pid = pwrites(0, n)
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    lines = finish(p)
    st = stats(lines)
    kernel = next(out.rglob("metadata")).parent
    gaps = 0
    for idx in sorted((kernel / "index").glob("fr_*.idx")):
        seqs = index_seqs(idx)
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), seqs
        gaps += (seqs[-1] + 1 - len(seqs)) if seqs else 0
    assert st["lost_packets"] > 0 and gaps == st["lost_packets"], (gaps, st)
    counts = {tuple(l.split()[1:3]): int(l.split()[3]) for l in lines if l.startswith("COUNT ")}
    # the callback had every event the rings gave (the flood's, and other processes')
    assert counts[("fr", "syscall_entry_pwrite64")] >= n - st["discarded"], (counts, st)
    tr = read_trace(kernel)
    pos = [e["fields"]["pos"] for e in tr.events if e["pid"] == pid and e["name"] == "syscall_entry_pwrite64"]
    assert pos and pos[-1] == n - 1 and pos == sorted(pos), pos[-3:]
    assert len(pos) < n // 2, len(pos)     # most of the flood overwritten in the trace


def test_tracefiles(tmp_path):
    """tracefile_size 32 KiB (sub-buffers of 16 KiB) and tracefile_count 2: CPU 0's stream,
    under 5000 pwrite64 there, in files ring_0_<index> of at most 32 KiB, the last two
    remaining; babeltrace2 reads them with no error: the newest events, in order."""
    out = tmp_path / "t"
    n = 5000
    p = start(["-o", out, "-q", "-S", 16384, "-F", 32768, "-K", 2, "-c", "ring", "-e", "syscall:pwrite64", "-a"])
    pid = pwrites(0, n)
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    finish(p)
    kernel = next(out.rglob("metadata")).parent
    files = sorted(int(f.name.split("_")[2]) for f in kernel.iterdir() if f.name.startswith("ring_0_"))
    assert len(files) == 2 and files[0] >= 2 and files[1] == files[0] + 1, files
    assert all(f.stat().st_size <= 32768 for f in kernel.iterdir() if f.name.startswith("ring_")), \
        [(f.name, f.stat().st_size) for f in kernel.iterdir()]
    bt = run_babeltrace2(kernel)
    assert bt.returncode == 0 and bt.stderr == "", bt.stderr
    pos = [e["fields"]["pos"] for e in read_trace(kernel).events
           if e["pid"] == pid and e["name"] == "syscall_entry_pwrite64"]
    assert pos and pos[-1] == n - 1 and pos == sorted(pos) and pos[0] > 0, pos[:3]


def tracked(workload, tracker, prefix, path):
    """A system-wide session of openat with tracker (its flag and value) while the workload
    opens path under prefix (which puts it where the tracker looks) and, outside, opens
    /nonexistent-libscry-out: the one line of path's openat entry, after checking that every
    line is of its process and none of the one outside."""
    p = start(["-e", "syscall:openat", *tracker, "-a"])
    inside = subprocess.Popen([*prefix, workload("opener"), "1", path], stdin=subprocess.PIPE)
    outside = subprocess.Popen([workload("opener"), "1", "/nonexistent-libscry-out"], stdin=subprocess.PIPE)
    go(inside)
    go(outside)
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    lines = finish(p)
    mine = [l for l in lines if l.endswith(" " + path)]
    assert len(mine) == 1 and mine[0].startswith("channel0 syscall_entry_openat "), lines[-20:]
    assert not [l for l in lines if "-out" in l or f" {outside.pid} " in l], lines[-20:]
    assert {l.split()[2] for l in lines[:-1] if not l.startswith("LOST")} == {mine[0].split()[2]}, lines[-20:]
    return mine[0], inside.pid


def test_cgroup_tracker(workload, cgroup):  # noqa: F811
    """System-wide with the cgroup tracker on a cgroup made here: the openat of the workload
    moved into it are there, those of the same workload outside are not."""
    line, pid = tracked(workload, ["-g", cgroup], ["sh", "-c", f'echo $$ > {cgroup}/cgroup.procs && exec "$@"', "sh"],
                        "/nonexistent-libscry-in")
    assert line == f"channel0 syscall_entry_openat {pid} 3 /nonexistent-libscry-in"


def test_vpid_tracker(workload):
    """System-wide with the vpid tracker 2: the workload run as process 2 of a new pid
    namespace (its shell is 1) is there, the same workload outside is not."""
    line, pid = tracked(workload, ["-v", 2], ["unshare", "--pid", "--fork", "sh", "-c", '"$@"; true', "sh"],
                        "/nonexistent-libscry-vpid")
    assert int(line.split()[2]) not in (pid, 2), line    # the host's pid of process 2 there


def test_bad_channel_options():
    p = subprocess.run([example("channels"), "-S", "3000", "-c", "x"], capture_output=True, text=True, timeout=30,
                       stdin=subprocess.DEVNULL)
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr == "channels: scry_session_add_channel: subbuf_size 3000 is not a power of two from 4 KiB " \
                       "to 256 MiB\n", p.stderr
