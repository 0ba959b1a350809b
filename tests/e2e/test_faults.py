"""tests/e2e/test_faults.py — faults lose nothing silently (issue 11): a recorder killed with
SIGKILL at random moments of a busy recording leaves a trace babeltrace2 reads whole (its
guardian cuts the unfinished packet and rebuilds the index); `scry recover` does the same by
hand and leaves a trace being recorded alone; a full disk stops the trace at its last complete
packet, counts every later event as lost (recorded + discarded + lost == generated, exactly),
exits nonzero without a retry storm; metadata that does not fit leaves no directory behind."""
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import time
from pathlib import Path

import pytest

from conftest import run_babeltrace2

CTF_MAGIC = 0xC1FC1FC1
GUARD_RE = re.compile(r"scry: the recorder of (.+) died; its trace keeps (\d+) complete packets "
                      r"\((\d+) bytes of unfinished packets cut, (\d+) indexes rebuilt\)")
DISK_FULL_RE = re.compile(r"^scry: (.+): disk full after (\d+) events; (\d+) events lost "
                          r"\(the trace ends at its last complete packet\)$", re.M)


def stream_files(trace):
    k = Path(trace) / "kernel"
    return sorted(p for p in k.iterdir() if p.is_file() and p.name != "metadata" and not p.name.startswith("."))


