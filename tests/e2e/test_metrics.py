"""tests/e2e/test_metrics.py — in-kernel metrics (docs/METRICS.md) served by `scry serve`:
exact counts of a workload of known syscalls (build/workload/metrics_wl: N getppid, M
openat of a missing path, W writes of B bytes), histogram buckets adding up to their count,
the scrape checked by Debian's `promtool check metrics`, the OpenMetrics answer scraped by
Debian's real `prometheus` server whose query API gives the same values, bounded label
cardinality with the overflow counted, and bad configs refused with one line naming the
file, line and key before anything starts."""
import json
import os
import re
import select
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "metrics.yaml"

N_GETPPID, M_OPENAT, W_WRITES, B_BYTES = 1234, 17, 9, 333


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, accept=None, timeout=10):
    req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.headers.get("Content-Type"), r.read().decode()


SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def samples(text):
    """[(name, {labels}, value)] of a text exposition."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE_RE.match(line)
        assert m, f"not a sample line: {line!r}"
        labels = dict(LABEL_RE.findall(m[2] or ""))
        out.append((m[1], labels, float(m[3])))
    return out


def value(ss, name, **labels):
    found = [v for n, l, v in ss if n == name and l == labels]
    assert len(found) <= 1, f"{name}{labels} twice"
    return found[0] if found else None


class Server:
    """`scry serve` running in the background; stopped (SIGINT) by close()."""

    def __init__(self, scry, config, *args, cmd=None, env=None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/metrics"
        argv = [scry, "serve"] + (["--config", str(config)] if config else []) + \
            ["--listen", f"127.0.0.1:{self.port}"] + list(args)
        if cmd:
            argv += ["--"] + list(cmd)
        self.proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True,
                                     env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **(env or {})})
        self.err = ""
        deadline = time.time() + 60
        while "scry: serving" not in self.err:
            assert self.proc.poll() is None, f"scry serve exited {self.proc.returncode}:\n{self.err}"
            assert time.time() < deadline, f"scry serve did not start:\n{self.err}"
            r, _, _ = select.select([self.proc.stderr], [], [], 1)
            if r:
                self.err += self.proc.stderr.readline()

    def scrape(self, accept=None):
        return get(self.url, accept)

    def wait_for(self, cond, timeout=30):
        """Scrape until cond(samples) holds; the last samples."""
        deadline = time.time() + timeout
        while True:
            _, text = self.scrape()
            ss = samples(text)
            if cond(ss):
                return ss, text
            assert time.time() < deadline, f"condition never held; last scrape:\n{text}"
            time.sleep(0.2)

    def close(self):
        if self.proc.poll() is None:
            self.proc.send_signal(2)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        rest = self.proc.stderr.read()
        self.err += rest or ""
        return self.proc.returncode


@pytest.fixture
def serve(scry):
    servers = []

    def start(config, *args, cmd=None, env=None):
        s = Server(scry, config, *args, cmd=cmd, env=env)
        servers.append(s)
        return s
    yield start
    for s in servers:
        s.close()


def wl_done(ss):
    """The workload's last calls (its writes) are all counted: everything before them too."""
    return value(ss, "scry_syscalls_total", syscall="write", comm="metrics_wl") == W_WRITES


def wl_cmd(workload):
    return [workload("metrics_wl"), str(N_GETPPID), str(M_OPENAT), str(W_WRITES), str(B_BYTES)]


