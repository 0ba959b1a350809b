"""tests/e2e/test_lanes.py — scry's programs verified on two CPUs at once (src/kernel/lanes.c,
issue 12's start-up): the skeleton's copy of the BPF object creates the maps, two more copies
(lanes) load the programs, sys_enter's side and sys_exit's side, each with its own BTF object
in the kernel and the skeleton's maps.  Checked: while `scry trace` runs, its sys_enter and
sys_exit programs belong to two BTF objects and use the same maps (the same ring map, the same
syscall table); with SCRY_ONE_LANE=1 one BTF object, and so when every CPU is taken by other
runnable tasks (a second lane would only wait for one); and both ways trace the same calls with
the same results.  SCRY_TWO_LANES=1 makes the lanes whatever the machine's load."""
import json
import re
import os
import subprocess

from conftest import held_prog_ids


# scry trace follows its command: the dispatchers made for the trackers' mode and its contexts
ENTER, EXIT = "scry_sys_enter_trk_pt_btf", "scry_sys_exit_trk_pt_btf"


def progs_by_name(old=(), pid=None):
    """The sys_enter and sys_exit programs loaded, by name, but those whose ids are in old (a
    program of an earlier run may linger a moment after its process ended); with pid, only
    that process's (other tracers may run on the machine)."""
    out = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True, check=True)
    mine = held_prog_ids(pid) if pid else None
    found = {}
    for p in json.loads(out.stdout or "[]"):
        if p.get("name") in (ENTER, EXIT) and p["id"] not in old and (mine is None or p["id"] in mine):
            found.setdefault(p["name"], []).append(p)
    return found


def map_ids(prog_id):
    """The ids of a program's maps; None if the program is gone."""
    out = subprocess.run(["bpftool", "prog", "show", "id", str(prog_id), "-j"], capture_output=True, text=True)
    return set(json.loads(out.stdout).get("map_ids", [])) if out.returncode == 0 else None


def map_names():
    out = subprocess.run(["bpftool", "map", "show", "-j"], capture_output=True, text=True, check=True)
    return {m["id"]: m.get("name") for m in json.loads(out.stdout or "[]")}


def programs_while_tracing(scry, env):
    """The sys_enter and sys_exit programs of a running `scry trace` (read once its command
    runs: its programs are then attached), with their maps' ids and the names of the maps then
    loaded.  The programs of earlier runs linger a moment after their process ended (their
    links are freed after an RCU grace period), several of each name: all are left out, and
    a program gone between two readings makes the reading taken again."""
    old = {p["id"] for ps in progs_by_name().values() for p in ps}
    p = subprocess.Popen([scry, "trace", "-o", os.devnull, "--", "/usr/bin/python3", "-c",
                          "import sys; print('ready', flush=True); sys.stdin.readline()"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, **env))
    try:
        assert p.stdout.readline() == "ready\n", p.stderr.read()
        for _ in range(50):
            found = progs_by_name(old, p.pid)
            progs = {n: ps[0] for n, ps in found.items() if len(ps) == 1}
            maps = {n: map_ids(pr["id"]) for n, pr in progs.items()}
            if len(progs) == 2 and None not in maps.values():
                break
            subprocess.run(["sleep", "0.05"])
        names = map_names()
        assert p.poll() is None, f"scry trace ended early: {p.stderr.read()}"
        p.stdin.write("\n")
        p.stdin.flush()
        assert p.wait(timeout=30) == 0, p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert set(progs) == {ENTER, EXIT} and None not in maps.values(), found
    return progs, maps, names


def test_two_lanes_share_the_maps(scry):
    progs, maps, names = programs_while_tracing(scry, {"SCRY_TWO_LANES": "1"})
    assert progs[ENTER]["btf_id"] != progs[EXIT]["btf_id"], progs
    # the same kernel maps, not copies: the rings' map and the syscall table by id
    shared = {names.get(i) for i in maps[ENTER] & maps[EXIT]}
    assert {"rings", "syscalls"} <= shared, (maps, shared)


