"""tests/e2e/test_trace_stall.py — live output that cannot be written does not stall the
rings: `scry trace -o FIFO` whose reader reads nothing until the traced command has ended
(its printing blocks in write() the whole time, as a slow terminal or a full pipe would
block it) loses no event of a command whose events fit the ring and the drain thread's
FIFO (src/consumer/drainer.h), and prints every call once the reader reads."""
import json
import os
import re
import subprocess


def test_blocked_output_loses_nothing(scry, workload, tmp_path):
    """250,000 getppid calls on one CPU (~15 MB of events: more than its 8 MiB ring)
    while the output pipe is not read: every call printed, none lost."""
    n = 250_000
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    rd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)   # scry's open for writing succeeds
    p = subprocess.Popen([scry, "trace", "-e", "trace=getppid", "-o", str(fifo), "--",
                          "taskset", "-c", "0", workload("getppid_loop"), str(n)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         stdin=subprocess.DEVNULL)
    out = b""
    try:
        line = p.stdout.readline()          # the command has ended: now read
        assert json.loads(line)["calls"] == n, line
        os.set_blocking(rd, True)
        while chunk := os.read(rd, 1 << 20):
            out += chunk
        _, err = p.communicate(timeout=300)
    finally:
        os.close(rd)
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    assert "lost" not in err, err
    calls = re.findall(rb"^(?:\d+ +)?getppid\(\) += \d+$", out, re.M)
    assert len(calls) == n, f"{len(calls)} getppid lines for {n} calls; stderr: {err}"
