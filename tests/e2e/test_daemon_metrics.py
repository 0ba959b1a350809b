"""tests/e2e/test_daemon_metrics.py — one capture, several outputs, in a daemon's session:
`scry create NAME --metrics FILE --spans FILE` records its CTF trace, writes DIR/metrics.prom
at stop and sends spans over OTLP while it runs (to where the creating command's OTEL_*
variables say, not the daemon's own environment), all from one set of BPF programs.  They
agree with the trace (read by babeltrace2's bt2): the metrics' syscall counts of the workload
are the trace's, one process span per successful execve of the trace, as long as the trace
says; the spans decoded by tests/node/otlp_receiver.js (@opentelemetry/otlp-transformer's
generated protobuf); metrics.prom passes Debian's promtool; status and the daemon's log show
what was sent and lost; save says in one line what LTTng's session XML cannot carry (the
file still valid against session.xsd, xmllint); bad configs fail create in one line, with
no session made."""
import re
import shutil
import socket
import subprocess
import urllib.error
import urllib.request

import pytest

from test_daemon import XSD, Daemon, daemon  # noqa: F401 (fixture)
from test_metrics import EXAMPLE, N_GETPPID, samples, value, wl_cmd
from test_spans import free_port, receiver  # noqa: F401 (fixture)
from test_spans_record import KSPANS, syscall_calls, trace_events

SPANS = EXAMPLE.parent / "spans.yaml"


