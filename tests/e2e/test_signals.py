"""tests/e2e/test_signals.py — signals in `scry trace` as strace shows them (issue 17 items
1 and 5): a process killed by TERM, HUP, INT, SEGV or USR1 shows that signal with its
siginfo (sender pid and uid) and "+++ killed by" it, never SIGKILL; SIGCHLD with the
child's pid, status and times, ignored signals (never delivered: seen at generation), a
queued value, a fault's address — each process's signal lines equal strace's on the same
program.  And `scry record` writes the signal events (lttng-modules' fields and the siginfo
views) that babeltrace2 reads."""
import json
import re
import shutil
import signal
import subprocess

import pytest

from conftest import read_trace, run_babeltrace2

pytestmark = pytest.mark.skipif(not shutil.which("strace"), reason="strace not installed")


def signal_lines(text):
    """The ---/+++ lines of each process, pids renamed in order of appearance (a process's
    own lines keep their order; strace and scry may interleave processes differently)."""
    names = {}

    def rename(pid):
        return "P%d" % names.setdefault(pid, len(names))

    per = {}
    for line in text.splitlines():
        m = re.match(r"^(?:(\d+) +|\[pid +(\d+)\] )?((?:---|\+\+\+) .*)$", line)
        if m:
            who = rename(m.group(1) or m.group(2) or "main")
            body = re.sub(r"(?<=si_pid=)\d+", lambda x: rename(x.group(0)), m.group(3))
            per.setdefault(who, []).append(body)
    return sorted(per.values())


def calls_per_process(text):
    """(name, ret) of each process's returned calls in order (resumed lines merged)."""
    per = {}
    for line in text.splitlines():
        m = re.match(r"^(\d+) +(.*)$", line)
        if not m or m[2].startswith(("---", "+++")) or m[2].endswith("<unfinished ...>"):
            continue
        c = re.match(r"^<\.\.\. (\w+) resumed>.*\) += (.*)$", m[2]) or re.match(r"^(\w+)\(.*\) += (.*)$", m[2])
        if c:
            ret = c[2].split()[0]
            if ret == "?":     # died in the call: "= ?" or "<unfinished ...>" as lines interleave
                continue
            ret = "ADDR" if ret.startswith("0x") else "N" if c[1] in ("getpid", "clone", "wait4", "set_tid_address") else ret
            per.setdefault(m[1], []).append((c[1], ret))
    return sorted(per.values())


def both(scry, tmp_path, cmd, opts=()):
    st, sc = tmp_path / "strace.out", tmp_path / "scry.out"
    a = subprocess.run(["strace", *opts, "-o", str(st), *cmd], capture_output=True, text=True)
    b = subprocess.run([scry, "trace", *opts, "-o", str(sc), "--", *cmd], capture_output=True, text=True)
    return a, st.read_text(), b, sc.read_text()


@pytest.mark.parametrize("sig", ["TERM", "HUP", "INT", "SEGV", "USR1"])
def test_fatal_signal_as_strace(scry, tmp_path, sig):
    a, theirs, b, ours = both(scry, tmp_path, ["sh", "-c", "kill -%s $$" % sig], opts=["-f"])
    assert b.returncode == a.returncode == -getattr(signal, "SIG" + sig), b.stderr
    assert "SIGKILL" not in ours
    assert "+++ killed by SIG%s +++" % sig in ours
    assert signal_lines(ours) == signal_lines(theirs)
    # the sender is the shell itself: si_pid is the pid of the lines
    m = re.search(r"^(\d+) +--- SIG%s \{si_signo=SIG%s, si_code=SI_USER, si_pid=(\d+), si_uid=0\}" % (sig, sig),
                  ours, re.M)
    assert m and m.group(1) == m.group(2), ours


