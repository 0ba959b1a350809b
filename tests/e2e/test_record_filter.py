"""tests/e2e/test_record_filter.py — `scry record --filter EXPR` (issue 4): the expression is
decided in the kernel, and exactly the events of a known workload (tests/workload/filterwl.c)
for which it is true are recorded, with their values (filenames, flags, fds, byte counts,
return values); LTTng's semantics: an event that lacks a referenced field is never recorded.
Tracepoint fields (__data_loc strings, char arrays, integers) with -a; `scry trace --filter`
shows the calls whose entry passed; bad expressions are refused before anything is loaded."""
import json
import os
import shutil
import signal
import re
import subprocess
import time

import pytest

from conftest import read_trace, wait_started

EVENTS = "syscall:openat,syscall:write"
O_WRONLY, O_CREAT, O_EXCL, O_TRUNC, O_APPEND = 0o1, 0o100, 0o200, 0o1000, 0o2000
ENOENT, EBADF, EEXIST, EISDIR = 2, 9, 17, 21


def model(wl, d):
    """What filterwl did (after the dynamic loader), as the events an unfiltered recording of
    openat and write would hold: (name, fields), in order."""
    opens = [
        (wl["alpha"], O_WRONLY | O_CREAT | O_TRUNC, 0o644, wl["fds"][0]),
        (wl["beta"], O_WRONLY | O_CREAT | O_APPEND, 0o600, wl["fds"][1]),
        ("/etc/hostname", 0, 0, wl["fds"][2]),
        ("/nonexistent-scry/zzz", 0, 0, -ENOENT),
        (wl["alpha"], O_WRONLY | O_CREAT | O_EXCL, 0o644, -EEXIST),
        (d, O_WRONLY, 0, -EISDIR),
    ]
    assert wl["errno"] == [ENOENT, EEXIST, EISDIR]
    evs = []
    for fn, flags, mode, ret in opens:
        evs.append(("syscall_entry_openat", dict(dfd=-100, filename=fn, flags=flags, mode=mode)))
        evs.append(("syscall_exit_openat", dict(ret=ret)))
    for fd, count, ret, err in wl["writes"]:
        assert ret == (count if not err else -1)
        evs.append(("syscall_entry_write", dict(fd=fd, count=count)))
        evs.append(("syscall_exit_write", dict(ret=count if not err else -err)))
    evs.append(("syscall_entry_write", dict(fd=1, count=wl["line_len"])))   # the JSON line
    evs.append(("syscall_exit_write", dict(ret=wl["line_len"])))
    return evs


def project(name, fields):
    """The recorded payload reduced to the model's keys (buf is an address)."""
    if name == "syscall_entry_openat":
        return {k: fields[k] for k in ("dfd", "filename", "flags", "mode")}
    if name == "syscall_entry_write":
        return {k: fields[k] for k in ("fd", "count")}
    return {"ret": fields["ret"]}


def record_wl(record, workload, tmp_path, expr, events=EVENTS, dirname="files", out="trace"):
    d = tmp_path / dirname
    d.mkdir(exist_ok=True)
    r = record(tmp_path / out, "-e", events, "--filter", expr, cmd=[workload("filterwl"), "files", d])
    r.check()
    line = r.stdout.strip().splitlines()[-1]
    wl = json.loads(line)
    wl["line_len"] = len(line) + 1
    tr = read_trace(r.dir)
    assert r.summary()["events"] == len(tr.events)
    assert all(e["pid"] == wl["pid"] and e["procname"] == "filterwl" for e in tr.events)
    got = [(e["name"], project(e["name"], e["fields"])) for e in tr.events]
    return wl, str(d), got


def has(f, *keys):
    return all(k in f for k in keys)