def packets_of(path):
    """The packets of a stream file from their headers: [(offset, size)]; asserts that they
    tile the file exactly (no unfinished packet at its end)."""
    data = path.read_bytes()
    off, out = 0, []
    while off < len(data):
        assert off + 84 <= len(data), f"{path}: {len(data) - off} bytes after the last packet"
        magic, = struct.unpack_from("<I", data, off)
        assert magic == CTF_MAGIC, f"{path}: bad magic at {off}"
        content, size = struct.unpack_from("<QQ", data, off + 48)
        assert size % 8 == 0 and content <= size and off + size // 8 <= len(data), \
            f"{path}: packet at {off} claims {size // 8} bytes, {len(data) - off} in the file"
        out.append((off, size // 8))
        off += size // 8
    return out


def index_entries(trace, stream):
    """(offset, packet_size bytes) of each entry of the stream's LTTng index."""
    data = (Path(trace) / "kernel" / "index" / (stream.name + ".idx")).read_bytes()
    magic, major, minor, entry_len = struct.unpack_from(">IIII", data, 0)
    assert magic == 0xC1F1DCC1 and entry_len == 72
    assert (len(data) - 16) % 72 == 0, "index ends inside an entry"
    return [(struct.unpack_from(">Q", data, o)[0], struct.unpack_from(">Q", data, o + 8)[0] // 8)
            for o in range(16, len(data), 72)]


def bt_counts(trace):
    """babeltrace2's own count of events and packets (sink.utils.counter): rc 0 and no
    error, or the test fails."""
    p = subprocess.run(["babeltrace2", str(trace), "-c", "sink.utils.counter", "-p", "step=+1000000000"],
                       capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert p.returncode == 0 and not p.stderr, f"babeltrace2 failed on {trace}:\n{p.stderr[-2000:]}"
    ev = re.findall(r"(\d+) Event messages?", p.stdout)
    pk = re.findall(r"(\d+) Packet beginning messages?", p.stdout)
    assert ev and pk, p.stdout
    return int(ev[-1]), int(pk[-1])


def view_count(scry, trace):
    p = subprocess.run([scry, "view", str(trace)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout.count("\n")


def children_of(pid):
    kids = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            kids += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids


def comm(pid):
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def test_sigkill_at_random_moments_of_a_busy_recording(scry, workload, tmp_path):
    """20 SIGKILLs at random moments while the consumer writes ~100 MB/s: every trace is
    read by babeltrace2 with no error, every stream file is whole packets, the index covers
    them, and babeltrace2 and scry view count the same events."""
    rng = random.Random(int(os.environ.get("SCRY_TEST_SEED", time.time_ns())))
    cuts = total = 0
    for i in range(20):
        out = tmp_path / f"k{i}"
        p = subprocess.Popen([scry, "record", "-q", "-o", str(out), "-e", "syscall:getppid",
                              "--", workload("getppid_loop"), "1000000000"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        kids = []
        try:
            deadline = time.monotonic() + 60
            while not (out / "kernel" / "channel0_0").exists():
                assert p.poll() is None, f"scry record exited early: {p.stderr.read()}"
                assert time.monotonic() < deadline, "scry record did not start recording"
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.25))
            kids = [k for k in children_of(p.pid) if comm(k) != "scry-guard"]
        finally:
            p.send_signal(signal.SIGKILL)
            p.wait()
            for k in kids:
                try:
                    os.kill(k, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        # the guardian holds stderr until it has recovered the trace
        err = p.stderr.read()
        m = GUARD_RE.search(err)
        assert m, f"no word from the guardian:\n{err}"
        cuts += int(m[3]) > 0
        npackets = 0
        for f in stream_files(out):
            pk = packets_of(f)
            assert index_entries(out, f) == pk, f"{f}: index does not match the packets"
            npackets += len(pk)
        assert npackets == int(m[2])
        events, packets = bt_counts(out)
        assert packets == npackets
        assert events == view_count(scry, out)
        total += events
    assert total > 0
    print(f"{cuts} of 20 kills cut an unfinished packet; {total} events kept")


def test_recover_cuts_an_unfinished_packet(scry, workload, record, tmp_path):
    """A trace whose guardian could not help (truncated by hand inside its last packet):
    scry view names the incomplete packet, `scry recover` cuts it and rebuilds the index,
    then babeltrace2 reads the rest; a second run finds nothing to do."""
    out = tmp_path / "t"
    record(out, "-e", "syscall:getppid", "--packet-size", "64K",
           cmd=[workload("getppid_loop"), "100000"]).check()
    total, _ = bt_counts(out)
    f = max(stream_files(out), key=lambda p: p.stat().st_size)
    pk = packets_of(f)
    assert len(pk) >= 3
    last_off, last_size = pk[-1]
    os.truncate(f, last_off + last_size // 2)

    assert run_babeltrace2(out).returncode != 0      # what a plain babeltrace2 user would get
    v = subprocess.run([scry, "view", str(out)], capture_output=True, text=True)
    assert v.returncode == 1
    assert f"scry view: error: {f}: corrupt packet at offset {last_off}: incomplete: " \
        f"{last_size - last_size // 2} of its {last_size} bytes in the file" in v.stderr

    r = subprocess.run([scry, "recover", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"{last_size - last_size // 2} bytes of unfinished packets cut in 1 streams; 1 indexes rebuilt" in r.stdout
    assert f.stat().st_size == last_off
    assert index_entries(out, f) == pk[:-1]
    events, packets = bt_counts(out)
    assert packets == sum(len(packets_of(s)) for s in stream_files(out))
    assert 0 < events < total
    assert events == view_count(scry, out)

    again = subprocess.run([scry, "recover", str(out)], capture_output=True, text=True)
    assert again.returncode == 0 and "nothing to recover" in again.stdout


def test_recover_leaves_a_recording_alone(scry, tmp_path):
    out = tmp_path / "t"
    p = subprocess.Popen([scry, "record", "-q", "-a", "-e", "sched:sched_switch", "-o", str(out)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (out / "kernel" / "channel0_0").exists():
            assert p.poll() is None, p.stderr.read()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        r = subprocess.run([scry, "recover", str(out)], capture_output=True, text=True)
        assert r.returncode == 1
        assert r.stderr == f"scry recover: {out} is being recorded (or recovered) by a running scry: not touched\n"
    finally:
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert "died" not in err        # a clean stop: the guardian said nothing
    bt_counts(out)


def test_recover_bad_input(scry, tmp_path):
    r = subprocess.run([scry, "recover", str(tmp_path / "nope")], capture_output=True, text=True)
    assert r.returncode == 1 and "No such file or directory" in r.stderr
    (tmp_path / "empty").mkdir()
    r = subprocess.run([scry, "recover", str(tmp_path / "empty")], capture_output=True, text=True)
    assert r.returncode == 1 and "no metadata: not a trace" in r.stderr
    r = subprocess.run([scry, "recover"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("usage: scry recover DIR")


@pytest.fixture
def small_fs(tmp_path):
    """mount(size) -> a fresh tmpfs of that size under tmp_path, unmounted afterwards."""
    mounts = []

    def mount(size):
        d = tmp_path / f"fs{len(mounts)}"
        d.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(d)], check=True)
        mounts.append(d)
        return d
    yield mount
    for d in mounts:
        subprocess.run(["umount", "-l", str(d)], check=False)


def test_disk_full_counts_every_event(scry, workload, small_fs):
    """4,000,000 events onto 2 MB: the trace ends at its last complete packet, every event
    is either in it, discarded in the kernel or counted lost, exactly; no retry storm (the
    old code took over a minute here); exit status nonzero."""
    fs = small_fs("2m")
    out = fs / "t"
    t0 = time.monotonic()
    p = subprocess.run([scry, "record", "-q", "-o", str(out), "-e", "syscall:getppid", "--",
                        workload("getppid_loop"), "2000000"], capture_output=True, text=True, timeout=300)
    elapsed = time.monotonic() - t0
    assert p.returncode == 1, p.stderr
    m = re.search(r"^scry: (\d+) events recorded, (\d+) discarded, (\d+) bytes written to ", p.stderr, re.M)
    full = DISK_FULL_RE.search(p.stderr)
    assert m and full, p.stderr
    recorded, discarded, lost = int(m[1]), int(m[2]), int(full[3])
    assert full[1] == str(out) and int(full[2]) == recorded
    assert recorded + discarded + lost == 2 * 2000000
    assert lost > 0
    events, packets = bt_counts(out)
    assert events == recorded
    for f in stream_files(out):
        packets_of(f)
    assert elapsed < 30, f"took {elapsed:.1f} s: retrying the failed writes?"


def test_disk_full_status_line(scry, workload, small_fs):
    """The live status line says it too (a terminal on stderr: script(1) gives one)."""
    fs = small_fs("2m")
    out = fs / "t"
    cmd = f"{scry} record -o {out} -e syscall:getppid -- {workload('getppid_loop')} 8000000 >/dev/null"
    p = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, text=True, timeout=300)
    assert re.search(r"\[scry\] [0-9]+ events/s, [0-9.]+ [KMG]B written, [0-9]+ lost; disk full after [0-9]+ events",
                     p.stdout), p.stdout[-2000:]


def test_metadata_that_does_not_fit_leaves_nothing(scry, small_fs):
    fs = small_fs("100k")
    out = fs / "t"
    p = subprocess.run([scry, "record", "-q", "-o", str(out), "--", "/bin/true"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1
    assert p.stderr == f"scry: {out}/kernel/metadata: write: No space left on device\n"
    assert not out.exists(), list(out.rglob("*"))
    assert list(fs.iterdir()) == []


def test_duration_starts_and_stops_at_one_instant(scry, tmp_path, bt2_read):
    """--duration 1 with every sched tracepoint (each detached in turn, ~50 ms apiece): the
    events span at most the duration (not the detaching), and the summary says 1 s."""
    out = tmp_path / "t"
    p = subprocess.run([scry, "record", "-q", "-a", "-e", "sched:*", "--duration", "1", "-o", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    secs = float(re.search(r" in ([0-9.]+) s ", p.stderr)[1])
    assert 1.0 <= secs <= 1.01, p.stderr
    ts = [e["ts"] for e in bt2_read(out, fields=False).events]
    assert len(ts) > 10
    span = (max(ts) - min(ts)) / 1e9
    assert span <= 1.01, f"events span {span:.3f} s for --duration 1"
