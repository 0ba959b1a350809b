"""tests/e2e/test_daemon_lttng_verbs.py — lttng 2.13's smaller verbs and options against
lttng's own output (issue 26 item 5): `list NAME -d`, `list NAME -c CHANNEL`, `snapshot
add-output/list-output/del-output`, `track --all --vpid`, captured from an lttng-sessiond
run in user space only (test_daemon_layout's fixture: the same configuration in the user
space domain, whose lines are the kernel domain's but for the domain's name); `snapshot
record -m` bounded as lttng-sessiond bounds it (one sub-buffer per stream at least);
`list -k --syscall` in list.c's layout."""
import json
import os
import re
import shutil
import subprocess

import pytest

from test_daemon import daemon  # noqa: F401 (a fixture)
from test_daemon_layout import Lttng


@pytest.fixture(scope="module")
def lttng():
    """One lttng-sessiond for the module (its stop takes ~3 s); each test's sessions have
    their own names."""
    if not shutil.which("lttng-sessiond") or not shutil.which("runuser"):
        pytest.skip("lttng-tools (lttng-sessiond) is not installed")
    lt = Lttng()
    yield lt
    lt.stop()


def both(daemon, lttng, tmp_path, *args):
    """(scry's run, lttng's stdout) of the same verb, paths under tmp_path given to lttng under
    its own home (the user nobody's); lttng's paths brought back to tmp_path."""
    s = daemon.run(*args, check=False)
    lt = lttng.run(*[a.replace(str(tmp_path), lttng.home) for a in map(str, args)]) if s.returncode == 0 else None
    return s, lt and lt.replace(lttng.home, str(tmp_path))


def test_list_domains_and_channel(daemon, lttng, tmp_path):
    for run, dom, out in ((daemon.run, "-k", tmp_path / "s"), (lttng.run, "-u", f"{lttng.home}/s")):
        run("create", "lay", "-o", out)
        run("create", "bare", "-o", f"{out}-bare")
        for ch in ("ch", "ch2"):
            run("enable-channel", dom, "-s", "lay", ch)
    mine = daemon.run("list", "lay", "-d").stdout
    theirs = lttng.run("list", "lay", "-d")
    assert mine.replace(str(tmp_path), "ROOT").replace("  - Kernel", "DOMAIN") == \
        theirs.replace(lttng.home, "ROOT").replace("  - UST global", "DOMAIN"), (mine, theirs)
    # a session without a channel: no domain, the same lines
    assert daemon.run("list", "bare", "-d").stdout.replace(str(tmp_path), "ROOT") == \
        lttng.run("list", "bare", "-d").replace(lttng.home, "ROOT")

    whole = daemon.run("list", "lay").stdout
    one = daemon.run("list", "lay", "-c", "ch2").stdout
    theirs = lttng.run("list", "lay", "-c", "ch2")
    names = lambda text: re.findall(r"^- (\w+): \[", text, re.M)   # noqa: E731
    assert names(whole) == ["ch", "ch2"] and names(one) == ["ch2"] and names(theirs) == ["ch2"]
    ch2 = whole[whole.index("- ch2:"):]
    ch2 = ch2[:ch2.index("\n\n    Recording event rules:")]
    assert ch2 in one and "- ch:" not in one
    assert one.startswith(whole[:whole.index("- ch:")])
    p = daemon.run("list", "lay", "-c", "nope", check=False)
    assert p.returncode == 1 and p.stderr == "scry: Channel nope not found\n", p.stderr
    assert p.stdout.endswith("Channels:\n-------------\n")