def scrape(listen):
    """(status, text) of GET http://LISTEN/metrics."""
    try:
        with urllib.request.urlopen(f"http://{listen}/metrics", timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_daemon_session_metrics_spans_agree_with_trace(daemon, workload, receiver, tmp_path):  # noqa: F811
    port, spans = receiver()
    # the daemon is started by a command whose variables point elsewhere: the session's
    # spans must go where create's variables say
    daemon.env.update(OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{free_port()}", OTEL_SERVICE_NAME="wrong")
    daemon.run("list")
    daemon.env.update(OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{port}", OTEL_SERVICE_NAME="scry-daemon")
    out = tmp_path / "t"
    listen = f"127.0.0.1:{free_port()}"
    ks = tmp_path / "kspans.yaml"                       # process spans, and syscalls of 5 ms and more
    ks.write_text(KSPANS)
    p = daemon.run("create", "web", "-o", out, "--metrics", EXAMPLE, "--spans", ks, "--listen", listen)
    assert f"Spans of {ks} sent to http://127.0.0.1:{port}/v1/traces" in p.stdout, p.stdout
    assert scrape(listen)[0] == 503                     # listening, not started yet
    daemon.env.update(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:1", OTEL_SERVICE_NAME="wrong")
    daemon.run("enable-channel", "-k", "--subbuf-size", "1M", "--num-subbuf", "8", "c")
    daemon.run("enable-event", "-k", "-c", "c", "--syscall", "-a")
    daemon.run("enable-event", "-k", "-c", "c", "sched_process_fork,sched_process_exit")
    daemon.run("add-context", "-k", "-c", "c", "-t", "pid", "-t", "tid", "-t", "procname")
    wl = " ".join(wl_cmd(workload))
    sh = subprocess.Popen(["sh", "-c", f"read go; /bin/true; sleep 0.02; {wl}; (/bin/true; exit 0); exit 3"],
                          stdin=subprocess.PIPE, text=True)
    try:
        daemon.run("track", "-k", "--pid", sh.pid)
        daemon.run("start")
        # an event added to the started session: the spans' channel's events grow (bound again)
        daemon.run("enable-event", "-k", "-c", "c", "sched_wakeup_new")
        sh.stdin.write("go\n")
        sh.stdin.close()
        assert sh.wait(timeout=60) == 3
    finally:
        if sh.poll() is None:
            sh.kill()
    code, live = scrape(listen)                       # served while it runs
    assert code == 200
    daemon.run("stop")
    st = daemon.run("status").stdout
    assert f"Metrics served at http://{listen}/metrics (1 scrapes)" in st, st
    assert re.search(rf"Metrics: {re.escape(str(EXAMPLE))} \(\d+\), written to {re.escape(str(out))}/metrics.prom "
                     r"at stop \(written\); 0 updates lost", st), st
    m = re.search(r"Spans: \S+ to http://127.0.0.1:(\d+)/v1/traces: (\d+) process, (\d+) kernel; \d+ sent, 0 dropped "
                  r".* 0 kernel spans lost \(ring full\), 0 span marks lost", st)
    assert m and int(m[1]) == port and int(m[2]) == 4 and int(m[3]) > 0, st
    code, after = scrape(listen)                      # and once stopped: the same counts
    assert code == 200
    daemon.run("destroy")
    with pytest.raises(OSError):                      # no more after destroy
        scrape(listen)
    log = (daemon.rundir / "scryd.log").read_text()
    assert f"scryd: session web: metrics written to {out}/metrics.prom (0 updates lost" in log, log
    sent = re.search(r"scryd: session web: (\d+) spans sent to http://127.0.0.1:(\d+)/v1/traces, 0 dropped", log)
    assert sent and int(sent[2]) == port, log

    got = [s for s in spans() if "spanId" in s]
    assert int(sent[1]) == len(got), (log, got)
    kspans = [s for s in got if "scry.syscall" in s["attributes"]]
    got = [s for s in got if s not in kspans]
    assert len(got) == 4 and len(kspans) == int(m[3]), (got, kspans)
    assert all(s["resource"]["service.name"] == "scry-daemon" for s in got)
    evs = trace_events(out)
    # built from the channel's own records: no channel of their own
    assert sorted(f.name for f in (out / "kernel").glob("*_0")) == ["c_0"]
    # process spans: one per successful execve of the trace (the tracked shell's children;
    # the shell itself was exec'd before), as long as the trace says
    execs = {pid: ts for name, ts, pid, tid, f in evs if name == "syscall_exit_execve" and f["ret"] == 0}
    exits = {pid: ts for name, ts, pid, tid, f in evs if name == "sched_process_exit" and pid == tid}
    procs = {int(s["attributes"]["process.pid"]): s for s in got}
    assert sorted(procs) == sorted(execs), (procs.keys(), execs)
    woken = {f["tid"] for name, ts, pid, tid, f in evs if name == "sched_wakeup_new"}
    assert set(execs) <= woken, (woken, execs)      # the event added once started records
    assert sorted(s["name"] for s in procs.values()) == ["metrics_wl", "sleep", "true", "true"]
    offsets = set()
    for pid, s in procs.items():
        assert int(s["end"]) - int(s["start"]) == exits[pid] - execs[pid], (s, execs[pid], exits[pid])
        offsets.add(int(s["start"]) - execs[pid])
    assert len(offsets) == 1 and abs(offsets.pop()) < 1_000_000   # one clock, two conversions
    # their parent, the tracked shell, was exec'd before the start: it has no span, each is a root
    assert all(s["parentSpanId"] == "" for s in got) and len({s["traceId"] for s in got}) == 4, got

    # kernel spans: the trace's syscalls of 6 ms and more each a span with its times, a child
    # of its process's span when it has one; none the trace does not have
    calls = syscall_calls(evs)
    long_calls = [c for c in calls if c[4] - c[3] >= 6_000_000]
    assert any(c[0] in ("nanosleep", "clock_nanosleep") and c[1] in procs for c in long_calls), long_calls
    for sc, pid, tid, t0, t1 in long_calls:
        match = [s for s in kspans if int(s["attributes"]["thread.id"]) == tid and s["name"] == sc and
                 abs(int(s["start"]) - t0) < 200_000 and abs(int(s["end"]) - t1) < 200_000]
        assert len(match) == 1, (sc, pid, tid, t0, t1, kspans)
        if pid in procs and t0 >= execs[pid]:
            assert match[0]["parentSpanId"] == procs[pid]["spanId"]
    for s in kspans:
        tid = int(s["attributes"]["thread.id"])
        assert any(c[2] == tid and c[0] == s["name"] and c[4] - c[3] >= 4_000_000 for c in calls), s

    # metrics: the syscall counts of metrics_wl are the trace's
    text = (out / "metrics.prom").read_text()
    ss = samples(text)
    counts = {}
    wl_pid = next(pid for pid, s in procs.items() if s["name"] == "metrics_wl")
    for name, ts, pid, tid, f in evs:
        if name.startswith("syscall_exit_") and pid == wl_pid and ts >= execs[pid]:
            counts[name[len("syscall_exit_"):]] = counts.get(name[len("syscall_exit_"):], 0) + 1
    metric = {l["syscall"]: v for n, l, v in ss if n == "scry_syscalls_total" and l["comm"] == "metrics_wl"}
    assert metric == counts and counts["getppid"] == N_GETPPID
    for page in (live, after):                        # the endpoint's counts too
        assert {l["syscall"]: v for n, l, v in samples(page)
                if n == "scry_syscalls_total" and l["comm"] == "metrics_wl"} == counts
    assert value(ss, "scry_span_marks_lost_total") == 0
    assert value(ss, "scry_metric_overflow_total", metric="scry_syscalls_total") == 0
    if not shutil.which("promtool"):
        pytest.skip("promtool missing (Debian package prometheus; scripts/deps.sh installs it)")
    for page in (text, live):
        p = subprocess.run(["promtool", "check", "metrics"], input=page, capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr


def test_daemon_metrics_save_says_what_is_not_saved(daemon, tmp_path):  # noqa: F811
    daemon.run("create", "m", "-o", tmp_path / "t", "--metrics", EXAMPLE)
    daemon.run("enable-event", "-k", "--syscall", "getppid")
    xml = tmp_path / "m.lttng"
    p = daemon.run("save", "-o", xml, "m")
    notes = [l for l in p.stdout.splitlines() if l.startswith("Note:")]
    assert notes == [f"Note: its --metrics {EXAMPLE} is not saved (LTTng's session XML has no place for it): "
                     "give it to create again"], p.stdout
    if shutil.which("xmllint"):
        lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(xml)], capture_output=True, text=True)
        assert lint.returncode == 0, lint.stderr


def test_daemon_metrics_bad_config(daemon, tmp_path):  # noqa: F811
    bad = tmp_path / "bad.yaml"
    bad.write_text("metrics:\n  counters:\n    - name: x_total\n      bogus: 1\n")
    cases = ((["--metrics", bad], rf"^scry: {re.escape(str(bad))}:4: .*bogus"),
             (["--metrics", SPANS], r"spans.yaml: declares spans \(tracing:\): give it to --spans too"),
             (["--spans", EXAMPLE], r"metrics.yaml: declares metrics: give it to --metrics too"),
             (["--spans", tmp_path / "missing.yaml"], r"missing.yaml: No such file or directory"),
             (["--snapshot", "--metrics", EXAMPLE], r"not a snapshot session"),
             (["--spans", SPANS, "--listen", "127.0.0.1:9"], r"--listen serves the metrics of --metrics FILE"),
             (["--metrics", EXAMPLE, "--listen", "nowhere"], r"invalid --listen 'nowhere'"))
    for args, msg in cases:
        p = daemon.run("create", "bad", "-o", tmp_path / "t", *args, check=False)
        assert p.returncode == 1 and len(p.stderr.splitlines()) == 1, p.stderr
        assert re.search(msg, p.stderr), (msg, p.stderr)
        assert "bad" not in daemon.run("list").stdout          # nothing half-created
    with socket.socket() as busy:                     # a port in use: nothing made either
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        addr = f"127.0.0.1:{busy.getsockname()[1]}"
        p = daemon.run("create", "bad", "-o", tmp_path / "t", "--metrics", EXAMPLE, "--listen", addr, check=False)
        assert p.returncode == 1 and p.stderr == f"scry: cannot listen on {addr} (address in use, or not this " \
            "machine's?)\n", p.stderr
        assert "bad" not in daemon.run("list").stdout
    bad_env = dict(daemon.env, OTEL_EXPORTER_OTLP_ENDPOINT="ftp://x")
    p = subprocess.run([daemon.scry, "create", "bad", "--spans", str(SPANS)], capture_output=True, text=True,
                       env=bad_env, timeout=60)
    assert p.returncode == 1 and "OTLP endpoint 'ftp://x/v1/traces': expected an http:// or https:// URL" in p.stderr
    assert "bad" not in daemon.run("list").stdout
