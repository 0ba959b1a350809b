"""tests/e2e/test_fault_strings.py — syscall strings in pages not mapped yet at entry (issue
3).  A child right after fork has none of the program's or glibc's rodata mapped, so its
strings cannot be read at sys_enter; scry writes such an entry at the syscall's exit (an
execve's before the new image replaces the old, or from the new image without
sched_prepare_exec) with its strings read again.  tests/workload/fault_strings.c makes
those calls: symlink (two strings), fstat on a fresh fd (glibc's "") and execve with
literal path and argv; an entry still waiting when recording stops is counted lost."""
import json
import os
import re
import subprocess

import pytest

from conftest import read_trace

# the kernel side reads execve's strings before the old image goes (sched_prepare_exec),
# or, forced as on kernels without that tracepoint, from the new image
EXEC_PATHS = {"prepare_exec": {}, "new_image": {"SCRY_NO_PREPARE_EXEC": "1"}}


def scry_trace(scry, tmp_path, cmd, env=None, opts=()):
    out = tmp_path / "trace.out"
    p = subprocess.run([scry, "trace", "-f", "-o", str(out), *opts, "--", *map(str, cmd)],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                       env={**os.environ, **(env or {})})
    assert p.returncode == 0, p.stderr
    return p, out.read_text().splitlines()


def merged(lines):
    """(pid, line) of every line, a call split by other tasks' lines ("X <unfinished ...>",
    "<... NAME resumed>Y") joined back into one."""
    out, open_ = [], {}
    for l in lines:
        m = re.match(r"^(\d+) +(.*)$", l)
        pid, text = int(m[1]), m[2]
        if text.endswith(" <unfinished ...>"):
            open_[pid] = text[:-len(" <unfinished ...>")]
            continue
        r = re.match(r"^<\.\.\. [a-z_0-9]+ resumed>(.*)$", text)
        if r and pid in open_:
            text = open_.pop(pid) + r[1]
        out.append((pid, text))
    return out


def run_workload(scry, tmp_path, workload, env):
    data = tmp_path / "data"
    data.mkdir()
    p, lines = scry_trace(scry, tmp_path, [workload("fault_strings"), data], env=env)
    seen = json.loads(p.stdout.strip().splitlines()[-1])
    assert seen["status"] == 0
    return seen, lines


@pytest.mark.parametrize("path", EXEC_PATHS)
def test_trace_child_strings(scry, tmp_path, workload, path):
    seen, lines = run_workload(scry, tmp_path, workload, EXEC_PATHS[path])
    child = [l for pid, l in merged(lines) if pid == seen["child"]]
    assert f'symlink("scry-link-target", "{seen["link"]}") = 0' in [re.sub(r" +=", " =", l) for l in child], child
    assert any(re.fullmatch(rf'newfstatat\({seen["fd"]}, "", \{{st_mode=S_IFREG\|0[0-7]+, st_size=0, \.\.\.\}}, '
                            r"AT_EMPTY_PATH\) += 0", l) for l in child), child
    execs = [l for l in child if l.startswith("execve(")]
    assert len(execs) == 1 and re.fullmatch(
        rf'execve\("/bin/true", \["true", "x"\], 0x[0-9a-f]+ /\* {seen["envc"]} vars \*/\) += 0', execs[0]), execs
    assert not [l for l in lines if "(fault)" in l]