# (expression with {d} = the workload's directory, Python predicate on (name, fields), expected count)
CASES = {
    "glob_prefix": ('filename == "{d}/*"',
                    lambda n, f, d: has(f, "filename") and f["filename"].startswith(d + "/"), 3),
    "fd_and_count": ("fd == 10 && count > 100",
                     lambda n, f, d: has(f, "fd", "count") and f["fd"] == 10 and f["count"] > 100, 2),
    "ret_negative": ("ret < 0", lambda n, f, d: has(f, "ret") and f["ret"] < 0, 5),
    "glob_middle": ('filename == "*beta*mid*.l*g"',
                    lambda n, f, d: has(f, "filename") and f["filename"].endswith("/beta-mid-dle.log"), 1),
    "glob_both_ends": ('filename == "*host*"',
                       lambda n, f, d: has(f, "filename") and "host" in f["filename"], 1),
    "glob_suffix_and_not_equal": ('filename == "{d}/*" && filename != "*.log"',
                                  lambda n, f, d: has(f, "filename") and f["filename"] == d + "/alpha.txt", 2),
    "int_not_equal": ("fd == 11 && count != 300",
                      lambda n, f, d: has(f, "fd", "count") and f["fd"] == 11 and f["count"] != 300, 1),
    "or_two_fields": ("count == 80 || fd == 10",
                      lambda n, f, d: has(f, "fd", "count") and (f["count"] == 80 or f["fd"] == 10), 4),
    "bitand_creat": ("flags & 0x40 == 0x40",
                     lambda n, f, d: has(f, "flags") and f["flags"] & O_CREAT == O_CREAT, 3),
    "bitand_or": ("flags & (0x400 | 0x200) == 0x400 || flags & 0x80 != 0",
                  lambda n, f, d: has(f, "flags") and ((f["flags"] & 0o3000) == O_APPEND or f["flags"] & O_EXCL), 2),
    "xor_exact": ("(flags ^ 0x241) == 0 && mode == 0644",
                  lambda n, f, d: has(f, "flags") and f["flags"] == O_WRONLY | O_CREAT | O_TRUNC, 1),
    "bitnot": ("~flags & 1 == 0 && dfd == -100",
               lambda n, f, d: has(f, "flags") and f["flags"] & O_WRONLY, 4),
    "shift_right": ("(count >> 4 == 9 || count >> 6 == 0x4) && fd != 1",
                    lambda n, f, d: has(f, "count") and (f["count"] >> 4 == 9 or f["count"] >> 6 == 4)
                    and f["fd"] != 1, 2),
    # a shift count outside [0, 63] makes the expression false: write(99, ...) is not recorded
    "shift_left_range": ("1 << fd != 0 && fd > 5",
                         lambda n, f, d: has(f, "fd") and 5 < f["fd"] <= 63, 5),
    "shift_left_value": ("1 << fd == 0x800", lambda n, f, d: has(f, "fd") and f["fd"] == 11, 2),
    "nothing": ('filename == "/no/such/*" || (flags & 0x7ff00000) != 0 || mode == 0777',
                lambda n, f, d: False, 0),
}


@pytest.mark.parametrize("case", list(CASES))
def test_filter_records_exactly_the_matches(record, workload, tmp_path, case):
    expr, pred, n = CASES[case]
    d = str(tmp_path / "files")
    wl, d, got = record_wl(record, workload, tmp_path, expr.replace("{d}", d))
    want = [(name, f) for name, f in model(wl, d) if pred(name, f, d)]
    assert len(want) == n, "the test's expectation is off"
    assert got == want, expr


def test_missing_field_never_recorded(record, workload, tmp_path):
    """`filename` is only in the openat entries: no exit, no write is recorded at all; the
    entries carry all their fields."""
    wl, d, got = record_wl(record, workload, tmp_path, 'filename == "/etc/hostname" || filename == "/nonexistent-scry/*"',
                           events="syscall:openat,syscall:write,syscall:close")
    assert got == [("syscall_entry_openat", dict(dfd=-100, filename="/etc/hostname", flags=0, mode=0)),
                   ("syscall_entry_openat", dict(dfd=-100, filename="/nonexistent-scry/zzz", flags=0, mode=0))]