def test_exact_counts_errors_bytes_and_histogram(serve, workload, tmp_path):
    s = serve(EXAMPLE, cmd=wl_cmd(workload))
    ss, text = s.wait_for(wl_done)
    assert value(ss, "scry_syscalls_total", syscall="getppid", comm="metrics_wl") == N_GETPPID
    assert value(ss, "scry_syscall_errors_total", syscall="openat", comm="metrics_wl", errno="ENOENT") == M_OPENAT
    # the workload's own openat calls: M failing + /dev/null, beside the loader's successful ones
    assert value(ss, "scry_syscalls_total", syscall="openat", comm="metrics_wl") >= M_OPENAT + 1
    assert value(ss, "scry_syscall_bytes_total", syscall="write", comm="metrics_wl") == W_WRITES * B_BYTES
    assert value(ss, "scry_syscall_errors_total", syscall="getppid", comm="metrics_wl", errno="ENOENT") is None
    # the latency histogram: every getppid measured (the command starts after attach)
    assert value(ss, "scry_syscall_latency_seconds_count", syscall="getppid") >= N_GETPPID
    series = {}
    for n, l, v in ss:
        if n == "scry_syscall_latency_seconds_bucket":
            key = l["syscall"]
            series.setdefault(key, []).append((float(l["le"]), v))
    assert series, text
    for sc, buckets in series.items():
        buckets.sort()
        assert buckets[-1][0] == float("inf")
        counts = [v for _, v in buckets]
        assert counts == sorted(counts), f"{sc}: buckets not cumulative: {buckets}"
        assert buckets[-1][1] == value(ss, "scry_syscall_latency_seconds_count", syscall=sc)
        les = [le for le, _ in buckets[:-1]]
        assert les == [2.0 ** k * 1e-9 for k in range(10, 35)]
        assert value(ss, "scry_syscall_latency_seconds_sum", syscall=sc) >= 0
    assert value(ss, "scry_events_total") >= N_GETPPID + M_OPENAT + W_WRITES
    assert value(ss, "scry_span_marks_lost_total") == 0      # no tracing: parent: here, none lost
    for m in ("scry_syscalls_total", "scry_syscall_errors_total", "scry_syscall_bytes_total",
              "scry_syscall_latency_seconds"):
        assert value(ss, "scry_metric_overflow_total", metric=m) == 0
        assert value(ss, "scry_decoder_errors_total", metric=m) == 0
    # promtool (Debian's prometheus) checks the exposition and its lint rules
    if not shutil.which("promtool"):
        pytest.skip("promtool missing (Debian package prometheus; scripts/deps.sh installs it)")
    ctype, text = s.scrape()
    assert ctype.startswith("text/plain; version=0.0.4")
    p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    assert p.returncode == 0, f"promtool check metrics failed:\n{p.stdout}{p.stderr}"
    assert s.close() == 0, s.err


def test_openmetrics_when_asked(serve, workload):
    s = serve(EXAMPLE, cmd=wl_cmd(workload))
    s.wait_for(wl_done)
    ctype, text = s.scrape("application/openmetrics-text; version=1.0.0")
    assert ctype.startswith("application/openmetrics-text; version=1.0.0")
    assert text.endswith("# EOF\n")
    assert "# TYPE scry_syscalls counter\n" in text
    assert f'scry_syscalls_total{{syscall="getppid",comm="metrics_wl"}} {N_GETPPID}\n' in text


