"""tests/e2e/test_features.py — `scry list features` on this machine (issue 12): one row per
feature, each answer checked against what the kernel shows independently (its files and
sysctls), and the forced fallbacks (SCRY_NO_KPTR, SCRY_NO_STRNSTR, SCRY_NO_PREPARE_EXEC,
SCRY_NO_BTF_EXIT, SCRY_NO_BTF_SCHED, SCRY_NO_MEMO_GEN)."""
import os
import re
import subprocess
from pathlib import Path

ROW = re.compile(r"^(\S+) +(yes|no) +(.*?)  \[(.+)\]$")
NAMES = ["btf", "ringbuf", "tp_btf", "kptr_untrusted", "ret_thunk", "memo_gen", "strnstr", "prepare_exec", "btf_exit", "btf_sched", "ktime_tai", "bpf_iter",
         "uprobe_multi", "kprobes", "fentry", "perf_events", "bpf_stats"]


def features(scry, **env):
    p = subprocess.run([scry, "list", "features"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, **env))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split() == ["FEATURE", "KERNEL", "SCRY"]
    rows = {}
    for l in lines[1:]:
        m = ROW.match(l)
        assert m, l
        rows[m[1]] = (m[2] == "yes", m[3], m[4])
    assert list(rows) == NAMES
    return rows


def test_features_match_the_kernel(scry):
    f = features(scry)
    assert f["btf"][0] == Path("/sys/kernel/btf/vmlinux").exists()
    kprobe_pmu = Path("/sys/bus/event_source/devices/kprobe/type").exists()
    assert f["kprobes"][0] == kprobe_pmu
    if not kprobe_pmu:
        assert f["kprobes"][1] == "kprobe: events are refused for this reason"
        assert "kernel built without kprobes" in f["kprobes"][2]
    stats = Path("/proc/sys/kernel/bpf_stats_enabled").read_text().strip()
    assert f["bpf_stats"] == (stats == "1", f["bpf_stats"][1], f"kernel.bpf_stats_enabled = {stats}")
    assert f["ringbuf"][0] and f["tp_btf"][0]      # scry records on this machine at all
    # the memo's exit hook: sched_process_exit's BTF tracepoint, which tracefs lists too
    assert f["memo_gen"][0] == (f["kptr_untrusted"][0] and
                                Path("/sys/kernel/tracing/events/sched/sched_process_exit").exists())
    if not f["fentry"][0]:
        assert re.match(r"(loading|attaching) a fentry program: ", f["fentry"][2])
    # a helper's return thunked by a CPU mitigation, as sysfs says
    vul = Path("/sys/devices/system/cpu/vulnerabilities")
    srso = (vul / "spec_rstack_overflow").read_text().strip() if (vul / "spec_rstack_overflow").exists() else ""
    rb = (vul / "retbleed").read_text().strip() if (vul / "retbleed").exists() else ""
    thunked = "Safe RET" in srso or "return thunk" in rb or "Stuffing" in rb or not (srso or rb)
    assert f["ret_thunk"][0] == thunked, (srso, rb, f["ret_thunk"])
    assert (srso and srso in f["ret_thunk"][2]) or (rb and rb in f["ret_thunk"][2]) or not (srso or rb)
    release = tuple(int(x) for x in re.match(r"(\d+)\.(\d+)", os.uname().release).groups())
    assert f["ktime_tai"][0] == (release >= (6, 1)), (release, f["ktime_tai"])   # bpf_ktime_get_tai_ns: 6.1
    # the four scheduler events' BTF tracepoints, as tracefs lists them (their record structs
    # are in the kernel's BTF wherever the tracepoints are: TRACE_EVENT defines both)
    sched = Path("/sys/kernel/tracing/events/sched")
    assert f["btf_sched"][0] == all((sched / n).exists() for n in
                                    ("sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_process_exec"))


def test_forced_fallbacks(scry):
    f = features(scry, SCRY_NO_KPTR="1", SCRY_NO_STRNSTR="1", SCRY_NO_PREPARE_EXEC="1", SCRY_NO_KTIME_TAI="1",
                 SCRY_NO_BTF_EXIT="1", SCRY_NO_BTF_SCHED="1")
    assert f["ktime_tai"] == (False, "create --clock tai refused", "SCRY_NO_KTIME_TAI set")
    assert f["kptr_untrusted"][:2] == (False, "task memo keyed by tgid")
    assert f["kptr_untrusted"][2].endswith("(SCRY_NO_KPTR set)")
    assert f["memo_gen"][:2] == (False, "a task memo hit proved through the task (its stack and exit state)")
    assert f["memo_gen"][2].endswith("(SCRY_NO_KPTR set)")
    assert features(scry, SCRY_NO_MEMO_GEN="1")["memo_gen"][2].endswith("(SCRY_NO_MEMO_GEN set)")
    assert features(scry, SCRY_RET_THUNK="1")["ret_thunk"] == (
        True, "system-wide, current from the per-CPU memo (a helper's return is thunked)", "SCRY_RET_THUNK=1")
    assert features(scry, SCRY_RET_THUNK="0")["ret_thunk"] == (
        False, "system-wide, current from bpf_get_current_task_btf() (cheaper than the memo's loads here)",
        "SCRY_RET_THUNK=0")
    assert f["strnstr"][:2] == (False, "filter globs with a star inside run in user space")
    assert f["prepare_exec"][:2] == (False, "a deferred execve entry rebuilt from the new image")
    assert f["btf_exit"] == (False, "sched_process_exit through its tracefs tracepoint (its detach waits ~2 RCU "
                             "grace periods)", "SCRY_NO_BTF_EXIT set")
    assert f["btf_sched"] == (False, "sched_switch, sched_wakeup{,_new}, sched_process_exec through tracefs (each "
                              "detach waits for RCU)", "SCRY_NO_BTF_SCHED set")
