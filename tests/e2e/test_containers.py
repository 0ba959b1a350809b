"""tests/e2e/test_containers.py — containers as their cgroups name them (src/util/cgroup.h):
cgroups made by hand under the cgroup v2 mount as docker (docker-ID.scope) and
systemd-nspawn (machine-NAME.scope, the name systemd-escaped) make theirs, workloads run in
them and beside them: the metrics' `container` label (short id, machine name, "" outside),
--track-container by id prefix and by name (only those containers' processes counted),
`scry top`'s CONTAINER column, bad prefixes refused in one line, and `$ctx.container` in
filters (with the cgroup_id context)."""
import os
import re
import secrets
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest


def cgroup2():
    for line in Path("/proc/self/mounts").read_text().splitlines():
        f = line.split()
        if f[2] == "cgroup2":
            return Path(f[1])
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rmdir_soon(d):
    """A cgroup directory removed once its last task has left it (within 5 s)."""
    for _ in range(50):
        try:
            d.rmdir()
            return
        except OSError:
            time.sleep(0.1)


@pytest.fixture
def containers():
    """(docker id, docker cgroup, machine cgroup, run): two containers' cgroups under a slice of
    our own; run(cgroup, argv) starts argv in that cgroup (None: outside); all removed after."""
    root = cgroup2()
    if root is None or not (root / "cgroup.procs").exists():
        pytest.skip("no cgroup v2 mount")
    cid = secrets.token_hex(32)
    top = root / f"scrytest-{os.getpid()}.slice"
    docker = top / f"docker-{cid}.scope"
    machine = top / "machine-web\\x2d1.scope"
    for d in (top, docker, machine):
        d.mkdir()
    procs = []

    def run(cg, argv):
        pre = f"echo $$ > '{cg}/cgroup.procs'; " if cg else ""
        p = subprocess.Popen(["sh", "-c", pre + 'exec "$@"', "sh"] + argv, stdout=subprocess.DEVNULL)
        procs.append(p)
        return p
    try:
        yield cid, docker, machine, run
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        for d in (docker, machine, top):
            rmdir_soon(d)


def test_label_and_track(scry, workload, containers):
    cid, docker, machine, run = containers
    port = free_port()
    s = subprocess.Popen([scry, "serve", "--counter", "c_total:container,comm", "--listen", f"127.0.0.1:{port}",
                          "--duration", "4", "--track-container", f"{cid[:7]},web-1"],
                         stderr=subprocess.PIPE, text=True)
    err = ""
    while "scry: serving" not in err:
        line = s.stderr.readline()
        assert line, err
        err += line
    for cg, n in ((docker, 111), (machine, 77), (None, 55)):
        assert run(cg, [workload("getppid_loop"), str(n)]).wait(timeout=30) == 0
    time.sleep(0.3)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    s.wait(timeout=30)
    got = {m[1]: int(m[2]) for m in re.finditer(r'^c_total\{container="([^"]*)",comm="getppid_loop"\} (\d+)$',
                                                text, re.M)}
    # getppid N times, plus the calls of its own start (the same in both)
    assert set(got) == {cid[:12], "web-1"}, text
    assert got[cid[:12]] - got["web-1"] == 111 - 77, got
    assert not re.search(r'^c_total\{container=""', text, re.M), text   # nothing outside them


