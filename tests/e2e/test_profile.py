"""scry profile: sampled stacks of tests/workload/hotspots.c, whose main calls burn_a and
burn_b in turn, burn_a running three times as long (75% / 25% of its CPU time), built -O2
with frame pointers (hotspots) and without (hotspots-nofp).  Checked: the shares against
that truth, the folded stacks (main -> burn_a), the SVG parsed as XML with each frame's
width proportional to its count, the pprof file decoded by protobuf's own Python decoder
over profile.proto compiled by protoc (Debian's protobuf-compiler, python3-protobuf), a
short-lived child's frames named, -p, losses counted and shown, the PMU-less refusal.
--call-graph dwarf: complete stacks (to _start, or clone3 for a thread) of hotspots-nofp and
of Debian's python3 and bash (stripped, no frame pointers) busy loops, the shares kept, and
the samples whose stack copy found the ring full counted and shown."""
import gzip
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from conftest import ROOT

FREQ = "499"
SUMMARY = re.compile(
    r"^scry: profile: (\d+) samples \((\S+), (\d+) Hz, (\d+) CPUs, ([0-9.]+) s\), (\d+) lost "
    r"\((\d+) kernel stacks, (\d+) user stacks, (\d+) samples: counts map full\)(.*)$", re.M)


def profile(scry, *args, cmd=None, timeout=60):
    argv = [scry, "profile"] + [str(a) for a in args]
    if cmd:
        argv += ["--"] + [str(c) for c in cmd]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return p


def summary(p):
    ms = SUMMARY.findall(p.stderr)
    assert len(ms) == 1, f"expected one summary line:\n{p.stderr}"
    m = ms[0]
    return dict(samples=int(m[0]), event=m[1], hz=int(m[2]), cpus=int(m[3]), seconds=float(m[4]),
                lost=int(m[5]), klost=int(m[6]), ulost=int(m[7]), full=int(m[8]))


def dwarf_summary(p):
    """the summary's dwarf part: (stacks, bytes asked, bytes read on average, unwound to the end)"""
    m = re.search(r"; dwarf: (\d+) user stacks of (\d+) bytes \((\d+) read on average\), (\d+) unwound to their "
                  r"outermost frame \([0-9.]+ us each\)", p.stderr)
    assert m, p.stderr
    return tuple(int(x) for x in m.groups())


def folded(path):
    """{stack: count}, stack a tuple of frames, root (the command) first"""
    out = Counter()
    for line in open(path):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        out[tuple(stack.split(";"))] += int(n)
    return out


def read_pprof(path, tmp_path):
    """a gzipped pprof file decoded by protobuf's Python decoder over profile.proto compiled
    by protoc (nothing of scry's)"""
    subprocess.run(["protoc", f"--python_out={tmp_path}", f"-I{ROOT / 'proto'}",
                    "perftools/profiles/profile.proto"], check=True)
    sys.path.insert(0, str(tmp_path))
    try:
        from perftools.profiles import profile_pb2
    finally:
        sys.path.pop(0)
    pr = profile_pb2.Profile()
    pr.ParseFromString(gzip.open(path).read())
    return pr


def shares(stacks):
    """burn_a's and burn_b's shares of the samples whose leaf user frame is one of them"""
    leaf = Counter()
    for st, n in stacks.items():
        user = [f for f in st[1:] if not f.endswith("_[k]")]
        if user and user[-1] in ("burn_a", "burn_b"):
            leaf[user[-1]] += n
    tot = leaf["burn_a"] + leaf["burn_b"]
    assert tot > 0, stacks
    return leaf["burn_a"] / tot, leaf["burn_b"] / tot, tot


@pytest.fixture(scope="module")
def fp_run(scry, workload, tmp_path_factory):
    """one profile of the frame-pointer build, in every output"""
    d = tmp_path_factory.mktemp("prof")
    p = profile(scry, "-F", FREQ, "-o", d / "fp", "-o", d / "fp.pb.gz", "--report",
                cmd=[workload("hotspots"), "1500"])
    assert p.returncode == 0, p.stderr
    return d, p


