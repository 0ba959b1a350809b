"""tests/e2e/test_strace_options.py — `scry trace`'s other strace options against strace 6.1 on
the same workloads (issue 27): -x, -xx, -X raw|verbose, -n, -P PATH, -e read=/write= (hex
dumps), -qq and -e quiet=, -Y, -b execve, -ff, -A, -E, -u, and the options accepted for
strace's sake (-D, -I, --seccomp-bpf); -e inject=/fault= refused with the reason.  Lines are
normalized as test_strace_parity.py does (pids, addresses, inodes, times)."""
import os
import pwd
import re
import shutil
import subprocess

import pytest

from test_strace_parity import by_process, normalize

pytestmark = pytest.mark.skipif(not shutil.which("strace"), reason="strace not installed")

ENV = {"PATH": "/usr/bin:/bin", "LANG": "C", "HOME": "/root"}
BINARY = bytes(range(256)) + b"text\twith\ttabs\n" + b"\x00\x01\xff" * 20


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("options")
    (d / "bin").write_bytes(BINARY)
    (d / "text").write_text("hello world\nplain text\n")
    return d


def tool_name(line):
    return re.sub(r"<(scry|strace)>", "<TOOL>", line)


def run_both(scry, cwd, tmp_path, cmd, opts, out="out"):
    st, sc = tmp_path / f"strace.{out}", tmp_path / f"scry.{out}"
    a = subprocess.run(["strace", *opts, "-o", str(st), *cmd], capture_output=True, text=True, errors="replace", cwd=cwd, env=ENV)
    b = subprocess.run([scry, "trace", *opts, "-o", str(sc), "--", *cmd], capture_output=True, text=True, errors="replace",
                       cwd=cwd, env=ENV)
    assert b.returncode == a.returncode, b.stderr
    return st, sc, a, b


