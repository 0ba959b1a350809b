"""tests/e2e/test_daemon_view.py — `scry view [SESSION]` through scryd (issue 13, LTTng's
`lttng view`): the current session's trace, another session's by name, every chunk of a session
that rotated, a snapshot session's last snapshot; refusals in one line.  The output is compared
with `scry view DIR` and the events' values with babeltrace2's reading."""
import re
import subprocess

from test_daemon import daemon, pwrites, read_events  # noqa: F401 (daemon: a fixture)


def entries(text, pid):
    """The positions of pid's pwrite64 entries in `scry view` text."""
    return [int(m[1]) for line in text.splitlines() if "syscall_entry_pwrite64" in line and re.search(rf"\bpid = {pid}\b", line)
            for m in [re.search(r"pos = (\d+)", line)] if m]


def test_view_sessions(daemon, tmp_path, bt2_read):
    out = tmp_path / "trace"
    daemon.run("create", "v1", "-o", out)
    daemon.run("enable-event", "-k", "--syscall", "pwrite64")
    daemon.run("add-context", "-k", "-t", "pid")
    p = daemon.run("view", check=False)
    assert p.returncode == 1 and p.stderr == "scry: session 'v1' has not started: it has no trace yet\n", p.stderr
    daemon.run("start")
    pid = pwrites(0, 50)
    daemon.run("rotate")
    pid2 = pwrites(50, 50)
    daemon.run("stop")
    # the current session: every chunk (the archive and the current one), as `scry view DIR`
    cur = daemon.run("view")
    assert cur.stdout == daemon.run("view", out).stdout and cur.stderr == ""
    assert entries(cur.stdout, pid) == list(range(50)) and entries(cur.stdout, pid2) == list(range(50, 100))
    bt = [e["fields"]["pos"] for c in (out / "archives").iterdir() for e in read_events(bt2_read, c).events
          if e["name"] == "syscall_entry_pwrite64" and e["pid"] in (pid, pid2)]
    assert sorted(bt) == list(range(100))

    # another session, by name, and a snapshot session's last snapshot
    daemon.run("create", "box", "--snapshot", "-o", tmp_path / "box")
    daemon.run("enable-event", "-k", "--syscall", "pwrite64")
    daemon.run("add-context", "-k", "-t", "pid")
    p = daemon.run("view", check=False)
    assert p.returncode == 1 and p.stderr == \
        "scry: snapshot session 'box' has recorded no snapshot yet (scry snapshot record)\n", p.stderr
    daemon.run("start")
    pid3 = pwrites(1000, 20)
    daemon.run("snapshot", "record")
    pid4 = pwrites(2000, 20)
    snap2 = daemon.run("snapshot", "record", "-n", "late").stdout
    m = re.match(r"Snapshot recorded successfully for session box in (\S+) ", snap2)
    v = daemon.run("view", "box").stdout
    assert v == daemon.run("view", m[1]).stdout
    assert entries(v, pid4) == list(range(2000, 2020)) and "/late-2-" in m[1]
    assert entries(daemon.run("view", "v1").stdout, pid) == list(range(50))
    assert entries(v, pid3) == list(range(1000, 1020))      # still in the buffers
    p = daemon.run("view", "nosuch", check=False)
    assert p.returncode == 1 and p.stderr == "scry: session 'nosuch' not found (scry list shows the sessions)\n"
    daemon.run("destroy", "-a")


def test_view_without_daemon(scry, tmp_path):
    env = {"SCRY_RUNDIR": str(tmp_path / "run"), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    p = subprocess.run([scry, "view"], capture_output=True, text=True, env=env)
    assert p.returncode == 1 and p.stderr == "scry view: no trace directory given and no session daemon runs " \
        "(scry view DIR, or scry view [SESSION] with scryd)\n", p.stderr
    assert not (tmp_path / "run").exists(), "scry view started a daemon"
    p = subprocess.run([scry, "view", "nosuch"], capture_output=True, text=True, env=env)
    assert p.returncode == 1 and p.stderr.startswith("scry view: ") and "nosuch" in p.stderr, p.stderr
