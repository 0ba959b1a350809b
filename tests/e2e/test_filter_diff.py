"""tests/e2e/test_filter_diff.py — kernel vs user-space filter semantics: build/tools/filter_diff
records a real workload, generates random expressions over the recorded events' fields,
contexts and values (globs with stars at both ends and inside, escapes, bit operators,
shifts, signed comparisons, && || !), compiles each to eBPF exactly as `scry record
--filter` does, runs it in the kernel with BPF_PROG_TEST_RUN over the recorded events and
compares every decision with the user-space evaluator.  Any mismatch fails."""
import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

TOOL = ROOT / "build" / "tools" / "filter_diff"
LINE = re.compile(r"^evaluations (\d+) accepted (\d+) mismatches (\d+) skipped (\d+)$", re.M)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kernel_and_user_space_agree(seed, workload):
    assert TOOL.exists(), "run make first"
    cmd = [str(TOOL), "-n", "500", "-s", str(seed), "--", "/bin/sh", "-c",
           f"ls -la /etc /usr >/dev/null; cat /etc/hostname /etc/passwd >/dev/null; "
           f"{workload('syscalls')} {Path('/tmp') / f'fdiff{seed}'} >/dev/null; true"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    m = LINE.search(p.stdout)
    assert m, p.stdout + p.stderr
    evals, accepted, mismatches, skipped = map(int, m.groups())
    assert mismatches == 0, p.stdout
    assert p.returncode == 0, p.stderr
    # the corpus exercises both outcomes, at scale
    assert evals >= 10000
    assert 0.1 * evals < accepted < 0.9 * evals
    assert skipped < 100
