"""tests/e2e/test_spans_parent.py — kernel spans inside an application's own trace
(tracing: parent:, docs/METRICS.md): tests/workload/span_marks marks its threads with its
spans through a USDT probe (scry_app:span_mark) or a function of its own (a uprobe), and
`scry serve` sends the kernel spans of a marked thread (its syscalls above the threshold, its
run-queue waits, the block I/O it issued) as children of the application's span, in its trace, exactly while the mark
holds; before and after, they are the process span's.  Decoded by tests/node/otlp_receiver.js
(@opentelemetry/otlp-transformer's generated protobuf)."""
import json
import os
import subprocess

import pytest

from test_metrics_sched import loopdev  # noqa: F401 (fixture)
from test_spans import STATS_RE, free_port, receiver  # noqa: F401 (fixture)

N, US = 4, 3000
HIDDEN_SLACK = 2       # run-queue waits a switch from pid 1's threads hides (see below)
HI, LO = "0af7651916cd43dd", "8448eb211c80319c"
S1, S2, S3 = "b7ad6b7169203331", "00f067aa0ba902b7", "53995c3f42cd8ad8"

CONFIG = """\
tracing:
  parent:
    {probe}
  spans:
    - name: process
    - name: syscall
      min_duration_us: 1500
    - name: sched_wait
      min_duration_us: 0
    - name: block_io
"""


def run_serve(scry, cfg_text, tmp_path, port, cmd):
    cfg = tmp_path / "parent.yaml"
    cfg.write_text(cfg_text)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}"}
    return subprocess.run([scry, "serve", "--config", str(cfg), "--listen", f"127.0.0.1:{free_port()}",
                           "--duration", "2", "--"] + cmd, capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize("kind", ["usdt", "uprobe"])
def test_kernel_spans_parented_by_marks(scry, workload, receiver, loopdev, tmp_path, kind):  # noqa: F811
    port, spans = receiver()
    wl = workload("span_marks")
    probe = f"usdt: {wl}:scry_app:span_mark" if kind == "usdt" else f"uprobe: {wl}:mark"
    p = run_serve(scry, CONFIG.format(probe=probe), tmp_path, port, [wl, str(N), str(US), HI, LO, S1, S2, S3,
                                                                       f"/dev/{loopdev}"])
    assert p.returncode == 0, p.stderr
    ids = json.loads(p.stdout.splitlines()[0])
    m = STATS_RE.search(p.stderr)
    assert m and int(m[3]) == 0, p.stderr
    assert "scry: span marks: 0 lost" in p.stderr, p.stderr
    got = [s for s in spans() if "spanId" in s]
    assert int(m[1]) == len(got), p.stderr
    proc = [s for s in got if s["name"] == "span_marks"]
    assert len(proc) == 1, got
    proc = proc[0]
    trace, trace_swapped = HI + LO, LO + HI      # the thread marks itself with the halves swapped

    def tid(s):
        return int(s["attributes"]["thread.id"])

    # the process's kernel spans since its exec (before, it is scry's child waiting to exec)
    kernel = [s for s in got if "thread.id" in s["attributes"] and int(s["attributes"]["process.pid"]) == ids["pid"]
              and int(s["start"]) >= int(proc["start"])]
    by_parent = {}
    for s in kernel:
        by_parent.setdefault(s["parentSpanId"], []).append(s)
    # a mark's spans: its thread's, in its trace, nothing else
    for span_id, want_tid, want_trace in ((S1, ids["tid"], trace), (S2, ids["tid"], trace),
                                          (S3, ids["thread"], trace_swapped)):
        mine = by_parent.get(span_id, [])
        assert {tid(s) for s in mine} == {want_tid}, (span_id, mine)
        assert {s["traceId"] for s in mine} == {want_trace}
        sleeps = [s for s in mine if s["name"] in ("nanosleep", "clock_nanosleep")]
        assert len(sleeps) == N, (span_id, sleeps)
        # each wake-up waited, but this machine runs no BPF program while its pid 1 (the
        # sandbox's agent) is current (tests/e2e/test_lttng_kernel.py): a switch from one of
        # its threads into the marked one is never seen, and that wait has no span
        assert len([s for s in mine if s["name"] == "sched_wait"]) >= N - HIDDEN_SLACK, (span_id, mine)
    # the main thread's sleeps in order: N unmarked, N under S1, N under S2, N unmarked again
    main_sleeps = sorted((s for s in kernel if tid(s) == ids["tid"] and s["name"] in ("nanosleep", "clock_nanosleep")),
                         key=lambda s: int(s["start"]))
    assert [s["parentSpanId"] for s in main_sleeps] == \
        [proc["spanId"]] * N + [S1] * N + [S2] * N + [proc["spanId"]] * N, main_sleeps
    for s in main_sleeps[:N] + main_sleeps[3 * N:]:
        assert s["traceId"] == proc["traceId"]
    # its direct writes: N requests under S2, N after the mark was cleared, under the process span
    blocks = [s for s in kernel if s["name"] == "block_io" and s["attributes"]["scry.block.device"] == loopdev]
    assert sorted(s["parentSpanId"] for s in blocks) == sorted([S2] * N + [proc["spanId"]] * N), blocks
    assert all(s["traceId"] == (trace if s["parentSpanId"] == S2 else proc["traceId"]) for s in blocks)
    assert all(tid(s) == ids["tid"] for s in blocks)
    # the thread's spans before its mark and after it cleared: the process span's
    assert all(s["parentSpanId"] in (S3, proc["spanId"]) for s in kernel if tid(s) == ids["thread"])
    # no other parent: every kernel span of the process is a mark's or the process span's
    assert set(by_parent) <= {S1, S2, S3, proc["spanId"]}, set(by_parent)


def test_parent_bad_config(scry, workload, tmp_path):
    wl = workload("span_marks")
    spans = "  spans:\n    - name: syscall\n"
    for text, msg in ((f"tracing:\n  parent:\n    usdt: {wl}:scry_app:nope\n" + spans,
                       f"tracing.parent: {wl} has no USDT probe scry_app:nope"),
                      (f"tracing:\n  parent:\n    uprobe: {wl}:no_such_function\n" + spans,
                       f"tracing.parent: {wl} has no function no_such_function"),
                      (f"tracing:\n  parent:\n    usdt: {wl}:span_mark\n" + spans,
                       "expected PATH:PROVIDER:NAME"),
                      ("tracing:\n  parent:\n    kprobe: x:y\n" + spans, "unknown key (usdt, uprobe)"),
                      (f"tracing:\n  parent:\n    uprobe: {wl}:mark\n  spans:\n    - name: process\n",
                       "tracing.parent: needs kernel spans")):
        p = run_serve(scry, text, tmp_path, free_port(), ["/bin/true"])
        assert p.returncode == 1
        assert len(p.stderr.splitlines()) == 1 and msg in p.stderr, p.stderr
