"""tests/e2e/test_relay_save.py — save and load of sessions streamed to a relay (issue 25):
the file has LTTng's <net_output> (control_uri, data_uri as lttng writes them) and the live
timer, xmllint validates it against LTTng's session.xsd, load gives back the same session
(list the same), which streams to Debian's lttng-relayd again; a snapshot session's relay
output likewise; a session both streamed and local refused with the reason."""
import os
import subprocess

import pytest

from relayd import Relayd
from test_daemon import XSD, daemon, dd  # noqa: F401  (the fixture)
from test_relay_daemon import exact


@pytest.fixture
def relayd(tmp_path):
    r = Relayd(tmp_path)
    yield r
    r.stop()


def lint(path):
    if not os.path.exists(XSD):
        pytest.skip(f"{XSD} missing (Debian's lttng-tools installs it)")
    p = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_save_load_net_output(daemon, relayd, tmp_path, bt2_read):
    url = f"{relayd.url}/fleet/web"
    daemon.run("create", "web", "--set-url", url, "--live=500000")
    daemon.run("enable-event", "-k", "--syscall", "openat,write")
    daemon.run("add-context", "-k", "-t", "pid", "-t", "procname")
    lst = daemon.run("list", "web").stdout
    # as lttng's list shows a network output
    assert f"Trace output: tcp4://127.0.0.1:{relayd.ctrl}/fleet/web [data: {relayd.data}]\n" in lst, lst
    all_ = daemon.run("list").stdout
    assert (f"     Trace output: tcp4://127.0.0.1:{relayd.ctrl}/fleet/web [data: {relayd.data}]\n"
            "     Live timer interval: 500000 us\n") in all_, all_
    xml = tmp_path / "web.lttng"
    p = daemon.run("save", "-o", xml)
    lint(xml)
    text = xml.read_text()
    for el in (f"<control_uri>tcp4://127.0.0.1:{relayd.ctrl}/fleet/web</control_uri>",
               f"<data_uri>tcp4://127.0.0.1:{relayd.data}/fleet/web</data_uri>",
               "<live_timer_interval>500000</live_timer_interval>"):
        assert el in text, (el, text)
    daemon.run("destroy")
    p = daemon.run("load", xml)
    assert p.stdout == f"Session web loaded from {xml}\n", p.stdout
    assert daemon.run("list", "web").stdout == lst
    daemon.run("start")
    pid, path = dd(tmp_path)
    daemon.run("stop")
    daemon.run("destroy")
    host = __import__("socket").gethostname()
    traces = list((relayd.out / host / "fleet").glob("web*"))
    assert len(traces) == 1, list(relayd.out.rglob("*"))
    exact(bt2_read, traces[0], pid, path)


def test_save_snapshot_net_and_refusals(daemon, relayd, tmp_path):
    daemon.run("create", "box", "--snapshot", "--set-url", relayd.url)
    daemon.run("enable-event", "-k", "--syscall", "write")
    xml = tmp_path / "box.lttng"
    daemon.run("save", "-o", xml)
    lint(xml)
    assert f"<control_uri>tcp4://127.0.0.1:{relayd.ctrl}/</control_uri>" in xml.read_text()
    lst = daemon.run("list", "box").stdout
    daemon.run("destroy")
    daemon.run("load", xml)
    assert daemon.run("list", "box").stdout == lst
    daemon.run("destroy")
    daemon.run("create", "both", "--set-url", relayd.url, "-o", tmp_path / "local")
    p = daemon.run("save", "-o", tmp_path / "both.lttng", check=False)
    assert p.returncode == 1 and p.stderr == ("scry: session 'both' streams to a relay and writes locally: LTTng's "
                                              "session XML holds one destination (<path> or <net_output>)\n"), p.stderr
    daemon.run("destroy")
    # a live timer without a relay, and a bad URI: one line naming the element
    bad = xml.read_text().replace(f"tcp4://127.0.0.1:{relayd.data}/", "tcp4://127.0.0.1:99999/")
    (tmp_path / "bad.lttng").write_text(bad)
    p = daemon.run("load", tmp_path / "bad.lttng", check=False)
    assert p.returncode == 1 and "<net_output>" in p.stderr and "a port is a number" in p.stderr, p.stderr
