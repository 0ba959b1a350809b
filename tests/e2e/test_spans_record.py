"""tests/e2e/test_spans_record.py — one capture, several outputs: `scry record -o DIR
--metrics FILE --spans FILE -- CMD` writes the CTF trace, DIR/metrics.prom and sends spans
over OTLP (decoded by tests/node/otlp_receiver.js, @opentelemetry/otlp-transformer's
generated protobuf), all three from one session.  They agree: as many process spans as
successful execve in the trace (read by babeltrace2's bt2), each from its execve's exit to
its process's sched_process_exit (the durations equal to the ns, the starts one constant
apart: the trace clock's offset to wall time), parents as the trace's forks say; every
syscall of the trace longer than the threshold is a kernel span, and the metrics' syscall
counts are the trace's."""
import os
import subprocess

import bt2

from test_metrics import EXAMPLE, N_GETPPID, samples, wl_cmd
from test_spans import STATS_RE, free_port, receiver  # noqa: F401 (fixture)

KSPANS = """\
tracing:
  spans:
    - name: process
    - name: syscall
      min_duration_us: 5000
"""
SLEEP_MS = 20


def env_for(port):
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
            "OTEL_SERVICE_NAME": "scry-record"}


def trace_events(path):
    """The trace's events: (name, ns from origin (wall), pid, tid, fields), bt2."""
    out = []
    for msg in bt2.TraceCollectionMessageIterator(str(path)):
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            ctx = ev.common_context_field
            f = ev.payload_field
            out.append((ev.name, msg.default_clock_snapshot.ns_from_origin, int(ctx["pid"]), int(ctx["tid"]),
                        {k: (int(v) if isinstance(v, bt2._IntegerFieldConst) else str(v)) for k, v in f.items()}
                        if f is not None else {}))
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            raise AssertionError(f"{msg.count} events discarded")
    return out


def syscall_calls(evs):
    """The trace's syscalls (of trace_events): (name, pid, tid, entry ns, exit ns)."""
    entries, calls = {}, []
    for name, ts, pid, tid, f in evs:
        if name.startswith("syscall_entry_"):
            entries[tid] = (name[len("syscall_entry_"):], ts)
        elif name.startswith("syscall_exit_") and tid in entries:
            sc, t0 = entries.pop(tid)
            calls.append((sc, pid, tid, t0, ts))
    return calls


