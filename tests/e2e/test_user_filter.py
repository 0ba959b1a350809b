"""tests/e2e/test_user_filter.py — `--filter` on values the kernel program cannot read (issue 4,
the user-space fallback): socket address bytes, captured data, struct members, string
arrays and scry's own sched_process_fork layout.  Such events are recorded unfiltered and the
expression is evaluated before they are written: exactly the matching events of a known
workload (tests/workload/netports.c: UDP sends, connects and polls on loopback ports the test
picks) are in the trace, with their values; the others are counted as filtered out in user
space (not as losses); --verbose names the fallback; `scry trace --filter` applies it too."""
import json
import os
import re
import socket
import subprocess

from conftest import read_trace

FILTERED_RE = re.compile(r"^scry: (\d+) events filtered out in user space \(rejected by --filter, not lost\)$", re.M)


def free_ports():
    """Two distinct UDP ports free on loopback (the workload binds them)."""
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def sin(port):
    """The 16 bytes of a struct sockaddr_in for 127.0.0.1:port."""
    return [2, 0, port >> 8, port & 0xff, 127, 0, 0, 1] + [0] * 8


def filtered(r):
    counts = FILTERED_RE.findall(r.stderr)
    assert len(counts) <= 1, r.stderr
    return int(counts[0]) if counts else 0


def netports(record, workload, tmp_path, events, expr, *args, out="trace"):
    """Record netports under expr ({ahi} {alo} {bhi} {blo}: the bytes of the two ports)."""
    a, b = free_ports()
    expr = expr.format(ahi=a >> 8, alo=a & 0xff, bhi=b >> 8, blo=b & 0xff)
    r = record(tmp_path / out, "-e", events, "--filter", expr, *args, cmd=[workload("netports"), a, b])
    r.check()
    wl = json.loads(r.stdout.strip().splitlines()[-1])
    assert wl["ports"] == [a, b]
    evs = read_trace(r.dir).events
    s = r.summary()
    assert s["events"] == len(evs) and s["discarded"] == 0
    assert all(e["pid"] == wl["pid"] and e["procname"] == "netports" for e in evs)
    return wl, evs, r, expr


