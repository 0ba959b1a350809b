"""tests/e2e/test_contexts_lttng.py — the contexts added to reach LTTng's set (issue 14,
item 5): vppid, hostname, the credentials (egid, sgid, suid and the v* ones as the task's
user namespace maps them), time_ns, and the scheduler state (interruptible, preemptible,
need_reschedule, migratable).  Values are compared with what the workload sees from inside
its namespaces (tests/workload/credns.c), what getppid() returned, and what the kernel's
state must be where the event fires (sched_switch runs with preemption off, a local timer
interrupt in hard IRQ context, the wakeup of a SCHED_FIFO task on the waker's CPU sets the
waker's need-resched flag).  Readers: babeltrace2 (no warning) and its Python bindings."""
import json
import os
import subprocess
import sys

import pytest

from conftest import read_trace, run_babeltrace2

CREDS = ["uid", "euid", "suid", "gid", "egid", "sgid", "vuid", "veuid", "vsuid", "vgid", "vegid", "vsgid"]
NEW = ["vppid", "hostname", "interruptible", "preemptible", "need_reschedule", "migratable",
       "egid", "sgid", "suid", "vuid", "veuid", "vsuid", "vgid", "vegid", "vsgid", "time_ns"]


def bt_clean(path):
    bt = run_babeltrace2(path)
    assert bt.returncode == 0 and bt.stderr == "", bt.stderr
    return bt.stdout


@pytest.fixture(scope="module")
def creds(tmp_path_factory, record, workload):
    out = tmp_path_factory.mktemp("cred") / "trace"
    r = record(out, "-e", "syscall:getppid", "-c", ",".join(["pid"] + CREDS + ["hostname", "uts_ns", "user_ns",
                                                                               "time_ns"]),
               cmd=[workload("credns"), 4])
    r.check()
    r.wl = json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][0])
    r.text = bt_clean(r.dir)
    r.trace = read_trace(r.dir)
    return r


def test_credentials_in_a_user_namespace(creds):
    wl = creds.wl
    evs = [e for e in creds.trace.events if e["ctx"]["pid"] == wl["pid"]]
    assert len(evs) == 10, [e["name"] for e in evs]      # 1 + 4 getppid, entry and exit
    # first call: still kernel root, an id the namespace (0..65535 -> 100000..) does not map:
    # the v* contexts say overflowuid/gid, as from_kuid_munged does
    first = evs[0]["ctx"]
    ovf_u = int(open("/proc/sys/kernel/overflowuid").read())
    ovf_g = int(open("/proc/sys/kernel/overflowgid").read())
    assert [first[k] for k in CREDS] == [0] * 6 + [ovf_u] * 3 + [ovf_g] * 3, first
    for e in evs[2:]:
        c = e["ctx"]
        # what the workload sees in its namespace...
        assert (c["vuid"], c["veuid"], c["vsuid"]) == (wl["ruid"], wl["euid"], wl["suid"]) == (21, 22, 23)
        assert (c["vgid"], c["vegid"], c["vsgid"]) == (wl["rgid"], wl["egid"], wl["sgid"]) == (11, 12, 13)
        # ...and the kernel's ids, which the uid_map the parent wrote gives
        assert (c["uid"], c["euid"], c["suid"]) == (100021, 100022, 100023)
        assert (c["gid"], c["egid"], c["sgid"]) == (100011, 100012, 100013)