def test_signal_kinds_as_strace(scry, tmp_path, workload):
    """SIGCHLD (exited 3, killed by SIGUSR2), SIGUSR2 to a child, an ignored queued SIGUSR1
    with value 42, a caught SIGALRM, SIGSEGV at 0x10."""
    a, theirs, b, ours = both(scry, tmp_path, [workload("signals")], opts=["-f"])
    assert b.returncode == a.returncode == -signal.SIGSEGV, b.stderr
    assert signal_lines(ours) == signal_lines(theirs)
    lines = ours.splitlines()
    assert any("--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, " in l and "si_status=3, " in l for l in lines)
    assert any("si_code=CLD_KILLED" in l and "si_status=SIGUSR2" in l for l in lines)
    assert any("--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_QUEUE, " in l and "si_int=42, si_ptr=0x2a}" in l
               for l in lines)
    assert any(l.endswith("--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=0x10} ---") for l in lines)
    # the handler's return: the mask restored from the signal frame, kill's 0 restored
    assert any(re.match(r"^\d+ +rt_sigreturn\(\{mask=\[\]\}\) += 0$", l) for l in lines), ours
    # each process's calls (names and return values, addresses and pids aside) equal strace's
    assert calls_per_process(ours) == calls_per_process(theirs)
    # the ignored SIGUSR1 shows after the rt_sigqueueinfo that sent it, as strace's does
    i = next(i for i, l in enumerate(lines) if "rt_sigqueueinfo(" in l)
    assert "--- SIGUSR1" in lines[i + 1], lines[i:i + 2]


def test_signal_json(scry, tmp_path, workload):
    p = subprocess.run([scry, "trace", "-f", "--json", "-o", str(tmp_path / "j"), "--", workload("signals")],
                       capture_output=True, text=True)
    assert p.returncode == -signal.SIGSEGV, p.stderr
    evs = [json.loads(l) for l in (tmp_path / "j").read_text().splitlines()]
    sigs = [e for e in evs if e["event"] == "signal"]
    chld = [e for e in sigs if e["signal"] == "SIGCHLD"]
    assert [(e["si_code"], e["si_status"]) for e in chld] == [("CLD_EXITED", 3), ("CLD_KILLED", "SIGUSR2")]
    forks = [int(e["ret"]) for e in evs if e["event"] == "syscall" and e["syscall"] in ("fork", "clone", "clone3")]
    assert [e["si_pid"] for e in chld] == forks[:2]
    segv = [e for e in sigs if e["signal"] == "SIGSEGV"]
    assert len(segv) == 1 and segv[0]["si_addr"] == "16" and segv[0]["si_code"] == "SEGV_MAPERR"
    q = [e for e in sigs if e["signal"] == "SIGUSR1"]
    assert len(q) == 1 and q[0]["si_int"] == 42 and q[0]["si_pid"] == segv[0]["pid"]


def test_record_signal_events(scry, tmp_path):
    out = tmp_path / "t"
    p = subprocess.run([scry, "record", "-q", "-o", str(out), "-e", "signal:signal_deliver",
                        "-e", "signal:signal_generate", "--", "sh", "-c", "kill -USR1 $$"],
                       capture_output=True, text=True)
    assert p.returncode == 138, p.stderr
    bt = run_babeltrace2(out)
    assert bt.returncode == 0 and not bt.stderr.strip(), bt.stderr
    evs = read_trace(out).events
    gen = [e for e in evs if e["name"] == "signal_generate"]
    dlv = [e for e in evs if e["name"] == "signal_deliver"]
    assert [(e["fields"]["sig"], e["fields"]["code"], e["fields"]["result"]) for e in gen] == [(10, 0, 0)]
    g = gen[0]["fields"]
    assert g["pid"] == g["tgid"] == g["si_pid"] == gen[0]["ctx"]["pid"]
    # delivered as itself (the group-exit SIGKILL is resolved to it), with the sender
    assert [(e["fields"]["sig"], e["fields"]["si_pid"], e["fields"]["sa_handler"]) for e in dlv] == \
        [(10, g["pid"], 0)]