def view_count(scry, trace, expr):
    """Events of trace that `scry view --filter expr` keeps."""
    p = subprocess.run([scry, "view", "--json", "--filter", expr, str(trace)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    return len(p.stdout.splitlines())


def test_sockaddr_port_sendto(record, workload, tmp_path, scry):
    wl, evs, r, expr = netports(record, workload, tmp_path, "syscall:sendto",
                                "_addr[2] == {ahi} && _addr[3] == {alo} && $ctx.cpu_id >= 0")
    a = wl["ports"][0]
    got = [(e["name"], e["fields"]["fd"], e["fields"]["len"], e["fields"]["_addr"], e["fields"]["addr_len"])
           for e in evs]
    assert got == [("syscall_entry_sendto", wl["s"], 5, sin(a), 16), ("syscall_entry_sendto", wl["s"], 7, sin(a), 16)]
    # the two sends to the other port were recorded, then dropped; the exits (no _addr) never
    assert filtered(r) == 2
    # scry view's evaluator agrees on what was written
    assert view_count(scry, r.dir, expr) == 2


def test_sockaddr_port_connect(record, workload, tmp_path):
    wl, evs, r, _ = netports(record, workload, tmp_path, "syscall:connect",
                             "_uservaddr[2] == {bhi} && _uservaddr[3] == {blo} && __uservaddr_length == 16")
    b = wl["ports"][1]
    assert [(e["name"], e["fields"]["_uservaddr"], e["fields"]["addrlen"]) for e in evs] == \
        [("syscall_entry_connect", sin(b), 16)]
    assert filtered(r) == 1


def test_captured_data(record, workload, tmp_path):
    """write-like data captured with --snaplen: "bravo!"[4] and "charlie"[0]."""
    wl, evs, r, _ = netports(record, workload, tmp_path, "syscall:sendto", "_buff[0] == 0x63 || _buff[4] == 0x6f",
                             "--snaplen", "16")
    assert [(e["fields"]["len"], bytes(e["fields"]["_buff"])) for e in evs] == [(6, b"bravo!"), (7, b"charlie")]
    assert filtered(r) == 2


def test_struct_members(record, workload, tmp_path, scry):
    """poll's pollfd array, on entry and on exit: only the second poll has {POLLIN}, {POLLOUT}."""
    wl, evs, r, expr = netports(record, workload, tmp_path, "syscall:poll",
                                "ufds[1].events == 4 && ufds[0].events == 1 && ufds[0].fd > 2")
    ra, rb = wl["ra"], wl["rb"]
    assert [e["name"] for e in evs] == ["syscall_entry_poll", "syscall_exit_poll"]
    assert evs[0]["fields"]["ufds"] == [dict(fd=rb, events=1, revents=0), dict(fd=ra, events=4, revents=0)]
    assert evs[1]["fields"]["ret"] == 2
    assert evs[1]["fields"]["ufds"] == [dict(fd=rb, events=1, revents=1), dict(fd=ra, events=4, revents=4)]
    assert filtered(r) == 2          # the first poll's entry and exit
    assert view_count(scry, r.dir, expr) == 2
    wl, evs, r, _ = netports(record, workload, tmp_path, "syscall:poll", "ufds[1].events == 1", out="trace2")
    assert evs == [] and filtered(r) == 4


def test_string_array(record, tmp_path):
    r = record(tmp_path / "trace", "-e", "syscall:execve", "--filter", '_argv[1] == "sec*" && filename == "/bin/*"',
               cmd=["sh", "-c", "/bin/true first; /bin/true second; /bin/true third; exit 0"])
    r.check()
    evs = read_trace(r.dir).events
    assert [(e["name"], e["fields"]["filename"], e["fields"]["_argv"]) for e in evs] == \
        [("syscall_entry_execve", "/bin/true", ["/bin/true", "second"])]
    # sh's own execve (argv[1] "-c") and the two other /bin/true
    assert filtered(r) == 3


def test_fork_layout(record, tmp_path):
    """sched_process_fork is written by scry's own program: its fields are read in user space."""
    cmd = ["sh", "-c", "/bin/true; /bin/true; exit 0"]
    r = record(tmp_path / "trace", "-e", "sched:sched_process_fork", "--filter",
               "vtids[0] == child_tid && _vtids_length >= 1 && child_pid != parent_pid", cmd=cmd)
    r.check()
    evs = read_trace(r.dir).events
    assert len(evs) == 2 and filtered(r) == 0
    assert all(e["fields"]["vtids"][0] == e["fields"]["child_tid"] == e["fields"]["child_pid"] for e in evs)
    assert len({e["fields"]["child_tid"] for e in evs}) == 2
    r = record(tmp_path / "trace2", "-e", "sched:sched_process_fork", "--filter", "vtids[0] != child_tid", cmd=cmd)
    r.check()
    assert read_trace(r.dir).events == [] and filtered(r) == 2


def test_verbose_names_the_fallback(record, workload, tmp_path):
    wl, evs, r, _ = netports(record, workload, tmp_path, "syscall:sendto,syscall:poll",
                             "_addr[3] == {alo} && _addr[2] == {ahi}", "-v")
    lines = [l for l in r.stderr.splitlines() if l.startswith("scry: filter: ")]
    assert lines == ["scry: filter: syscall_entry_sendto: `_addr[3]` is evaluated in user space "
                     "(the kernel filter cannot read captured data)"]
    assert len(evs) == 2
    # decided in the kernel: nothing said, nothing filtered in user space
    wl, evs, r, _ = netports(record, workload, tmp_path, "syscall:sendto", "len == 7", "-v", out="trace2")
    assert not [l for l in r.stderr.splitlines() if l.startswith("scry: filter: ")]
    assert [e["fields"]["len"] for e in evs] == [7] and filtered(r) == 0


def test_mixed_kernel_and_user(record, workload, tmp_path):
    """One expression, a part the kernel reads (procname, fd, len) and a part it cannot (_addr):
    sendto is decided in user space; write and close, which lack _addr, are never recorded by
    the kernel (not counted as filtered in user space)."""
    events = "syscall:sendto,syscall:write,syscall:close"
    expr = '$ctx.procname == "netports" && fd > 2 && len < 7 && _addr[2] == {ahi} && _addr[3] == {alo}'
    wl, evs, r, _ = netports(record, workload, tmp_path, events, expr)
    assert [(e["name"], e["fields"]["len"], e["fields"]["_addr"]) for e in evs] == \
        [("syscall_entry_sendto", 5, sin(wl["ports"][0]))]
    assert filtered(r) == 3
    wl, evs, r, _ = netports(record, workload, tmp_path, events, expr.replace("fd > 2", "fd > 100"), out="trace2")
    assert evs == [] and filtered(r) == 4


def test_context_not_recorded(scry, tmp_path):
    out = tmp_path / "trace"
    p = subprocess.run([scry, "record", "-q", "-o", str(out), "-c", "pid,tid", "-e", "syscall:sendto", "--filter",
                        '$ctx.procname == "x*" && _addr[0] == 2', "--", "true"], capture_output=True, text=True,
                       timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode == 1
    assert p.stderr.splitlines() == [
        "scry: filter: `$ctx.procname` is not recorded, and the filter of syscall_entry_sendto is evaluated in "
        "user space (the kernel filter cannot read `_addr[0]`); scry record: add it with -c"]
    assert not out.exists()


def test_pointer_is_not_the_capture(scry, tmp_path):
    """sendto's addr is lttng-modules' pointer, an integer; its bytes are scry's _addr."""
    p = subprocess.run([scry, "record", "-q", "-o", str(tmp_path / "t"), "-e", "syscall:sendto", "--filter",
                        "addr[2] == 1", "--", "true"], capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 1
    assert p.stderr.splitlines()[0] == \
        "scry: filter: 'addr' is not an array (scry's capture of it is '_addr') (in event syscall_entry_sendto)"
    assert not (tmp_path / "t").exists()


def test_trace_filter_user_space(scry, tmp_path, workload):
    a, b = free_ports()
    out = tmp_path / "trace.out"
    p = subprocess.run([scry, "trace", "-o", str(out), "-e", "trace=sendto,connect", "--filter",
                        f"_addr[2] == {a >> 8} && _addr[3] == {a & 0xff}", "--", workload("netports"), str(a), str(b)],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    wl = json.loads(p.stdout)
    lines = [" ".join(re.sub(r"^\d+ +", "", l).split()) for l in out.read_text().splitlines()]   # -f pid prefix
    addr = f'{{sa_family=AF_INET, sin_port=htons({a}), sin_addr=inet_addr("127.0.0.1")}}'
    assert lines == [f'sendto({wl["s"]}, "alpha", 5, 0, {addr}, 16) = 5',
                     f'sendto({wl["s"]}, "charlie", 7, 0, {addr}, 16) = 7',
                     "+++ exited with 0 +++"]
    p = subprocess.run([scry, "trace", "-c", "--filter", "_addr[3] == 1", "--", "true"], capture_output=True,
                       text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=tmp_path)
    assert p.returncode == 1 and p.stderr.splitlines() == \
        ["scry trace: --filter and -c exclude each other (-c counts in the kernel without events)"]


def no_strnstr(scry, out, *args):
    """scry record as on a kernel without the kfunc bpf_strnstr (SCRY_NO_STRNSTR=1)."""
    return subprocess.run([scry, "record", "-o", str(out), *args], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, env={**os.environ, "SCRY_NO_STRNSTR": "1"})


def test_kernel_cannot_compile(scry, workload, tmp_path):
    """A glob with a star inside needs bpf_strnstr (Linux 6.17): without it the filter of the
    events it applies to is run in user space (said with -v), with the same result as in the
    kernel: exactly the openat of beta-mid-dle.log."""
    expr = 'filename == "*mid*"'
    for way in ("user", "kernel"):
        d = tmp_path / way
        d.mkdir()
        args = ["-v", "-e", "syscall:openat", "--filter", expr, "--", workload("filterwl"), "files", str(d)]
        r = no_strnstr(scry, d / "trace", *args) if way == "user" else \
            subprocess.run([scry, "record", "-o", str(d / "trace"), *args], capture_output=True, text=True,
                           timeout=60, stdin=subprocess.DEVNULL)
        assert r.returncode == 0, r.stderr
        wl = json.loads(r.stdout.strip().splitlines()[-1])
        evs = read_trace(d / "trace").events
        assert [(e["name"], e["fields"]["filename"]) for e in evs] == [("syscall_entry_openat", wl["beta"])]
        said = [l for l in r.stderr.splitlines() if l.startswith("scry: filter: ")]
        if way == "user":
            assert said == ["scry: filter: syscall_entry_openat: evaluated in user space (this kernel cannot run "
                            "its filter: a pattern with a star inside needs the kfunc bpf_strnstr (Linux 6.17))"]
            assert filtered(r) >= 5        # filterwl's other five openat calls, and the loader's
        else:
            assert said == [] and filtered(r) == 0


def test_kernel_cannot_compile_context_not_recorded(scry, workload, tmp_path):
    """... and a context the user-space filter needs must then be recorded: a one-line error,
    nothing written."""
    out = tmp_path / "trace"
    r = no_strnstr(scry, out, "-q", "-c", "pid,tid", "-e", "syscall:openat", "--filter",
                   '$ctx.procname == "x*" && filename == "*mid*"', "--", "true")
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "scry: filter: `$ctx.procname` is not recorded, and the filter of syscall_entry_openat is evaluated in "
        "user space (the kernel filter cannot run here: a pattern with a star inside needs the kfunc bpf_strnstr "
        "(Linux 6.17)); scry record: add it with -c"]
    assert not out.exists()
