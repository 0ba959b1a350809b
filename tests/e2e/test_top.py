"""tests/e2e/test_top.py — `scry top` when stdout is not a terminal: plain tables, one per
-d SECONDS, -n COUNT of them, and with -- CMD a last table when CMD ends whose counts for a
workload of known syscalls (build/workload/metrics_wl) are exact."""
import re
import subprocess

N_GETPPID, M_OPENAT, W_WRITES, B_BYTES = 4321, 23, 11, 777

ROW_RE = re.compile(r"^\s*(\d+) (.{16}) (\S+)\s+(\d+)\s+([0-9.]+)\s+(\d+)\s+([0-9.]+)\s+(\S+)\s+(\S+)\s+(\d+)\s+([0-9.]+)$")


def tables(out):
    """[[row dict...]...] of the plain tables in out."""
    result = []
    for block in out.split("scry top: ")[1:]:
        lines = block.splitlines()
        assert lines[1].split()[:3] == ["PID", "COMM", "SYSCALL"], block
        rows = []
        for line in lines[2:]:
            if not line.strip():
                continue
            m = ROW_RE.match(line)
            assert m, f"not a row: {line!r}"
            rows.append(dict(pid=int(m[1]), comm=m[2].strip(), syscall=m[3], calls=int(m[4]),
                             calls_rate=float(m[5]), errors=int(m[6]), errors_rate=float(m[7]), p50=m[8], p99=m[9], bytes=int(m[10])))
        result.append(rows)
    return result


def test_top_command_exact_counts(scry, workload):
    p = subprocess.run([scry, "top", "-d", "0.3", "--", workload("metrics_wl"), str(N_GETPPID), str(M_OPENAT),
                        str(W_WRITES), str(B_BYTES)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    ts = tables(p.stdout)
    assert ts, p.stdout
    last = {(r["comm"], r["syscall"]): r for r in ts[-1]}
    assert {r["comm"] for r in ts[-1]} == {"metrics_wl"}, p.stdout
    assert len({r["pid"] for r in ts[-1]}) == 1
    assert last[("metrics_wl", "getppid")]["calls"] == N_GETPPID
    assert last[("metrics_wl", "getppid")]["errors"] == 0
    assert last[("metrics_wl", "getppid")]["p50"] != "-"
    assert last[("metrics_wl", "openat")]["errors"] == M_OPENAT
    assert last[("metrics_wl", "openat")]["calls"] >= M_OPENAT + 1
    assert last[("metrics_wl", "write")]["calls"] == W_WRITES
    assert last[("metrics_wl", "write")]["bytes"] == W_WRITES * B_BYTES
    # sorted by calls/s, then calls: getppid first
    assert ts[-1][0]["syscall"] == "getppid"


def test_top_iterations_and_sort(scry, workload):
    p = subprocess.run([scry, "top", "-a", "-n", "2", "-d", "0.2", "-s", "errors"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("scry top: ") == 2
    assert "sorted by errors/s" in p.stdout
    ts = tables(p.stdout)
    assert len(ts) == 2 and ts[1], p.stdout      # scry's own reads at least (system-wide)
    for t in ts:
        rates = [r["errors_rate"] for r in t]
        assert rates == sorted(rates, reverse=True), t


def test_top_bad_options(scry):
    for args, msg in ((["-s", "size"], "invalid sort key 'size'"), (["-d", "0"], "invalid delay '0'"),
                      (["-n", "x"], "invalid iteration count 'x'"), (["-p", "0x"], "invalid pid list")):
        p = subprocess.run([scry, "top"] + args, capture_output=True, text=True, timeout=60)
        assert p.returncode != 0
        assert len(p.stderr.splitlines()) == 1 and msg in p.stderr, p.stderr


def test_top_terminal_keys(scry):
    """On a terminal: redrawn in place, e sorts by errors/s, q quits (exit 0)."""
    import os
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:
        os.execv(scry, [scry, "top", "-a", "-d", "0.2"])
    out = b""
    reaped = False

    def read_until(needle, timeout=30):
        nonlocal out
        deadline = time.time() + timeout
        while needle not in out:
            assert time.time() < deadline, f"{needle!r} never shown; got:\n{out[-2000:]!r}"
            r, _, _ = select.select([fd], [], [], 0.5)
            if r:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    break
    try:
        read_until(b"sorted by calls/s")
        assert b"\x1b[H\x1b[2J" in out            # redrawn in place
        os.write(fd, b"e")
        read_until(b"sorted by errors/s")
        os.write(fd, b"q")
        deadline = time.time() + 30
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                reaped = True
                break
            assert time.time() < deadline, "scry top did not quit on q"
            try:
                os.read(fd, 65536)
            except OSError:
                pass
            time.sleep(0.1)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    finally:
        if not reaped:                            # our child, not reaped yet: its pid is still ours
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
