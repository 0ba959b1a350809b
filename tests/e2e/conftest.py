"""tests/e2e/conftest.py — fixtures for the end-to-end tests: paths to ./scry and the
workloads, a fresh trace directory, running `scry record`, and reading a trace back with
babeltrace2's Python bindings (bt2) into plain dicts.  These tests load BPF for real (root)."""
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRY = Path(os.environ.get("SCRY_BIN", ROOT / "scry"))  # SCRY_BIN overrides
WORKLOAD_DIR = ROOT / "build" / "workload"

SUMMARY_RE = re.compile(
    r"^scry: (\d+) events recorded, (\d+) discarded, (\d+) bytes written to (.+) "
    r"in ([0-9.]+) s \(([0-9.]+) events/s\)$")

O_WRONLY, O_CREAT, O_TRUNC, O_CLOEXEC = 0o1, 0o100, 0o1000, 0o2000000


def pytest_collection_modifyitems(config, items):
    if os.geteuid() != 0:
        skip = pytest.mark.skip(reason="end-to-end tests load BPF programs: run as root")
        for item in items:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def scry():
    assert SCRY.exists(), f"{SCRY} missing: run `make` first"
    return str(SCRY)


@pytest.fixture(scope="session")
def workload():
    """workload('tree') -> path of build/workload/tree."""
    def path(name):
        p = WORKLOAD_DIR / name
        assert p.exists(), f"{p} missing: run `make` first"
        return str(p)
    return path


@pytest.fixture
def trace_dir(tmp_path):
    """A path where a trace may be written (does not exist yet)."""
    return tmp_path / "trace"


class Recording:
    def __init__(self, proc, out_dir):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.dir = Path(out_dir)

    def summary(self):
        """The parsed summary line: dict(events, discarded, bytes, dir, seconds, rate)."""
        lines = [l for l in self.stderr.splitlines() if l.startswith("scry: ") and " events recorded, " in l]
        assert len(lines) == 1, f"expected exactly one summary line on stderr, got:\n{self.stderr}"
        m = SUMMARY_RE.match(lines[0].strip())
        assert m, f"summary line does not match the spec: {lines[0]!r}"
        return dict(events=int(m[1]), discarded=int(m[2]), bytes=int(m[3]), dir=m[4],
                    seconds=float(m[5]), rate=float(m[6]))

    def check(self):
        assert self.returncode == 0, f"scry record exited {self.returncode}:\n{self.stderr}"
        return self


@pytest.fixture(scope="session")
def record(scry):
    """record(out_dir, *args, cmd=None, timeout=...) runs `scry record -q -o out_dir args [-- cmd]`."""
    def run(out_dir, *args, cmd=None, timeout=180, quiet=True):
        argv = [scry, "record"] + (["-q"] if quiet else []) + ["-o", str(out_dir)] + list(args)
        if cmd:
            argv += ["--"] + [str(c) for c in cmd]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        return Recording(proc, out_dir)
    return run


def _to_py(field):
    import bt2
    if isinstance(field, bt2._StringFieldConst):
        # babeltrace2 2.0.4 keeps, in an empty string field, the text of the previous event
        # of the same class: bt_field_string_clear() sets the length to 0 but leaves the
        # buffer, which str() reads up to its NUL.  The length is right.
        return str(field) if len(field) else ""
    if isinstance(field, bt2._BoolFieldConst):
        return bool(field)
    if isinstance(field, bt2._IntegerFieldConst):
        return int(field)
    if isinstance(field, bt2._RealFieldConst):
        return float(field)
    if isinstance(field, bt2._StructureFieldConst):
        return {k: _to_py(v) for k, v in field.items()}
    if isinstance(field, bt2._ArrayFieldConst):
        return [_to_py(v) for v in field]
    if isinstance(field, bt2._VariantFieldConst):
        return _to_py(field.selected_option)
    if isinstance(field, bt2._OptionFieldConst):
        return None if field.field is None else _to_py(field.field)
    return field


class Trace:
    def __init__(self):
        self.events = []       # dicts: name, ts, cpu, stream, pid, tid, procname, ctx, fields
        self.discarded = 0     # sum of the discarded-events messages' counts
        self.discarded_msgs = 0


