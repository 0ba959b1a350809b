"""tests/e2e/test_uprobes.py — uprobes and uretprobes (issue 15): exact argument and return
values of known functions of build/workload/uprobed (tests/workload/uprobed.c), globs, a
binary started after scry, libc probes by register checked against bpftrace, --filter on
probe fields, scry view and babeltrace2 reading the events, and bad input."""
import os
import shutil
import subprocess
import time

import pytest

from conftest import read_trace, run_babeltrace2, scry_progs

N = 3


def s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def by_name(tr, name):
    return [e for e in tr.events if e["name"] == name]


def test_entry_and_return_values(record, workload, trace_dir):
    wl = workload("uprobed")
    rec = record(trace_dir, "-e", f"uprobe:{wl}:add3", "-e", f"uretprobe:{wl}:add3",
                 "-e", f"uprobe:{wl}:greet", "-e", f"uretprobe:{wl}:greet", cmd=[wl, N]).check()
    tr = read_trace(trace_dir)
    entries = by_name(tr, "uprobe_uprobed_add3")
    rets = by_name(tr, "uretprobe_uprobed_add3")
    assert len(entries) == N and len(rets) == N, [e["name"] for e in tr.events]
    for i, (e, r) in enumerate(zip(entries, rets)):
        f = e["fields"]
        assert set(f) == {"arg0", "arg1", "arg2", "arg3", "arg4", "arg5"}
        assert f["arg0"] & 0xffffffff == 7 + i           # int a
        assert s64(f["arg1"]) == -100000000000           # long b
        assert f["arg2"] & 0xff == 200                   # unsigned char c
        assert s64(r["fields"]["ret"]) == 7 + i - 100000000000 + 200
        assert e["ts"] < r["ts"] and e["tid"] == r["tid"]
    greets = by_name(tr, "uprobe_uprobed_greet")
    gret = by_name(tr, "uretprobe_uprobed_greet")
    assert [g["fields"]["arg1"] & 0xffffffff for g in greets] == [3 + i for i in range(N)]
    assert [r["fields"]["ret"] & 0xffffffff for r in gret] == [10 * (3 + i) for i in range(N)]
    assert rec.summary()["events"] == 4 * N


def test_glob_attaches_each_function(record, workload, trace_dir):
    wl = workload("uprobed")
    record(trace_dir, "-e", f"uprobe:{wl}:handle_*", cmd=[wl, N]).check()
    tr = read_trace(trace_dir)
    names = sorted({e["name"] for e in tr.events})
    assert names == ["uprobe_uprobed_handle_alpha", "uprobe_uprobed_handle_beta", "uprobe_uprobed_handle_gamma"]
    for n in names:
        assert [e["fields"]["arg0"] for e in by_name(tr, n)] == list(range(N))


def test_offset_and_address(record, workload, trace_dir):
    """FUNC+0 and 0xADDR (the symbol's address from nm) probe the same instruction as FUNC."""
    wl = workload("uprobed")
    nm = subprocess.run(["nm", wl], capture_output=True, text=True, check=True).stdout
    addr = next(int(l.split()[0], 16) for l in nm.splitlines() if l.endswith(" add3"))
    record(trace_dir, "-e", f"uprobe:{wl}:add3+0", "-e", f"uprobe:{wl}:{hex(addr)}", cmd=[wl, N]).check()
    tr = read_trace(trace_dir)
    a = by_name(tr, "uprobe_uprobed_add3_0x0")
    b = by_name(tr, f"uprobe_uprobed_{hex(addr)}")
    assert [e["fields"]["arg0"] & 0xffffffff for e in a] == [7 + i for i in range(N)]
    assert [e["fields"]["arg0"] & 0xffffffff for e in b] == [7 + i for i in range(N)]


def test_filter_on_probe_field(record, workload, trace_dir):
    wl = workload("uprobed")
    record(trace_dir, "-e", f"uprobe:{wl}:handle_alpha", "--filter", "arg0 > 1", cmd=[wl, 5]).check()
    tr = read_trace(trace_dir)
    assert [e["fields"]["arg0"] for e in tr.events] == [2, 3, 4]