def test_snapshot_outputs_as_lttng(daemon, lttng, tmp_path):
    both(daemon, lttng, tmp_path, "create", "sn", "--snapshot", "-o", tmp_path / "snap")
    steps = [("list-output",), ("del-output", "1"), ("list-output",),
             ("add-output", "-m", "1M", str(tmp_path / "two")), ("list-output",), ("del-output", "snapshot-2"),
             ("add-output", "-n", "mine", f"file://{tmp_path}/three"), ("list-output",)]
    for step in steps:
        s, lt = both(daemon, lttng, tmp_path, "snapshot", step[0], "-s", "sn", *step[1:])
        assert s.returncode == 0, (step, s.stderr)
        assert s.stdout == lt, (step, s.stdout, lt)
    assert "[3] mine: " + str(tmp_path / "three") in s.stdout
    # one output at a time, as lttng's; refusals in its words
    p = daemon.run("snapshot", "add-output", "-s", "sn", tmp_path / "four", check=False)
    assert p.returncode == 1 and p.stderr == "scry: Snapshot output already exists\n"
    daemon.run("create", "plain", "-o", tmp_path / "plain")
    p = daemon.run("snapshot", "list-output", "-s", "plain", check=False)
    assert p.stderr == "scry: Snapshot command can't be applied to a non-snapshot session\n"


def test_snapshot_record_max_size_bound(daemon, tmp_path):
    daemon.run("create", "sn", "--snapshot", "-o", tmp_path / "snap")
    daemon.run("enable-channel", "-k", "--subbuf-size", "64K", "--num-subbuf", "4", "c")
    daemon.run("enable-event", "-k", "-c", "c", "sched_switch")
    daemon.run("start")
    ranges = open("/sys/devices/system/cpu/possible").read().strip().split(",")
    ncpus = sum(int(r.split("-")[-1]) - int(r.split("-")[0]) + 1 for r in ranges)   # a stream per CPU
    need = 64 * 1024 * ncpus
    p = daemon.run("snapshot", "record", "-m", str(need - 1), check=False)
    assert p.returncode == 1 and p.stderr.startswith("scry: Snapshot max size is invalid"), p.stderr
    assert not list((tmp_path / "snap").glob("snapshot-*")), "a refused snapshot left a directory"
    p = daemon.run("snapshot", "record", "-m", str(need))
    m = re.search(r"in (\S+) \((\d+) bytes\)", p.stdout)
    assert m and int(m[2]) <= need, p.stdout
    # the output's own bound applies without -m
    daemon.run("snapshot", "del-output", "-s", "sn", "1")
    daemon.run("snapshot", "add-output", "-s", "sn", "-m", "1k", tmp_path / "small")
    p = daemon.run("snapshot", "record", check=False)
    assert p.returncode == 1 and "Snapshot max size is invalid" in p.stderr, p.stderr


def test_list_kernel_syscalls(daemon):
    out = daemon.run("list", "-k", "--syscall").stdout.split("\n")
    assert out[:2] == ["System calls:", "-------------"] and out[-2:] == ["", ""], out[-3:]
    rows = out[2:-2]
    assert all(re.fullmatch(r"      \w+ \[64-bit\]", r) for r in rows), [r for r in rows if "[64-bit]" not in r][:3]
    names = [r.split()[0] for r in rows]
    assert names[:3] == ["read", "write", "open"] and "openat" in names and len(set(names)) == len(names) > 300
    p = daemon.run("list", "--syscall", check=False)
    assert p.returncode == 1 and "--syscall will only work with the Kernel domain (-k)" in p.stderr


