"""tests/e2e/test_daemon_probes.py — dynamic probes in sessions (issue 26): enable-event -k
--userspace-probe=elf:PATH:SYMBOL and sdt:PATH:PROVIDER:NAME record what `scry record
--userspace-probe` (and -e uprobe:/usdt:) records, event for event; list shows each probe rule
with its location as lttng's list does; save writes session.xsd's probe attributes (xmllint),
load gives the same list and records the same values again; a relative binary path is the
caller's; --probe/--function give the kprobe detection's one-line reason on this kernel."""
import os
import subprocess

import pytest

from test_daemon import XSD, daemon, read_events  # noqa: F401 (daemon: a fixture)

EXPECTED = [("uprobe_uprobed_handle_beta", {"v": 0}), ("usdt_scrywl_tick", {"arg0": 0, "arg1": 42, "arg2": -7}),
            ("uprobe_uprobed_handle_beta", {"v": 1}), ("usdt_scrywl_tick", {"arg0": 1, "arg1": 43, "arg2": -7})]


def events(bt2_read, out):
    return [(e["name"], e["fields"]) for e in read_events(bt2_read, out).events]


def run_probed(daemon, wl):
    daemon.run("start")
    subprocess.run([wl, "2"], check=True, capture_output=True, timeout=60)
    daemon.run("stop")


def test_userspace_probes_in_a_session(daemon, tmp_path, workload, bt2_read, scry):
    if not os.path.exists(XSD):
        pytest.skip(f"{XSD} missing (Debian's lttng-tools installs it)")
    wl = workload("uprobed")
    # what scry record records
    rec = tmp_path / "rec"
    p = subprocess.run([scry, "record", "-q", "-o", str(rec), "--userspace-probe", f"elf:{wl}:handle_beta",
                        "--userspace-probe", f"sdt:{wl}:scrywl:tick", "--", wl, "2"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert events(bt2_read, rec) == EXPECTED

    out = tmp_path / "trace"
    daemon.run("create", "pr", "-o", out)
    p = daemon.run("enable-event", "-k", "--userspace-probe", "elf:uprobed:handle_beta", "beta",
                   cwd=os.path.dirname(wl))              # relative: the caller's directory
    assert p.stdout == "Kernel event beta created in channel channel0\n"
    daemon.run("enable-event", "-k", f"--userspace-probe=sdt:{wl}:scrywl:tick", "tick")
    lst = daemon.run("list", "pr").stdout
    assert ("    Recording event rules:\n"
            "      tick (type: userspace-probe) [enabled]\n"
            "        Type: Tracepoint\n"
            f"        Binary path:   {wl}\n"
            "        Tracepoint:    scrywl:tick\n"
            "        Lookup method: SDT\n"
            "      beta (type: userspace-probe) [enabled]\n"
            "        Type: Function\n"
            f"        Binary path:   {wl}\n"
            "        Function:      handle_beta\n"
            "        Lookup method: ELF\n") in lst, lst
    run_probed(daemon, wl)
    assert events(bt2_read, out) == EXPECTED

    xml = tmp_path / "pr.lttng"
    daemon.run("save", "-o", xml)
    lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(xml)], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stderr
    text = xml.read_text()
    assert "<type>USERSPACE_PROBE</type>" in text and "<lookup_method>ELF</lookup_method>" in text and \
        f"<binary_path>{wl}</binary_path>" in text and "<function_name>handle_beta</function_name>" in text and \
        "<lookup_method>SDT</lookup_method>" in text and "<provider_name>scrywl</provider_name>" in text and \
        "<probe_name>tick</probe_name>" in text, text
    daemon.run("destroy")
    out2 = tmp_path / "again"
    daemon.run("load", xml, "--override-url", out2)
    assert daemon.run("list", "pr").stdout == lst.replace(str(out), str(out2))
    run_probed(daemon, wl)
    assert events(bt2_read, out2) == EXPECTED
    # disable-event names a probe rule by its name
    p = daemon.run("disable-event", "-k", "beta")
    assert "      beta (type: userspace-probe) [disabled]\n" in daemon.run("list", "pr").stdout


def test_probe_refusals(daemon, tmp_path):
    daemon.run("create", "rf", "-o", tmp_path / "t")
    for opt in ("--probe=do_sys_openat2", "--function=do_sys_openat2"):
        p = daemon.run("enable-event", "-k", opt, "kp", check=False)
        assert p.returncode == 1 and p.stderr.count("\n") == 1 and "kprobe" in p.stderr, p.stderr
        if not os.path.exists("/sys/bus/event_source/devices/kprobe"):
            assert "this kernel has no kprobes (CONFIG_KPROBES off" in p.stderr, p.stderr
    p = daemon.run("enable-event", "-k", "--userspace-probe=elf:/nonexistent/bin:main", "x", check=False)
    assert p.returncode == 1 and p.stderr == "scry: '/nonexistent/bin': No such file or directory\n", p.stderr
    p = daemon.run("enable-event", "-k", "--userspace-probe=func:/bin/true:main", "x", check=False)
    assert p.returncode == 1 and p.stderr == ("scry: --userspace-probe 'func:/bin/true:main': expected "
                                              "elf:PATH:SYMBOL or sdt:PATH:PROVIDER:NAME\n"), p.stderr
    p = daemon.run("enable-event", "-k", "--userspace-probe=elf:/bin/true:main", "a,b", check=False)
    assert p.returncode == 1 and "one name" in p.stderr
    assert "None" in daemon.run("list", "rf").stdout or "Channels:\n-------------\nNone" in daemon.run("list", "rf").stdout