CASES = {
    # option: (command, options); the files fixture's directory is the cwd
    "x": (["cat", "bin", "text"], ["-x"]),
    "xx": (["cat", "bin", "text"], ["-xx"]),
    "X_raw": (["ls", "-la", "/etc"], ["-X", "raw"]),
    "X_verbose": (["ls", "-la", "/etc"], ["-X", "verbose"]),
    "X_abbrev": (["cat", "text"], ["-X", "abbrev"]),
    "n": (["ls", "-la", "/etc"], ["-n"]),
    "P": (["cat", "/etc/hostname", "text"], ["-P", "/etc/hostname"]),
    "P_fd": (["sh", "-c", "exec 7</etc/hostname; cat <&7; read x <&7"], ["-P", "/etc/hostname"]),
    "read_write": (["cat", "bin", "text"], ["-e", "read=3", "-e", "write=1"]),
    "read_all": (["cat", "text"], ["-e", "read=all", "-e", "trace=read"]),
    "qq": (["sh", "-c", "cat text"], ["-qq"]),
    "quiet_exit": (["cat", "text"], ["-e", "quiet=exit"]),
    "D": (["cat", "text"], ["-D"]),
    "I": (["cat", "text"], ["-I", "2"]),
    "seccomp": (["cat", "text"], ["--seccomp-bpf", "-f"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_option_as_strace(scry, files, tmp_path, case):
    cmd, opts = CASES[case]
    st, sc, _, _ = run_both(scry, files, tmp_path, cmd, opts)
    theirs, ours = st.read_text(errors="replace"), sc.read_text(errors="replace")
    several = "-f" in opts
    assert by_process(ours, several) == by_process(theirs, several)
    assert len(ours.splitlines()) >= 2


def test_x_hex_only_where_needed(scry, files, tmp_path):
    """-x: a string with a byte outside printable ASCII and whitespace wholly in hex, the
    others as they are; -xx: every string in hex."""
    _, sc, _, _ = run_both(scry, files, tmp_path, ["cat", "text", "bin"], ["-x", "-e", "trace=read,openat"])
    text = sc.read_text()
    assert 'read(3, "hello world\\nplain text\\n", ' in text
    assert 'read(3, "\\x00\\x01\\x02\\x03' in text
    assert re.search(r'^openat\(AT_FDCWD, "text", O_RDONLY\) += 3$', text, re.M)
    _, sc, _, _ = run_both(scry, files, tmp_path, ["cat", "text"], ["-xx", "-e", "trace=openat"])
    assert re.search(r'^openat\(AT_FDCWD, "\\x74\\x65\\x78\\x74", O_RDONLY\) += 3$', sc.read_text(), re.M)


def test_dump_lines(scry, files, tmp_path):
    """-e read=3: strace's dump after the read, 16 bytes a line, the missing ones blank."""
    _, sc, _, _ = run_both(scry, files, tmp_path, ["cat", "text"], ["-e", "read=3", "-e", "trace=read"])
    lines = sc.read_text().splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith('read(3, "hello'))
    assert lines[i + 1] == " | 00000  68 65 6c 6c 6f 20 77 6f  72 6c 64 0a 70 6c 61 69  hello world.plai |"
    assert lines[i + 2] == " | 00010  6e 20 74 65 78 74 0a                              n text.          |"
    assert not lines[i + 3].startswith(" |")


@pytest.mark.parametrize("opts", [["-f", "-Y"], ["-f", "--decode-pids=comm"]])
def test_decode_pids_comm(scry, files, tmp_path, opts):
    """-Y: every line's pid with its command name (42163<sh>), and pid arguments (kill)."""
    cmd = ["sh", "-c", "cat text >/dev/null; kill -0 $$"]
    st, sc, _, _ = run_both(scry, files, tmp_path, cmd, opts)
    theirs = [tool_name(l) for l in st.read_text().splitlines()]
    ours = [tool_name(l) for l in sc.read_text().splitlines()]
    assert by_process("\n".join(ours), True) == by_process("\n".join(theirs), True)
    text = "\n".join(ours)
    assert re.search(r"^\d+<sh> kill\(\d+<sh>, 0\) += 0$", text, re.M), text
    # the command's execve: named by the tracer's comm (strace's) or, once scry's held child
    # takes its command's name before the exec (main's spawn.c), by that
    assert re.search(r"^\d+<(TOOL|sh)> execve\(\"/usr/bin/sh\"", text, re.M)
    assert re.search(r"^\d+<cat> exit_group\(0\)", text, re.M)


def test_ff_one_file_per_process(scry, files, tmp_path):
    """-ff -o FILE: FILE.PID per process, each as strace's (without the pid prefix)."""
    cmd = ["sh", "-c", "cat text | wc -l"]
    for tool in ("strace", "scry"):
        d = tmp_path / tool
        d.mkdir()
        argv = ["strace"] if tool == "strace" else [scry, "trace"]
        r = subprocess.run([*argv, "-ff", "-o", str(d / "out"), "--", *cmd], capture_output=True, text=True, errors="replace",
                           cwd=files, env=ENV)
        assert r.returncode == 0, r.stderr
    theirs, ours = sorted(os.listdir(tmp_path / "strace")), sorted(os.listdir(tmp_path / "scry"))
    assert len(ours) == len(theirs) == 3
    assert all(re.match(r"^out\.\d+$", f) for f in ours)

    def procs(d):
        return sorted(by_process((d / f).read_text(), True) for f in os.listdir(d))
    assert procs(tmp_path / "scry") == procs(tmp_path / "strace")
    for f in ours:
        body = (tmp_path / "scry" / f).read_text()
        assert not re.search(r"^(\[pid|\d+ )", body, re.M)
        assert "<unfinished ...>" not in body


def test_A_appends(scry, files, tmp_path):
    out = tmp_path / "out"
    out.write_text("kept\n")
    r = subprocess.run([scry, "trace", "-A", "-o", str(out), "-e", "trace=openat", "cat", "text"],
                       capture_output=True, text=True, cwd=files, env=ENV)
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    assert lines[0] == "kept" and any('"text"' in l for l in lines[1:])
    r = subprocess.run([scry, "trace", "-o", str(out), "-e", "trace=openat", "cat", "text"],
                       capture_output=True, text=True, cwd=files, env=ENV)
    assert out.read_text().splitlines()[0] != "kept"


def test_E_environment(scry, files, tmp_path):
    """-E VAR=VAL sets, -E VAR unsets: the command's environment as strace's."""
    cmd = ["/usr/bin/env"]
    opts = ["-E", "SCRY_E_TEST=x y", "-E", "HOME", "-e", "trace=execve"]
    st, sc, a, b = run_both(scry, files, tmp_path, cmd, opts)
    assert b.stdout == a.stdout
    assert "SCRY_E_TEST=x y" in b.stdout and "HOME=" not in b.stdout
    assert normalize(sc.read_text().splitlines()[0]) == normalize(st.read_text().splitlines()[0])


def test_u_user(scry, files, tmp_path):
    """-u USER: the command runs with the user's uid, gid and groups."""
    user = pwd.getpwnam("nobody")
    cmd = ["/usr/bin/id"]
    st, sc, a, b = run_both(scry, files, tmp_path, cmd, ["-u", "nobody", "-e", "trace=getuid,getgid,getgroups"])
    assert b.stdout == a.stdout
    assert f"uid={user.pw_uid}(nobody)" in b.stdout
    assert by_process(sc.read_text(), False) == by_process(st.read_text(), False)
    r = subprocess.run([scry, "trace", "-u", "no-such-user-27", "true"], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "no-such-user-27" in r.stderr


def test_b_execve_detaches(scry, files, tmp_path):
    """-b execve: the command's own execve shown, a later one ends its process's trace as
    '<detached ...>' (and nothing of the new program is shown)."""
    cmd = ["sh", "-c", "cat text >/dev/null; exec cat text"]
    st, sc, _, _ = run_both(scry, files, tmp_path, cmd, ["-f", "-b", "execve"])
    theirs, ours = st.read_text(), sc.read_text()
    assert by_process(ours, True) == by_process(theirs, True)
    last = [l for l in ours.splitlines() if l.strip()][-1]
    assert re.search(r'execve\("/usr/bin/cat", \["cat", "text"\].* <detached \.\.\.>$', last), last
    assert 'execve("/usr/bin/sh"' in ours


@pytest.mark.parametrize("q", ["inject=openat:error=ENOENT", "fault=openat"])
def test_inject_refused(scry, q):
    r = subprocess.run([scry, "trace", "-e", q, "true"], capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1, r.stderr
    assert "bpf_override_return" in r.stderr and "kprobe" in r.stderr


def test_qq_no_exit_lines(scry, files, tmp_path):
    _, sc, _, b = run_both(scry, files, tmp_path, ["sh", "-c", "cat text"], ["-f", "-qq"])
    assert "+++" not in sc.read_text()
    assert "attached" not in b.stderr
    _, sc, _, _ = run_both(scry, files, tmp_path, ["sh", "-c", "cat text"], ["-f"])
    assert sc.read_text().count("+++ exited with 0 +++") == 2


XPROG = ("import os, signal, socket, fcntl, sys\n"
         "for fam, host in ((socket.AF_INET, '127.0.0.1'), (socket.AF_INET6, '::1')):\n"
         "    s = socket.socket(fam, socket.SOCK_STREAM | socket.SOCK_CLOEXEC); s.bind((host, 0)); s.getsockname()\n"
         "    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.close()\n"
         "signal.signal(signal.SIGUSR1, signal.SIG_IGN); os.kill(os.getpid(), signal.SIGUSR1)\n"
         "fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o640); fcntl.fcntl(fd, fcntl.F_GETFL)\n"
         "fcntl.fcntl(fd, fcntl.F_SETFD, fcntl.FD_CLOEXEC); fcntl.fcntl(fd, fcntl.F_GETFD); os.fstat(fd)\n"
         "os.stat('/dev/null'); os.close(fd)\n")


@pytest.mark.parametrize("style", ["raw", "verbose"])
def test_X_sockets_signals(scry, files, tmp_path, style):
    """-X raw|verbose on sockets (addresses as bytes), signals, modes, devices, fcntl's flags:
    the lines as strace's (the interpreter's mappings left out: they vary from run to run)."""
    st, sc, _, _ = run_both(scry, files, tmp_path, ["/usr/bin/python3", "-c", XPROG, str(tmp_path / "made")],
                              ["-X", style])

    def lines(text):
        out = []
        for l in text.splitlines():
            if re.match(r"^(mmap|munmap|brk|mprotect)\(", l):
                continue
            out.append(re.sub(r'(sin6?_port=)"[^"]*"', r'\1"P"', l))
        return by_process("\n".join(out), False)
    theirs, ours = lines(st.read_text()), lines(sc.read_text())
    assert ours == theirs
    text = sc.read_text()
    if style == "raw":
        assert re.search(r'sin_addr="\\x7f\\x00\\x00\\x01"}', text)
        assert "si_signo=10, si_code=0," in text and "AT_FDCWD" not in text
    else:
        assert 'sin_addr="\\x7f\\x00\\x00\\x01" /* inet_addr("127.0.0.1") */' in text
        assert "-100 /* AT_FDCWD */" in text and "0100640 /* S_IFREG|0640 */" in text


def test_i_instruction_pointer(scry, files, tmp_path):
    """-i: each line with the task's user instruction pointer (the first frame of its user
    stack), [????????????????] on the +++ lines.  Addresses move with ASLR but not their
    offset in the page: the last 12 bits of each line's pointer equal strace's."""
    cmd = ["sh", "-c", "kill -0 $$; cat text"]
    st, sc, _, _ = run_both(scry, files, tmp_path, cmd, ["-i", "-n"])

    def ips(text):
        out = []
        for l in text.splitlines():
            m = re.match(r"^\[ *(\d+)\] \[([0-9a-f?]{16})\] (.*)$", l)
            assert m, l
            if m[3].startswith(("--- SIGCHLD", "rt_sigreturn(")):
                continue       # when the child's end interrupts the parent is timing
            out.append((m[1], "?" if "?" in m[2] else m[2][-3:], normalize(m[3])))
        return out
    theirs, ours = ips(st.read_text()), ips(sc.read_text())
    assert ours == theirs
    assert len(ours) > 50
    assert ours[-1][1:] == ("?", "+++ exited with 0 +++")


def table(text):
    """A -c table: its header, and per row the cells cut at the dashes' spans."""
    lines = text.splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith("---"))
    spans = [m.span() for m in re.finditer(r"-+", lines[i])]
    rows = []
    for l in lines[i + 1:]:
        if l.startswith("---") or not l.strip():
            continue
        rows.append([l[a:b if k + 1 < len(spans) else None].strip() for k, (a, b) in enumerate(spans)])
    return lines[i - 1], lines[i], rows


@pytest.mark.parametrize("spec", ["name,calls,errors", "max-time,name,calls", "calls",
                                  "time,shortest,longest,count,error,syscall",
                                  "time_percent,total-time,min-time,max-time,avg-time,calls,errors,name"])
def test_U_columns(scry, files, tmp_path, spec):
    """-U: strace's header and dashes, and the rows' calls, errors and names (times are each
    tool's own: scry's are latencies, strace -w's too but of another run)."""
    st, sc, _, _ = run_both(scry, files, tmp_path, ["cat", "text", "/etc/hostname"], ["-c", "-w", "-S", "name",
                                                                                     "-U", spec])
    h1, d1, r1 = table(st.read_text())
    h2, d2, r2 = table(sc.read_text())
    assert h2 == h1
    heads = h1.replace("% time", "%time").split()
    keep = [k for k, h in enumerate(heads) if h in ("calls", "errors", "syscall")]
    assert [[r[k] for k in keep] for r in r2] == [[r[k] for k in keep] for r in r1]
    assert len(r2) > 5
    if "longest" in heads:       # the longest call is no shorter than the shortest, and both sum up
        lo, hi = heads.index("longest"), heads.index("shortest") if "shortest" in heads else None
        for r in r2:
            assert float(r[lo]) >= (float(r[hi]) if hi is not None else 0.0)


def test_U_refused(scry):
    r = subprocess.run([scry, "trace", "-c", "-U", "calls,bogus", "true"], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "'bogus'" in r.stderr