def test_glob_escaped_star(record, workload, tmp_path):
    r"""`\*` is a literal star: the directory is named `a*b`."""
    wl, d, got = record_wl(record, workload, tmp_path, r'filename == "*/a\*b/alpha.t*"', dirname="a*b")
    assert d.endswith("/a*b")
    alpha = [(n, f) for n, f in model(wl, d) if n == "syscall_entry_openat" and f["filename"] == d + "/alpha.txt"]
    assert len(alpha) == 2 and got == alpha
    wl, d, got = record_wl(record, workload, tmp_path, r'filename == "*/a\*/*"', dirname="a*b", out="trace2")
    assert got == []          # unescaped, `*/a*/*` would match every file of the directory


def test_contexts_in_the_kernel(record, workload, tmp_path):
    """Integer contexts of the recording process's credentials and namespaces."""
    ns = os.stat("/proc/self/ns/pid").st_ino
    mnt = os.stat("/proc/self/ns/mnt").st_ino
    nice = os.getpriority(os.PRIO_PROCESS, 0)
    expr = (f"fd == 11 && $ctx.tid == $ctx.pid && $ctx.vpid == $ctx.pid && $ctx.ppid > 1 && "
            f"$ctx.uid == {os.getuid()} && $ctx.euid == {os.geteuid()} && $ctx.gid == {os.getgid()} && "
            f"$ctx.nice == {nice} && $ctx.prio == {20 + nice} && $ctx.pid_ns == {ns} && "
            f"$ctx.mnt_ns == {mnt} && $ctx.cpu_id < {os.cpu_count()}")
    wl, d, got = record_wl(record, workload, tmp_path, expr)
    assert got == [("syscall_entry_write", dict(fd=11, count=300)), ("syscall_entry_write", dict(fd=11, count=80))]
    for i, wrong in enumerate([f"$ctx.uid == {os.getuid() + 1}", f"$ctx.pid_ns != {ns}", "$ctx.vtid != $ctx.tid"]):
        wl, d, got = record_wl(record, workload, tmp_path, f"fd == 11 && {wrong}", dirname=f"f{i}", out=f"t{i}")
        assert got == [], wrong