def test_track_all_policy(daemon, lttng, tmp_path, workload):
    """lttng's tracking policies: track --all --X (include all), untrack --all --X (exclude
    all), and an inclusion set whose last value is untracked: "none", nothing recorded —
    lttng's lines and listing compared (user space domain: vpid); saved (an empty
    <process_attr_values/>), loaded the same."""
    both(daemon, lttng, tmp_path, "create", "tr", "-o", tmp_path / "tr")
    lttng.run("enable-channel", "-u", "ch")
    daemon.run("track", "-k", "--vpid", "1", "--uid", "0")
    lttng.run("track", "-u", "--vpid", "1")
    mine = daemon.run("track", "-k", "--all", "--vpid").stdout
    assert mine == lttng.run("track", "-u", "--all", "--vpid") == \
        "Virtual process ID tracking policy set to `include all`\n"
    listing = daemon.run("list", "tr").stdout
    assert "  Virtual process IDs:  all\n" in listing and "  User IDs:             0\n" in listing
    mine = daemon.run("untrack", "-k", "--all", "--vpid").stdout
    assert mine == lttng.run("untrack", "-u", "--all", "--vpid") == \
        "Virtual process ID tracking policy set to `exclude all`\n"
    line = lambda text: next(l for l in text.splitlines() if "Virtual process IDs:" in l)   # noqa: E731
    assert line(daemon.run("list", "tr").stdout) == line(lttng.run("list", "tr")) == "  Virtual process IDs:  none"
    daemon.run("track", "-k", "--all", "--vpid")
    lttng.run("track", "-u", "--all", "--vpid")
    for verb, ids in (("track", "7,8"), ("untrack", "8"), ("untrack", "7")):   # lttng's line per value
        mine = daemon.run(verb, "-k", "--vpid", ids).stdout
        assert mine == lttng.run(verb, "-u", "--vpid", ids), (verb, mine)
    assert mine == "Removed 7 from the virtual process ID tracker inclusion set\n"
    assert line(daemon.run("list", "tr").stdout) == line(lttng.run("list", "tr")) == "  Virtual process IDs:  none"
    p = daemon.run("track", "-k", "--all", "--pid", "5", check=False)
    assert p.stderr == "scry: The --all option cannot be used with a list of process attribute values\n"
    # none records nothing; saved and loaded as none
    daemon.run("enable-event", "-k", "--syscall", "getppid")
    listing = daemon.run("list", "tr").stdout
    daemon.run("save", "tr", "-o", tmp_path)
    assert "<vpid_process_attr_tracker>\n" in (tmp_path / "tr.lttng").read_text()
    daemon.run("start")
    subprocess.run([workload("getppid_loop"), "5"], capture_output=True, check=True)
    p = daemon.run("stop")
    assert ": 0 events recorded" in p.stdout, p.stdout
    daemon.run("destroy", "tr")
    (tmp_path / "tr").rename(tmp_path / "tr.recorded")
    daemon.run("load", "-i", tmp_path / "tr.lttng")
    assert daemon.run("list", "tr").stdout == listing


XSD = "/usr/share/xml/lttng/session.xsd"


def perf_elements(xml):
    return re.findall(r"<perf>\s*(<.*?)\s*</perf>", xml, re.S)


def test_save_load_perf_contexts(daemon, lttng, tmp_path):
    """perf counter contexts saved as session.xsd's <perf> (type, config, name), as lttng saves
    them (its own save of the user space domain's perf:thread:page-fault compared), loaded back;
    cpu_id not saved (session.xsd has no such value), said in a Note."""
    daemon.run("create", "pf", "-o", tmp_path / "t")
    daemon.run("enable-event", "-k", "sched_switch")
    daemon.run("add-context", "-k", "-t", "perf:cpu:cycles", "-t", "perf:thread:page-fault", "-t", "cpu_id",
               "-t", "pid")
    saved = daemon.run("save", "pf", "-o", tmp_path).stdout
    assert "Note: its cpu_id context is not saved" in saved, saved
    xml = (tmp_path / "pf.lttng").read_text()
    if shutil.which("xmllint") and os.path.exists(XSD):
        lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(tmp_path / "pf.lttng")],
                              capture_output=True, text=True)
        assert lint.returncode == 0, lint.stderr
    assert "cpu_id" not in xml and "<provider_name>" not in xml
    assert "<output_type>SPLICE</output_type>" in xml      # lttng's kernel default
    mine = perf_elements(xml)
    assert len(mine) == 2 and "<name>perf_cpu_cpu_cycles</name>" in mine[0], mine
    lttng.run("create", "pf", "-o", f"{lttng.home}/t")
    lttng.run("enable-event", "-u", "-a")
    lttng.run("add-context", "-u", "-t", "perf:thread:page-fault")
    lttng.run("save", "pf", "-o", lttng.home)
    theirs = perf_elements(open(f"{lttng.home}/pf.lttng").read())
    norm = lambda e: re.sub(r"\s+", "", e)   # noqa: E731
    assert [norm(e) for e in theirs] == [norm(mine[1])], (theirs, mine)

    before = daemon.run("list", "pf").stdout
    daemon.run("destroy", "pf")
    daemon.run("load", "-i", tmp_path / "pf.lttng")
    after = daemon.run("list", "pf").stdout
    assert after == before.replace("      cpu_id\n", ""), (before, after)
    assert "      perf:cpu:cpu-cycles\n      perf:thread:page-fault\n" in after
    # lttng's own name for an alias, and a counter scry does not record
    alias = xml.replace("perf_cpu_cpu_cycles", "perf_cpu_cycles").replace("<name>pf</name>", "<name>pf2</name>")
    (tmp_path / "pf2.lttng").write_text(alias)
    daemon.run("destroy", "pf")
    daemon.run("load", "-i", tmp_path / "pf2.lttng")
    assert "      perf:cpu:cpu-cycles\n" in daemon.run("list", "pf2").stdout
    bad = xml.replace("<config>0</config>", "<config>99</config>", 1).replace("<name>pf</name>", "<name>pf3</name>")
    (tmp_path / "pf3.lttng").write_text(bad)
    daemon.run("destroy", "pf2")
    p = daemon.run("load", "-i", tmp_path / "pf3.lttng", check=False)
    assert p.returncode == 1 and "a perf counter scry does not record" in p.stderr, p.stderr


