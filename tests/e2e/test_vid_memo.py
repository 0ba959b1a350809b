"""tests/e2e/test_vid_memo.py — the namespace-relative id contexts (vuid ... vsgid) come from
a per-task memo (src/bpf/lib/record.bpf.h: vids_of) that must follow every change of the
task's credentials and user namespace: one task that is root, then takes uid 1000 / gid 1001
(setpriv), then enters a user namespace mapping them to 77 / 88 (unshare), shows each in
turn, event by event."""
import shutil

import pytest

from conftest import read_trace


def test_vids_follow_setresuid_and_a_new_user_namespace(record, workload, tmp_path):
    if not shutil.which("setpriv") or not shutil.which("unshare"):
        pytest.skip("setpriv and unshare (util-linux) needed")
    r = record(tmp_path / "t", "-e", "syscall:getppid,syscall:setresuid,syscall:setresgid",
               "-c", "pid,tid,procname,vuid,veuid,vsuid,vgid,vegid,vsgid",
               cmd=["setpriv", "--reuid", "1000", "--regid", "1001", "--clear-groups",
                    "unshare", "-U", "--map-user=77", "--map-group=88", workload("getppid_loop"), "3"])
    r.check()
    seen = [(e["name"],) + tuple(e["ctx"][k] for k in ("vuid", "veuid", "vsuid", "vgid", "vegid", "vsgid"))
            for e in read_trace(r.dir, fields=False).events]
    assert seen[:4] == [
        ("syscall_entry_setresuid", 0, 0, 0, 0, 0, 0),
        ("syscall_exit_setresuid", 1000, 1000, 1000, 0, 0, 0),
        ("syscall_entry_setresgid", 1000, 1000, 1000, 0, 0, 0),
        ("syscall_exit_setresgid", 1000, 1000, 1000, 1001, 1001, 1001),
    ], seen
    calls = [s for s in seen if s[0].endswith("getppid")]
    assert len(calls) == 6 and all(s[1:] == (77, 77, 77, 88, 88, 88) for s in calls), calls
