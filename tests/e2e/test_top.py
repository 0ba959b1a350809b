"""tests/e2e/test_top.py — `scry top` when stdout is not a terminal: plain tables, one per
-d SECONDS, -n COUNT of them, and with -- CMD a last table when CMD ends whose counts for a
workload of known syscalls (build/workload/metrics_wl) are exact; the process view (the
default: one row per process, totals in a header), the syscall view (-S); rates that agree
with the counts; processes that exited shown once more, then gone; scry left out."""
import os
import re
import subprocess

import pytest

N_GETPPID, M_OPENAT, W_WRITES, B_BYTES = 4321, 23, 11, 777

ROW_RE = re.compile(r"^\s*(\d+) (.{16}) (\S+)\s+(\d+)\s+([0-9.]+)\s+(\d+)\s+([0-9.]+)\s+(\S+)\s+(\S+)\s+(\d+)\s+([0-9.]+)"
                    r"\s+(\S+)$")


PROC_RE = re.compile(r"^\s*(\d+) (.{16})\s+(\d+)\s+([0-9.]+)\s+(\d+)\s+([0-9.]+)\s+(\d+)\s+([0-9.]+)\s+(\S+)\s+(\S+)"
                     r"( \(exited\))?$")
HEAD_RE = re.compile(r"^(\d+) processes, ([0-9.]+) calls/s, ([0-9.]+) errors/s, sorted by (\S+)")


def proc_tables(out):
    """[(header dict, [row dict...])...] of the process view's tables in out."""
    result = []
    for block in out.split("scry top: ")[1:]:
        lines = block.splitlines()
        h = HEAD_RE.match(lines[0])
        assert h and lines[1].split()[:3] == ["PID", "COMM", "CALLS"], block
        rows = []
        for line in lines[2:]:
            if not line.strip():
                continue
            m = PROC_RE.match(line)
            assert m, f"not a row: {line!r}"
            rows.append(dict(pid=int(m[1]), comm=m[2].strip(), calls=int(m[3]), calls_rate=float(m[4]),
                             errors=int(m[5]), errors_rate=float(m[6]), bytes=int(m[7]), container=m[9],
                             busiest=m[10], exited=bool(m[11])))
        result.append((dict(procs=int(h[1]), calls_rate=float(h[2]), errors_rate=float(h[3]), by=h[4]), rows))
    return result


def tables(out):
    """[[row dict...]...] of the plain tables (syscall view, -S) in out."""
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
                             calls_rate=float(m[5]), errors=int(m[6]), errors_rate=float(m[7]), p50=m[8], p99=m[9], bytes=int(m[10]),
                             container=m[12]))
        result.append(rows)
    return result


