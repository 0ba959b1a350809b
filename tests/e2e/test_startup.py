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


def test_kernel_btf_parsed_once(scry, tmp_path):
    """The kernel's BTF is read once per start (src/kernel/btf_share.c): libbpf's load of each
    copy of the object (the maps' copy and both lanes, or the one lane) borrows scry's parse
    rather than reading /sys/kernel/btf/vmlinux again (~6-9 ms of CPU a copy)."""
    import os
    for lanes in ("SCRY_TWO_LANES", "SCRY_ONE_LANE"):
        log = tmp_path / f"{lanes}.strace"
        out = tmp_path / f"{lanes}.txt"
        # no CO-RE cache: no bpftool spawned to fill it (it reads the BTF too), and the
        # relocations are made against the lent BTF itself
        env = dict(os.environ, SCRY_NO_WARM="1", SCRY_NO_CACHE="1", **{lanes: "1"})
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat", "-o", str(log),
                        scry, "trace", "-o", str(out), "--", "/bin/true"], check=True, timeout=30, env=env)
        opens = re.findall(r'openat\([^,]+, "/sys/kernel/btf/vmlinux"', log.read_text())
        assert len(opens) == 1, f"{lanes}: the kernel's BTF opened {len(opens)} times"
        assert re.search(r"^exit_group\(0\)", out.read_text(), re.M), f"{lanes}: nothing traced"
