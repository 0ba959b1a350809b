"""tests/e2e/test_startup.py — work a start-up of `scry trace` no longer does (issue 29): the
catalog lists tracefs's tracepoints on first use (src/catalog/catalog.c), so a trace that names
none opens no event system's directory (walking eventfs's ~130 was ~7 ms of every start);
the commands that do name tracepoints still find them, and still suggest the closest name."""
import re
import subprocess

SYSTEM_DIR = re.compile(r'openat\([^,]+, "/sys/kernel/(?:debug/)?tracing/events/([^/"]+)"')


def test_trace_opens_no_event_system(scry, tmp_path):
    log = tmp_path / "strace.txt"
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat", "-o", str(log),
                    scry, "trace", "-o", str(tmp_path / "out.txt"), "--", "/bin/true"],
                   check=True, timeout=30)
    opened = [m.group(1) for m in SYSTEM_DIR.finditer(log.read_text())]
    assert opened == [], f"scry trace opened event systems: {opened[:10]}"
    # and it traced: /bin/true's exit_group is in its output
    assert re.search(r"^exit_group\(0\)", (tmp_path / "out.txt").read_text(), re.M)


def test_tracepoints_listed_on_use(scry):
    out = subprocess.run([scry, "list", "sched:sched_switch"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["sched:sched_switch", "(1 tracepoint)"]
    out = subprocess.run([scry, "list", "sched:sched_swich"], capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert "did you mean sched:sched_switch?" in out.stderr + out.stdout
