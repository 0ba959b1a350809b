"""tests/e2e/test_launch.py — the command scry starts is recorded from its execve on (issue
17, "the launcher leaks in"): scry's own calls between the fork and the exec (signal
resets, closing its pipes) are in no trace, no count and no line.  The child stops itself
before scry follows it and is let go with SIGCONT, so the next thing it does is the execve."""
import re
import subprocess

COUNT_RE = re.compile(r"^\s*[0-9.]+\s+[0-9.]+\s+\d+\s+(\d+)\s+(?:(\d+)\s+)?(\w+)$")


def test_record_starts_at_execve(record, tmp_path, bt2_read):
    out = tmp_path / "t"
    record(out, "-e", "syscall:*", cmd=["/bin/true"]).check()
    evs = bt2_read(out).events
    assert evs, "nothing recorded"
    assert evs[0]["name"] == "syscall_entry_execve", evs[:3]
    assert evs[0]["fields"]["filename"] == "/bin/true"
    pid = evs[0]["pid"]
    assert all(e["pid"] == pid for e in evs)
    # the held child is named as its exec will name it (LTTng's analyses name a task by its
    # first sched_switch, which comes before the exec): "true" from the execve's entry on
    assert all(e["procname"] == "true" for e in evs), \
        [(e["name"], e["procname"]) for e in evs if e["procname"] != "true"]
    assert evs[-1]["name"] == "syscall_entry_exit_group"


def counts(text):
    c = {}
    for line in text.splitlines():
        m = COUNT_RE.match(line)
        if m and m[3] != "total":
            c[m[3]] = int(m[1])
    return c


def test_count_equals_strace(scry):
    """-c counts the command's calls only: the same table as strace -c on /bin/true."""
    s = subprocess.run([scry, "trace", "-c", "--", "/bin/true"], capture_output=True, text=True, timeout=60)
    t = subprocess.run(["strace", "-c", "--", "/bin/true"], capture_output=True, text=True, timeout=60)
    assert s.returncode == 0 and t.returncode == 0, s.stderr + t.stderr
    mine, theirs = counts(s.stderr), counts(t.stderr)
    assert theirs and "execve" in theirs, t.stderr
    assert mine == theirs, (mine, theirs)