def test_record_spans_metrics_agree_with_trace(scry, workload, receiver, tmp_path):  # noqa: F811
    port, spans = receiver()
    ks = tmp_path / "kspans.yaml"
    ks.write_text(KSPANS)
    out = tmp_path / "t"
    wl = " ".join(wl_cmd(workload))
    cmd = ["sh", "-c", f"/bin/true; sleep 0.{SLEEP_MS:03d}; {wl}; (/bin/true; exit 0); exit 3"]
    p = subprocess.run([scry, "record", "-q", "-o", str(out), "--metrics", str(EXAMPLE), "--spans", str(ks), "--"]
                       + cmd, capture_output=True, text=True, timeout=180, env=env_for(port))
    assert p.returncode == 3, p.stderr
    m = STATS_RE.search(p.stderr)
    assert m and int(m[3]) == 0, p.stderr
    assert " 0 kernel spans lost" in p.stderr, p.stderr
    got = [s for s in spans() if "spanId" in s]
    assert int(m[1]) == len(got) > 0, p.stderr
    assert all(s["resource"]["service.name"] == "scry-record" for s in got)
    evs = trace_events(out)
    assert sorted(f.name for f in (out / "kernel").glob("*_0")) == ["channel0_0"]   # no channel of their own

    # process spans: one per successful execve of the trace, as long as the trace says
    execs = {pid: ts for name, ts, pid, tid, f in evs if name == "syscall_exit_execve" and f["ret"] == 0}
    exits = {pid: ts for name, ts, pid, tid, f in evs if name == "sched_process_exit" and pid == tid}
    forks = {f["child_pid"]: f["parent_pid"] for name, ts, pid, tid, f in evs if name == "sched_process_fork"}
    procs = {int(s["attributes"]["process.pid"]): s for s in got if "process.executable.path" in s["attributes"]}
    assert sorted(procs) == sorted(execs), (procs.keys(), execs)
    assert sorted(s["name"] for s in procs.values()) == ["metrics_wl", "sh", "sleep", "true", "true"]
    offsets = set()
    for pid, s in procs.items():
        assert int(s["end"]) - int(s["start"]) == exits[pid] - execs[pid], (s, execs[pid], exits[pid])
        offsets.add(int(s["start"]) - execs[pid])
    assert len(offsets) == 1 and abs(offsets.pop()) < 1_000_000, offsets   # one clock, two conversions
    root = procs[min(execs, key=lambda p: execs[p])]
    assert root["name"] == "sh" and root["parentSpanId"] == "" and root["attributes"]["process.exit.code"] == "3"
    for pid, s in procs.items():
        if s is root:
            continue
        assert s["traceId"] == root["traceId"]
        parent = forks[pid]
        while parent not in procs:          # the subshell forked without exec: its parent's span
            parent = forks[parent]
        assert s["parentSpanId"] == procs[parent]["spanId"], (s, parent)

    # kernel spans: the trace's syscalls longer than the threshold (5 ms), each a child of
    # its process's span; the short ones (the bulk) are not spans
    calls = syscall_calls(evs)
    kspans = [s for s in got if "scry.syscall" in s["attributes"]]
    long_calls = [c for c in calls if c[4] - c[3] >= 6_000_000]
    assert any(c[0] in ("nanosleep", "clock_nanosleep") for c in long_calls), long_calls
    for sc, pid, tid, t0, t1 in long_calls:      # each a span, its times those of the trace's call
        match = [s for s in kspans if int(s["attributes"]["thread.id"]) == tid and s["name"] == sc and
                 abs(int(s["start"]) - t0) < 200_000 and abs(int(s["end"]) - t1) < 200_000]
        assert len(match) == 1, (sc, pid, tid, t0, t1, kspans)
        assert match[0]["parentSpanId"] == procs[pid]["spanId"] if pid in procs else True
    for s in kspans:                             # and no span the trace does not have
        tid = int(s["attributes"]["thread.id"])
        assert any(c[2] == tid and c[0] == s["name"] and c[4] - c[3] >= 4_000_000 for c in calls), s
        assert int(s["end"]) - int(s["start"]) >= 5_000_000

    # metrics: the syscall counts of metrics_wl are the trace's
    ss = samples((out / "metrics.prom").read_text())
    counts = {}
    for name, ts, pid, tid, f in evs:
        if name.startswith("syscall_exit_") and pid in procs and procs[pid]["name"] == "metrics_wl" and \
                ts >= execs[pid]:      # its program's calls (comm metrics_wl), its execve's exit the first
            counts[name[len("syscall_exit_"):]] = counts.get(name[len("syscall_exit_"):], 0) + 1
    metric = {l["syscall"]: v for n, l, v in ss if n == "scry_syscalls_total" and l["comm"] == "metrics_wl"}
    assert metric == counts and counts["getppid"] == N_GETPPID


def test_record_spans_channel_of_its_own(scry, receiver, tmp_path):  # noqa: F811
    """-e without the process spans' events: a channel "spans" of them is added to the trace,
    and the spans agree with it."""
    port, spans = receiver()
    out = tmp_path / "t"
    p = subprocess.run([scry, "record", "-q", "-o", str(out), "-e", "syscall:getppid", "--spans",
                        str(EXAMPLE.parent / "spans.yaml"), "--", "sh", "-c", "/bin/true; /bin/true"],
                       capture_output=True, text=True, timeout=180, env=env_for(port))
    assert p.returncode == 0, p.stderr
    got = [s for s in spans() if "spanId" in s]
    assert sorted(s["name"] for s in got) == ["sh", "true", "true"], got
    evs = trace_events(out)
    execs = sorted(pid for name, ts, pid, tid, f in evs if name == "syscall_exit_execve" and f["ret"] == 0)
    assert execs == sorted(int(s["attributes"]["process.pid"]) for s in got)
    assert (out / "kernel" / "spans_0").exists()


def test_record_spans_bad(scry, tmp_path):
    spans = EXAMPLE.parent / "spans.yaml"
    for args, msg in ((["--metrics", str(spans)], "spans.yaml: declares spans (tracing:): give it to --spans too"),
                      (["--spans", str(EXAMPLE)], "metrics.yaml: declares metrics: give it to --metrics too"),
                      (["--metrics", str(EXAMPLE), "--spans", str(EXAMPLE)], "metrics.yaml: no spans"),
                      (["--spans", str(tmp_path / "missing.yaml")], "missing.yaml: No such file or directory")):
        out = tmp_path / "t"
        p = subprocess.run([scry, "record", "-q", "-o", str(out)] + args + ["--", "/bin/true"],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 1
        assert len(p.stderr.splitlines()) == 1 and msg in p.stderr, p.stderr
        assert not out.exists()
