"""tests/e2e/test_spans.py — process lifetime spans (examples/spans.yaml) sent by `scry serve`
over OTLP/HTTP and decoded by a receiver nobody here wrote: tests/node/otlp_receiver.js, on
loopback, with @opentelemetry/otlp-transformer 0.52.1's generated protobuf (installed by
scripts/deps.sh).  Exact span counts, names, parent links, one trace id, exit codes,
resource and headers from the OTEL_* variables; a collector that refuses the first requests
(retries, nothing lost) and one that is down (every span counted as dropped)."""
import json
import os
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / "tests" / "node"
SPANS = ROOT / "examples" / "spans.yaml"
STATS_RE = re.compile(r"^scry: (\d+) spans sent to (\S+), (\d+) dropped \(queue full (\d+), collector failed (\d+), "
                      r"unsent at exit (\d+)\), (\d+) retries$", re.M)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def receiver():
    if not shutil.which("node"):
        pytest.skip("node missing (Debian package nodejs; scripts/deps.sh installs it)")
    if not (NODE_DIR / "node_modules" / "@opentelemetry" / "otlp-transformer").is_dir():
        pytest.skip("tests/node/node_modules missing: run scripts/deps.sh (npm ci)")
    procs = []

    def start(fail_first=0):
        port = free_port()
        p = subprocess.Popen(["node", str(NODE_DIR / "otlp_receiver.js"), str(port), str(fail_first)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=NODE_DIR)
        line = p.stdout.readline()
        assert json.loads(line) == {"listening": port}, line + p.stderr.read()
        procs.append(p)

        def spans():
            p.terminate()
            out, _ = p.communicate(timeout=30)
            return [json.loads(l) for l in out.splitlines() if l.strip()]
        return port, spans
    yield start
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


def serve_spans(scry, port, cmd, extra_env=None, duration="2", status=0):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
           "OTEL_SERVICE_NAME": "scry-test", "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=test,team=obs",
           "OTEL_EXPORTER_OTLP_HEADERS": "x-test-auth=secret42"}
    env.update(extra_env or {})
    p = subprocess.run([scry, "serve", "--config", str(SPANS), "--listen", f"127.0.0.1:{free_port()}",
                        "--duration", duration, "--"] + cmd, capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == status, p.stderr   # the command's (serve passes it on)
    m = STATS_RE.search(p.stderr)
    assert m, p.stderr
    return dict(sent=int(m[1]), url=m[2], dropped=int(m[3]), queue_full=int(m[4]), failed=int(m[5]),
                unsent=int(m[6]), retries=int(m[7])), p.stderr


def test_process_spans_tree(scry, workload, receiver):
    port, spans = receiver()
    wl = workload("metrics_wl")
    stats, err = serve_spans(scry, port, ["sh", "-c", f"/bin/true; {wl} 10 1 1 1; exit 3"], status=3)
    got = [s for s in spans() if "spanId" in s]
    assert stats["sent"] == 3 and stats["dropped"] == 0, err
    assert stats["url"] == f"http://127.0.0.1:{port}/v1/traces"
    assert sorted(s["name"] for s in got) == ["metrics_wl", "sh", "true"], got
    by = {s["name"]: s for s in got}
    root = by["sh"]
    assert root["parentSpanId"] == ""
    assert len({s["traceId"] for s in got}) == 1 and len(root["traceId"]) == 32 and root["traceId"] != "0" * 32
    assert len({s["spanId"] for s in got}) == 3
    for child in ("true", "metrics_wl"):
        c = by[child]
        assert c["parentSpanId"] == root["spanId"]
        assert int(root["start"]) <= int(c["start"]) <= int(c["end"]) <= int(root["end"])
        assert c["attributes"]["process.parent_pid"] == root["attributes"]["process.pid"]
        assert c["attributes"]["process.exit.code"] == "0"
    assert by["true"]["attributes"]["process.executable.path"] == "/bin/true"
    assert by["metrics_wl"]["attributes"]["process.executable.path"] == wl
    assert root["attributes"]["process.exit.code"] == "3"
    assert int(by["true"]["end"]) <= int(by["metrics_wl"]["start"])    # one after the other
    now = time.time_ns()
    assert now - 120e9 < int(root["start"]) < now                      # wall time, not boot time
    for s in got:
        assert s["resource"]["service.name"] == "scry-test"
        assert s["resource"]["deployment.environment"] == "test" and s["resource"]["team"] == "obs"
        assert s["auth"] == "secret42"
        assert s["contentType"] == "application/x-protobuf"
        assert s["scope"] == "scry"


def test_collector_refusing_then_back(scry, workload, receiver):
    port, spans = receiver(fail_first=2)
    stats, err = serve_spans(scry, port, ["sh", "-c", "/bin/true; /bin/true"])
    out = spans()
    assert sum(1 for s in out if s.get("refused")) == 2
    assert sorted(s["name"] for s in out if "spanId" in s) == ["sh", "true", "true"]
    assert stats["sent"] == 3 and stats["dropped"] == 0 and stats["retries"] >= 2, err


def test_collector_down_spans_counted(scry, workload):
    port = free_port()     # nothing listens there
    t0 = time.time()
    stats, err = serve_spans(scry, port, ["sh", "-c", "/bin/true"], duration="1")
    assert stats["sent"] == 0
    assert stats["dropped"] == 2 and stats["failed"] + stats["unsent"] == 2, err
    assert stats["retries"] >= 1
    assert time.time() - t0 < 30          # the flush at exit is bounded


def test_bad_otlp_variables(scry):
    for env, msg in (({"OTEL_EXPORTER_OTLP_ENDPOINT": "ftp://x"}, "expected an http:// or https:// URL"),
                     ({"OTEL_EXPORTER_OTLP_HEADERS": "novalue"}, "OTEL_EXPORTER_OTLP_HEADERS: 'novalue' is not key=value"),
                     ({"OTEL_RESOURCE_ATTRIBUTES": "=x"}, "OTEL_RESOURCE_ATTRIBUTES: '=x' is not key=value")):
        p = subprocess.run([scry, "serve", "--config", str(SPANS), "--listen", f"127.0.0.1:{free_port()}",
                            "--", "/bin/true"], capture_output=True, text=True, timeout=60,
                           env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env})
        assert p.returncode == 1
        assert len(p.stderr.splitlines()) == 1 and msg in p.stderr, p.stderr