def test_one_lane(scry):
    progs, _, _ = programs_while_tracing(scry, {"SCRY_ONE_LANE": "1"})
    assert progs[ENTER]["btf_id"] == progs[EXIT]["btf_id"], progs


def test_one_lane_when_the_cpus_are_busy(scry):
    """One more spinning process than this process's CPUs: the programs are verified in one
    lane (the skeleton's BTF object).  (SCRY_TWO_LANES=1 makes two whatever the load:
    test_two_lanes_share_the_maps.)"""
    spin = [subprocess.Popen(["/usr/bin/python3", "-c", "while True: pass"])
            for _ in range(len(os.sched_getaffinity(0)) + 1)]
    try:
        subprocess.run(["sleep", "0.2"])
        progs, _, _ = programs_while_tracing(scry, {})
        assert progs[ENTER]["btf_id"] == progs[EXIT]["btf_id"], progs
    finally:
        for p in spin:
            p.kill()
            p.wait()


def test_same_calls_either_way(scry, tmp_path):
    """The same workload's calls and results, traced with two lanes and with one."""
    target = tmp_path / "f"
    code = f"import os; fd = os.open({str(target)!r}, os.O_CREAT | os.O_WRONLY, 0o600); " \
           "os.write(fd, b'x' * 123); os.lseek(fd, 7, 0); os.close(fd)"
    seen = []
    for env in ({"SCRY_TWO_LANES": "1"}, {"SCRY_ONE_LANE": "1"}):
        out = tmp_path / f"out{len(seen)}"
        p = subprocess.run([scry, "trace", "-o", str(out), "-e", "trace=openat,write,lseek,close", "--",
                            "/usr/bin/python3", "-c", code], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, **env))
        assert p.returncode == 0, p.stderr
        lines = [ln for ln in out.read_text().splitlines() if str(target) in ln or "write(" in ln
                 or "lseek(" in ln]
        seen.append(lines)
        target.unlink()
    assert seen[0] == seen[1]
    text = "\n".join(seen[0])
    assert any(ln.startswith(f'openat(AT_FDCWD, "{target}", O_WRONLY|O_CREAT|O_CLOEXEC, 0600)')
               and ln.endswith("= 3") for ln in seen[0]), text
    assert any(ln.startswith("write(3, ") and ln.endswith("= 123") for ln in seen[0]), text
    assert any(ln.startswith("lseek(3, 7, SEEK_SET)") and ln.endswith("= 7") for ln in seen[0]), text


def test_a_program_without_a_lane_fails_the_build(tmp_path):
    """scripts/gen-lanes.sh makes lanes.c's table from the SCRY_LANE marks: the real sources give
    every program of the skeleton its lane (as many in lane 1 as the sources mark so), and a
    source whose mark is taken away fails, naming the program."""
    from conftest import ROOT
    bpf = ROOT / "src" / "bpf"
    srcs = [bpf / "scry.bpf.c"] + sorted(bpf.glob("*.bpf.h"))
    gen = [str(ROOT / "scripts" / "gen-lanes.sh"), str(ROOT / "build" / "scry.skel.h")]
    ok = subprocess.run(gen + [str(s) for s in srcs], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    lanes = dict(re.findall(r'\{ "(\w+)", ([01]) \}', ok.stdout))
    assert lanes[ENTER] == "1" and lanes[EXIT] == "0"
    marked1 = sum(s.read_text().count("SCRY_LANE(1)") for s in srcs)
    assert sum(v == "1" for v in lanes.values()) == marked1 and set(lanes.values()) == {"0", "1"}
    unmarked = tmp_path / "uprobes.bpf.h"
    unmarked.write_text((bpf / "uprobes.bpf.h").read_text().replace('SEC("usdt") SCRY_LANE(1)', 'SEC("usdt")'))
    bad = subprocess.run(gen + [str(unmarked if s.name == "uprobes.bpf.h" else s) for s in srcs],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and bad.stdout == ""
    assert "programs in no lane" in bad.stderr and "scry_usdt" in bad.stderr