def test_context_filter_applies_to_every_kind(record, workload, tmp_path):
    """A context is in every event: $ctx.procname keeps the workload's entries and exits of both
    kinds, unchanged, and drops those of sh and dd (dd also writes 300 bytes)."""
    d = tmp_path / "files"
    d.mkdir()
    wl_cmd = f"{workload('filterwl')} files {d}; dd if=/dev/zero of=/dev/null bs=300 count=1 2>/dev/null"
    r = record(tmp_path / "trace", "-e", EVENTS, "--filter", '$ctx.procname == "filterwl" && $ctx.pid > 1',
               cmd=["sh", "-c", wl_cmd])
    r.check()
    line = r.stdout.strip().splitlines()[-1]
    wl = json.loads(line)
    wl["line_len"] = len(line) + 1
    tr = read_trace(r.dir)
    assert {(e["pid"], e["procname"]) for e in tr.events} == {(wl["pid"], "filterwl")}
    got = [(e["name"], project(e["name"], e["fields"])) for e in tr.events]
    # the dynamic loader's opens come first: everything from the workload's first open on
    first = got.index(model(wl, str(d))[0])
    assert got[first:] == model(wl, str(d))
    loader = got[:first]
    assert [n for n, _ in loader] == ["syscall_entry_openat", "syscall_exit_openat"] * (len(loader) // 2)
    assert all(f["ret"] >= 0 for n, f in loader if n == "syscall_exit_openat")


def test_context_and_field(record, workload, tmp_path):
    """$ctx.procname == / != combined with a payload field: the workload's write of 300 bytes
    or dd's, never both."""
    d = tmp_path / "files"
    d.mkdir()
    cmd = ["sh", "-c", f"{workload('filterwl')} files {d} >/dev/null; "
           "dd if=/dev/zero of=/dev/null bs=300 count=1 2>/dev/null"]
    got = {}
    for op in ("==", "!="):
        out = tmp_path / f"trace{len(got)}"
        r = record(out, "-e", EVENTS, "--filter", f'$ctx.procname {op} "filterwl" && count == 300', cmd=cmd)
        r.check()
        got[op] = [(e["name"], e["procname"], e["fields"]["fd"], e["fields"]["count"]) for e in read_trace(out).events]
    assert got["=="] == [("syscall_entry_write", "filterwl", 11, 300)]
    assert got["!="] == [("syscall_entry_write", "dd", 1, 300)]


# ---- tracepoints -------------------------------------------------------------------------

def test_tracepoint_data_loc_string(record, tmp_path):
    """sched_process_exec's `filename` (__data_loc) under a glob: the two execs of /bin/true,
    not /bin/false's, nor sh's."""
    r = record(tmp_path / "trace", "-e", "sched:sched_process_exec", "-c", "pid,tid,procname",
               "--filter", 'filename == "*/true" && tid == old_tid && tid > 0',
               cmd=["sh", "-c", "/bin/true; /bin/false; /bin/true; exit 0"])
    r.check()
    evs = read_trace(r.dir).events
    assert [(e["name"], e["fields"]["filename"], e["procname"]) for e in evs] == \
        [("sched_process_exec", "/bin/true", "true")] * 2
    assert len({e["pid"] for e in evs}) == 2
    assert all(e["fields"]["tid"] == e["pid"] == e["fields"]["old_tid"] for e in evs)


class SystemWide:
    """`scry record -a` in the background: started, then stopped with SIGINT once the
    workloads are done (--duration bounds it should the test go wrong)."""
    def __init__(self, scry, out, *args):
        self.out = out
        self.p = subprocess.Popen([scry, "record", "-q", "-a", "--duration", "30", "-o", str(out), *args],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_started(self.p)

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        _, err = self.p.communicate(timeout=60)
        assert self.p.returncode == 0, err
        return read_trace(self.out)


def test_tracepoint_exec_system_wide(scry, tmp_path):
    rec = SystemWide(scry, tmp_path / "trace", "-e", "sched:sched_process_exec", "--filter", 'filename == "*/true"')
    t = subprocess.Popen(["/bin/true"])
    f = subprocess.Popen(["/bin/false"])
    t.wait()
    f.wait()
    evs = rec.stop().events
    assert all(e["fields"]["filename"].endswith("/true") for e in evs), evs
    mine = [(e["pid"], e["fields"]["filename"]) for e in evs if e["pid"] in (t.pid, f.pid)]
    assert mine == [(t.pid, "/bin/true")]


@pytest.fixture
def ticker(workload, tmp_path):
    """The ticker under a name of its own (other test runs may have tickers too)."""
    comm = f"tk{os.getpid() % 100000}{os.urandom(3).hex()}"
    exe = tmp_path / comm
    shutil.copy(workload("ticker"), exe)
    p = subprocess.Popen([exe, "60"], stdout=subprocess.PIPE, text=True)
    assert json.loads(p.stdout.readline())["pid"] == p.pid
    p.comm = comm
    yield p
    p.kill()
    p.wait()


@pytest.mark.parametrize("expr,side", [('next_comm == "{comm}"', "next"),
                                       ('prev_tid == {pid} && prev_comm == "tk*" && prev_prio >= 0', "prev")])
def test_tracepoint_sched_switch(scry, tmp_path, ticker, expr, side):
    """char[16] and integer fields of sched_switch: every switch to (or from) the ticker, which
    sleeps every 20 ms, and no other."""
    rec = SystemWide(scry, tmp_path / "trace", "-e", "sched:sched_switch", "--filter",
                     expr.format(pid=ticker.pid, comm=ticker.comm))
    time.sleep(0.5)
    evs = rec.stop().events
    assert len(evs) >= 10, len(evs)
    assert {(e["fields"][f"{side}_comm"], e["fields"][f"{side}_tid"]) for e in evs} == {(ticker.comm, ticker.pid)}
    if side == "prev":
        assert {(e["pid"], e["procname"]) for e in evs} == {(ticker.pid, ticker.comm)}   # switching away
    else:
        assert ticker.pid not in {e["fields"]["prev_tid"] for e in evs}


# ---- scry trace --filter -----------------------------------------------------------------

def trace_lines(scry, tmp_path, expr, cmd):
    out = tmp_path / "trace.out"
    p = subprocess.run([scry, "trace", "-o", str(out), "--filter", expr, "--", *map(str, cmd)],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    # the pid prefix (-f), the alignment
    lines = [" ".join(re.sub(r"^\d+ +", "", l).split()) for l in out.read_text().splitlines()]
    return p, lines


def test_trace_filter_echo(scry, tmp_path):
    p, lines = trace_lines(scry, tmp_path, "fd == 1 && count > 4", ["sh", "-c", "echo hi; echo hello"])
    assert p.returncode == 0, p.stderr
    assert p.stdout == "hi\nhello\n"
    # the process exit is always shown, as strace does
    assert lines == ['write(1, "hello\\n", 6) = 6', '+++ exited with 0 +++']


def test_trace_filter_entry_decides(scry, tmp_path, workload):
    """The entry decides: the failing call's line shows its error."""
    d = tmp_path / "files"
    d.mkdir()
    p, lines = trace_lines(scry, tmp_path, 'filename == "*/alpha.txt"', [workload("filterwl"), "files", d])
    assert p.returncode == 0, p.stderr
    assert lines == [f'openat(AT_FDCWD, "{d}/alpha.txt", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3',
                     f'openat(AT_FDCWD, "{d}/alpha.txt", O_WRONLY|O_CREAT|O_EXCL, 0644) = -1 EEXIST (File exists)',
                     '+++ exited with 0 +++']


# ---- bad input ---------------------------------------------------------------------------

@pytest.mark.parametrize("args,msg,caret", [
    (["--filter", "ret < 0)"], "scry: filter: unexpected ')'", (7, "^")),
    (["--filter", "nosuch == 1"], "scry: filter: no selected event has a field 'nosuch'", (0, "^~~~~~")),
    (["--filter", 'filename == 3'], "scry: filter: cannot compare a string with an integer", None),
    (["-e", "syscall:openat", "--filter", "count > 1"], "scry: filter: no selected event has a field 'count'", (0, "^~~~~")),
    # fields of different events: no event can match (an error, as in `scry view --filter`)
    (["--filter", 'filename == "/etc/host*" || ret == 101'],
     "scry: filter: no selected event has both 'filename' and 'ret'", (28, "^~~")),
    (["--track-uid", "nosuchuser"], "scry: unknown user 'nosuchuser'", None),
    (["--track-gid", "nosuchgroup"], "scry: unknown group 'nosuchgroup'", None),
    (["--track-cgroup", "/tmp"], "scry: --track-cgroup '/tmp': not a cgroup v2 directory", None),
    (["--track-pid", "12x"], "scry: invalid --track-pid list '12x'", None),
    (["--filter", "a == 1", "--filter", "b == 2"], "scry: --filter given twice", None),
])
def test_record_bad_input(scry, tmp_path, args, msg, caret):
    out = tmp_path / "trace"
    p = subprocess.run([scry, "record", "-q", "-o", str(out), *args, "--", "true"], capture_output=True,
                       text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode == 1, p.stderr
    assert not out.exists(), "a trace directory was created"
    lines = p.stderr.splitlines()
    assert lines[0].startswith(msg), p.stderr
    if caret:
        expr = args[args.index("--filter") + 1]
        assert lines[1:] == [expr, " " * caret[0] + caret[1]]
    elif "filter" not in msg:
        assert len(lines) == 1, p.stderr


def test_trace_bad_input(scry, tmp_path):
    p = subprocess.run([scry, "trace", "-c", "--filter", "fd == 1", "--", "true"], capture_output=True, text=True,
                       timeout=60, stdin=subprocess.DEVNULL, cwd=tmp_path)
    assert p.returncode == 1 and p.stderr.splitlines() == \
        ["scry trace: --filter and -c exclude each other (-c counts in the kernel without events)"]
    p = subprocess.run([scry, "trace", "--filter", "fd == ", "--", "true"], capture_output=True, text=True,
                       timeout=60, stdin=subprocess.DEVNULL, cwd=tmp_path)
    assert p.returncode == 1 and "unexpected end of expression" in p.stderr and p.stdout == ""
    assert list(tmp_path.iterdir()) == []
