"""tests/e2e/test_spans_kernel.py — kernel spans (docs/METRICS.md, tracing: spans: syscall,
block_io, sched_wait) sent by `scry serve` over OTLP/HTTP and decoded by
tests/node/otlp_receiver.js (@opentelemetry/otlp-transformer's generated protobuf): a
process that sleeps N times gives exactly N syscall spans above the threshold and at least N
run-queue waits, direct writes to a loop device exactly as many block I/O spans as requests,
each a child of its process's span (the process span of the program that ran it)."""
import os
import subprocess

from test_metrics_sched import loopdev  # noqa: F401 (fixture)
from test_spans import STATS_RE, free_port, receiver  # noqa: F401 (fixture)

N_SLEEPS, SLEEP_US, DD_BLOCKS = 6, 3000, 8

CONFIG = """\
tracing:
  spans:
    - name: process
    - name: syscall
      min_duration_us: 1500
    - name: block_io
    - name: sched_wait
      min_duration_us: 0
"""


def test_kernel_spans_under_process_spans(scry, workload, receiver, loopdev, tmp_path):  # noqa: F811
    port, spans = receiver()
    cfg = tmp_path / "spans.yaml"
    cfg.write_text(CONFIG)
    cmd = ["sh", "-c", f"{workload('sleeper')} {N_SLEEPS} {SLEEP_US}; "
                       f"dd if=/dev/zero of=/dev/{loopdev} bs=4k count={DD_BLOCKS} oflag=direct 2>/dev/null"]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}"}
    p = subprocess.run([scry, "serve", "--config", str(cfg), "--listen", f"127.0.0.1:{free_port()}",
                        "--duration", "2", "--"] + cmd, capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stderr
    m = STATS_RE.search(p.stderr)
    assert m and int(m[3]) == 0, p.stderr
    got = [s for s in spans() if "spanId" in s]
    assert int(m[1]) == len(got), p.stderr
    procs = {s["name"]: s for s in got if "process.executable.path" in s["attributes"]}
    assert sorted(procs) == ["dd", "sh", "sleeper"], got
    ids = {s["spanId"]: s for s in got}
    assert len(ids) == len(got)

    def children(proc, name):
        return [s for s in got if s["name"] == name and s["parentSpanId"] == procs[proc]["spanId"]]

    # the sleeps: exactly N syscall spans above 1.5 ms, children of the sleeper's span
    sleeps = [s for s in got if s["name"] in ("nanosleep", "clock_nanosleep")]
    assert len(sleeps) == N_SLEEPS, sleeps
    for s in sleeps:
        assert s["parentSpanId"] == procs["sleeper"]["spanId"]
        assert s["traceId"] == procs["sh"]["traceId"]
        assert s["attributes"]["thread.name"] == "sleeper"
        assert s["attributes"]["process.pid"] == procs["sleeper"]["attributes"]["process.pid"]
        assert s["attributes"]["scry.syscall.return"] == "0"
        assert int(s["end"]) - int(s["start"]) >= SLEEP_US * 1000
        assert int(procs["sleeper"]["start"]) <= int(s["start"]) <= int(s["end"]) <= int(procs["sleeper"]["end"])
    # each wake-up from a sleep waited on a run queue (preemptions may add more)
    waits = children("sleeper", "sched_wait")
    assert N_SLEEPS <= len(waits) <= 4 * N_SLEEPS, waits
    assert all(w["attributes"]["thread.name"] == "sleeper" for w in waits)
    # direct writes to the loop device: one request each, issued by dd
    blocks = [s for s in got if s["name"] == "block_io" and s["attributes"]["scry.block.device"] == loopdev]
    assert len(blocks) == DD_BLOCKS, blocks
    for b in blocks:
        assert b["parentSpanId"] == procs["dd"]["spanId"]
        assert b["attributes"]["thread.name"] == "dd"
        assert int(b["end"]) >= int(b["start"])
    # every span with a parent points at a span that was sent, in the same trace
    for s in got:
        if s["parentSpanId"]:
            assert s["parentSpanId"] in ids, s
            assert ids[s["parentSpanId"]]["traceId"] == s["traceId"]


def test_bad_span_configs(scry, tmp_path):
    for body, msg in (("- name: syscall\n      min_duration_us: -1", "tracing.spans[0]"),
                      ("- name: disk", "unknown span 'disk' (process, syscall, block_io, sched_wait)"),
                      ("- name: process\n      min_duration_us: 5", "min_duration_us is for syscall"),
                      ("- name: syscall\n    - name: syscall", "syscall spans given twice"),
                      ("- name: syscall\n      every: 1", "unknown key (name, min_duration_us)")):
        cfg = tmp_path / "bad.yaml"
        cfg.write_text(f"tracing:\n  spans:\n    {body}\n")
        p = subprocess.run([scry, "serve", "--config", str(cfg), "--listen", "127.0.0.1:1"],
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 1
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and f"{cfg}:" in lines[0] and msg in lines[0], p.stderr


FORKER = """import os, time
kids = []
for k in range(%d):
    pid = os.fork()
    if pid == 0:
        for i in range(%d):
            time.sleep(%f)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
"""


def test_fork_without_exec_parented(scry, receiver, tmp_path):  # noqa: F811
    """Kernel spans of children that fork and never exec (python's os.fork) are parented as
    their process span would be: under the forking program's span, in its trace (they were
    each a trace of their own, parentless)."""
    kids, sleeps = 3, 4
    port, spans = receiver()
    cfg = tmp_path / "spans.yaml"
    cfg.write_text("tracing:\n  spans:\n    - name: process\n    - name: syscall\n      min_duration_us: 1500\n")
    script = tmp_path / "forker.py"
    script.write_text(FORKER % (kids, sleeps, SLEEP_US / 1e6))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}"}
    p = subprocess.run([scry, "serve", "--config", str(cfg), "--listen", f"127.0.0.1:{free_port()}",
                        "--duration", "2", "--", "/usr/bin/python3", str(script)], capture_output=True, text=True,
                       timeout=120, env=env)
    assert p.returncode == 0, p.stderr
    got = [s for s in spans() if "spanId" in s]
    procs = [s for s in got if "process.executable.path" in s["attributes"]]
    assert [s["name"] for s in procs] == ["python3"], procs
    py = procs[0]
    mine = [s for s in got if s["name"] in ("nanosleep", "clock_nanosleep", "select", "pselect6")
            and s["attributes"]["process.pid"] != py["attributes"]["process.pid"]]
    assert len(mine) == kids * sleeps, got
    assert len({s["attributes"]["process.pid"] for s in mine}) == kids
    for s in mine:
        assert s["parentSpanId"] == py["spanId"] and s["traceId"] == py["traceId"], s
