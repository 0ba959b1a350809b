"""tests/e2e/test_loss.py — loss accounting with a deliberately tiny ring buffer: every
getppid call is either recorded (entry and exit) or counted as discarded, exactly; the
discarded count in the trace (bt2's discarded-events messages) equals scry's summary line."""
import json

import pytest

from conftest import read_trace, run_babeltrace2


def record_loop(record, workload, out_dir, n):
    r = record(out_dir, "--buffer-size", "64K", "-e", "syscall:getppid",
               cmd=[workload("getppid_loop"), n], timeout=600)
    r.check()
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["calls"] == n
    return r, out


def test_events_plus_discarded_equals_calls(record, workload, tmp_path):
    # Small buffer + a tight syscall loop: the ring must overflow.  Grow N until it does.
    for attempt, n in enumerate((100_000, 500_000, 2_000_000)):
        r, out = record_loop(record, workload, tmp_path / f"trace{attempt}", n)
        tr = read_trace(r.dir, fields=False)
        names = {e["name"] for e in tr.events}
        assert names <= {"syscall_entry_getppid", "syscall_exit_getppid"}, names
        assert all(e["pid"] == out["pid"] for e in tr.events)
        s = r.summary()
        assert s["discarded"] == tr.discarded, "summary line and trace disagree on discarded"
        assert s["events"] == len(tr.events), "summary line and trace disagree on events"
        assert len(tr.events) + tr.discarded == 2 * n, \
            f"{len(tr.events)} events + {tr.discarded} discarded != 2 x {n} calls"
        if tr.discarded > 0:
            break
    else:
        pytest.fail("the 64K ring never overflowed: the loss path was not exercised")
    assert run_babeltrace2(r.dir).returncode == 0