def test_shares_and_folded(fp_run):
    d, p = fp_run
    s = summary(p)
    assert s["event"] == "cpu-clock" and s["hz"] == int(FREQ) and s["lost"] == 0, s
    st = folded(d / "fp.folded")
    assert sum(st.values()) == s["samples"] - s["full"]
    a, b, tot = shares(st)
    assert tot >= 0.9 * sum(st.values())          # the loops are where the time goes
    assert abs(a - 0.75) <= 0.08 and abs(b - 0.25) <= 0.08, (a, b, tot)
    # frame pointers: every sample of the loops reaches main, below which is libc's caller
    reach = sum(n for stk, n in st.items() if "main" in stk and stk[-1] in ("burn_a", "burn_b"))
    assert reach / tot >= 0.95, st
    assert any(stk[0] == "hotspots" and stk[-2:] == ("main", "burn_a") for stk in st), st


def test_report(fp_run):
    d, p = fp_run
    rows = {}
    for line in p.stdout.splitlines():
        m = re.match(r"^\s+([0-9.]+)%\s+([0-9.]+)%\s+(\S+)\s+\[(.)\] (\S+)$", line)
        if m:
            rows[m[5]] = (float(m[1]), float(m[2]), m[3], m[4])
    assert rows, p.stdout
    assert rows["burn_a"][3] == "." and rows["burn_a"][2] == "hotspots", rows
    assert abs(rows["burn_a"][1] - 75) <= 8 and abs(rows["burn_b"][1] - 25) <= 8, rows
    assert rows["main"][1] < 2 and rows["main"][0] >= 95, rows      # main: all total, no self
    first = [l for l in p.stdout.splitlines() if "%" in l and not l.startswith("#")][0]
    assert first.endswith("burn_a"), p.stdout


def test_svg(fp_run):
    d, _ = fp_run
    root = ET.parse(d / "fp.svg").getroot()
    ns = {"s": "http://www.w3.org/2000/svg"}
    frames = root.findall(".//s:g[@class='f']", ns)
    assert frames
    total = None
    per_px = []
    names = set()
    for g in frames:
        title = g.find("s:title", ns).text
        m = re.match(r"^(.*) \((\d+) samples, ([0-9.]+)%\)$", title)
        assert m, title
        n = int(m[2])
        w = float(g.find("s:rect", ns).get("width"))
        if m[1] == "all":
            total = n
        names.add(m[1])
        per_px.append((w, n, float(m[3])))
    assert total and {"all", "hotspots", "main", "burn_a", "burn_b"} <= names
    k = per_px[0][0] / per_px[0][1]
    for w, n, pct in per_px:
        assert abs(w - n * k) <= 0.02, (w, n, k)                   # width proportional to count
        assert abs(pct - 100.0 * n / total) <= 0.01
    assert root.find(".//s:script", ns) is not None                 # search and zoom


def test_pprof(fp_run, tmp_path):
    d, p = fp_run
    pr = read_pprof(d / "fp.pb.gz", tmp_path)
    st = pr.string_table
    assert st[0] == ""
    assert [(st[v.type], st[v.unit]) for v in pr.sample_type] == [("samples", "count"), ("cpu", "nanoseconds")]
    assert pr.period == 10**9 // int(FREQ)
    fn = {f.id: st[f.name] for f in pr.function}
    loc = {l.id: l for l in pr.location}
    maps = {m.id: m for m in pr.mapping}
    s = summary(p)
    assert sum(x.value[0] for x in pr.sample) == s["samples"] - s["full"]
    leaf = Counter()
    for x in pr.sample:
        assert x.value[1] == x.value[0] * pr.period
        names = [fn[loc[i].line[0].function_id] for i in x.location_id]     # leaf first
        labels = {st[l.key]: (l.num, st[l.str]) for l in x.label}
        assert labels["comm"][1] == "hotspots" and labels["pid"][0] > 0
        if "burn_a" in names or "burn_b" in names:
            assert names.index("main") > names.index("burn_a" if "burn_a" in names else "burn_b")
            leaf[names[0]] += x.value[0]
    a = leaf["burn_a"] / (leaf["burn_a"] + leaf["burn_b"])
    assert abs(a - 0.75) <= 0.08, leaf
    # burn_a's location is in the workload's mapping, with its build id (readelf's)
    bid = re.search(r"Build ID: ([0-9a-f]+)",
                    subprocess.run(["readelf", "-n", str(ROOT / "build/workload/hotspots")],
                                   capture_output=True, text=True).stdout)[1]
    l = next(l for l in pr.location if fn[l.line[0].function_id] == "burn_a")
    m = maps[l.mapping_id]
    assert st[m.filename].endswith("/hotspots") and st[m.build_id] == bid
    assert m.memory_start <= l.address < m.memory_limit