@pytest.mark.parametrize("capture", [[], ["--capture", "env"]], ids=["default", "capture_env"])
@pytest.mark.parametrize("path", EXEC_PATHS)
def test_record_child_strings(scry, record, workload, tmp_path, path, capture):
    data = tmp_path / "data"
    data.mkdir()
    out = tmp_path / "trace"
    env = {**os.environ, **EXEC_PATHS[path]}
    p = subprocess.run([scry, "record", "-q", "-o", str(out), "-e", "syscall:*", *capture, "--",
                        workload("fault_strings"), data], capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL, env=env)
    assert p.returncode == 0, p.stderr
    assert " 0 discarded" in p.stderr, p.stderr
    seen = json.loads(p.stdout.strip().splitlines()[-1])
    tr = read_trace(out)
    ev = [e for e in tr.events if e["pid"] == seen["child"] and e["name"].startswith("syscall_")]
    names = [e["name"] for e in ev]

    def entry_exit(name, **match):
        i = next(i for i, e in enumerate(ev) if e["name"] == f"syscall_entry_{name}" and
                 all(e["fields"][k] == v for k, v in match.items()))
        # the deferred entry comes right before its exit, stamped when the call entered
        assert names[i + 1] == f"syscall_exit_{name}" and ev[i]["ts"] <= ev[i + 1]["ts"]
        return ev[i]["fields"], ev[i + 1]["fields"]

    en, ex = entry_exit("symlink")
    assert en["oldname"] == "scry-link-target" and en["newname"] == seen["link"] and ex["ret"] == 0
    en, ex = entry_exit("newfstatat", dfd=seen["fd"])
    assert en["filename"] == "" and en["flag"] == 0x1000 and ex["ret"] == 0
    en, ex = entry_exit("execve")
    assert en["filename"] == "/bin/true" and ex["ret"] == 0
    assert en["_argv"] == ["true", "x"] and en["_argv_count"] == 2
    assert en["_envp_count"] == seen["envc"]
    if capture:
        assert len(en["_envp"]) == seen["envc"] and en["envp"] > 0x1000   # every string
    else:
        assert isinstance(en["envp"], int) and en["envp"] > 0x1000     # the pointer alone
    execve = next(e for e in ev if e["name"] == "syscall_entry_execve")
    assert execve["procname"] == "fault_strings"   # the name before exec
    strings = [v for e in tr.events for v in e["fields"].values() if isinstance(v, str)]
    assert "(fault)" not in strings


def test_repeat_no_fault_no_stale(scry, tmp_path, record):
    """50 short programs under one trace: every string read, none left from another event."""
    f = tmp_path / "data.txt"
    f.write_text("hi\n")
    loop = f"for i in $(seq 50); do cat {f} >/dev/null; /bin/true; done"
    _, lines = scry_trace(scry, tmp_path, ["sh", "-c", loop], opts=["-s", "256"])
    ls = [l for _, l in merged(lines)]
    assert not [l for l in ls if "(fault)" in l]
    empty = [l for l in ls if l.startswith("newfstatat(") and "AT_EMPTY_PATH" in l]
    assert len(empty) > 100 and all(re.match(r'newfstatat\(\d+, "", ', l) for l in empty)
    vars_re = r"0x[0-9a-f]+ /\* \d+ vars \*/"
    cat = [l for l in ls if re.fullmatch(rf'execve\("[^"]*/cat", \["cat", "{f}"\], {vars_re}\) += 0', l)]
    true = [l for l in ls if re.fullmatch(rf'execve\("/bin/true", \["/bin/true"\], {vars_re}\) += 0', l)]
    assert len(cat) == 50 and len(true) == 50

    out = tmp_path / "rec"
    record(out, "-e", "syscall:*", cmd=["sh", "-c", loop]).check()
    tr = read_trace(out)
    strings = [v for e in tr.events for v in e["fields"].values() if isinstance(v, str)]
    assert "(fault)" not in strings
    stats = [e["fields"] for e in tr.events if e["name"] == "syscall_entry_newfstatat"]
    assert {s["filename"] for s in stats if s["flag"] == 0x1000} == {""}
    execs = [e["fields"] for e in tr.events if e["name"] == "syscall_entry_execve"]
    assert sum(x["filename"].endswith("/cat") and x["_argv"] == ["cat", str(f)] for x in execs) == 50
    assert sum(x["filename"] == "/bin/true" and x["_argv"] == ["/bin/true"] for x in execs) == 50


def test_entry_waiting_at_stop_is_counted(scry, workload, tmp_path):
    """A call that blocks with an entry kept for its exit when recording stops: lost, and
    counted as such (the workload kills it after scry has stopped)."""
    # exactly the one entry: a run that also drops an event of its own (a program preempted
    # by the other process's on its CPU, counted as well; seen once in CI) is run again, once
    for attempt in range(2):
        data = tmp_path / f"data{attempt}"
        data.mkdir()
        out = tmp_path / f"trace{attempt}"
        p = subprocess.run([scry, "record", "-q", "-o", str(out), "--duration", "1", "--",
                            workload("fault_strings"), "-b", data], capture_output=True, text=True,
                           timeout=120, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, p.stderr
        seen = json.loads(p.stdout.strip().splitlines()[-1])
        if re.search(r"events recorded, 1 discarded", p.stderr):
            break
    assert re.search(r"events recorded, 1 discarded", p.stderr), p.stderr
    tr = read_trace(out)
    child = [e for e in tr.events if e["pid"] == seen["child"]]
    assert child and not [e for e in child if e["name"] == "syscall_entry_openat"]