def test_track_vuid_vgid(daemon, tmp_path, bt2_read, workload):
    """LTTng's vuid/vgid trackers: the uid and gid as the task's user namespace maps them.  A
    process in a new user namespace without maps has the overflow ids 65534: tracked, its 7
    getppid calls recorded; the same program outside (vuid 0) not; every event recorded has
    vuid and vgid 65534 (the contexts).  Saved (xmllint), loaded with the same trackers."""
    if subprocess.run(["unshare", "--user", "true"]).returncode:
        pytest.skip("no unprivileged user namespaces here")
    daemon.run("create", "vu", "-o", tmp_path / "t")
    daemon.run("enable-event", "-k", "--syscall", "getppid")
    daemon.run("add-context", "-k", "-t", "vuid", "-t", "vgid", "-t", "pid")
    daemon.run("track", "-k", "--vuid", "65534", "--vgid", "nogroup")
    listing = daemon.run("list", "vu").stdout
    assert "  Virtual user IDs:     65534\n" in listing and "  Virtual group IDs:    65534\n" in listing
    daemon.run("save", "vu", "-o", tmp_path)
    xml = (tmp_path / "vu.lttng").read_text()
    assert "<vuid_process_attr_tracker>" in xml and "<vgid_process_attr_tracker>" in xml
    if shutil.which("xmllint") and os.path.exists(XSD):
        lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(tmp_path / "vu.lttng")],
                              capture_output=True, text=True)
        assert lint.returncode == 0, lint.stderr
    daemon.run("start")
    run = lambda *argv: json.loads(subprocess.run(argv, capture_output=True, text=True,   # noqa: E731
                                                  check=True).stdout)["pid"]
    inside = run("unshare", "--user", workload("getppid_loop"), "7")
    outside = run(workload("getppid_loop"), "10")
    daemon.run("stop")
    tr = bt2_read(tmp_path / "t")
    calls = [e for e in tr.events if e["name"] == "syscall_entry_getppid"]
    assert sum(1 for e in calls if e["pid"] == inside) == 7
    assert not [e for e in calls if e["pid"] == outside]
    assert {(e["ctx"]["vuid"], e["ctx"]["vgid"]) for e in tr.events} == {(65534, 65534)}
    daemon.run("destroy", "vu")
    (tmp_path / "t").rename(tmp_path / "t.recorded")
    daemon.run("load", "-i", tmp_path / "vu.lttng")
    assert daemon.run("list", "vu").stdout == listing


