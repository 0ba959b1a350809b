"""tests/e2e/test_trackers.py — the trackers of issue 4 with `scry record -a`: --track-pid
(the processes and their future children), --track-vpid, --track-uid, --track-gid,
--track-cgroup (cgroup v2 directory, descendants included), and their combination (AND).
Each test runs tracked and untracked copies of tests/workload/filterwl.c (`fork N`: waits
for "go", forks N children that call getppid 3 times each, calls getppid once) side by side
and checks the recorded getppid events, per process, with their values."""
import glob
import json
import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from conftest import held_prog_ids, read_trace, run_babeltrace2, scry_progs

CGROUP2 = Path("/sys/fs/cgroup/unified")
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
CTX = "pid,tid,procname,vpid,uid,gid"


class Forker:
    """filterwl fork N, started (optionally under a prefix: setpriv, unshare) and waiting."""
    def __init__(self, workload, n, prefix=(), cgroup=None):
        self.p = subprocess.Popen([*prefix, workload("filterwl"), "fork", str(n)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.vpid = json.loads(self.p.stdout.readline())["pid"]   # as seen in its namespace
        self.pid = self.p.pid if not any("unshare" in a for a in prefix) else None
        if cgroup is not None:
            (cgroup / "cgroup.procs").write_text(f"{self.p.pid}\n")

    def go(self):
        self.p.stdin.write("go\n")
        self.p.stdin.flush()

    def finish(self):
        out = json.loads(self.p.stdout.readline())
        assert self.p.wait(timeout=30) == 0
        self.children = out["children"]
        return self

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def system_wide(scry, out, *args, env=None, ctx=CTX):
    """`scry record -a` (or -p, when given) in the background, returned once its streams exist
    (the programs are attached right after); --duration bounds it, SIGINT stops it.  ctx: the
    contexts (None: the defaults)."""
    p = subprocess.Popen([scry, "record", "-q", *([] if "-p" in args else ["-a"]), "--duration", "30",
                          "-o", str(out), "-e", "syscall:getppid", *(["-c", ctx] if ctx else []), *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, **(env or {})})
    deadline = time.time() + 20
    while not glob.glob(f"{out}/kernel/channel0_*"):
        assert p.poll() is None, p.communicate()[1]
        assert time.time() < deadline, "scry record -a did not start"
        time.sleep(0.02)
    time.sleep(0.2)
    return p


def run(scry, tmp_path, args, forkers, env=None):
    """Record -a with args while every forker runs; the events, by pid."""
    out = tmp_path / "trace"
    try:
        rec = system_wide(scry, out, *args, env=env)
        for f in forkers:
            f.go()
        for f in forkers:
            f.finish()
        rec.send_signal(signal.SIGINT)
        _, err = rec.communicate(timeout=60)
        assert rec.returncode == 0, err
    finally:
        for f in forkers:
            f.kill()
    evs = read_trace(out).events
    by_pid = {}
    for e in evs:
        by_pid.setdefault(e["pid"], []).append(e)
    return evs, by_pid


def check_tree(by_pid, f, with_children=True):
    """Exactly f's getppid calls: the parent's one, 3 per child (returning the parent's pid)."""
    ev = by_pid.get(f.pid, [])
    assert [(e["name"], e["tid"]) for e in ev] == [("syscall_entry_getppid", f.pid), ("syscall_exit_getppid", f.pid)]
    for c in f.children:
        ev = by_pid.get(c, [])
        if not with_children:
            assert ev == [], f"child {c} recorded"
            continue
        assert [e["name"] for e in ev] == ["syscall_entry_getppid", "syscall_exit_getppid"] * 3, c
        assert {e["fields"]["ret"] for e in ev if e["name"] == "syscall_exit_getppid"} == {f.pid}
        assert all(e["procname"] == "filterwl" and e["tid"] == c for e in ev)


def absent(by_pid, *forkers):
    for f in forkers:
        for pid in [f.pid, *f.children]:
            assert pid not in by_pid, f"untracked process {pid} recorded"


def test_track_pid_and_children(scry, workload, tmp_path):
    a, b, c = Forker(workload, 3), Forker(workload, 2), Forker(workload, 1)
    evs, by_pid = run(scry, tmp_path, ["--track-pid", f"{a.pid},{c.pid}"], [a, b, c])
    check_tree(by_pid, a)
    check_tree(by_pid, c)
    absent(by_pid, b)
    assert set(by_pid) == {a.pid, c.pid, *a.children, *c.children}


def test_track_uid(scry, workload, tmp_path):
    a, b = Forker(workload, 2, prefix=NOBODY), Forker(workload, 2)
    assert a.pid == a.p.pid   # setpriv execs
    evs, by_pid = run(scry, tmp_path, ["--track-uid", "nobody"], [a, b])
    check_tree(by_pid, a)
    absent(by_pid, b)
    assert {e["ctx"]["uid"] for e in evs} == {65534}


def test_track_gid(scry, workload, tmp_path):
    # the group only: the uid stays root's
    a = Forker(workload, 2, prefix=["setpriv", "--regid=65534", "--clear-groups"])
    b = Forker(workload, 2)
    evs, by_pid = run(scry, tmp_path, ["--track-gid", "4242,65534"], [a, b])
    check_tree(by_pid, a)
    absent(by_pid, b)
    assert {e["ctx"]["gid"] for e in evs} == {65534}
    assert {e["ctx"]["uid"] for e in by_pid[a.pid]} == {0}


@pytest.mark.parametrize("env", [{"SCRY_RET_THUNK": "0"}, {"SCRY_RET_THUNK": "1"}], ids=["prefilter", "memo"])
@pytest.mark.parametrize("kind", ["uid", "gid"])
def test_track_bloom_neighbours(scry, workload, tmp_path, kind, env):
    """The uid and gid trackers' bloom word (bit id % 64) says no for most processes before
    the memo where current comes from the helper (SCRY_RET_THUNK=0: as on a host without
    return thunks), yes for an id 64 away from a tracked one, whose process the map then
    rejects: exactly the tracked id's process is recorded, either way (SCRY_RET_THUNK=1: the
    memo first, the bit before the map)."""
    flag = "--reuid" if kind == "uid" else "--regid"
    a = Forker(workload, 2, prefix=["setpriv", f"{flag}=65534", "--clear-groups"])
    b = Forker(workload, 2, prefix=["setpriv", f"{flag}={65534 - 64}", "--clear-groups"])
    c = Forker(workload, 1)
    evs, by_pid = run(scry, tmp_path, [f"--track-{kind}", "65534"], [a, b, c], env=env)
    check_tree(by_pid, a)
    absent(by_pid, b, c)
    assert {e["ctx"][kind] for e in evs} == {65534}


@pytest.fixture
def cgroups():
    """A temporary cgroup v2 directory with a sub-cgroup; removed afterwards."""
    if not (CGROUP2 / "cgroup.procs").exists():
        pytest.skip(f"no cgroup v2 hierarchy at {CGROUP2}")
    top = CGROUP2 / f"scry-test-{os.getpid()}-{os.urandom(3).hex()}"
    sub = top / "sub"
    top.mkdir()
    sub.mkdir()
    yield top, sub
    for d in (sub, top):
        for _ in range(100):
            try:
                d.rmdir()
                break
            except OSError:          # a process not reaped yet
                time.sleep(0.05)


def test_track_cgroup_descendants(scry, workload, tmp_path, cgroups):
    top, sub = cgroups
    a = Forker(workload, 2, cgroup=top)
    c = Forker(workload, 1, cgroup=sub)
    b = Forker(workload, 2)
    evs, by_pid = run(scry, tmp_path, ["--track-cgroup", str(top)], [a, b, c])
    check_tree(by_pid, a)
    check_tree(by_pid, c)      # in a descendant cgroup
    absent(by_pid, b)
    assert set(by_pid) == {a.pid, c.pid, *a.children, *c.children}


def test_track_cgroup_sub_only(scry, workload, tmp_path, cgroups):
    top, sub = cgroups
    a = Forker(workload, 1, cgroup=top)
    c = Forker(workload, 2, cgroup=sub)
    evs, by_pid = run(scry, tmp_path, ["--track-cgroup", str(sub)], [a, c])
    check_tree(by_pid, c)
    absent(by_pid, a)          # the parent cgroup is not below the tracked one
    assert set(by_pid) == {c.pid, *c.children}


def test_track_uid_and_cgroup(scry, workload, tmp_path, cgroups):
    """Trackers combine with AND: nobody in the cgroup only."""
    top, sub = cgroups
    both = Forker(workload, 2, prefix=NOBODY, cgroup=sub)
    root_in = Forker(workload, 1, cgroup=top)
    nobody_out = Forker(workload, 1, prefix=NOBODY)
    root_out = Forker(workload, 1)
    evs, by_pid = run(scry, tmp_path, ["--track-uid", "65534", "--track-cgroup", str(top)],
                      [both, root_in, nobody_out, root_out])
    check_tree(by_pid, both)
    absent(by_pid, root_in, nobody_out, root_out)
    assert set(by_pid) == {both.pid, *both.children}


def test_track_vpid(scry, workload, tmp_path):
    """In the initial pid namespace the vpid is the pid."""
    a, b = Forker(workload, 0), Forker(workload, 0)
    assert a.vpid == a.pid
    evs, by_pid = run(scry, tmp_path, ["--track-vpid", str(a.pid)], [a, b])
    check_tree(by_pid, a)
    absent(by_pid, b)
    assert {e["ctx"]["vpid"] for e in by_pid[a.pid]} == {a.pid}


def test_track_vpid_namespaced(scry, workload, tmp_path):
    """unshare --pid --fork: the workload is vpid 1 in its namespace; --track-vpid 1 records it
    (with its real pid), not a concurrent workload of the initial namespace."""
    a = Forker(workload, 0, prefix=["unshare", "--pid", "--fork"])
    b = Forker(workload, 0)
    assert a.vpid == 1
    evs, by_pid = run(scry, tmp_path, ["--track-vpid", "1"], [a, b])
    absent(by_pid, b)
    mine = [e for e in evs if e["procname"] == "filterwl"]
    assert [e["name"] for e in mine] == ["syscall_entry_getppid", "syscall_exit_getppid"]
    assert all(e["ctx"]["vpid"] == 1 and e["pid"] not in (1, b.pid) for e in mine)
    assert mine[1]["fields"]["ret"] == 0          # getppid of a namespace's init


def test_track_vpid_children_not_by_number(scry, workload, tmp_path):
    """A tracked process's child C is followed as that process, not as "vpid C": a process of
    another pid namespace whose vpid is C (ns_last_pid set there) is not recorded."""
    a = Forker(workload, 1)
    out = tmp_path / "trace"
    b = None
    try:
        rec = system_wide(scry, out, "--track-vpid", str(a.pid))
        a.go()
        a.finish()
        c = a.children[0]
        b = Forker(workload, 0, prefix=["unshare", "--pid", "--fork", "sh", "-c",
                                        f'echo {c - 1} > /proc/sys/kernel/ns_last_pid; "$0" "$@"; true'])
        assert b.vpid == c
        b.go()
        b.finish()
        rec.send_signal(signal.SIGINT)
        _, err = rec.communicate(timeout=60)
        assert rec.returncode == 0, err
    finally:
        for f in (a, b):
            if f:
                f.kill()
    evs = read_trace(out).events
    by_pid = {}
    for e in evs:
        by_pid.setdefault(e["pid"], []).append(e)
    check_tree(by_pid, a)
    assert set(by_pid) == {a.pid, c}


def test_trace_track_uid(scry, tmp_path):
    """scry trace with a tracker: only the calls made as nobody (after setpriv's setresuid)."""
    out = tmp_path / "trace.out"
    p = subprocess.run([scry, "trace", "-f", "-o", str(out), "--track-uid", "nobody", "--", "sh", "-c",
                        f"{' '.join(NOBODY)} /bin/echo nobody; /bin/echo root"],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "nobody\nroot\n"
    lines = out.read_text().splitlines()
    assert len({l.split()[0] for l in lines}) == 1, "calls of another process shown"
    calls = [" ".join(l.split()[1:]) for l in lines]
    assert 'write(1, "nobody\\n", 7) = 7' in calls
    assert not any("root" in c for c in calls)
    assert any(c.startswith('execve("/bin/echo", ["/bin/echo", "nobody"]') for c in calls)
    assert calls[-1] == "+++ exited with 0 +++"


# --- the per-CPU memo (struct scry_memo): syscall programs and filter fronts know the
# current task from the saved registers' address, checked against the memo's task; the
# tracker's answer is kept while the uid stays.  uidswap runs pinned to CPU 0.

class UidSwap(Forker):
    """tests/workload/uidswap.c, started and waiting for "go"."""
    def __init__(self, workload, *args):
        self.p = subprocess.Popen([workload("uidswap"), *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.pid = json.loads(self.p.stdout.readline())["pid"]

    def finish(self):
        self.out = json.loads(self.p.stdout.readline())
        assert self.p.wait(timeout=30) == 0
        return self


MEMO_WAYS = {
    "tracker": (["--track-uid", "65534"], None),
    # the answer from the memo alone, as where a helper's return is thunked (no prefilter)
    "tracker-memo": (["--track-uid", "65534"], {"SCRY_RET_THUNK": "1"}),
    "filter": (["--filter", "$ctx.uid == 65534"], None),
    # the front's current from the memo, as where a helper's return is thunked (SRSO)
    "filter-memo": (["--filter", "$ctx.uid == 65534"], {"SCRY_RET_THUNK": "1"}),
    "tracker-without-kptr": (["--track-uid", "65534"], {"SCRY_NO_KPTR": "1"}),
    "tracker-through-task": (["--track-uid", "65534"], {"SCRY_NO_MEMO_GEN": "1"}),
    # a front that lets every event through fills the memo's identity, not its answer
    "tracker-behind-front": (["--track-uid", "65534", "--filter", "$ctx.tid != 0"], None),
}


@pytest.mark.parametrize("way", MEMO_WAYS)
def test_memo_uid_changes(scry, workload, tmp_path, way):
    """One task, root -> nobody -> root -> nobody: exactly the 2 + 4 getppid calls made as
    nobody are recorded (the memo's answer does not outlive the uid it was given for)."""
    args, env = MEMO_WAYS[way]
    w = UidSwap(workload, "swap")
    evs, by_pid = run(scry, tmp_path, args, [w], env=env)
    assert set(by_pid) == {w.pid}
    assert [e["name"] for e in by_pid[w.pid]] == ["syscall_entry_getppid", "syscall_exit_getppid"] * 6
    assert {e["ctx"]["uid"] for e in evs} == {65534}


@pytest.mark.parametrize("way", MEMO_WAYS)
def test_memo_stack_reuse(scry, workload, tmp_path, way):
    """Children made one after the other on CPU 0 (by a parent on CPU 1), odd ones as nobody:
    a child mostly gets its reaped sibling's kernel stack (the same saved-registers address)
    in another task_struct, and meets the memo its sibling left; exactly the odd children's
    calls are recorded."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("needs 2 CPUs")
    args, env = MEMO_WAYS[way]
    w = UidSwap(workload, "children", "24", "5")
    evs, by_pid = run(scry, tmp_path, args, [w], env=env)
    kids = w.out["children"]
    assert len(kids) == 24
    odd = {k for i, k in enumerate(kids, 1) if i % 2}
    assert set(by_pid) == odd
    for k in odd:
        assert [e["name"] for e in by_pid[k]] == ["syscall_entry_getppid", "syscall_exit_getppid"] * 5, k
        assert {e["ctx"]["uid"] for e in by_pid[k]} == {65534}


@pytest.mark.parametrize("env", [{"SCRY_RET_THUNK": "1"}, {"SCRY_RET_THUNK": "1", "SCRY_NO_MEMO_GEN": "1"},
                                 {"SCRY_RET_THUNK": "0"}], ids=["by-generation", "through-task", "helper"])
def test_memo_system_wide_stack_reuse(scry, workload, tmp_path, env):
    """System-wide, the header's task comes from the memo (where a helper's return is
    thunked, SCRY_RET_THUNK=1; else from the helper, SCRY_RET_THUNK=0): children made one after the other
    on CPU 0 mostly get their reaped sibling's kernel stack (the same saved-registers
    address), yet each child's 5 getppid calls carry its own pid, tid, ppid, vpid, vtid and
    vppid, no other's (the memo proved by the exits' generation, or, SCRY_NO_MEMO_GEN, by
    the task's stack and exit state)."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("needs 2 CPUs")
    w = UidSwap(workload, "children", "24", "5")
    evs, by_pid = run(scry, tmp_path, ["-c", "pid,tid,procname,ppid,vpid,vtid,vppid"], [w], env=env)
    kids = w.out["children"]
    assert len(kids) == 24
    for k in kids:
        ev = by_pid.get(k, [])
        assert [e["name"] for e in ev] == ["syscall_entry_getppid", "syscall_exit_getppid"] * 5, k
        for e in ev:
            c = e["ctx"]
            assert (e["tid"], c["vpid"], c["vtid"], c["ppid"], c["vppid"]) == (k, k, k, w.pid, w.pid), e
            assert e["procname"] == "uidswap"
        assert {e["fields"]["ret"] for e in ev if e["name"] == "syscall_exit_getppid"} == {w.pid}


def held_programs(pid):
    """The names of the BPF programs process pid holds."""
    ids = held_prog_ids(pid)
    return {p["name"] for p in scry_progs() if p["id"] in ids}


@pytest.mark.parametrize("ctx", [CTX, None, "pid,tid"], ids=["contexts", "default-contexts", "trace-contexts"])
@pytest.mark.parametrize("args,env,made", [
    ([], None, "all"),                                        # record -a: its own dispatchers
    (["--filter", "$ctx.tid != 0"], None, "plain"),           # behind a front: the plain ones
    (["--track-uid", "0"], None, "trk"),                      # a tracker: the trackers' own
    (["--track-uid", "0", "--filter", "$ctx.tid != 0"], None, "plain"),
    ([], {"SCRY_NO_MEMO_GEN": "1"}, "plain"),                 # the memo proved through the task
    (["-p", "SELF"], None, "trk"),                            # the pid tracker's follow set
    (["--track-uid", "0"], {"SCRY_NO_MEMO_GEN": "1"}, "plain"),
])
def test_dispatchers_made_for_system_wide(scry, workload, tmp_path, args, env, made, ctx):
    """record -a without tracker or front puts the dispatchers compiled for its mode on the
    hooks (scry_sys_*_all_btf: the general target check is not in them), with a tracker
    those compiled for the trackers' mode (scry_sys_*_trk_btf), either in its copy made for
    the default contexts when they are the session's (scry_sys_*_{all,trk}_dflt_btf) or in
    the one made for scry trace's (pid and tid: scry_sys_*_{all,trk}_pt_btf), else (a front
    before them, the memo proved through the task) the plain ones; every way, every getppid
    call of a loop is recorded under its own pid and tid (and name, when recorded)."""
    if ctx is None and made != "plain":
        made += "_dflt"
    if ctx == "pid,tid" and made != "plain":
        made += "_pt"
    rec = system_wide(scry, tmp_path / "trace", *[str(os.getpid()) if a == "SELF" else a for a in args], env=env,
                      ctx=ctx)
    try:
        names = {n for n in held_programs(rec.pid) if n.startswith("scry_sys_")}
        p = subprocess.run([workload("getppid_loop"), "1000"], capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, p.stderr
        rec.send_signal(signal.SIGINT)
        _, err = rec.communicate(timeout=60)
        assert rec.returncode == 0, err
    finally:
        rec.kill()
    kinds = {k: {f"scry_sys_enter{s}_btf", f"scry_sys_exit{s}_btf"}
             for k, s in (("all", "_all"), ("trk", "_trk"), ("all_dflt", "_all_dflt"), ("trk_dflt", "_trk_dflt"),
                          ("all_pt", "_all_pt"), ("trk_pt", "_trk_pt"), ("plain", ""))}
    assert kinds[made] <= names, names
    assert not names & set().union(*(v for k, v in kinds.items() if k != made)), names
    loop_pid = json.loads(p.stdout)["pid"]
    evs = read_trace(tmp_path / "trace").events
    mine = [e for e in evs if e["pid"] == loop_pid]
    if ctx != "pid,tid":
        assert [e for e in evs if e["procname"] == "getppid_loop"] == mine
    else:
        assert all(e.get("procname") is None and "procname" not in e["ctx"] for e in evs), evs[:1]
    assert Counter(e["name"] for e in mine) == {"syscall_entry_getppid": 1000, "syscall_exit_getppid": 1000}
    assert {e["tid"] for e in mine} == {loop_pid}


def test_memo_command_every_call(record, workload, tmp_path):
    """`record -- cmd` follows the command through the memo, which the tracepoint programs
    (sched_switch and the others of the default set) answer for other tasks in between:
    every one of 100000 getppid calls is recorded, entry and exit, none lost (babeltrace2)."""
    rec = record(tmp_path / "t", cmd=[workload("getppid_loop"), "100000"]).check()
    pid = json.loads(rec.stdout)["pid"]
    bt = run_babeltrace2(tmp_path / "t")
    assert bt.returncode == 0, bt.stderr
    mine = Counter(l.split(": {")[0].split()[-1] for l in bt.stdout.splitlines() if f"pid = {pid}," in l)
    assert mine["syscall_entry_getppid"] == 100000
    assert mine["syscall_exit_getppid"] == 100000
