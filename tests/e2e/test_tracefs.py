"""tests/e2e/test_tracefs.py — tracefs not mounted: scry mounts it (here inside a private
mount namespace, so the machine's mounts are left alone) and records as usual."""
import shutil
import subprocess

import pytest

from conftest import read_trace


@pytest.mark.skipif(not shutil.which("unshare"), reason="unshare (util-linux) not installed")
def test_mounts_tracefs_when_missing(scry, tmp_path):
    out = tmp_path / "trace"
    script = ("umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug/tracing 2>/dev/null; "
              "if grep -q tracefs /proc/self/mounts; then echo STILL-MOUNTED; exit 3; fi; "
              f"{scry} record -q -o {out} -e sched:sched_process_exec -- /bin/true && "
              "grep -c ' tracefs ' /proc/self/mounts")
    p = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip() == "1"           # scry mounted it again
    execs = [e for e in read_trace(out).events if e["name"] == "sched_process_exec"]
    assert [e["fields"]["filename"] for e in execs] == ["/bin/true"]