def test_report_input(scry, fp_run, tmp_path):
    """-i: the saved pprof file read back gives the same report and the same folded stacks,
    nothing sampled; a file that is no profile is refused in one line"""
    d, p = fp_run
    q = subprocess.run([scry, "profile", "-i", d / "fp.pb.gz", "--report", "-o", tmp_path / "back.folded"],
                       capture_output=True, text=True)
    assert q.returncode == 0 and q.stderr == "", q.stderr
    rep = lambda out: [l for l in out.splitlines() if l.startswith("#") or "%" in l]
    assert rep(q.stdout) == rep(p.stdout) and len(rep(q.stdout)) > 5
    assert folded(tmp_path / "back.folded") == folded(d / "fp.folded")
    q = subprocess.run([scry, "profile", "-i", d / "fp.folded", "--report"], capture_output=True, text=True)
    assert q.returncode == 1 and "not a pprof profile" in q.stderr and len(q.stderr.splitlines()) == 1, q.stderr


def test_no_frame_pointers(scry, workload, tmp_path):
    """the leaf is right without frame pointers; its callers are lost to the kernel's walk"""
    p = profile(scry, "-F", FREQ, "-o", tmp_path / "nofp.folded", cmd=[workload("hotspots-nofp"), "1000"])
    assert p.returncode == 0, p.stderr
    st = folded(tmp_path / "nofp.folded")
    a, b, tot = shares(st)
    assert abs(a - 0.75) <= 0.08, (a, b)
    reach = sum(n for stk, n in st.items() if "main" in stk)
    print(f"no frame pointers: {reach}/{tot} samples reach main")
    assert reach / tot < 0.5


def test_short_lived_child(scry, workload, tmp_path):
    """the command's child burns then exits before the end: its mappings were read at its
    first sample, so its frames are named"""
    p = profile(scry, "-F", FREQ, "-o", tmp_path / "c.folded", cmd=[workload("hotspots"), "700", "fork"])
    assert p.returncode == 0, p.stderr
    st = folded(tmp_path / "c.folded")
    a, b, tot = shares(st)
    assert abs(a - 0.75) <= 0.1 and tot >= 0.9 * sum(st.values()), st


def test_threads(scry, workload, tmp_path):
    p = profile(scry, "-F", FREQ, "-o", tmp_path / "t.folded", cmd=[workload("hotspots"), "700", "threads"])
    assert p.returncode == 0, p.stderr
    st = folded(tmp_path / "t.folded")
    a, b, tot = shares(st)
    assert abs(a - 0.75) <= 0.08, st
    assert all("start_thread" in stk for stk in st if stk[-1] in ("burn_a", "burn_b")), st


def test_pid(scry, workload, tmp_path):
    w = subprocess.Popen([workload("hotspots"), "3000"], stdout=subprocess.DEVNULL)
    try:
        p = profile(scry, "-F", FREQ, "-q", "-p", w.pid, "--duration", "1", "-o", tmp_path / "p.folded")
        assert p.returncode == 0, p.stderr
        s = summary(p)
        assert 0.9 <= s["seconds"] <= 1.5, s
        st = folded(tmp_path / "p.folded")
        assert set(k[0] for k in st) == {"hotspots"}, st       # nothing of other processes
        a, _, _ = shares(st)
        assert abs(a - 0.75) <= 0.1
    finally:
        w.kill()
        w.wait()