def test_prometheus_server_scrapes_and_queries(serve, workload, tmp_path):
    if not shutil.which("prometheus"):
        pytest.skip("prometheus missing (Debian package prometheus; scripts/deps.sh installs it)")
    s = serve(EXAMPLE, cmd=wl_cmd(workload))
    s.wait_for(wl_done)
    pport = free_port()
    cfg = tmp_path / "prometheus.yml"
    cfg.write_text(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        "scrape_configs:\n  - job_name: scry\n    static_configs:\n"
        f"      - targets: ['127.0.0.1:{s.port}']\n")
    prom = subprocess.Popen(
        ["prometheus", f"--config.file={cfg}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
         f"--web.listen-address=127.0.0.1:{pport}", "--log.level=warn"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        def query(q):
            url = f"http://127.0.0.1:{pport}/api/v1/query?" + urllib.parse.urlencode({"query": q})
            try:
                _, body = get(url)
            except OSError:
                return None
            r = json.loads(body)
            assert r["status"] == "success", r
            res = r["data"]["result"]
            return float(res[0]["value"][1]) if res else None

        deadline = time.time() + 60
        while query('scry_syscalls_total{syscall="getppid",comm="metrics_wl"}') is None:
            assert prom.poll() is None, f"prometheus exited:\n{prom.stderr.read()}"
            assert time.time() < deadline, "prometheus never got the metrics"
            time.sleep(0.5)
        assert query('up{job="scry"}') == 1
        assert query('scry_syscalls_total{syscall="getppid",comm="metrics_wl"}') == N_GETPPID
        assert query('scry_syscall_errors_total{syscall="openat",comm="metrics_wl",errno="ENOENT"}') == M_OPENAT
        assert query('scry_syscall_bytes_total{syscall="write",comm="metrics_wl"}') == W_WRITES * B_BYTES
        count = query('scry_syscall_latency_seconds_count{syscall="getppid"}')
        assert count >= N_GETPPID
        assert query('scry_syscall_latency_seconds_bucket{syscall="getppid",le="+Inf"}') == count
        # the buckets below +Inf hold every call but those beyond 2^34 ns
        assert query('max(scry_syscall_latency_seconds_bucket{syscall="getppid"})') == count
    finally:
        prom.terminate()
        prom.wait(timeout=30)


def test_overflow_counted(serve, workload, tmp_path):
    cfg = tmp_path / "small.yaml"
    cfg.write_text("metrics:\n  counters:\n    - name: small_syscalls_total\n      max_entries: 2\n"
                   "      labels:\n        - name: syscall\n          source: syscall\n")
    s = serve(cfg, cmd=wl_cmd(workload))

    def counted(ss):
        return sum(v for n, _, v in ss if n == "small_syscalls_total") + \
            (value(ss, "scry_metric_overflow_total", metric="small_syscalls_total") or 0)

    # a scrape reads the series, the overflow and the events one after the other: while the
    # workload runs they may be of different instants; once it is done they agree
    ss, text = s.wait_for(lambda ss: (value(ss, "scry_metric_overflow_total", metric="small_syscalls_total") or 0) > 0
                          and counted(ss) == value(ss, "scry_events_total"))
    assert len([1 for n, _, _ in ss if n == "small_syscalls_total"]) == 2, text


BURST = """import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(%d):
    s.sendto(b'x', ('127.%%d.%%d.%%d' %% (1 + i // 65024, i // 254 %% 256, i %% 254 + 1), 9))
"""


def test_insert_failures_not_overflow(serve, tmp_path):
    """A burst of new series (one sendto to each of 10,000 addresses, ~0.1 s) in a map far
    from full: the kernel's BPF allocator may run out of memory at hand for some (ENOMEM,
    seen under load), which is counted as such, not as an overflow; every call is either in its series or counted
    lost by its reason."""
    n = 10000
    cfg = tmp_path / "burst.yaml"
    cfg.write_text("metrics:\n  histograms:\n    - name: t_addr_seconds\n      max_entries: 100000\n"
                   "      syscalls: [sendto]\n      bucket_min: 40\n      bucket_max: 40\n"
                   "      labels:\n        - name: addr\n          source: addr\n")
    script = tmp_path / "burst.py"
    script.write_text(BURST % n)
    s = serve(cfg, cmd=["/usr/bin/python3", str(script)])

    def fam(ss, name, **want):
        return [(l, v) for nm, l, v in ss if nm == name and all(l.get(k) == x for k, x in want.items())]

    def done(ss):
        kept = sum(v for _, v in fam(ss, "t_addr_seconds_count"))
        lost = sum(v for _, v in fam(ss, "scry_metric_insert_failures_total", metric="t_addr_seconds"))
        return kept + lost + (value(ss, "scry_metric_overflow_total", metric="t_addr_seconds") or 0) == n
    ss, text = s.wait_for(done, timeout=60)
    series = fam(ss, "t_addr_seconds_count")
    assert all(v == 1 and l["addr"].startswith("127.") for l, v in series), series[:3]
    assert value(ss, "scry_metric_overflow_total", metric="t_addr_seconds") == 0
    nomem = value(ss, "scry_metric_insert_failures_total", metric="t_addr_seconds", reason="no_memory")
    # whether the allocator runs dry depends on the machine's load (0 on an idle one): what
    # must hold is that none of it is an overflow and every call is accounted for
    assert len(series) + nomem + \
        value(ss, "scry_metric_insert_failures_total", metric="t_addr_seconds", reason="busy") + \
        value(ss, "scry_metric_insert_failures_total", metric="t_addr_seconds", reason="other") == n
    assert len(series) < 100000
    print(f"{len(series)} series kept, {nomem:.0f} lost to ENOMEM, overflow 0")


DENSE_CONFIG = """
metrics:
  counters:
    - name: scry_syscalls_total
      labels: [{name: syscall, source: syscall}, {name: comm, source: comm}]
    - name: t_dense_by_syscall_total
      labels: [{name: syscall, source: syscall}]
    - name: t_dense_getppid_total
      syscalls: [getppid]
  histograms:
    - name: t_dense_latency_seconds
      bucket_min: 0
      bucket_max: 40
      bucket_multiplier: 0.000000001
      labels: [{name: syscall, source: syscall}]
    - name: t_dense_getppid_seconds
      bucket_min: 0
      bucket_max: 40
      bucket_multiplier: 0.000000001
      syscalls: [getppid]
"""


def test_pid_tracker(serve, workload, tmp_path):
    """-p: the followed process and its children only; the same workload run beside it,
    not followed, is not counted.  Counters and histograms keyed by the syscall alone (or
    nothing) are dense (parts of the kernel's per-CPU tables, after a keyed metric): exact
    too."""
    n2 = 777
    config = tmp_path / "dense.yaml"
    config.write_text(DENSE_CONFIG)
    follow = subprocess.Popen(["sh", "-c", "read x; exec \"$@\"", "sh"] + wl_cmd(workload),
                              stdin=subprocess.PIPE, text=True)
    try:
        s = serve(config, "-p", str(follow.pid))
        subprocess.run([workload("metrics_wl"), str(n2), "0", "0", "0"], check=True)
        follow.stdin.write("go\n")
        follow.stdin.close()
        assert follow.wait(timeout=60) == 0
        ss, text = s.wait_for(wl_done)
        assert value(ss, "scry_syscalls_total", syscall="getppid", comm="metrics_wl") == N_GETPPID
        assert {l["comm"] for n, l, _ in ss if n == "scry_syscalls_total"} <= {"sh", "metrics_wl"}, text
        assert value(ss, "t_dense_by_syscall_total", syscall="getppid") == N_GETPPID, text
        assert value(ss, "t_dense_by_syscall_total", syscall="write") == W_WRITES, text
        assert value(ss, "t_dense_getppid_total") == N_GETPPID, text
        # dense histograms (the first and second of their table): every getppid measured
        assert value(ss, "t_dense_latency_seconds_count", syscall="getppid") == N_GETPPID, text
        assert value(ss, "t_dense_latency_seconds_bucket", syscall="getppid", le="+Inf") == N_GETPPID, text
        assert value(ss, "t_dense_getppid_seconds_count") == N_GETPPID, text
        assert value(ss, "t_dense_getppid_seconds_bucket", le="+Inf") == N_GETPPID, text
        # the dense counter's series are the keyed one's, summed over comm
        by_sc = {}
        for n, l, v in ss:
            if n == "scry_syscalls_total":
                by_sc[l["syscall"]] = by_sc.get(l["syscall"], 0) + v
        assert {l["syscall"]: v for n, l, v in ss if n == "t_dense_by_syscall_total"} == by_sc, text
    finally:
        if follow.poll() is None:
            follow.kill()
            follow.wait()


def test_decoders_static_map_regexp_fold(serve, workload, tmp_path):
    """A static_map renames, several syscalls folding into one series (summed); a regexp
    keeps only the series it matches (sh's are left out: skipped, not errors)."""
    cfg = tmp_path / "fold.yaml"
    cfg.write_text("""metrics:
  counters:
    - name: wl_calls_total
      syscalls: [getppid, openat, write]
      labels:
        - name: kind
          source: syscall
          decoders:
            - name: syscall
            - name: static_map
              static_map: {getppid: cheap, openat: files, write: files}
        - name: comm
          source: comm
          decoders:
            - name: string
            - name: regexp
              regexps: ["^metrics_wl$"]
""")
    cmd = ["sh", "-c", "echo hi > /dev/null; \"$@\"; echo done > /dev/null", "sh"] + wl_cmd(workload)
    s = serve(cfg, cmd=cmd)
    ss, text = s.wait_for(lambda ss: (value(ss, "wl_calls_total", kind="cheap", comm="metrics_wl") or 0) == N_GETPPID
                          and (value(ss, "wl_calls_total", kind="files", comm="metrics_wl") or 0)
                          >= M_OPENAT + 1 + W_WRITES)
    assert {(l["kind"], l["comm"]) for n, l, _ in ss if n == "wl_calls_total"} == \
        {("cheap", "metrics_wl"), ("files", "metrics_wl")}, text
    assert value(ss, "scry_decoder_errors_total", metric="wl_calls_total") == 0


BAD = [
    ("metrics:\n  counters:\n    - name: a_total\n      labels:\n        - name: x\n          source: bogus\n",
     r"^scry serve: {f}:6: metrics\.counters\[0\]\.labels\[0\]\.source: unknown source 'bogus'"),
    ("metrics:\n  counters:\n    - name: a_total\n      colour: red\n",
     r"^scry serve: {f}:4: metrics\.counters\[0\]\.colour: unknown key"),
    ("metrics:\n  histograms:\n    - name: h_seconds\n      bucket_min: 5\n",
     r"^scry serve: {f}:3: metrics\.histograms\[0\]: histogram 'h_seconds' needs bucket_min and bucket_max"),
    ("metrics:\n  counters:\n    - name: c_total\n      syscalls: [getppid, nosuch]\n",
     r"^scry serve: {f}:4: metrics\.counters\[0\]\.syscalls: unknown syscall 'nosuch'"),
    ("metrics:\n  counters:\n    - name: 1bad\n",
     r"^scry serve: {f}:3: metrics\.counters\[0\]\.name: '1bad' is not a metric name"),
    ("metrics: [\n", r"^scry serve: {f}:2: "),
]


@pytest.mark.parametrize("text,pattern", BAD)
def test_bad_config_one_line_nothing_starts(scry, tmp_path, text, pattern):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(text)
    port = free_port()
    p = subprocess.run([scry, "serve", "--config", str(cfg), "--listen", f"127.0.0.1:{port}"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert re.match(pattern.format(f=re.escape(str(cfg))), lines[0]), lines[0]
    # nothing listens
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0


def test_fixed_and_linear_buckets(serve, workload, tmp_path):
    """Bytes of the workload's writes (W of B bytes) in fixed buckets and linear buckets:
    every write in the bucket whose bound is the first >= B."""
    cfg = tmp_path / "buckets.yaml"
    cfg.write_text(f"""metrics:
  histograms:
    - name: wl_write_bytes_fixed
      value: ret
      when: success
      syscalls: [write]
      bucket_type: fixed
      bucket_keys: [100, {B_BYTES}, 1000]
      labels: [{{name: comm, source: comm}}]
    - name: wl_write_bytes_linear
      value: ret
      when: success
      syscalls: [write]
      bucket_type: linear
      bucket_min: 1
      bucket_max: 8
      bucket_width: 100
      labels: [{{name: comm, source: comm}}]
""")
    s = serve(cfg, cmd=wl_cmd(workload))
    ss, text = s.wait_for(lambda ss: value(ss, "wl_write_bytes_fixed_count", comm="metrics_wl") == W_WRITES)
    b = lambda name, le: value(ss, name + "_bucket", comm="metrics_wl", le=le)
    assert b("wl_write_bytes_fixed", "100") == 0
    assert b("wl_write_bytes_fixed", str(B_BYTES)) == W_WRITES
    assert b("wl_write_bytes_fixed", "1000") == W_WRITES
    assert b("wl_write_bytes_fixed", "+Inf") == W_WRITES
    assert value(ss, "wl_write_bytes_fixed_sum", comm="metrics_wl") == W_WRITES * B_BYTES
    # linear: bucket k holds values <= 100k: 333 is in le=400, not in le=300
    assert b("wl_write_bytes_linear", "300") == 0
    assert b("wl_write_bytes_linear", "400") == W_WRITES
    assert b("wl_write_bytes_linear", "800") == W_WRITES
    assert value(ss, "wl_write_bytes_linear_count", comm="metrics_wl") == W_WRITES


def test_record_metrics_agree_with_trace(scry, workload, tmp_path, bt2_read):
    """scry record --metrics: one capture, a CTF trace and DIR/metrics.prom, which agree:
    every syscall's count, errors by errno and write bytes of the workload in the metrics
    are what its events in the trace (read by babeltrace2's bt2) say."""
    out = tmp_path / "t"
    p = subprocess.run([scry, "record", "-q", "-o", str(out), "--metrics", str(EXAMPLE), "--"] + wl_cmd(workload),
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    assert f"scry: metrics written to {out}/metrics.prom" in p.stderr
    text = (out / "metrics.prom").read_text()
    if shutil.which("promtool"):
        pc = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
        assert pc.returncode == 0, pc.stdout + pc.stderr
    ss = samples(text)
    tr = bt2_read(out)
    assert tr.discarded == 0
    calls, errors, wbytes = {}, {}, 0
    import errno as errno_mod
    for e in tr.events:
        if e["procname"] != "metrics_wl" or not e["name"].startswith("syscall_exit_"):
            continue
        sc = e["name"][len("syscall_exit_"):]
        ret = e["fields"]["ret"]
        calls[sc] = calls.get(sc, 0) + 1
        if -4095 <= ret < 0:
            key = (sc, errno_mod.errorcode[-ret])
            errors[key] = errors.get(key, 0) + 1
        if sc == "write" and ret > 0:
            wbytes += ret
    assert calls["getppid"] == N_GETPPID and errors[("openat", "ENOENT")] == M_OPENAT
    metric_calls = {l["syscall"]: v for n, l, v in ss if n == "scry_syscalls_total" and l["comm"] == "metrics_wl"}
    # execve's exit is the new program's (comm metrics_wl in both); newfstatat is LTTng's name too
    assert metric_calls == calls
    metric_errors = {(l["syscall"], l["errno"]): v for n, l, v in ss
                     if n == "scry_syscall_errors_total" and l["comm"] == "metrics_wl"}
    assert metric_errors == errors
    assert value(ss, "scry_syscall_bytes_total", syscall="write", comm="metrics_wl") == wbytes == W_WRITES * B_BYTES


def test_record_metrics_bad(scry, tmp_path):
    spans = ROOT / "examples" / "spans.yaml"
    for cfg, msg in ((spans, "declares spans (tracing:): give it to --spans too, or leave them out"),
                     (tmp_path / "missing.yaml", "missing.yaml: No such file or directory")):
        out = tmp_path / "t"
        p = subprocess.run([scry, "record", "-q", "-o", str(out), "--metrics", str(cfg), "--", "/bin/true"],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 1
        assert len(p.stderr.splitlines()) == 1 and msg in p.stderr, p.stderr
        assert not out.exists()


def test_quick_metrics_from_the_command_line(serve, workload):
    """--counter/--histogram NAME:SOURCE,...: the same metrics as a config's, exact counts,
    the histogram's buckets ending in its count; promtool accepts the page."""
    s = serve(None, "--counter", "q_calls_total:syscall,comm", "--counter", "q_errors_total:errno",
              "--histogram", "q_latency_seconds:syscall", cmd=wl_cmd(workload))
    assert "serving 3 metrics of the command line" in s.err
    ss, text = s.wait_for(lambda ss: value(ss, "q_calls_total", syscall="write", comm="metrics_wl") == W_WRITES)
    assert value(ss, "q_calls_total", syscall="getppid", comm="metrics_wl") == N_GETPPID
    assert value(ss, "q_errors_total", errno="ENOENT") >= M_OPENAT
    count = value(ss, "q_latency_seconds_count", syscall="getppid")
    assert count == N_GETPPID      # the command alone: its getppid calls
    assert value(ss, "q_latency_seconds_bucket", syscall="getppid", le="+Inf") == count
    if shutil.which("promtool"):
        pc = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
        assert pc.returncode == 0, pc.stdout + pc.stderr


@pytest.mark.parametrize("args, msg", [
    (["--counter", "c_total:syscall,bogus"],
     r"^scry serve: command line:1: metrics\.counters\[0\]\.labels\[1\]\.source: unknown source 'bogus'"),
    (["--counter", 'c_total:syscall"'], r"^scry serve: invalid --counter 'c_total:syscall\"'"),
    (["--histogram", "h:comm,comm"], r"^scry serve: command line:1: metrics\.histograms\[0\]\.labels\[1\]: "
                                     r"label 'comm' given twice"),
    (["--counter", "c_total", "--config", str(EXAMPLE)], r"^scry serve: --config and --counter/--histogram exclude"),
])
def test_quick_metrics_errors(scry, args, msg):
    p = subprocess.run([scry, "serve", "--listen", "127.0.0.1:1"] + args, capture_output=True, text=True, timeout=60)
    assert p.returncode == 1
    assert len(p.stderr.splitlines()) == 1 and re.match(msg, p.stderr), p.stderr


@pytest.mark.parametrize("cmd,status", [("exit 3", 3), ("kill -TERM $$", 128 + 15)])
def test_serve_passes_the_status_on(scry, cmd, status):
    """serve -- CMD exits with CMD's status, as strace and perf trace do (128 + N: killed by
    signal N), once it stops (here --duration: it serves after the command ended)."""
    r = subprocess.run([scry, "serve", "--counter", "t_total:syscall", "--listen", f"127.0.0.1:{free_port()}",
                        "--duration", "1", "--", "sh", "-c", cmd], capture_output=True, text=True, timeout=60)
    assert r.returncode == status, r.stderr


def test_serve_stopped_before_the_command(scry):
    """Stopped (SIGINT) while the command still runs: 128 + SIGINT, the command left running."""
    port = free_port()
    p = subprocess.Popen([scry, "serve", "--counter", "t_total:syscall", "--listen", f"127.0.0.1:{port}", "--",
                          "sleep", "30"], stderr=subprocess.PIPE, text=True)
    err = ""
    while "scry: serving" not in err:
        line = p.stderr.readline()
        assert line, err
        err += line
    child = int(Path(f"/proc/{p.pid}/task/{p.pid}/children").read_text().split()[0])
    try:
        p.send_signal(2)
        assert p.wait(timeout=30) == 128 + 2
        os.kill(child, 0)   # still running
    finally:
        os.kill(child, 9)