def test_top_command_exact_counts(scry, workload):
    p = subprocess.run([scry, "top", "-S", "-d", "0.3", "--", workload("metrics_wl"), str(N_GETPPID), str(M_OPENAT),
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
    p = subprocess.run([scry, "top", "-S", "-a", "-n", "2", "-d", "0.2", "-s", "errors"], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("scry top: ") == 2
    assert "sorted by errors/s" in p.stdout
    ts = tables(p.stdout)
    assert len(ts) == 2, p.stdout
    for t in ts:
        rates = [r["errors_rate"] for r in t]
        assert rates == sorted(rates, reverse=True), t


def test_top_process_view(scry, workload):
    """The default view: one row per process; the command's row sums its syscalls exactly; the
    header's totals are the sum of the rows' rates; no row of scry's."""
    p = subprocess.run([scry, "top", "-d", "0.3", "--", "sh", "-c",
                        f"{workload('metrics_wl')} {N_GETPPID} {M_OPENAT} {W_WRITES} {B_BYTES}; sleep 0.5"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    ts = proc_tables(p.stdout)
    assert ts, p.stdout
    for head, rows in ts:
        assert head["procs"] == len(rows)
        assert abs(head["calls_rate"] - sum(r["calls_rate"] for r in rows)) <= 0.1 * len(rows) + 0.1
        assert abs(head["errors_rate"] - sum(r["errors_rate"] for r in rows)) <= 0.1 * len(rows) + 0.1
        assert not [r for r in rows if r["comm"] in ("scry", "scryd")], rows
    wl = [r for _, rows in ts for r in rows if r["comm"] == "metrics_wl"]
    assert wl, p.stdout
    last = wl[-1]
    assert last["calls"] >= N_GETPPID + M_OPENAT + W_WRITES and last["errors"] >= M_OPENAT
    assert last["bytes"] >= W_WRITES * B_BYTES
    assert last["exited"], p.stdout          # metrics_wl ended before sh's sleep: marked, once
    assert sum(1 for r in wl if r["exited"]) == 1, p.stdout


def test_top_rates_agree_with_counts(scry):
    """Per interval: a row's calls/s and errors/s are its counts' growth over the interval."""
    prog = ("import os, time\nt = time.time()\nwhile time.time() - t < 2.2:\n"
            "    try: os.open('/nonexistent', 0)\n    except OSError: pass\n    time.sleep(0.01)\n")
    p = subprocess.run([scry, "top", "-S", "-d", "0.5", "--", "/usr/bin/python3", "-c", prog],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = [next(r for r in t if r["comm"] == "python3" and r["syscall"] == "openat") for t in tables(p.stdout)
            if any(r["comm"] == "python3" and r["syscall"] == "openat" for r in t)]
    assert len(rows) >= 3, p.stdout
    for a, b in zip(rows[1:-1], rows[2:-1]):     # whole intervals of 0.5 s (the last one is shorter)
        dt = (b["calls"] - a["calls"]) / b["calls_rate"] if b["calls_rate"] else 0
        assert 0.4 < dt < 0.7, (a, b)
        assert b["errors_rate"] > 0.5 * b["calls_rate"], (a, b)
        assert abs((b["errors"] - a["errors"]) / dt - b["errors_rate"]) < 0.05 * b["errors_rate"] + 0.5, (a, b)


def test_top_exited_rows_leave(scry):
    """System-wide: a short-lived process is shown marked (exited) at most once, then never."""
    import time
    tag = f"scrytop{os.getpid()}"
    subprocess.run(["cp", "/bin/true", f"/tmp/{tag}"], check=True)
    top = subprocess.Popen([scry, "top", "-a", "-d", "0.3", "-n", "8"], stdout=subprocess.PIPE, text=True)
    try:
        first = top.stdout.readline()              # counting from here on
        assert first.startswith("scry top: "), first
        child = subprocess.Popen([f"/tmp/{tag}"])
        assert child.wait() == 0
        out = first + top.stdout.read()            # the same buffered reader as readline's
        top.wait(timeout=120)
    finally:
        os.unlink(f"/tmp/{tag}")
    assert top.returncode == 0
    ts = proc_tables(out)
    seen = [[r for r in rows if r["pid"] == child.pid] for _, rows in ts]
    shown = [i for i, rs in enumerate(seen) if rs]
    assert shown, out
    assert len(shown) <= 2 and all(r["exited"] for r in seen[shown[-1]]), seen   # gone after its (exited) table
    assert not any(seen[shown[-1] + 1:]), seen
    assert all(r["comm"] not in ("scry", "scryd") for _, rows in ts for r in rows)


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
        read_until(b" processes, ")                # the process view first
        os.write(fd, b"e")
        read_until(b"sorted by errors/s")
        out = b""
        os.write(fd, b"s")                          # the syscall view
        read_until(b"SYSCALL")
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


THREADS = """import os, threading, time, sys
def work():
    while True:
        os.getppid()
        time.sleep(0.01)
ts = [threading.Thread(target=work, daemon=True) for _ in range(2)]
for t in ts:
    t.start()
time.sleep(0.2)
print(" ".join(str(t.native_id) for t in ts), flush=True)
time.sleep(60)
"""


def test_top_in_tmux_threads(scry, tmp_path):
    """In a terminal (tmux: send-keys, capture-pane): the process view, then H: a row per
    thread, the worker threads' TIDs among them, the header counting threads; H again: back."""
    import shutil
    import time
    if not shutil.which("tmux"):
        pytest.skip("tmux not installed (scripts/deps.sh installs it)")
    prog = subprocess.Popen(["/usr/bin/python3", "-c", THREADS], stdout=subprocess.PIPE, text=True)
    sock = f"scrytest{os.getpid()}"
    tmux = ["tmux", "-L", sock]
    try:
        tids = prog.stdout.readline().split()
        assert len(tids) == 2
        subprocess.run(tmux + ["new-session", "-d", "-x", "200", "-y", "40", f"{scry} top -d 0.3 -p {prog.pid}"],
                       check=True)

        def screen_until(pred, timeout=30):
            deadline = time.time() + timeout
            while True:
                text = subprocess.run(tmux + ["capture-pane", "-p"], capture_output=True, text=True).stdout
                if pred(text):
                    return text
                assert time.time() < deadline, text
                time.sleep(0.2)
        text = screen_until(lambda s: " processes, " in s and str(prog.pid) in s)
        assert "CONTAINER" in text
        subprocess.run(tmux + ["send-keys", "H"], check=True)
        text = screen_until(lambda s: " threads, " in s and all(t in s for t in tids))
        rows = [l.split() for l in text.splitlines()[2:] if l.strip()]
        assert text.splitlines()[1].split()[0] == "TID", text
        assert {r[0] for r in rows} >= set(tids) and all(r[1] == "python3" for r in rows if r[0] in tids), text
        subprocess.run(tmux + ["send-keys", "H"], check=True)
        screen_until(lambda s: " processes, " in s)
        subprocess.run(tmux + ["send-keys", "q"], check=True)
        deadline = time.time() + 30
        while subprocess.run(tmux + ["has-session"], capture_output=True).returncode == 0:
            assert time.time() < deadline, "scry top did not quit on q"
            time.sleep(0.2)
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)
        prog.kill()
        prog.wait()