def test_credentials_of_tasks_sharing_a_cpu(tmp_path, record, workload):
    """The v* ids come from a per-CPU memo of the last credentials seen on the CPU: a task in
    a mapped user namespace and root tasks taking turns on CPU 0 each get their own ids on
    every event (the memo refilled at each change, never another task's)."""
    out = tmp_path / "t"
    loop, cred = workload("getppid_loop"), workload("credns")
    r = record(out, "-e", "syscall:getppid", "-c", "pid,uid,euid,gid,egid,vuid,veuid,vgid,vegid",
               cmd=["taskset", "-c", "0", "sh", "-c",
                    f"{loop} 3000 >/dev/null & {cred} 3000; {loop} 3000 >/dev/null; wait"])
    r.check()
    wl = json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][0])
    evs = read_trace(out).events
    mine = [e["ctx"] for e in evs if e["ctx"]["pid"] == wl["pid"]]
    others = [e["ctx"] for e in evs if e["ctx"]["pid"] != wl["pid"]]
    assert len(mine) == 2 * 3001 and len(others) >= 2 * 6000, (len(mine), len(others))
    ovf_u = int(open("/proc/sys/kernel/overflowuid").read())
    ovf_g = int(open("/proc/sys/kernel/overflowgid").read())
    assert mine[0]["uid"] == 0 and (mine[0]["vuid"], mine[0]["vgid"]) == (ovf_u, ovf_g)
    for c in mine[2:]:
        assert (c["vuid"], c["veuid"], c["vgid"], c["vegid"]) == (21, 22, 11, 12), c
        assert (c["uid"], c["euid"], c["gid"], c["egid"]) == (100021, 100022, 100011, 100012), c
    for c in others:   # root in the initial user namespace: the ids as they are
        assert (c["vuid"], c["veuid"], c["vgid"], c["vegid"]) == (c["uid"], c["euid"], c["gid"], c["egid"]) \
            == (0, 0, 0, 0), c


def test_hostname_and_namespaces(creds):
    wl = creds.wl
    host = os.uname().nodename
    assert wl["hostname"] == "scry-ctx-uts" != host
    evs = [e for e in creds.trace.events if e["ctx"]["pid"] == wl["pid"]]
    for e in evs:
        c = e["ctx"]
        assert c["hostname"] == "scry-ctx-uts"
        assert c["uts_ns"] == wl["uts_ns"] != os.stat("/proc/self/ns/uts").st_ino
        assert c["user_ns"] == wl["user_ns"]
        assert c["time_ns"] == wl["time_ns"] == os.stat("/proc/self/ns/time").st_ino
    # the parent stays in the host's UTS namespace (it records no getppid: no event of it)
    assert 'hostname = "scry-ctx-uts"' in creds.text


def test_metadata_types_are_lttngs(creds):
    """lttng-modules: hostname char[__NEW_UTS_LEN + 1] text, credentials uid_t/gid_t,
    namespaces unsigned int (src/lttng-context-*.c)."""
    meta = open(creds.dir / "kernel" / "metadata").read()
    assert "integer { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _hostname[65];" in meta
    for k in CREDS[2:] + ["time_ns"]:
        assert f"integer {{ size = 32; align = 8; signed = 0; encoding = none; base = 10; }} _{k};" in meta, k


def test_vppid_in_a_pid_namespace(tmp_path, record, workload):
    """unshare --pid --fork: sh is pid 1 of the new namespace (its parent, unshare, is outside:
    vppid 0) and getppid_loop's parent is pid 1 there, which getppid() returns."""
    out = tmp_path / "t"
    r = record(out, "-e", "syscall:getppid", "-c", "pid,ppid,vpid,vppid",
               cmd=["unshare", "--pid", "--fork", "sh", "-c", f"{workload('getppid_loop')} 3; true"])
    r.check()
    bt_clean(out)
    exits = [e for e in read_trace(out).events if e["name"] == "syscall_exit_getppid"]
    loop = [e for e in exits if e["ctx"]["vpid"] == 2]
    init = [e for e in exits if e["ctx"]["vpid"] == 1]      # sh's own getppid (dash asks for $PPID)
    assert len(loop) == 3 and len(exits) == len(loop) + len(init)
    for e in loop:
        c = e["ctx"]
        assert c["vppid"] == e["fields"]["ret"] == 1
        assert c["ppid"] not in (0, 1) and c["ppid"] != c["pid"]
    for e in init:   # its parent is outside the namespace: 0, as getppid() says
        assert e["ctx"]["vppid"] == e["fields"]["ret"] == 0 and e["ctx"]["ppid"] > 1


RTWAKE = r"""
import json, os, time
os.sched_setaffinity(0, {0})
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    os.close(w)
    while os.read(r, 1):
        pass
    os._exit(0)
os.close(r)
time.sleep(0.2)
for i in range(5):
    os.write(w, b"x")
    time.sleep(0.05)
os.close(w)
os.waitpid(pid, 0)
for i in range(20):
    os.getppid()
x = 0
for i in range(3000000):
    x += i
print(json.dumps({"pid": os.getpid(), "child": pid}))
"""


