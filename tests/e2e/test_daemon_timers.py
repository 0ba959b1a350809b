"""tests/e2e/test_daemon_timers.py — LTTng's channel timers and output options through scryd
(issue 26): a switch timer writes a low-rate stream's partly filled packet out each period (a
stepper's single openat of a unique path is in the stream files within two periods, three
times, while the pump alone flushes every second); the read and monitor timers, --output and
--buffers-global taken as lttng's kernel domain takes them, shown by list, the monitor
timer's buffer usage by status; --blocking-timeout and per-uid/pid buffers refused with
lttng's words; every timer saved (xmllint against session.xsd) and loaded."""
import os
import subprocess
import time

import pytest

from test_daemon import XSD, daemon  # noqa: F401 (daemon: a fixture)
from test_pid_sets import Stepper

PERIOD_US = 100000


def on_disk(kernel_dir, needle):
    for f in kernel_dir.glob("ch_*"):
        if f.is_file() and needle in f.read_bytes():
            return True
    return False


def test_switch_timer_low_rate(daemon, tmp_path, workload):
    out = tmp_path / "trace"
    daemon.run("create", "sw", "-o", out)
    daemon.run("enable-channel", "-k", "--switch-timer", PERIOD_US, "ch")
    daemon.run("enable-event", "-k", "-c", "ch", "--syscall", "openat")
    st = Stepper(workload("stepper"))
    try:
        daemon.run("track", "-k", "--pid", st.pid)
        daemon.run("start")
        time.sleep(1.5)                  # past the pump's first flushes
        for i in range(3):
            needle = f"/nonexistent/scry-switch-{os.getpid()}-{i}"
            st.step(f"open {needle}")
            t0 = time.monotonic()
            while not on_disk(out / "kernel", needle.encode()) and time.monotonic() - t0 < 3:
                time.sleep(0.005)
            took = time.monotonic() - t0
            assert took < 2 * PERIOD_US / 1e6, f"event {i} on disk after {took:.3f} s"
            time.sleep(0.37)             # the next one at another phase of the pump's second
    finally:
        st.end()
    daemon.run("stop")


def test_timers_list_save_load(daemon, tmp_path):
    if not os.path.exists(XSD):
        pytest.skip(f"{XSD} missing (Debian's lttng-tools installs it)")
    daemon.run("create", "tm", "-o", tmp_path / "t")
    p = daemon.run("enable-channel", "-k", "--switch-timer", "250ms", "--read-timer", "0", "--monitor-timer",
                   "500000", "--output", "mmap", "--buffers-global", "a")
    assert p.stdout == "Kernel channel a enabled for session tm\n"
    daemon.run("enable-channel", "-k", "b")          # lttng's kernel defaults
    daemon.run("enable-event", "-k", "-c", "a", "sched_switch")
    daemon.run("enable-event", "-k", "-c", "b", "sched_switch")
    lst = daemon.run("list", "tm").stdout
    assert ("      Switch timer:     250000 us\n      Read timer:       inactive\n"
            "      Monitor timer:    500000 us\n") in lst, lst
    assert "      Output mode:      mmap\n" in lst
    assert ("      Switch timer:     inactive\n      Read timer:       200000 us\n"
            "      Monitor timer:    1000000 us\n") in lst, lst
    assert "      Output mode:      splice\n" in lst
    xml = tmp_path / "tm.lttng"
    daemon.run("save", "-o", xml)
    lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(xml)], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stderr
    text = xml.read_text()
    for el in ("<switch_timer_interval>250000</switch_timer_interval>", "<read_timer_interval>0</read_timer_interval>",
               "<monitor_timer_interval>500000</monitor_timer_interval>", "<output_type>MMAP</output_type>",
               "<output_type>SPLICE</output_type>", "<read_timer_interval>200000</read_timer_interval>"):
        assert el in text, (el, text)
    daemon.run("destroy")
    daemon.run("load", xml)
    assert daemon.run("list", "tm").stdout == lst
    # the monitor timer's sample, once started
    daemon.run("start")
    time.sleep(1.2)
    st = daemon.run("status").stdout
    assert st.count("      Buffer usage:     ") == 2 and "(fullest CPU, monitor timer)" in st, st
    daemon.run("stop")


def test_timer_refusals(daemon, tmp_path):
    daemon.run("create", "rf", "-o", tmp_path / "t")
    for args, err in ((["--blocking-timeout", "10"], "scry: Retry timeout option not supported for kernel domain (-k)\n"),
                      (["--buffers-uid"], "scry: Buffer type not supported for domain -k\n"),
                      (["--buffers-pid"], "scry: Buffer type not supported for domain -k\n"),
                      (["--output", "pipe"], "scry: enable-channel: --output is splice or mmap, not 'pipe'\n"),
                      (["--switch-timer", "soon"], "scry: enable-channel: invalid switch timer period 'soon' "
                                                   "(microseconds, or e.g. 500ms, 1s)\n")):
        p = daemon.run("enable-channel", "-k", *args, "c", check=False)
        assert p.returncode == 1 and p.stderr == err, (args, p.stderr)