def test_create_file_urls_and_no_wait(daemon, tmp_path):
    """-U file:///DIR (lttng's local output) and -o file:///DIR name DIR; --no-wait is taken by
    stop, rotate and destroy (which still return with the trace complete)."""
    p = daemon.run("create", "u", "-U", f"file://{tmp_path}/u")
    assert p.stdout == f"Session u created.\nTraces will be output to {tmp_path}/u\n"
    p = daemon.run("create", "o", "-o", f"file://{tmp_path}/o")
    assert p.stdout == f"Session o created.\nTraces will be output to {tmp_path}/o\n"
    p = daemon.run("create", "r", "-o", "file://rel", check=False)
    assert p.returncode == 1 and "absolute path" in p.stderr
    for opt in (["--no-output"], ["--shm-path", "/dev/shm"]):    # lttng's options scry refuses, saying why
        p = daemon.run("create", "n", *opt, check=False)
        assert p.returncode == 1 and p.stderr.startswith(f"scry: create: {opt[0]} ") and p.stderr.count("\n") == 1
    daemon.run("enable-event", "-k", "-s", "o", "sched_switch")
    daemon.run("start", "o")
    daemon.run("rotate", "--no-wait", "o")
    daemon.run("stop", "--no-wait", "o")
    daemon.run("destroy", "--no-wait", "o")
    assert list((tmp_path / "o" / "archives").iterdir()), "rotate --no-wait archived nothing"


def snapshot_outputs(xml):
    m = re.search(r"<output>\s*(<snapshot_outputs>.*?</snapshot_outputs>)\s*</output>", xml, re.S)
    return m and re.sub(r"\s+", "", m[1])


def test_save_load_snapshot_outputs(daemon, lttng, tmp_path):
    """A snapshot session saves its snapshot output as lttng saves it (name, max_size, path:
    compared with lttng's own save of the same steps), loads back with it (list-output equal),
    and a session whose output was deleted saves no <output>, as lttng's, and loads without one."""
    steps = [("create", "so", "--snapshot", "-o", tmp_path / "snap"),
             ("snapshot", "del-output", "-s", "so", "1"),
             ("snapshot", "add-output", "-s", "so", "-n", "mine", "-m", "4M", tmp_path / "there")]
    for step in steps:
        both(daemon, lttng, tmp_path, *step)
    daemon.run("enable-event", "-k", "-s", "so", "sched_switch")
    lttng.run("enable-event", "-u", "-s", "so", "-a")
    daemon.run("save", "so", "-o", tmp_path)
    lttng.run("save", "so", "-o", lttng.home)
    mine = (tmp_path / "so.lttng").read_text()
    theirs = open(f"{lttng.home}/so.lttng").read().replace(lttng.home, str(tmp_path))
    assert snapshot_outputs(mine) and snapshot_outputs(mine) == snapshot_outputs(theirs), (mine, theirs)
    if shutil.which("xmllint") and os.path.exists(XSD):
        lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(tmp_path / "so.lttng")],
                              capture_output=True, text=True)
        assert lint.returncode == 0, lint.stderr
    before = daemon.run("snapshot", "list-output", "-s", "so").stdout
    assert f"[2] mine: {tmp_path}/there (max size: 4194304 bytes)" in before, before
    daemon.run("destroy", "so")
    daemon.run("load", "-i", tmp_path / "so.lttng")
    after = daemon.run("snapshot", "list-output", "-s", "so").stdout
    assert after == before.replace("[2] mine", "[1] mine"), (before, after)   # ids restart at 1, as lttng's

    # no output: none saved (lttng's form), loaded without one
    both(daemon, lttng, tmp_path, "snapshot", "del-output", "-s", "so", "mine")
    daemon.run("save", "so", "-o", tmp_path, "-f")
    lttng.run("save", "so", "-o", lttng.home, "-f")
    mine = (tmp_path / "so.lttng").read_text()
    theirs = open(f"{lttng.home}/so.lttng").read()
    assert "<output>" not in mine and "<output>" not in theirs, (mine, theirs)
    daemon.run("destroy", "so")
    daemon.run("load", "-i", tmp_path / "so.lttng")
    assert daemon.run("snapshot", "list-output", "-s", "so").stdout == \
        "Snapshot output list for session so\n    None\n"
    p = daemon.run("snapshot", "record", "-s", "so", check=False)
    assert p.returncode == 1, p.stdout