def test_losses_counted(scry, workload, tmp_path):
    """a one-slot stack map: all but one user stack collide; each lost stack is counted in the
    summary and shown as a frame of its own, its sample kept"""
    p = profile(scry, "-F", FREQ, "--stack-storage-size", "1", "-o", tmp_path / "l.folded",
                cmd=[workload("hotspots"), "500"])
    assert p.returncode == 0, p.stderr
    s = summary(p)
    st = folded(tmp_path / "l.folded")
    ulost = sum(n for k, n in st.items() if "[lost user stack]" in k)
    klost = sum(n for k, n in st.items() if "[lost kernel stack]_[k]" in k)
    assert ulost > 0 and s["ulost"] == ulost and s["klost"] == klost
    assert s["lost"] == s["klost"] + s["ulost"] + s["full"]
    assert sum(st.values()) == s["samples"]


def test_cycles_without_pmu(scry, tmp_path):
    """this machine has no PMU: cycles is refused in one line, nothing written"""
    if os.path.exists("/sys/bus/event_source/devices/cpu/events/cpu-cycles"):
        pytest.skip("this machine has a PMU")
    p = profile(scry, "-e", "cycles", "-o", tmp_path / "x.svg", cmd=["true"])
    assert p.returncode == 1
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "no PMU" in lines[0] and "cycles" in lines[0], p.stderr
    assert not (tmp_path / "x.svg").exists()


def user_leaf(stack):
    user = [f for f in stack[1:] if not f.endswith("_[k]")]
    return user[-1] if user else None


def reaching(stacks, *chain):
    """the samples whose user frames hold chain's frames in that order (outermost first)"""
    n = 0
    for st, c in stacks.items():
        user = [f for f in st[1:] if not f.endswith("_[k]")]
        i = 0
        for f in user:
            if i < len(chain) and f == chain[i]:
                i += 1
        n += c if i == len(chain) else 0
    return n


@pytest.fixture(scope="module")
def dwarf_run(scry, workload, tmp_path_factory):
    """hotspots-nofp (no frame pointers) with --call-graph dwarf"""
    d = tmp_path_factory.mktemp("dwarf")
    p = profile(scry, "-F", FREQ, "--call-graph", "dwarf", "-o", d / "d.folded", "-o", d / "d.pb.gz",
                cmd=[workload("hotspots-nofp"), "1500"])
    assert p.returncode == 0, p.stderr
    return d, p


def test_dwarf_no_frame_pointers(dwarf_run):
    """every sample of the loops unwound to _start through main, where frame pointers reach none"""
    d, p = dwarf_run
    s = summary(p)
    assert s["lost"] == 0, s
    st = folded(d / "d.folded")
    assert sum(st.values()) == s["samples"]
    a, b, tot = shares(st)
    assert abs(a - 0.75) <= 0.08 and abs(b - 0.25) <= 0.08, (a, b, tot)
    assert tot >= 0.9 * sum(st.values())
    full = reaching({k: n for k, n in st.items() if user_leaf(k) in ("burn_a", "burn_b")},
                    "_start", "__libc_start_call_main", "main", "burn")
    print(f"dwarf, no frame pointers: {full}/{tot} samples of the loops reach _start")
    assert full / tot >= 0.95, st
    stacks, size, avg, ended = dwarf_summary(p)
    assert stacks == s["samples"] and size == 8192 and 0 < avg <= 8192
    assert ended >= 0.95 * stacks


def test_dwarf_pprof_callers(dwarf_run, tmp_path):
    """the unwound stacks in pprof: main below burn_a, in the workload's mapping"""
    d, _ = dwarf_run
    pr = read_pprof(d / "d.pb.gz", tmp_path)
    st = pr.string_table
    fn = {f.id: st[f.name] for f in pr.function}
    loc = {l.id: l for l in pr.location}
    n = sum(x.value[0] for x in pr.sample
            if [fn[loc[i].line[0].function_id] for i in x.location_id][:1] == ["burn_a"] and
            "main" in [fn[loc[i].line[0].function_id] for i in x.location_id])
    assert n > 0.6 * sum(x.value[0] for x in pr.sample)


