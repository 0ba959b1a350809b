"""bench/bpfprogs.py — the BPF programs loaded on the machine (bpftool's list, with
kernel.bpf_stats_enabled's run counts and times) and those one process holds, for the
benchmarks that read a program's cost per run (rules.py, pid_sets.py, sched_everyone.py)."""
import json
import os
import subprocess


def prog_ids():
    """Every loaded program by id: bpftool prog show's objects (name, run_cnt, run_time_ns)."""
    out = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True).stdout
    return {p["id"]: p for p in json.loads(out or "[]")}


def held(pid):
    """The ids of the BPF programs process pid holds (its descriptors' fdinfo)."""
    out = set()
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            for line in open(f"/proc/{pid}/fdinfo/{fd}"):
                if line.startswith("prog_id:"):
                    out.add(int(line.split()[1]))
        except OSError:
            pass
    return out
