"""tests/e2e/test_metrics_sched.py — metrics of events other than syscalls (docs/METRICS.md,
`event:`): off-CPU time and run-queue latency of a process that blocks a known number of times
(build/workload/sleeper: N nanosleeps of U us), and block I/O latency of direct writes to a
loop device, counted against the kernel's own /sys/block/DEV/stat over the same window."""
import os
import shutil
import subprocess
import time

import pytest

from test_metrics import samples, serve, value  # noqa: F401 (serve: the fixture, shared)

N_SLEEPS, SLEEP_US = 25, 2000
# This machine runs no BPF program while its pid 1 (the sandbox's agent) or one of its threads
# is current (tests/e2e/test_lttng_kernel.py): a switch from one of them into the sleeper is
# never seen, and that sleep's off-CPU period and run-queue wait are not measured.
HIDDEN_SLACK = 2
DD_BLOCKS = 64


def hist_ok(ss, name, **labels):
    """The buckets of name{labels} are cumulative and end in +Inf == _count; the count."""
    buckets = sorted((float(l["le"]), v) for n, l, v in ss
                     if n == name + "_bucket" and {k: x for k, x in l.items() if k != "le"} == labels)
    assert buckets and buckets[-1][0] == float("inf"), f"{name}{labels}: no +Inf bucket"
    counts = [v for _, v in buckets]
    assert counts == sorted(counts), f"{name}{labels}: not cumulative: {buckets}"
    assert counts[-1] == value(ss, name + "_count", **labels)
    return counts[-1]


SCHED_CONFIG = """\
metrics:
  counters:
    - name: t_sleeps_total
      syscalls: [nanosleep, clock_nanosleep]
      labels: [{name: comm, source: comm}]
    - name: t_offcpu_total
      event: offcpu
      labels: [{name: comm, source: comm}]
  histograms:
    - name: t_offcpu_seconds
      event: offcpu
      bucket_min: 10
      bucket_max: 34
      bucket_multiplier: 0.000000001
      labels: [{name: comm, source: comm}]
    - name: t_runq_seconds
      event: runqueue
      bucket_min: 0
      bucket_max: 34
      bucket_multiplier: 0.000000001
      labels: [{name: comm, source: comm}]
"""


def test_offcpu_and_runqueue_of_a_sleeper(serve, workload, tmp_path):
    cfg = tmp_path / "sched.yaml"
    cfg.write_text(SCHED_CONFIG)
    s = serve(cfg, cmd=[workload("sleeper"), str(N_SLEEPS), str(SLEEP_US)])
    # the last sleep's return comes after its switch in
    ss, text = s.wait_for(lambda ss: sum(v for n, l, v in ss
                                         if n == "t_sleeps_total" and l["comm"] == "sleeper") == N_SLEEPS)
    # each nanosleep blocks once; the exit's last switch never comes back
    off = value(ss, "t_offcpu_total", comm="sleeper")
    assert off is not None and N_SLEEPS - HIDDEN_SLACK <= off <= N_SLEEPS + 2, text
    assert hist_ok(ss, "t_offcpu_seconds", comm="sleeper") == off
    # a sleep below 2^10 ns is impossible: the first buckets hold only the sleeps' few others
    le_1ms = [v for n, l, v in ss if n == "t_offcpu_seconds_bucket" and l.get("comm") == "sleeper"
              and float(l["le"]) < SLEEP_US * 1e-6 / 2]
    short = max(le_1ms, default=0)
    assert short <= 2 and N_SLEEPS - HIDDEN_SLACK <= off - short <= N_SLEEPS, text
    # every sleep measured lasted at least SLEEP_US
    assert value(ss, "t_offcpu_seconds_sum", comm="sleeper") >= (off - short) * SLEEP_US * 1e-6
    # each wake-up queues it once (preemptions may add more)
    runq = hist_ok(ss, "t_runq_seconds", comm="sleeper")
    assert N_SLEEPS - HIDDEN_SLACK <= runq <= 3 * N_SLEEPS, text
    assert value(ss, "scry_metric_overflow_total", metric="t_offcpu_total") == 0
    # the command alone is measured: nothing of scry's own or of other processes
    assert not [l for n, l, v in ss if n == "t_offcpu_total" and l["comm"] not in ("sleeper", "scry")], text
    assert s.close() == 0, s.err


def disk_ios(dev):
    f = open(f"/sys/block/{dev}/stat").read().split()
    return int(f[0]) + int(f[4])     # reads and writes completed


@pytest.fixture
def loopdev(tmp_path):
    if not shutil.which("losetup"):
        pytest.skip("losetup missing (util-linux)")
    backing = tmp_path / "disk.img"
    with open(backing, "wb") as f:
        f.truncate(16 << 20)
    p = subprocess.run(["losetup", "-f", "--show", str(backing)], capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"no loop device here: {p.stderr.strip()}")
    dev = p.stdout.strip()
    yield os.path.basename(dev)
    subprocess.run(["losetup", "-d", dev], capture_output=True)


BLOCK_CONFIG = """\
metrics:
  counters:
    - name: t_block_io_total
      event: block_io
      labels: [{name: disk, source: dev}]
  histograms:
    - name: t_block_io_seconds
      event: block_io
      bucket_min: 0
      bucket_max: 40
      bucket_multiplier: 0.000000001
      labels: [{name: disk, source: dev, decoders: [{name: majorminor}]}]
"""


def test_block_io_of_direct_writes_to_a_loop_device(serve, loopdev, tmp_path):
    cfg = tmp_path / "block.yaml"
    cfg.write_text(BLOCK_CONFIG)
    s = serve(cfg, "-a")
    if shutil.which("udevadm"):
        subprocess.run(["udevadm", "settle"], capture_output=True)
    time.sleep(0.5)
    before = disk_ios(loopdev)
    p = subprocess.run(["dd", "if=/dev/zero", f"of=/dev/{loopdev}", "bs=4k", f"count={DD_BLOCKS}",
                        "oflag=direct"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    time.sleep(0.5)
    after = disk_ios(loopdev)
    _, text = s.scrape()
    ss = samples(text)
    assert after - before >= DD_BLOCKS
    assert value(ss, "t_block_io_total", disk=loopdev) == after - before, text
    assert hist_ok(ss, "t_block_io_seconds", disk=loopdev) == after - before
    assert value(ss, "t_block_io_seconds_sum", disk=loopdev) > 0
    assert s.close() == 0, s.err


@pytest.mark.parametrize("body, msg", [
    ("event: offcpu\n      syscalls: [read]", "syscalls: is for syscall metrics, not offcpu"),
    ("event: runqueue\n      when: error", "when: is for syscall metrics, not runqueue"),
    ("event: block_io\n      value: ret", "value ret is for syscall metrics"),
    ("event: offcpu\n      labels: [{name: d, source: dev}]", "the dev label is for block_io metrics"),
    ("event: block_io\n      labels: [{name: s, source: syscall}]", "syscall and errno labels are for syscall"),
    ("event: disk", "'disk' is not one of syscall, runqueue, offcpu, block_io"),
    ("labels: [{name: c, source: comm, decoders: [{name: majorminor}]}]", "the majorminor decoder reads dev only"),
])
def test_bad_event_configs(scry, tmp_path, body, msg):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(f"metrics:\n  counters:\n    - name: x_total\n      {body}\n")
    p = subprocess.run([scry, "serve", "--config", str(cfg), "--listen", "127.0.0.1:1"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 1
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{cfg}:" in lines[0] and msg in lines[0], p.stderr