def test_binary_started_later_bare_name(scry, workload, trace_dir, tmp_path):
    """-a, the binary found through $PATH by its bare name, started only once scry runs:
    the probe is on the file, so every process running it is probed."""
    wl = workload("uprobed")
    env = dict(os.environ, PATH=os.path.dirname(wl) + ":" + os.environ.get("PATH", ""))
    p = subprocess.Popen([scry, "record", "-q", "-a", "-o", str(trace_dir), "--duration", "8",
                          "-e", "uprobe:uprobed:handle_beta"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not any(pr["name"] == "scry_uprobe" for pr in scry_progs()):
            assert p.poll() is None, p.stderr.read()
            time.sleep(0.1)
        time.sleep(1.5)                    # attached, and the switch on
        for _ in range(2):
            subprocess.run([wl, "2"], check=True, capture_output=True)
        assert p.wait(timeout=60) == 0, p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()
    tr = read_trace(trace_dir)
    ev = by_name(tr, "uprobe_uprobed_handle_beta")
    assert [e["fields"]["arg0"] for e in ev] == [0, 1, 0, 1]
    assert len({e["pid"] for e in ev}) == 2


def test_readers_show_probe_events(scry, record, workload, trace_dir):
    wl = workload("uprobed")
    record(trace_dir, "-e", f"uretprobe:{wl}:handle_gamma", cmd=[wl, 2]).check()
    meta = (trace_dir / "kernel" / "metadata").read_text() if (trace_dir / "kernel" / "metadata").exists() \
        else next(trace_dir.rglob("metadata")).read_text()
    assert f'model.emf.uri = "uretprobe:{os.path.realpath(wl)}:handle_gamma";' in meta
    bt = run_babeltrace2(trace_dir)
    assert bt.returncode == 0, bt.stderr
    lines = [l for l in bt.stdout.splitlines() if "uretprobe_uprobed_handle_gamma" in l]
    assert len(lines) == 2 and "ret = 3 }" in lines[0] and "ret = 4 }" in lines[1], bt.stdout
    v = subprocess.run([scry, "view", str(trace_dir)], capture_output=True, text=True, timeout=60)
    assert v.returncode == 0, v.stderr
    vl = [l for l in v.stdout.splitlines() if "uretprobe_uprobed_handle_gamma" in l]
    assert len(vl) == 2 and "ret = 3" in vl[0] and "ret = 4" in vl[1], v.stdout


def test_programs_not_loaded_without_uprobe(scry, record, workload, trace_dir):
    """The uprobe program loads only for a session with a uprobe."""
    p = subprocess.Popen([scry, "record", "-q", "-o", str(trace_dir), "-e", "syscall:getppid",
                          "--", workload("ticker"), "3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        p.stdout.readline()                 # the ticker runs: scry is attached
        names = {pr["name"] for pr in scry_progs()}
        assert "scry_sys_enter_" in " ".join(names) or any(n.startswith("scry_sys") for n in names), names
        mine = [pr for pr in scry_progs() if pr["name"] == "scry_uprobe"]
        assert not mine, mine
    finally:
        p.kill()
        p.wait()


# ---- libc by register, against bpftrace ----------------------------------------------------

LIBC = "/lib/x86_64-linux-gnu/libc.so.6"


@pytest.mark.skipif(not shutil.which("bpftrace"), reason="bpftrace is not installed (scripts/deps.sh)")
def test_libc_malloc_agrees_with_bpftrace(scry, workload, trace_dir):
    """malloc's size (rdi) and returned pointer (rax) in a stock libc (no DWARF), recorded by
    scry and by bpftrace on the same run of the workload."""
    wl = workload("uprobed")
    prog = (f'uprobe:{LIBC}:malloc /comm == "uprobed" && arg0 >= 12345 && arg0 < 12345 + {N}/ '
            f'{{ printf("E %d %lu\\n", tid, arg0); }} '
            f'uretprobe:{LIBC}:malloc /comm == "uprobed"/ {{ printf("R %d %lu\\n", tid, retval); }}')
    bt = subprocess.Popen(["bpftrace", "-e", prog], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = bt.stdout.readline()         # "Attaching 2 probes..."
        assert "Attaching" in line, line + bt.stderr.read()
        subprocess.run([scry, "record", "-q", "-o", str(trace_dir), "-e", f"uprobe:{LIBC}:malloc",
                        "-e", f"uretprobe:{LIBC}:malloc", "--", wl, str(N)], check=True, capture_output=True,
                       timeout=120)
        time.sleep(0.5)
    finally:
        bt.send_signal(2)
        out, _ = bt.communicate(timeout=30)
    theirs = [l.split() for l in out.splitlines() if l[:2] in ("E ", "R ")]
    their_sizes = [int(x[2]) for x in theirs if x[0] == "E"]
    their_rets = {int(x[2]) for x in theirs if x[0] == "R"}
    tr = read_trace(trace_dir)
    ours = [e for e in tr.events if e["procname"] == "uprobed"]
    sizes = [e["fields"]["arg0"] for e in ours if e["name"] == "uprobe_libc_so_6_malloc"
             and 12345 <= e["fields"]["arg0"] < 12345 + N]
    assert sizes == [12345 + i for i in range(N)] == their_sizes
    # the pointers malloc returned for those sizes: the ret that follows each entry
    rets = []
    for i, e in enumerate(ours):
        if e["name"] == "uprobe_libc_so_6_malloc" and 12345 <= e["fields"]["arg0"] < 12345 + N:
            r = next(x for x in ours[i + 1:] if x["name"] == "uretprobe_libc_so_6_malloc" and x["tid"] == e["tid"])
            rets.append(r["fields"]["ret"])
    assert len(rets) == N and all(r != 0 for r in rets)
    assert set(rets) <= their_rets, (rets, their_rets)


def test_libc_open_string_by_register(record, workload, trace_dir):
    """open's path (rdi) read as a pointer at entry: the same value for each call."""
    wl = workload("uprobed")
    record(trace_dir, "-e", f"uprobe:{LIBC}:open", cmd=[wl, N]).check()
    tr = read_trace(trace_dir)
    ev = [e for e in tr.events if e["name"] == "uprobe_libc_so_6_open" and e["procname"] == "uprobed"]
    assert len(ev) >= N
    assert len({e["fields"]["arg0"] for e in ev[-N:]}) == 1 and ev[-1]["fields"]["arg0"] != 0


# ---- bad input ---------------------------------------------------------------------------

def run_bad(scry, trace_dir, spec):
    p = subprocess.run([scry, "record", "-q", "-o", str(trace_dir), "-e", spec, "--", "/bin/true"],
                       capture_output=True, text=True, timeout=60)
    lines = p.stderr.strip().splitlines()
    assert p.returncode != 0 and len(lines) == 1, p.stderr
    assert not trace_dir.exists() or not any(trace_dir.rglob("*_0"))
    return lines[0]


def test_missing_binary(scry, trace_dir):
    assert run_bad(scry, trace_dir, "uprobe:/nonexistent/prog:main") == \
        "scry: /nonexistent/prog: No such file or directory"
    assert run_bad(scry, trace_dir, "uprobe:no-such-prog-xyz:main") == \
        "scry: no-such-prog-xyz: not found in $PATH"


def test_missing_function_suggests(scry, workload, trace_dir):
    wl = workload("uprobed")
    line = run_bad(scry, trace_dir, f"uprobe:{wl}:handle_alpah")
    assert line.startswith(f"scry: no function named 'handle_alpah' in {os.path.realpath(wl)}; did you mean handle_alpha")


def test_stripped_binary(scry, workload, trace_dir):
    wl = workload("uprobed.stripped")
    line = run_bad(scry, trace_dir, f"uprobe:{wl}:add3")
    assert "has no function symbols (stripped)" in line and "0xADDRESS" in line


def test_glob_over_limit(scry, trace_dir):
    line = run_bad(scry, trace_dir, f"uprobe:{LIBC}:*")
    assert "more than the 512 one spec may probe" in line and "narrow the glob" in line


def test_bad_offsets(scry, workload, trace_dir):
    wl = workload("uprobed")
    assert "is past the end of add3" in run_bad(scry, trace_dir, f"uprobe:{wl}:add3+100000")
    assert "a uretprobe is set on a function" in run_bad(scry, trace_dir, f"uretprobe:{wl}:add3+4")
    assert "is in no loaded segment" in run_bad(scry, trace_dir, f"uprobe:{wl}:0x7fffffff0000")
    assert "expected uprobe:PATH:FUNCTION" in run_bad(scry, trace_dir, f"uprobe:{wl}")