@pytest.fixture(scope="module")
def sched(tmp_path_factory, record):
    out = tmp_path_factory.mktemp("sched") / "trace"
    r = record(out, "-e", "sched:sched_switch,sched:sched_wakeup,irq_vectors:local_timer_entry,syscall:getppid",
               "-c", "pid,tid,interruptible,preemptible,need_reschedule,migratable",
               cmd=[sys.executable, "-c", RTWAKE])
    r.check()
    r.wl = json.loads([l for l in r.stdout.splitlines() if l.startswith("{")][0])
    bt_clean(out)
    r.trace = read_trace(out)
    return r


def test_flags_of_a_syscall(sched):
    sc = [e for e in sched.trace.events if e["name"].endswith("_getppid") and e["ctx"]["pid"] == sched.wl["pid"]]
    assert len(sc) == 40
    for e in sc:   # process context, preemption and interrupts on, migration allowed
        c = e["ctx"]
        assert (c["interruptible"], c["preemptible"], c["migratable"]) == (1, 1, 1), e
    # a task that needs rescheduling is switched out on its way back to user space: the
    # syscall entries right after returning do not all find the flag set
    assert any(e["ctx"]["need_reschedule"] == 0 for e in sc)


def test_flags_in_the_scheduler_and_interrupts(sched):
    evs = sched.trace.events
    sw = [e for e in evs if e["name"] == "sched_switch"]
    assert sw and all(e["ctx"]["preemptible"] == 0 for e in sw)   # __schedule: preemption off
    # the generic tracepoint program runs with migration disabled by BPF itself: not counted.
    # (Other tasks may be switched out inside a migrate_disable() section: only the
    # workload's own switches are sure to be migratable.)
    own = [e for e in sw if e["fields"]["prev_tid"] in (sched.wl["pid"], sched.wl["child"])]
    assert own and all(e["ctx"]["migratable"] == 1 for e in own), [e for e in own if e["ctx"]["migratable"] != 1]
    timer = [e for e in evs if e["name"] == "x86_irq_vectors_local_timer_entry"]
    if not timer:
        pytest.skip("no local timer interrupt hit the workload (tickless CPU)")
    assert all(e["ctx"]["interruptible"] == 0 and e["ctx"]["preemptible"] == 0 for e in timer)


def test_need_reschedule_after_waking_a_fifo_task(sched):
    """The parent writes to the pipe its SCHED_FIFO child reads, both on CPU 0: the wakeup
    preempts the parent (resched_curr), then sched_wakeup fires in the parent's context."""
    wk = [e for e in sched.trace.events if e["name"] == "sched_wakeup" and e["fields"]["tid"] == sched.wl["child"]
          and e["ctx"]["tid"] == sched.wl["pid"] and e["fields"]["target_cpu"] == e["cpu"] == 0]
    assert len(wk) >= 5, len(wk)
    assert all(e["ctx"]["need_reschedule"] == 1 for e in wk), [e["ctx"] for e in wk]


def test_every_new_context_in_record_and_channels(tmp_path, record, workload):
    out = tmp_path / "t"
    r = record(out, "--channel", "a", "-e", "syscall:getppid", "-c", ",".join(NEW),
               "--channel", "b", "-e", "syscall:getppid", "-c", "pid,vppid,hostname",
               cmd=[workload("getppid_loop"), 2])
    r.check()
    bt_clean(out)
    evs = read_trace(out).events
    a = [e for e in evs if list(e["ctx"].keys()) == NEW]
    b = [e for e in evs if list(e["ctx"].keys()) == ["pid", "vppid", "hostname"]]
    assert len(a) == len(b) == 4
    assert all(e["ctx"]["hostname"] == os.uname().nodename for e in a + b)
    assert all(e["ctx"]["vppid"] == os.getpid() or e["ctx"]["vppid"] > 0 for e in a + b)


def test_filter_on_new_contexts(tmp_path, record, workload):
    """$ctx.vuid is not in the kernel filter's reach (a map walk): decided in user space."""
    out = tmp_path / "t"
    r = record(out, "-e", "syscall:getppid", "-c", "pid,vuid,egid", "--filter", "$ctx.vuid == 21 && $ctx.egid != 0",
               cmd=[workload("credns"), 3])
    r.check()
    evs = read_trace(out).events
    assert len(evs) == 6 and all(e["ctx"]["vuid"] == 21 and e["ctx"]["egid"] == 100012 for e in evs)