@pytest.mark.parametrize("name,argv,chain", [
    ("python3", ["/usr/bin/python3", "-c", "import time\nt = time.time()\nwhile time.time() - t < 1.2: pass"],
     ("_start", "Py_BytesMain", "PyEval_EvalCode", "_PyEval_EvalFrameDefault")),
    ("bash", ["/usr/bin/bash", "-c", "e=$(( ${EPOCHREALTIME/./} + 1200000 )); while (( ${EPOCHREALTIME/./} < e )); do :; done"],
     ("_start", "main", "execute_command_internal")),
])
def test_dwarf_debian_binaries(scry, tmp_path, name, argv, chain):
    """Debian's python3 and bash, stripped and built without frame pointers: the interpreter's
    own frames, from _start through main to its evaluation loop, in >= 95% of the samples"""
    if not os.path.exists(argv[0]):
        pytest.skip(f"{argv[0]} not installed")
    p = profile(scry, "-F", FREQ, "--call-graph", "dwarf", "-o", tmp_path / "i.folded", cmd=argv)
    assert p.returncode == 0, p.stderr
    s = summary(p)
    st = folded(tmp_path / "i.folded")
    mine = {k: n for k, n in st.items() if k[0] == name}
    tot = sum(mine.values())
    assert tot >= 0.5 * s["samples"], st
    full = reaching(mine, *chain[:2])
    deep = reaching(mine, *chain)
    print(f"dwarf, {name}: {full}/{tot} samples reach {chain[1]}, {deep} reach {chain[-1]} under it")
    assert full / tot >= 0.95, sorted(mine.items(), key=lambda x: -x[1])[:5]
    assert deep / tot >= 0.5


def thread_stacks(p, out):
    """burn_a's share and the samples of the loops, all and unwound to clone3 through start_thread"""
    assert p.returncode == 0, p.stderr
    st = folded(out)
    a, _, tot = shares(st)
    loops = {k: n for k, n in st.items() if user_leaf(k) in ("burn_a", "burn_b")}
    return st, a, tot, reaching(loops, "clone3", "start_thread", "burn")


def test_dwarf_threads(scry, workload, tmp_path):
    """a thread's stack is unwound to clone3, through start_thread"""
    p = profile(scry, "-F", FREQ, "--call-graph", "dwarf", "-o", tmp_path / "t.folded",
                cmd=[workload("hotspots-nofp"), "600", "threads"])
    st, a, tot, whole = thread_stacks(p, tmp_path / "t.folded")
    assert abs(a - 0.75) <= 0.1
    assert whole >= 0.95 * tot, (p.stderr, st)


def test_dwarf_after_exec(scry, workload, tmp_path):
    """a process sampled (and its stacks unwound) before it execs is unwound as well after:
    the exec's note starts it anew.  Before the fix every thread sample after the exec
    stopped at its leaf (20 runs of 20), as in the one CI failure of test_dwarf_threads."""
    sh = f"i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; exec {workload('hotspots-nofp')} 400 threads"
    p = profile(scry, "-F", FREQ, "--call-graph", "dwarf", "-o", tmp_path / "e.folded", cmd=["/bin/sh", "-c", sh])
    st, a, tot, whole = thread_stacks(p, tmp_path / "e.folded")
    assert sum(n for k, n in st.items() if k[0] == "sh") > 0, st     # sampled before the exec
    assert abs(a - 0.75) <= 0.1
    assert whole >= 0.95 * tot, (p.stderr, st)


def test_dwarf_ring_full(scry, workload, tmp_path):
    """a ring smaller than one stack copy: every user stack is lost, each sample counted with its
    kernel side and a [lost user stack] frame, the summary saying why"""
    p = profile(scry, "-F", FREQ, "--call-graph", "dwarf", "--buffer-size", "4K", "-o", tmp_path / "r.folded",
                cmd=[workload("hotspots-nofp"), "400"])
    assert p.returncode == 0, p.stderr
    s = summary(p)
    st = folded(tmp_path / "r.folded")
    lost = sum(n for k, n in st.items() if "[lost user stack]" in k)
    assert s["samples"] > 0 and s["ulost"] == s["samples"] == lost == sum(st.values()), (s, st)
    assert s["lost"] == s["klost"] + s["ulost"] + s["full"]
    m = re.search(r", (\d+) user stacks not copied: ring full \(--buffer-size\)", p.stderr)
    assert m and int(m[1]) == lost, p.stderr
    assert dwarf_summary(p)[0] == 0


