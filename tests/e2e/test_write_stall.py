"""tests/e2e/test_write_stall.py — a disk that stalls does not stall the rings: the stream
files are written by a writer thread (src/ctf/writer.h), so while a write blocks, the rings
go on being drained into its bounded queue.  The stall is the test hook
SCRY_TEST_WRITE_STALL_FILE (the process's first packet write waits while the file exists, as
a write-back stall would block it), held here until the traced workload has ended, so that
the whole workload runs behind the stall whatever the machine's load.
SCRY_TEST_SYNC_WRITES=1 writes on the draining thread as before the writer: under the same
stall it must lose events (the test exercises what it claims)."""
import json
import os
import re
import subprocess

SUMMARY = re.compile(r"^scry: (\d+) events recorded, (\d+) discarded, ", re.M)


def bt_read(trace):
    """babeltrace2's reading of the trace: (events, entries, discarded), its text output's
    lines and the sum of its discarded-events warnings."""
    p = subprocess.run(["babeltrace2", str(trace)], capture_output=True, text=True, timeout=600,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr[-2000:]
    lines = p.stdout.splitlines()
    disc = sum(int(m) for m in re.findall(r"^WARNING: Tracer discarded (\d+) events?\b", p.stderr, re.M))
    other = [l for l in p.stderr.splitlines() if l and not l.startswith("WARNING: Tracer discarded ")]
    assert not other, other[:5]
    return len(lines), sum("syscall_entry_getppid:" in l for l in lines), disc


def record_stalled(scry, workload, tmp_path, name, calls, sync=False, extra=()):
    """Record `calls` getppid calls (the workload pinned to CPU 0: one stream) while the
    first write stalls until the workload ended: (events, discarded) of the summary line."""
    gate = tmp_path / f"{name}.stall"
    gate.write_text("")
    env = dict(os.environ, SCRY_TEST_WRITE_STALL_FILE=str(gate))
    env.pop("SCRY_TEST_SYNC_WRITES", None)
    env.pop("SCRY_TEST_WRITE_STALL_MS", None)
    if sync:
        env["SCRY_TEST_SYNC_WRITES"] = "1"
    p = subprocess.Popen([scry, "record", "-q", "-o", str(tmp_path / name), "-e", "syscall:getppid", *extra,
                          "--", "taskset", "-c", "0", workload("getppid_loop"), str(calls)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         stdin=subprocess.DEVNULL)
    try:
        line = p.stdout.readline()       # the workload's last words: it has ended
        assert json.loads(line)["calls"] == calls, line
        gate.unlink()
        out, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    m = SUMMARY.search(err)
    assert m, err
    return int(m[1]), int(m[2])


def test_a_stall_the_queue_absorbs_loses_nothing(scry, workload, tmp_path):
    """400,000 calls (~30 MB of events) while the first write stalls: the rings (8 MiB)
    alone cannot hold them, the writer's queue (64 MiB) can: 0 discarded, every event in
    the trace.  Written by the draining thread, the same stall loses all but ~a ring's."""
    n = 400_000
    ev, disc = record_stalled(scry, workload, tmp_path, "sync", n, sync=True)
    assert ev + disc == 2 * n
    assert disc > n, f"the stall on the draining thread lost only {disc}: the test does not stall"
    ev, disc = record_stalled(scry, workload, tmp_path, "writer", n)
    assert (ev, disc) == (2 * n, 0)
    assert bt_read(tmp_path / "writer") == (2 * n, n, 0)


def test_a_stall_beyond_the_queue_is_counted(scry, workload, tmp_path):
    """More than the queue and the rings hold behind the stall (1 MiB rings, ~110 MB of
    events on one CPU against its stream's 64 MiB of queue, 38-byte events): the ring is
    left to fill and the kernel counts what does not fit, exactly: events + discarded =
    2 x calls, the trace agreeing."""
    n = 1_500_000
    ev, disc = record_stalled(scry, workload, tmp_path, "t", n, extra=("--buffer-size", "1M"))
    assert ev + disc == 2 * n
    assert 1_700_000 < ev < 1_900_000, f"{ev} events kept: the queue should hold ~64 MiB of them, no more"
    events, _, discarded = bt_read(tmp_path / "t")
    assert (events, discarded) == (ev, disc)