@pytest.mark.parametrize("bad,near", [("hostnam", "hostname"), ("vppidd", "vppid"), ("need_resched", "need_reschedule"),
                                      ("time-ns", "time_ns")])
def test_misspelt_context(tmp_path, record, bad, near):
    r = record(tmp_path / "t", "-e", "syscall:getppid", "-c", f"pid,{bad}", cmd=["true"])
    assert r.returncode != 0
    err = r.stderr.strip()
    assert "\n" not in err and f"unknown context '{bad}'" in err and f"did you mean '{near}'" in err, err


def test_daemon_add_context(scry, tmp_path, workload):
    from test_daemon import Daemon
    home = tmp_path / "home"
    home.mkdir()
    d = Daemon(scry, tmp_path / "run", home)
    try:
        out = tmp_path / "trace"
        d.run("create", "c", "-o", out)
        d.run("enable-event", "-k", "--syscall", "getppid")
        p = d.run("add-context", "-k", "-t", "vppid", "-t", "hostname", "-t", "vsuid", "-t", "preemptible")
        assert "Kernel context hostname added to all channels" in p.stdout, p.stdout
        p = d.run("add-context", "-k", "-t", "hostnme", check=False)
        assert p.returncode == 1 and p.stderr.count("\n") == 1 and "did you mean 'hostname'" in p.stderr, p.stderr
        d.run("start")
        subprocess.run([workload("getppid_loop"), "2"], check=True, capture_output=True)
        d.run("stop")
        bt_clean(out)
        evs = [e for e in read_trace(out).events if e["name"].endswith("getppid")]
        assert len(evs) >= 4
        for e in evs:
            assert list(e["ctx"].keys()) == ["vppid", "hostname", "preemptible", "vsuid"]
            assert e["ctx"]["hostname"] == os.uname().nodename and e["ctx"]["preemptible"] == 1
    finally:
        d.kill()


def test_every_context_with_the_default_events(tmp_path, scry):
    """`record -a` with every new context and the default events, the statedump among them
    (bench/run.sh's "+ 16 simple contexts" row): the statedump's task iterator writes ~40
    events per thread, once a program past the verifier's million instructions with this
    many contexts.  Its events carry scry's own thread's contexts, as LTTng's carry its
    session daemon's."""
    out = tmp_path / "t"
    p = subprocess.Popen([scry, "record", "-q", "-a", "-o", str(out), "-c", "pid,tid,procname," + ",".join(NEW),
                          "--duration", "0.3"], stderr=subprocess.PIPE, text=True)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    tr = read_trace(out)
    dump = [e for e in tr.events if e["name"] == "lttng_statedump_process_state"]
    assert len(dump) > 20, len(dump)
    for e in dump:
        c = e["ctx"]
        assert (c["pid"], c["procname"], c["vppid"], c["hostname"]) == (p.pid, "scry", os.getpid(), os.uname().nodename), c
    assert {int(e["fields"]["tid"]) for e in dump} >= {2, os.getpid()}   # kthreadd, this test


def test_hostname_lengths(tmp_path, record, workload):
    """The nodename read up to its first word holding a NUL (the rest stored as zeroes): a
    name of 64 characters (every word and the 65th byte read), then, set over it in the same
    namespace, one of exactly 8 (its NUL in the second word) and one of 1."""
    long = "h" * 31 + "-" + "x" * 31 + "z"
    loop = workload("getppid_loop")
    script = f"for h in {long} abcdefgh q; do hostname $h && {loop} 1 || exit 1; done"
    r = record(tmp_path / "t", "-e", "syscall:getppid", "-c", "pid,hostname",
               cmd=["unshare", "-u", "sh", "-c", script])
    r.check()
    pids = [json.loads(l)["pid"] for l in r.stdout.splitlines() if l.startswith("{")]
    assert len(pids) == 3, r.stdout
    evs = read_trace(r.dir).events
    for pid, name in zip(pids, [long, "abcdefgh", "q"]):
        got = [e["ctx"]["hostname"] for e in evs if e["ctx"]["pid"] == pid]
        assert got == [name, name], (pid, got)