OFF_SUMMARY = re.compile(
    r"^scry: off-cpu profile: (\d+) blocks of (\d+) us or more \(([0-9.]+) s\), ([0-9.]+) ms blocked in all, "
    r"(\d+) lost \((\d+) kernel stacks, (\d+) user stacks, (\d+) blocks: counts map full, (\d+) blocks not "
    r"measured: no room\)", re.M)


def blocked_in(stacks, fn):
    """microseconds blocked in stacks whose user leaf is fn"""
    return sum(n for k, n in stacks.items() if user_leaf(k) == fn)


@pytest.fixture(scope="module")
def offcpu_run(scry, workload, tmp_path_factory):
    """hotspots 8 sleep: 8 rounds of wait_a asleep 30 ms, wait_b 10 ms, in every output"""
    d = tmp_path_factory.mktemp("offcpu")
    p = profile(scry, "--off-cpu", "-o", d / "off", "-o", d / "off.pb.gz", "--report",
                cmd=[workload("hotspots"), "8", "sleep"])
    assert p.returncode == 0, p.stderr
    return d, p


def test_offcpu_times(offcpu_run):
    """each function's time blocked: at least what it asked to sleep (a nanosleep never ends
    early), its share of the whole 75% / 25%; the kernel stack ends where the thread slept
    (schedule), not in the BPF program that took it"""
    d, p = offcpu_run
    m = OFF_SUMMARY.search(p.stderr)
    assert m and int(m[5]) == 0 and int(m[2]) == 1, p.stderr
    st = folded(d / "off.folded")
    a, b = blocked_in(st, "wait_a"), blocked_in(st, "wait_b")
    assert 8 * 30000 <= a <= 8 * 30000 * 1.5, (a, st)
    assert 8 * 10000 <= b <= 8 * 10000 * 2, (b, st)
    assert abs(a / (a + b) - 0.75) <= 0.05, (a, b)
    assert int(m[1]) >= 16 and abs(float(m[4]) - sum(st.values()) / 1e3) <= 0.1, (m.groups(), st)
    for k in st:
        if user_leaf(k) in ("wait_a", "wait_b"):
            assert k[-1] in ("__schedule_[k]", "schedule_[k]") and "main" in k, k
            assert not any(f.startswith("bpf_") for f in k), k
            assert "__x64_sys_nanosleep_[k]" in k, k


def test_offcpu_outputs(scry, offcpu_run, tmp_path):
    """the SVG's frames in microseconds, widths proportional; pprof's one value off-cpu
    nanoseconds (protobuf's decoder), read back by -i to the same folded stacks; the report"""
    d, p = offcpu_run
    st = folded(d / "off.folded")
    root = ET.parse(d / "off.svg").getroot()
    ns = {"s": "http://www.w3.org/2000/svg"}
    per = []
    for g in root.findall(".//s:g[@class='f']", ns):
        m = re.match(r"^(.*) \((\d+) us, ([0-9.]+)%\)$", g.find("s:title", ns).text)
        assert m, g.find("s:title", ns).text
        per.append((float(g.find("s:rect", ns).get("width")), int(m[2]), m[1]))
        if m[1] in ("wait_a", "wait_b", "schedule"):                 # blue: time blocked
            r, gr, b = map(int, re.match(r"rgb\((\d+),(\d+),(\d+)\)", g.find("s:rect", ns).get("fill")).groups())
            assert b > r and b > gr, g.find("s:rect", ns).get("fill")
    assert ("all" in [x[2] for x in per]) and {"wait_a", "wait_b"} <= {x[2] for x in per}
    assert next(n for _, n, name in per if name == "all") == sum(st.values())
    k = per[0][0] / per[0][1]
    assert all(abs(w - n * k) <= 0.02 for w, n, _ in per)
    pr = read_pprof(d / "off.pb.gz", tmp_path)
    strs = pr.string_table
    assert [(strs[v.type], strs[v.unit]) for v in pr.sample_type] == [("off-cpu", "nanoseconds")]
    assert sum(x.value[0] for x in pr.sample) == 1000 * sum(st.values())
    q = subprocess.run([scry, "profile", "-i", d / "off.pb.gz", "-o", tmp_path / "back.folded"],
                       capture_output=True, text=True)
    assert q.returncode == 0, q.stderr
    assert folded(tmp_path / "back.folded") == st

    assert f"# Off-CPU: {sum(st.values())} us blocked" in p.stdout, p.stdout
    rows = {m[3]: float(m[1]) for m in re.finditer(r"^\s+([0-9.]+)%\s+([0-9.]+)%\s+\S+\s+\[.\] (\S+)$",
                                                    p.stdout, re.M)}
    assert abs(rows["wait_a"] - 75) <= 5 and rows["main"] >= 99, rows


