"""tests/e2e/test_discards.py — every discard reaches the trace: under a load that loses events
(a 64K ring per CPU, a tight syscall loop, sleeps of 1 us that arm high-resolution timers, and
bpf() map lookups that make the kernel skip tracepoint programs: recursion misses), the
summary's "D discarded" equals the sum over the streams of their last packet's
events_discarded (a running counter per stream, as CTF has it), which equals the count of
babeltrace2's discarded-events messages.  For a syscall set, a tracepoint set and both."""
import struct
import subprocess

import pytest

PKT_SIZE_OFF, DISCARDED_OFF = 56, 72     # packet context (src/ctf/packet.h)


def streams_discarded(trace_dir):
    """{stream file: events_discarded of its last packet}, each stream's counter checked
    never to go down from one packet to the next."""
    out = {}
    for f in sorted((trace_dir / "kernel").iterdir()):
        if not f.is_file() or f.name == "metadata":
            continue
        data, off, last = f.read_bytes(), 0, 0
        while off < len(data):
            size = struct.unpack_from("<Q", data, off + PKT_SIZE_OFF)[0] // 8
            disc = struct.unpack_from("<Q", data, off + DISCARDED_OFF)[0]
            assert size > 0 and disc >= last, f"{f.name}: packet at {off}: events_discarded {disc} after {last}"
            last, off = disc, off + size
        out[f.name] = last
    return out


def bt2_discarded(trace_dir):
    """The sum of babeltrace2's discarded-events messages' counts (bt2), and the events."""
    import bt2
    discarded = events = 0
    for msg in bt2.TraceCollectionMessageIterator(str(trace_dir)):
        if type(msg) is bt2._DiscardedEventsMessageConst:
            assert msg.count is not None, "a discarded-events message without a count"
            discarded += msg.count
        elif type(msg) is bt2._EventMessageConst:
            events += 1
    return discarded, events


def load(workload, seconds):
    """The workloads that lose events, running for about seconds."""
    return [subprocess.Popen([workload("map_lookups"), str(seconds)], stdout=subprocess.DEVNULL),
            subprocess.Popen([workload("sleeper"), str(int(seconds * 25000)), "1"]),
            subprocess.Popen([workload("getppid_loop"), str(int(seconds * 2_000_000))],
                             stdout=subprocess.DEVNULL)]


@pytest.mark.parametrize("events", [
    "syscall:getppid,syscall:nanosleep",
    "timer:hrtimer_*",
    "syscall:getppid,syscall:nanosleep,timer:hrtimer_*,sched:sched_switch",
], ids=["syscalls", "tracepoints", "mixed"])
def test_summary_equals_packets_equals_babeltrace2(record, workload, tmp_path, events):
    procs = load(workload, 1)
    try:
        r = record(tmp_path / "t", "-a", "--duration", "0.5", "--buffer-size", "64K", "-e", events)
    finally:
        for p in procs:
            p.wait(timeout=120)
    r.check()
    summary = r.summary()["discarded"]
    packets = streams_discarded(r.dir)
    discarded, n = bt2_discarded(r.dir)
    assert summary > 0, f"nothing was discarded: the loss paths were not exercised\n{r.stderr}"
    assert summary == sum(packets.values()), f"summary {summary} != streams' events_discarded {packets}"
    assert discarded == summary, f"babeltrace2 reports {discarded} discarded, the summary {summary}"
    assert n == r.summary()["events"]
