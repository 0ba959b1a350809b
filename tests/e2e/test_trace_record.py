"""tests/e2e/test_trace_record.py — `scry trace --record DIR` (issue 12): one capture, two
outputs.  Every line scry trace prints for the command, from its execve on, is one syscall
of the CTF trace written beside it (read back with bt2): the same names in the same order,
the same return values; the trace's summary line is printed and the contexts are pid and tid."""
import errno
import re
import subprocess

from conftest import SUMMARY_RE

RET = r" += (-?\d+|0x[0-9a-f]+|\?)(?: ([A-Z][A-Z0-9_]+) \(.*\))?(?: \(.*\))?$"
UNFINISHED_RE = re.compile(r"^\d+ +([a-z_0-9]+)\(.* <unfinished \.\.\.>$")
RESUMED_RE = re.compile(r"^(\d+) +<\.\.\. ([a-z_0-9]+) resumed>(.*)" + RET)
LINE_RE = re.compile(r"^(\d+) +([a-z_0-9]+)\((.*)\)" + RET)


def test_trace_record_agree(scry, workload, tmp_path, bt2_read):
    out = tmp_path / "lines"
    tdir = tmp_path / "t"
    p = subprocess.run([scry, "trace", "-f", "-o", str(out), "--record", str(tdir), "--",
                        workload("syscalls"), str(tmp_path)],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    lines = out.read_text().splitlines()
    pid = int(next(LINE_RE.match(l)[1] for l in lines if LINE_RE.match(l) and LINE_RE.match(l)[2] == "execve"))
    summary = [l for l in p.stderr.splitlines() if SUMMARY_RE.match(l)]
    assert len(summary) == 1 and SUMMARY_RE.match(summary[0])[4] == str(tdir), p.stderr

    printed, unfinished = [], {}
    for l in lines:
        if not l.startswith(f"{pid} "):
            continue
        m = UNFINISHED_RE.match(l)
        if m:                              # name(... <unfinished ...>: its place is its entry
            unfinished[m[1]] = len(printed)
            printed.append((m[1], "?"))
            continue
        m = RESUMED_RE.match(l) or LINE_RE.match(l)
        if not m:
            continue
        ret = m[4] if m[4] == "?" else str(int(m[4], 0))
        if m[5]:                           # -1 ENOENT (...): the raw value is -errno
            ret = str(-getattr(errno, m[5]))
        if l.split(None, 1)[1].startswith("<..."):
            printed[unfinished.pop(m[2])] = (m[2], ret)
        else:
            printed.append((m[2], ret))
    assert printed and printed[0][0] == "execve", printed[:3]

    tr = bt2_read(tdir)
    assert all(set(e["ctx"]) == {"pid", "tid"} for e in tr.events)
    mine = [e for e in tr.events if e["pid"] == pid and e["name"].startswith("syscall_")]
    # from the command's execve on (the events before are scry's launcher, issue 17)
    start = next(i for i, e in enumerate(mine) if e["name"] == "syscall_entry_execve")
    calls, open_entry = [], {}
    for e in mine[start:]:
        kind, name = re.match(r"syscall_(entry|exit)_(.*)", e["name"]).groups()
        if kind == "entry":
            open_entry[e["tid"]] = len(calls)
            calls.append([name, "?"])
        else:
            k = open_entry.pop(e["tid"])
            assert calls[k][0] == name
            calls[k][1] = str(e["fields"]["ret"])
    assert len(printed) > 30
    assert [tuple(c) for c in calls] == printed