def test_offcpu_min_block(scry, workload, tmp_path):
    """--min-block 20ms: wait_b's 10 ms blocks are not counted, wait_a's 30 ms ones are"""
    p = profile(scry, "--off-cpu", "--min-block", "20ms", "-o", tmp_path / "m.folded",
                cmd=[workload("hotspots"), "8", "sleep"])
    assert p.returncode == 0, p.stderr
    m = OFF_SUMMARY.search(p.stderr)
    assert m and int(m[2]) == 20000, p.stderr
    st = folded(tmp_path / "m.folded")
    assert blocked_in(st, "wait_b") == 0 and 8 * 30000 <= blocked_in(st, "wait_a"), st
    assert int(m[1]) >= 8


def perf_self(data):
    """perf report's self shares by frame name (--sort dso,sym), an address without a symbol
    named [dso] as scry names it"""
    out = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "dso,sym", "-q"],
                         capture_output=True, text=True).stdout
    shares = Counter()
    for m in re.finditer(r"^\s+([0-9.]+)%\s+(\S+)\s+\[(.)\] (\S+)", out, re.M):
        name = f"[{m[2]}]" if m[4].startswith("0x") else m[4]
        shares[(name, m[3] == "k")] += float(m[1])
    return shares


def scry_self(report):
    shares = Counter()
    for m in re.finditer(r"^\s+([0-9.]+)%\s+([0-9.]+)%\s+\S+\s+\[(.)\] (\S+)$", report, re.M):
        shares[(m[4], m[3] == "k")] += float(m[2])
    return shares


