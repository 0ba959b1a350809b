"""tests/e2e/test_relay.py — traces streamed to Debian's lttng-relayd (issue 25): `scry record
--set-url` and -C/-D: the relay's copy (HOST/NAME-DATE/kernel, read by babeltrace2 and bt2)
holds exactly dd's events (its openat of its output, its three 777-byte writes), the same as
a local -o copy of the same recording; a relay that speaks another major, or refuses a step,
gets a one-line error naming the step and its answer; no relay: the connection's error."""
import struct
import subprocess

import pytest

from conftest import run_babeltrace2
from relayd import FakeRelay, Relayd, free_ports


@pytest.fixture
def relayd(tmp_path):
    r = Relayd(tmp_path)
    yield r
    r.stop()


def dd_record(scry, tmp_path, *args, name="dd.out"):
    out = tmp_path / name
    p = subprocess.run([scry, "record", "-q", "-e", "syscall:openat,syscall:write", "-c", "pid,procname"] +
                       list(args) + ["--", "dd", "if=/dev/zero", f"of={out}", "bs=777", "count=3", "status=none"],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    return p, str(out)


def dd_events(bt2_read, trace, path):
    """dd's events in the trace: its openat of path and its writes to fd 1 (entry, exit)."""
    bt = run_babeltrace2(trace)
    assert bt.returncode == 0 and bt.stderr == "", bt.stderr
    tr = bt2_read(trace)
    assert len(tr.events) == len(bt.stdout.splitlines())
    assert tr.discarded == 0
    dd = [e for e in tr.events if e["procname"] == "dd"]
    opens = [e for e in dd if e["name"] == "syscall_entry_openat" and e["fields"]["filename"] == path]
    writes = [e for e in dd if e["name"] == "syscall_entry_write" and e["fields"]["fd"] == 1]
    wrets = [e for e in dd if e["name"] == "syscall_exit_write" and e["fields"]["ret"] == 777]
    return tr, opens, writes, wrets


def test_record_streamed_exact_events(scry, relayd, tmp_path, bt2_read):
    p, path = dd_record(scry, tmp_path, "--set-url", relayd.url, "--name", "exact", "--hostname", "hostA")
    assert p.returncode == 0, p.stderr
    tr, opens, writes, wrets = dd_events(bt2_read, relayd.trace("hostA", "exact"), path)
    assert len(opens) == 1 and len(writes) == 3 and len(wrets) == 3
    assert all(w["fields"]["count"] == 777 for w in writes)
    # the summary: every packet delivered, counted; nothing not delivered
    lines = [l for l in p.stderr.splitlines() if "streamed to" in l]
    assert len(lines) == 1 and lines[0].endswith(f"streamed to {relayd.url}"), p.stderr
    n_events = int(lines[0].split("(")[1].split()[0])
    assert n_events == len(tr.events), (lines[0], len(tr.events))
    assert "not delivered" not in p.stderr


def test_record_streamed_and_local_copy_same(scry, relayd, tmp_path, bt2_read):
    local = tmp_path / "local"
    p, path = dd_record(scry, tmp_path, "-o", local, "-U", relayd.url, "--name", "dual", "--hostname", "hostB")
    assert p.returncode == 0, p.stderr
    ra, oa, wa, _ = dd_events(bt2_read, relayd.trace("hostB", "dual"), path)
    la, ol, wl, _ = dd_events(bt2_read, local, path)
    assert len(oa) == 1 and len(wa) == 3
    strip = lambda tr: [(e["name"], e["ts"], e["cpu"], e["pid"], e["fields"]) for e in tr.events]
    assert strip(ra) == strip(la)
    assert len(ra.events) > 0


def test_record_ctrl_data_urls(scry, relayd, tmp_path, bt2_read):
    p, path = dd_record(scry, tmp_path, "-C", f"tcp://127.0.0.1:{relayd.ctrl}", "-D", f"tcp://127.0.0.1:{relayd.data}",
                        "--name", "cd", "--hostname", "hostC")
    assert p.returncode == 0, p.stderr
    _, opens, writes, _ = dd_events(bt2_read, relayd.trace("hostC", "cd"), path)
    assert len(opens) == 1 and len(writes) == 3


def test_no_relay_listening(scry, tmp_path):
    port, = free_ports(1)
    p, _ = dd_record(scry, tmp_path, "--set-url", f"net://127.0.0.1:{port}:{port}")
    assert p.returncode == 1
    err = [l for l in p.stderr.splitlines() if l]
    assert len(err) == 1 and "cannot connect to its control port" in err[0] and "refused" in err[0], p.stderr


def test_relay_another_major(scry, tmp_path):
    fake = FakeRelay(major=3, minor=0)
    p, _ = dd_record(scry, tmp_path, "--set-url", fake.url)
    fake.close()
    assert p.returncode == 1
    err = [l for l in p.stderr.splitlines() if l]
    assert err == [f"scry: relay {fake.url}: VERSION: the relay speaks 3.0, scry speaks 2.x: another major"], p.stderr


def test_relay_too_old(scry, tmp_path):
    fake = FakeRelay(major=2, minor=8)
    p, _ = dd_record(scry, tmp_path, "--set-url", fake.url)
    fake.close()
    assert p.returncode == 1 and p.stderr.strip() == \
        f"scry: relay {fake.url}: VERSION: the relay speaks 2.8, scry needs 2.11 or later", p.stderr


@pytest.mark.parametrize("answers,step,code", [
    ([struct.pack(">QII", 0, 18, 0)], "CREATE_SESSION", "LTTNG_ERR_SESSION_FAIL (18)"),
    ([struct.pack(">QII", 7, 10, 0), struct.pack(">I", 11)], "CREATE_TRACE_CHUNK", "LTTNG_ERR_UNK (11)"),
    ([struct.pack(">QII", 7, 10, 0), struct.pack(">I", 10), struct.pack(">QI", 0, 17)], "ADD_STREAM",
     "LTTNG_ERR_CREATE_DIR_FAIL (17)"),
])
def test_relay_refuses_a_step(scry, tmp_path, answers, step, code):
    fake = FakeRelay(answers=answers)
    p, _ = dd_record(scry, tmp_path, "--set-url", fake.url)
    fake.close()
    assert p.returncode == 1
    assert p.stderr.strip() == f"scry: relay {fake.url}: {step} refused: {code}", p.stderr


def test_relay_closes_mid_handshake(scry, tmp_path):
    fake = FakeRelay(answers=[])      # VERSION answered, then CREATE_SESSION's connection closed
    p, _ = dd_record(scry, tmp_path, "--set-url", fake.url)
    fake.close()
    assert p.returncode == 1
    assert p.stderr.strip() == (f"scry: relay {fake.url}: CREATE_SESSION: the relay closed the connection "
                                "(it refused the step)"), p.stderr


def test_bad_urls(scry, tmp_path):
    for args, msg in [(["--set-url", "net://"], "no host"),
                      (["--set-url", "net://h:99999"], "a port is a number from 1 to 65535"),
                      (["--set-url", "tcp://h:1"], "tcp:// is for -C and -D"),
                      (["-C", "tcp://a:1", "-D", "tcp://b:2"], "one relay, one host"),
                      (["-C", "tcp://a:1"], "-C and -D go together"),
                      (["--live"], "are for a trace streamed to a relay")]:
        p, _ = dd_record(scry, tmp_path, *args)
        assert p.returncode == 1 and msg in p.stderr and len(p.stderr.splitlines()) == 1, (args, p.stderr)