def read_trace(path, fields=True):
    """Read a trace with bt2 (muxed, time-ordered).  Each event is a dict with name, ts (ns
    from the clock snapshot), cpu (packet context cpu_id), stream (stream id), the common
    context flattened (pid, tid, procname, ...) plus 'ctx', and 'fields' (the payload);
    channel is the stream class id."""
    import bt2
    tr = Trace()
    for msg in bt2.TraceCollectionMessageIterator(str(path)):
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            d = {"name": ev.name, "ts": msg.default_clock_snapshot.value}
            pkt = ev.packet
            d["cpu"] = int(pkt.context_field["cpu_id"]) if pkt is not None and pkt.context_field is not None and "cpu_id" in pkt.context_field else None
            d["stream"] = ev.stream.id
            d["channel"] = ev.stream.cls.id     # the stream class: scry's channel
            ctx = _to_py(ev.common_context_field) if ev.common_context_field is not None else {}
            d["ctx"] = ctx
            for k in ("pid", "tid", "procname"):
                d[k] = ctx.get(k)
            if fields:
                d["fields"] = _to_py(ev.payload_field) if ev.payload_field is not None else {}
            tr.events.append(d)
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            tr.discarded_msgs += 1
            assert msg.count is not None, "discarded-events message without a count"
            tr.discarded += msg.count
    return tr


@pytest.fixture(scope="session")
def bt2_read():
    return read_trace


def run_babeltrace2(path, timeout=300):
    return subprocess.run(["babeltrace2", str(path)], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def wait_json_line(proc, timeout=10):
    """First stdout line of a Popen'd workload, parsed as JSON."""
    line = proc.stdout.readline()
    assert line, "workload printed nothing"
    return json.loads(line)


def scry_progs():
    """BPF programs currently loaded whose name starts with scry (bpftool prog show -j)."""
    out = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True, check=True)
    return [p for p in json.loads(out.stdout or "[]") if str(p.get("name", "")).startswith("scry")]


def held_prog_ids(pid):
    """The ids of the BPF programs process pid holds (its descriptors' fdinfo)."""
    ids = set()
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                ids |= {int(ln.split()[1]) for ln in f if ln.startswith("prog_id:")}
        except OSError:
            pass
    return ids


def pid_alive(pid):
    """The process runs: a zombie has exited (its parent, often pid 1 for a daemon, reaps it
    when it gets to it: this machine's pid 1 takes up to ~2 s)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


# The scheduler's events a targeted trace (-- CMD, -p) records for every task
# (session opts.sched_everyone): CPU analyses see each task switched in and out.
SCHED_EVERYONE = {"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task"}


def split_switch_ins(events, pids):
    """A targeted trace also records the scheduler's events of every task (SCHED_EVERYONE),
    and `record`'s default statedump (lttng_statedump_*, written by scry's thread and in its
    context, as LTTng's carries its session daemon's).  Returns (the events whose context pid
    is in pids, the switches of other tasks into a thread of pids, the rest: events of other
    processes that are neither the scheduler's nor the statedump)."""
    tids = {e["tid"] for e in events if e["pid"] in pids}
    own = [e for e in events if e["pid"] in pids]
    ins, rest = [], []
    for e in events:
        if e["pid"] in pids or e["name"].startswith("lttng_statedump_"):
            continue
        if e["name"] == "sched_switch" and e["fields"]["next_tid"] in tids:
            ins.append(e)
        elif e["name"] not in SCHED_EVERYONE:
            rest.append(e)
    return own, ins, rest


def wait_started(proc):
    """Wait until a `scry record` without a command (-a, -p) says it records: its switch is
    on, every event from now on is in the trace.  proc: Popen with stderr=PIPE, text=True
    (the line comes, or scry exits: a blocking read cannot hang past scry's end)."""
    seen = []
    while True:
        line = proc.stderr.readline()
        if line.startswith("scry: recording to "):
            return
        seen.append(line)
        assert line, f"scry record ended before recording: {''.join(seen)}"