@pytest.mark.parametrize("name,argv", [
    ("hotspots", ["hotspots", "2500"]),
    ("python3", ["/usr/bin/python3", "-c", "import time\ndef f(n):\n    s = 0\n    for i in range(n):\n        s += i * i\n"
                 "    return s\nt = time.time()\nwhile time.time() - t < 2.5:\n    f(1000); sorted([3, 1, 2] * 50)"]),
])
def test_names_agree_with_perf(scry, workload, tmp_path, name, argv):
    """the same process sampled by perf record and scry profile at once: of the frames perf
    report puts at 1% self or more, those making >= 95% of that time have the same name in
    scry's report, kernel or user alike (an address without a symbol: [file] in both)"""
    if subprocess.run(["which", "perf"], capture_output=True).returncode:
        pytest.skip("perf not installed")
    if argv[0] == "hotspots":
        argv = [workload("hotspots")] + argv[1:]
    w = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        perf = subprocess.Popen(["perf", "record", "-q", "-F", FREQ, "-p", str(w.pid), "-o", tmp_path / "perf.data"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        p = profile(scry, "-q", "-F", FREQ, "-p", w.pid, "--duration", "1.5", "--report", "-o", tmp_path / "s.folded")
        perf.send_signal(signal.SIGINT)
        perf.wait(timeout=30)
    finally:
        w.kill()
        w.wait()
    assert p.returncode == 0, p.stderr
    theirs, ours = perf_self(tmp_path / "perf.data"), scry_self(p.stdout)
    top = {k: v for k, v in theirs.items() if v >= 1.0}
    assert sum(top.values()) >= 50, theirs
    same = sum(v for k, v in top.items() if ours.get(k, 0) > 0)
    print(f"{name}: perf's top frames {dict(top)}; scry's {dict(ours.most_common(8))}")
    assert same >= 0.95 * sum(top.values()), (top, ours)
    for k, v in top.items():                     # and about the same shares (two samplers, a shared VM)
        assert abs(ours.get(k, 0) - v) <= max(10.0, 0.4 * v), (k, v, ours.get(k))


def test_inline_lines(scry, workload, tmp_path):
    """--inline --lines: burn_a's loop body is step(), inlined: its samples show step (at its
    line) under burn_a (at the line of the call); every leaf address's chain of frames, names
    and lines, is the one binutils' addr2line -i gives for it"""
    binary = workload("hotspots")
    p = profile(scry, "-F", FREQ, "--inline", "--lines", "-o", tmp_path / "i.folded", "-o", tmp_path / "i.pb.gz",
                cmd=[binary, "600"])
    assert p.returncode == 0, p.stderr
    src = open(ROOT / "tests/workload/hotspots.c").read().splitlines()
    at = lambda marker: next(n for n, l in enumerate(src, 1) if marker in l)
    st = folded(tmp_path / "i.folded")
    a = {k: n for k, n in st.items() if any(f.startswith("burn_a (") for f in k)}
    inl = sum(n for k, n in a.items() if k[-2:] == (f"burn_a (hotspots.c:{at('burn_a' + chr(39) + 's call of step')})",
                                                    f"step (hotspots.c:{at('step' + chr(39) + 's line')})"))
    assert inl >= 0.5 * sum(a.values()), a
    assert all(any(f.startswith("main (hotspots.c:") for f in k) for k in a), a

    pr = read_pprof(tmp_path / "i.pb.gz", tmp_path)
    strs = pr.string_table
    fn = {f.id: strs[f.name] for f in pr.function}
    fns = {f.id: strs[f.filename] for f in pr.function}
    loc = {l.id: l for l in pr.location}
    maps = {m.id: m for m in pr.mapping}
    chains = {}
    for x in pr.sample:
        first = loc[x.location_id[0]]
        if first.mapping_id not in maps or not strs[maps[first.mapping_id].filename].endswith("/hotspots"):
            continue
        m = maps[first.mapping_id]
        # one location, its lines the inlined copies innermost first, then their caller
        chain = [f"{fn[ln.function_id]} ({os.path.basename(fns[ln.function_id])}:{ln.line})" for ln in first.line]
        chains[first.address - m.memory_start + m.file_offset] = chain
    assert len(chains) >= 3, chains
    vas = sorted(chains)
    out = subprocess.run(["addr2line", "-a", "-i", "-f", "-e", binary] + [hex(v) for v in vas],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    theirs, cur = {}, None
    for line in out:                              # 0xADDR, then function / file:line pairs
        if line.startswith("0x"):
            cur = theirs.setdefault(int(line, 16), [])
        elif cur is not None and len(cur) and cur[-1].endswith("("):
            cur[-1] += os.path.basename(line.split(" ")[0]) + ")"
        else:
            cur.append(line + " (")
    assert theirs == chains, (theirs, chains)


@pytest.mark.parametrize("args,msg", [
    (["--call-graph", "dwarf,7", "-o", "x.svg", "--", "true"], "invalid call graph"),
    (["--call-graph", "lbr", "-o", "x.svg", "--", "true"], "invalid call graph"),
    (["--buffer-size", "3000", "-o", "x.svg", "--", "true"], "invalid buffer size"),
    (["-i", "x.pb.gz", "-o", "x.svg", "--", "true"], "no -p, -a or command"),
    (["-i", "x.pb.gz"], "no output"),
    (["-i", "x.pb.gz", "--report", "--lines"], "no --inline or --lines"),
    (["-o", "x.txt", "--", "true"], "unknown output type"),
    (["-o", "x.svg"], "nothing to profile"),
    (["--", "true"], "no output"),
    (["-F", "0", "-o", "x.svg", "--", "true"], "invalid frequency"),
    (["-e", "bogus", "-o", "x.svg", "--", "true"], "unknown event"),
    (["--off-cpu", "-F", "99", "-o", "x.svg", "--", "true"], "--off-cpu samples nothing"),
    (["--off-cpu", "--call-graph", "dwarf", "-o", "x.svg", "--", "true"], "--off-cpu samples nothing"),
    (["--off-cpu", "--min-block", "soon", "-o", "x.svg", "--", "true"], "invalid minimum block"),
])
def test_bad_usage(scry, tmp_path, args, msg):
    p = subprocess.run([scry, "profile"] + args, capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode != 0 and msg in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
