"""tests/e2e/test_daemon_overwrite.py — an overwrite channel in a normal session (issue 26):
under a flood faster than its writer (the pump writes an overwrite channel's sub-buffers once a
second), the oldest unwritten sub-buffers are overwritten: the trace holds the newest events
(the flood's last pwrite64 positions, in order, each packet whole), the overwritten packets are
gaps in packet_seq_num, and list's per-channel "Lost packets" counts exactly those gaps; saved
as OVERWRITE (xmllint) and loaded."""
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import run_babeltrace2
from test_daemon import XSD, daemon, index_seqs, pwrites  # noqa: F401 (daemon: a fixture)


def lost_packets(lst):
    line = next(l for l in lst.splitlines() if l.startswith("      Lost packets:"))
    return int(line.split()[-1])


def test_overwrite_channel_under_flood(daemon, tmp_path, bt2_read):
    out = tmp_path / "trace"
    daemon.run("create", "ow", "-o", out)
    daemon.run("enable-channel", "-k", "--overwrite", "--subbuf-size", "16K", "--num-subbuf", "4", "fr")
    daemon.run("enable-event", "-k", "-c", "fr", "--syscall", "pwrite64")
    daemon.run("add-context", "-k", "-t", "pid")
    lst = daemon.run("list", "ow").stdout
    assert "      Event-loss mode:  overwrite\n" in lst and "      Lost packets:     0\n" in lst, lst
    daemon.run("start")
    n = 200000
    pid = pwrites(0, n)                    # pinned to CPU 0, well under a second
    daemon.run("stop")
    lst = daemon.run("list", "ow").stdout
    lost = lost_packets(lst)
    # the gaps in each stream's packet sequence numbers are the lost packets
    gaps = inner = 0
    for idx in sorted((out / "kernel" / "index").glob("fr_*.idx")):
        seqs = index_seqs(idx)
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), seqs
        gaps += (seqs[-1] + 1 - len(seqs)) if seqs else 0
        inner += (seqs[-1] + 1 - len(seqs) - seqs[0]) if seqs else 0
    assert lost > 0 and gaps == lost, (gaps, lost, lst)
    # babeltrace2 sees a gap after a packet it read: when the flood outlasted the pump's
    # second (a loaded machine), a write went out mid-flood and packets after it were
    # overwritten; it warns of exactly those (the gap before a stream's first packet it cannot see)
    bt = run_babeltrace2(out)
    warned = [re.fullmatch(r"WARNING: Tracer discarded (\d+) packets? between .*", l)
              for l in bt.stderr.splitlines() if l]
    assert bt.returncode == 0 and all(warned), bt.stderr
    assert sum(int(m[1]) for m in warned) == inner, (bt.stderr, inner)
    tr = bt2_read(out)
    assert len(tr.events) == len(bt.stdout.splitlines())
    pos = [e["fields"]["pos"] for e in tr.events if e["pid"] == pid and e["name"] == "syscall_entry_pwrite64"]
    # the newest kept: the flood's last position, and the last run of positions unbroken to it
    assert pos and pos[-1] == n - 1 and pos == sorted(pos), pos[-3:]
    tail = len(pos) - 1
    while tail > 0 and pos[tail - 1] == pos[tail] - 1:
        tail -= 1
    assert pos[tail:] == list(range(pos[tail], n)) and n - pos[tail] >= 16384 // 64, pos[tail]
    assert len(pos) < n // 2, len(pos)     # most of the flood was overwritten, not kept
    if os.path.exists(XSD):
        xml = tmp_path / "ow.lttng"
        daemon.run("save", "-o", xml)
        assert "<overwrite_mode>OVERWRITE</overwrite_mode>" in xml.read_text()
        lint = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(xml)], capture_output=True, text=True)
        assert lint.returncode == 0, lint.stderr
        daemon.run("load", xml, "--override-name", "ow2", "--override-url", tmp_path / "ow2")
        lst2 = daemon.run("list", "ow2").stdout
        assert "      Event-loss mode:  overwrite\n      Sub-buffer size:  16384 bytes\n      Sub-buffer count: 4\n" \
            in lst2, lst2