def test_top_column(scry, workload, containers):
    cid, docker, machine, run = containers
    p = run(docker, [workload("sleeper"), "40", "50000"])
    out = subprocess.run([scry, "top", "-n", "2", "-d", "0.7", "--track-container", cid[:12]],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    last = out.stdout.split("scry top: ")[-1].splitlines()
    assert last[1].split()[8] == "CONTAINER", last
    rows = [l.split() for l in last[2:] if l.strip()]
    assert [r[0] for r in rows] == [str(p.pid)], last
    assert rows[0][1] == "sleeper" and rows[0][8] == cid[:12], last


def test_bad_prefixes(scry, containers):
    cid, docker, machine, run = containers
    (docker.parent / f"docker-{cid[:10]}{'0' * 54}.scope").mkdir()   # a second id with the same start
    try:
        for arg, msg in ((cid[:10], f"'{cid[:10]}' is the start of more than one container's id"),
                         ("nosuchcontainer", "no container's id starts with 'nosuchcontainer'"),
                         (",", "--track-container: empty list")):
            r = subprocess.run([scry, "top", "-n", "1", "--track-container", arg], capture_output=True, text=True,
                               timeout=30)
            assert r.returncode != 0 and msg in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    finally:
        (docker.parent / f"docker-{cid[:10]}{'0' * 54}.scope").rmdir()


def test_filter_ctx_container(scry, workload, containers, bt2_read, tmp_path):
    """--filter on $ctx.container (resolved at start to the container's cgroup ids, tested in
    the kernel): `==` keeps exactly the getppid calls made in the docker cgroup, `!=` (within
    the test's slice) exactly the machine's; -c cgroup_id records the cgroup's id (its
    directory's inode on cgroup2), and scry view names its container."""
    cid, docker, machine, run = containers
    recs = {}
    for op, pat in (("==", f"{cid[:8]}*"), ("!=", cid)):
        out = tmp_path / ("eq" if op == "==" else "ne")
        only = ["--track-cgroup", str(docker.parent)] if op == "!=" else []   # not the machine's others
        ctx = "pid,procname,container" if op == "==" else "pid,procname,cgroup_id"   # the same context
        p = subprocess.Popen([scry, "record", "-a", "-e", "syscall:getppid", "-c", ctx,
                              "--filter", f'$ctx.container {op} "{pat}"', "-o", str(out)] + only,
                             stderr=subprocess.PIPE, text=True)
        line = p.stderr.readline()
        assert "recording to" in line, line + p.stderr.read()
        recs[op] = (p, out)
    pids = {}
    for cg, n in ((docker, 111), (machine, 77), (None, 55)):
        w = run(cg, [workload("getppid_loop"), str(n)])
        assert w.wait(timeout=30) == 0
        pids[n] = w.pid
    for p, _ in recs.values():
        p.send_signal(2)
        assert p.wait(timeout=30) == 0, p.stderr.read()
    entries = {}
    for op, (_, out) in recs.items():
        evs = [e for e in bt2_read(out).events if e["name"] == "syscall_entry_getppid"]
        entries[op] = {pid: sum(1 for e in evs if e["pid"] == pid) for pid in pids.values()}
        if op == "==":
            assert {e["pid"] for e in evs} == {pids[111]}, {e["pid"] for e in evs}
            assert {e["ctx"]["cgroup_id"] for e in evs} == {os.stat(docker).st_ino}
        else:
            assert {e["pid"] for e in evs} == {pids[77]}, {e["pid"] for e in evs}
            assert {e["ctx"]["cgroup_id"] for e in evs} == {os.stat(machine).st_ino}
    # scry view names the cgroup_id by the trace's env (scry_cgroup_ID = "CONTAINER ID")
    import json
    eq = recs["=="][1]
    js = [json.loads(l) for l in subprocess.run([scry, "view", "--json", str(eq)], capture_output=True, text=True,
                                                 timeout=30, check=True).stdout.splitlines()]
    assert js and all(j["context"]["container"] == cid and j["context"]["cgroup_id"] == os.stat(docker).st_ino
                      for j in js), js[:2]
    text = subprocess.run([scry, "view", str(eq)], capture_output=True, text=True, timeout=30, check=True).stdout
    assert text.count(f'cgroup_id = {os.stat(docker).st_ino}, container = "{cid}" }}') == len(js), text[:400]
    ne = [json.loads(l) for l in subprocess.run([scry, "view", "--json", str(recs["!="][1])], capture_output=True,
                                                 text=True, timeout=30, check=True).stdout.splitlines()]
    assert ne
    assert all(j["context"].get("container") == "web-1" for j in ne)
    # scry view --filter on $ctx.container: by the trace's own names
    def view_n(trace, expr):
        return len(subprocess.run([scry, "view", "--filter", expr, str(trace)], capture_output=True, text=True,
                                  timeout=30, check=True).stdout.splitlines())
    assert view_n(eq, f'$ctx.container == "{cid[:6]}*"') == len(js)
    assert view_n(eq, f'$ctx.container != "{cid}"') == 0
    assert view_n(recs["!="][1], '$ctx.container == "web-1"') == len(ne)
    # the same program (each shell's own getppid was before it moved in), N calls more or fewer:
    # the two filters lost none
    assert entries["=="][pids[111]] - entries["!="][pids[77]] == 111 - 77, entries


def test_filter_ctx_container_subcgroups(scry, workload, containers, bt2_read, tmp_path):
    """$ctx.container matches a task in any cgroup below the container's (the kernel compares
    the task's ancestor cgroup at the container's depth), also cgroups made after the start:
    two sub-cgroups made inside the docker container once both recordings run, getppid loops
    in them, in the container's own cgroup and outside: `== "ID*"` keeps exactly the three
    loops' calls, `== "web-1"` (the other container) none of them."""
    cid, docker, machine, run = containers
    recs = {}
    # user: a filter the kernel cannot run whole (string arrays), evaluated in user space,
    # where the ancestor is found from the recorded cgroup id
    for name, ev, expr in (("docker", "getppid", f'$ctx.container == "{cid[:8]}*"'),
                           ("machine", "getppid", '$ctx.container == "web-1"'),
                           ("user", "execve", f'$ctx.container == "{cid[:8]}*" && _argv[1] != "x"')):
        out = tmp_path / name
        p = subprocess.Popen([scry, "record", "-a", "-e", f"syscall:{ev}", "-c", "pid,procname,cgroup_id",
                              "--filter", expr, "-o", str(out)],
                             stderr=subprocess.PIPE, text=True)
        line = p.stderr.readline()
        assert "recording to" in line, line + p.stderr.read()
        recs[name] = (p, out)
    sub = docker / "sub"
    deep = sub / "deeper"
    made = []
    try:
        for d in (sub, deep):   # after the start: no id of theirs was known then
            d.mkdir()
            made.append(d)
        loops = {}
        for cg, n in ((deep, 93), (sub, 71), (docker, 45), (None, 55)):
            w = run(cg, [workload("getppid_loop"), str(n)])
            assert w.wait(timeout=30) == 0
            loops[w.pid] = (n, cg and os.stat(cg).st_ino)
        for p, _ in recs.values():
            p.send_signal(2)
            assert p.wait(timeout=30) == 0, p.stderr.read()
    finally:
        for d in reversed(made):
            rmdir_soon(d)
    got = {}
    for name, (_, out) in recs.items():
        evs = [e for e in bt2_read(out).events if e["name"] in ("syscall_entry_getppid", "syscall_entry_execve")]
        got[name] = {}
        for e in evs:
            got[name].setdefault(e["pid"], set()).add(e["ctx"]["cgroup_id"])
            got[name][e["pid"], "n"] = got[name].get((e["pid"], "n"), 0) + 1
    inside = {pid: v for pid, v in loops.items() if v[1] is not None}
    assert {k for k in got["docker"] if not isinstance(k, tuple)} == set(inside), got["docker"]
    for pid, (n, cg) in inside.items():
        assert got["docker"][pid, "n"] == n, (cg, got["docker"])      # every call, no other
        assert got["docker"][pid] == {cg}, (cg, got["docker"][pid])   # its own cgroup's id
    assert not any(k in loops or (isinstance(k, tuple) and k[0] in loops) for k in got["machine"]), got["machine"]
    # each loop's exec (its shell moved itself in first): the three inside, by their cgroup
    assert {k for k in got["user"] if not isinstance(k, tuple)} == set(inside), got["user"]
    assert all(got["user"][pid, "n"] == 1 and got["user"][pid] == {cg} for pid, (n, cg) in inside.items()), got


def test_filter_ctx_container_refused(scry, containers, tmp_path):
    cid, docker, machine, run = containers
    for expr, msg in (('$ctx.container == "nosuchcontainer*"', "no container's id matches 'nosuchcontainer*'"),
                      ("$ctx.container == 1", "$ctx.container compares only with == or != against a string")):
        r = subprocess.run([scry, "record", "-a", "-e", "syscall:getppid", "--filter", expr, "-o", str(tmp_path / "t")],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode != 0 and msg in r.stderr, r.stderr



def test_profile_track_container(scry, workload, containers, tmp_path, bt2_read):
    """scry profile -a --track-container: the samples of the container's busy loop only, none
    of the same loop run beside it under another name; --track-cgroup the same by directory
    (nothing runs in the machine's cgroup: no sample of either)."""
    cid, docker, machine, run = containers
    outsider = tmp_path / "outsider"
    shutil.copy(workload("hotspots"), outsider)
    inside = run(docker, [workload("hotspots"), "20000"])
    outside = run(None, [str(outsider), "20000"])
    seen = {}
    for opt, val in (("--track-container", cid[:10]), ("--track-cgroup", str(machine)), ("-a", None)):
        out = tmp_path / f"{opt.strip('-')}.folded"
        args = ["-a"] + ([opt, val] if val else [])
        ctf = ["--ctf", str(tmp_path / "ctf")] if opt == "--track-container" else []
        p = subprocess.run([scry, "profile", "-F", "199", "--duration", "1.5", *args, "-o", str(out), *ctf],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        counts = {}
        for line in out.read_text().splitlines():
            stack, n = line.rsplit(" ", 1)
            counts[stack.split(";")[0]] = counts.get(stack.split(";")[0], 0) + int(n)
        seen[opt] = counts
    assert inside.poll() is None and outside.poll() is None, "the loops ended early"
    assert seen["-a"].get("hotspots", 0) >= 5 and seen["-a"].get("outsider", 0) >= 5, seen["-a"]
    assert set(seen["--track-container"]) == {"hotspots"} and seen["--track-container"]["hotspots"] >= 5, seen
    assert "hotspots" not in seen["--track-cgroup"] and "outsider" not in seen["--track-cgroup"], seen
    # the samples' CTF trace (--ctf) is the container's alone too
    names = {e["procname"] for e in bt2_read(tmp_path / "ctf").events if e["name"] == "profile_cpu_clock"}
    assert names == {"hotspots"}, names
