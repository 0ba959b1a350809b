#!/usr/bin/python3
"""bench/profile.py (`make bench`) — scry profile --call-graph dwarf against perf record
--call-graph dwarf on the same run, and the cost per sample.

Completeness: each workload (hotspots-nofp, -O2 without frame pointers; Debian's python3 and
bash busy loops) is started alone, then perf record -p and scry profile -p sample that same
process at the same time for the same seconds; each tool's share of the process's samples
whose user stack reaches main or _start (python3: Py_BytesMain or _start; a thread: clone3)
is printed.

Cost: scry profile -p on hotspots-nofp for 2 s at 99 and 999 Hz, frame pointers and dwarf,
with the kernel's BPF statistics on (BPF_ENABLE_STATS, held by this script while scry runs):
the sampling program's run time per run, and its total divided by the samples of the
target; the time scry took to unwind a stack (its summary's); scry's own CPU time.  The
best of BENCH_ROUNDS interleaved rounds: on a shared VM interference only adds time.

Overhead against the peers, same run: hotspots-nofp doing a fixed amount of work (N rounds
of burn_a and burn_b, pinned to CPU 1) alone, then under each profiler sampling the whole
machine: scry profile -a (fp and dwarf), perf record -a -g, perf record -a --call-graph dwarf
(8192 bytes, as scry), bpftrace 'profile:hz:F { @[ustack, kstack] = count(); }', at 99 and
999 Hz; the program's CPU time (user + system: the sampling interrupts are charged to it, the
VM's other tasks are not) against its CPU time alone (the best of BENCH_ROUNDS interleaved
rounds), the cost per sample ((time - alone) / (F x time)), the profiler's own CPU.

Report time: a system-wide profile at 99 Hz of BENCH_WIDE seconds (10: a scaled proxy of a
1-minute one) with nothing else running but the VM's own load: scry profile -a's time after
sampling stops (symbolizing, SVG and folded written) against perf report --stdio's and
perf script's on perf record -a -g's data, and perf report's on --call-graph dwarf's (perf
script's there takes as long again: left out).

Environment: BENCH_SECONDS (3), BENCH_FREQ (499, the completeness runs), BENCH_ROUNDS (3),
BENCH_WORK (2000 rounds), BENCH_WIDE (10)."""
import ctypes
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRY = str(ROOT / "build" / "scry")
NOFP = str(ROOT / "build" / "workload" / "hotspots-nofp")
SECS = float(os.environ.get("BENCH_SECONDS", "3"))
FREQ = os.environ.get("BENCH_FREQ", "499")
ROOTS = ("main", "_start", "Py_BytesMain", "clone3", "clone")

WORKLOADS = [
    ("hotspots-nofp", [NOFP, str(int((SECS + 3) * 1000))]),
    ("python3 busy loop", ["/usr/bin/python3", "-c",
                           f"import time\nt=time.time()\nwhile time.time()-t<{SECS + 3}: pass"]),
    ("bash busy loop", ["/usr/bin/bash", "-c",
                        f"s=$SECONDS; while [ $((SECONDS-s)) -lt {int(SECS) + 3} ]; do :; done"]),
]


def enable_bpf_stats():
    """BPF_ENABLE_STATS: counted while the returned fd is open."""
    libc = ctypes.CDLL(None, use_errno=True)
    attr = (ctypes.c_uint32 * 30)()
    fd = libc.syscall(321, 32, ctypes.byref(attr), ctypes.sizeof(attr))
    if fd < 0:
        sys.exit(f"bench/profile.py: BPF_ENABLE_STATS: {os.strerror(ctypes.get_errno())}")
    return fd


def folded_reach(path):
    reach = total = 0
    for line in open(path):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        frames = stack.split(";")[1:]
        total += int(n)
        if any(f in ROOTS for f in frames):
            reach += int(n)
    return reach, total


def perf_reach(data):
    out = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True, text=True).stdout
    reach = total = 0
    for block in out.split("\n\n"):
        syms = [l.split(None, 1)[1].split(" (")[0] for l in block.strip().splitlines() if len(l.split(None, 1)) == 2]
        if not block.strip():
            continue
        total += 1
        if any(s in ROOTS for s in syms):
            reach += 1
    return reach, total


def completeness():
    print(f"Stack completeness: samples reaching main/_start, same process, same {SECS:g} s, {FREQ} Hz, "
          "both with --call-graph dwarf (8192 bytes)")
    print(f"{'workload':<20} {'scry profile':>22} {'perf record':>22}")
    with tempfile.TemporaryDirectory() as d:
        for name, argv in WORKLOADS:
            w = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
            time.sleep(0.5)
            perf = subprocess.Popen(["perf", "record", "-q", "-F", FREQ, "--call-graph", "dwarf", "-p", str(w.pid),
                                     "-o", f"{d}/perf.data"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            scry = subprocess.run([SCRY, "profile", "-q", "-F", FREQ, "--call-graph", "dwarf", "-p", str(w.pid),
                                   "--duration", str(SECS), "-o", f"{d}/s.folded"], capture_output=True, text=True)
            perf.send_signal(signal.SIGINT)
            perf.wait()
            w.kill()
            w.wait()
            if scry.returncode:
                print(f"{name:<20} scry failed: {scry.stderr.strip()}")
                continue
            s = folded_reach(f"{d}/s.folded")
            p = perf_reach(f"{d}/perf.data")
            cell = lambda r: f"{r[0]}/{r[1]} ({100.0 * r[0] / max(r[1], 1):.1f}%)"
            print(f"{name:<20} {cell(s):>22} {cell(p):>22}")


def scry_run(mode, hz, pid, d):
    """scry profile -p pid for 2 s: (samples, runs, ns per run, us per unwinding, scry's CPU seconds)"""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([SCRY, "profile", "-q", "-F", hz, "--call-graph", mode, "-p", str(pid), "--duration", "2",
                        "-o", f"{d}/c.folded"], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)       # scry's alone: the workload is not its child
    m = re.search(r"(\d+) samples .*BPF: (\d+) runs, (\d+) ns each", p.stderr)
    if not m:
        sys.exit(f"bench/profile.py: scry profile failed: {p.stderr.strip()}")
    u = re.search(r"outermost frame \(([0-9.]+) us each\)", p.stderr)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return int(m[1]), int(m[2]), int(m[3]), float(u[1]) if u else 0.0, cpu


def cost():
    rounds = int(os.environ.get("BENCH_ROUNDS", "3"))
    print(f"\nCost per sample: scry profile -p on hotspots-nofp for 2 s, the kernel's BPF statistics on; "
          f"the best of {rounds} interleaved rounds")
    fd = enable_bpf_stats()
    best = {}
    try:
        with tempfile.TemporaryDirectory() as d:
            for _ in range(rounds):
                for mode in ("fp", "dwarf"):
                    for hz in ("99", "999"):
                        w = subprocess.Popen([NOFP, "4000"], stdout=subprocess.DEVNULL)
                        samples, runs, each, unw, cpu = scry_run(mode, hz, w.pid, d)
                        w.kill()
                        w.wait()
                        row = (each, runs * each / max(samples, 1), unw, cpu * 1e3, samples)
                        old = best.get((mode, hz))
                        best[(mode, hz)] = row if not old else tuple(min(a, b) for a, b in zip(old, row))
    finally:
        os.close(fd)
    print(f"{'mode':<8} {'Hz':>5} {'samples':>8} {'BPF ns/run':>11} {'BPF ns/sample':>14} {'unwind us/stack':>16} "
          f"{'scry CPU ms':>12}")
    for (mode, hz), (each, per, unw, cpu, samples) in best.items():
        print(f"{mode:<8} {hz:>5} {samples:>8} {each:>11} {per:>14.0f} {unw if mode == 'dwarf' else '-':>16} {cpu:>12.0f}")
    print("BPF ns/run: every run of the sampling program (the other CPU's samples of other tasks too, which "
          "return at once); BPF ns/sample: their total over the target's samples; unwind: libdwfl's time per "
          "user stack in scry; scry CPU: all of scry's (start, BPF load, kallsyms, symbolizing, outputs)")


def started(cmd, ready, stream):
    """cmd started; returns once a line of its stream (stdout or stderr) matches ready"""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE if stream == "out" else subprocess.DEVNULL,
                         stderr=subprocess.PIPE if stream == "err" else subprocess.DEVNULL, text=True)
    f = p.stdout if stream == "out" else p.stderr
    deadline = time.time() + 60
    while time.time() < deadline:
        line = f.readline()
        if not line or re.search(ready, line):
            return p, f
    return p, f


def work_ms(rounds):
    """the CPU time (user + system, ms) of the fixed work: what sampling adds to the program
    is charged to it (interrupts run in its time), what other tasks of the VM take is not"""
    p = subprocess.Popen(["taskset", "-c", "1", NOFP, str(rounds), "work"], stdout=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    return (ru.ru_utime + ru.ru_stime) * 1e3


def profiler(name, hz, d):
    """the command of a profiler sampling the whole machine, the line it prints once sampling,
    and on which stream"""
    if name.startswith("scry"):
        return [SCRY, "profile", "-a", "-F", hz, "--call-graph", name.split()[1], "-o", f"{d}/s.folded"], \
            r"profiling at", "err"
    if name == "perf -g":
        return ["perf", "record", "-a", "-g", "-F", hz, "-o", f"{d}/p.data"], None, None
    if name == "perf dwarf":
        return ["perf", "record", "-a", "--call-graph", "dwarf,8192", "-F", hz, "-o", f"{d}/p.data"], None, None
    return ["bpftrace", "-e", f"profile:hz:{hz} {{ @[ustack, kstack] = count(); }}"], r"Attaching", "out"


def overhead():
    rounds, n = int(os.environ.get("BENCH_ROUNDS", "3")), int(os.environ.get("BENCH_WORK", "2000"))
    tools = ["scry fp", "scry dwarf", "perf -g", "perf dwarf", "bpftrace"]
    have = {t: not subprocess.run(["which", t.split()[0] if not t.startswith("scry") else "true"],
                                  capture_output=True).returncode for t in tools}
    print(f"\nOverhead: hotspots-nofp, {n} rounds of work pinned to CPU 1, alone and under each profiler "
          f"sampling every CPU; the best of {rounds} interleaved rounds")
    best, alones = {}, []
    with tempfile.TemporaryDirectory() as d:
        for _ in range(rounds):
            t = work_ms(n)
            best["alone"] = min(best.get("alone", t), t)
            alones.append(t)
            for hz in ("99", "999"):
                for tool in tools:
                    if not have[tool]:
                        continue
                    cmd, ready, stream = profiler(tool, hz, d)
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    if ready:
                        p, f = started(cmd, ready, stream)
                    else:
                        p, f = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), None
                        time.sleep(1.0)
                    try:
                        t = work_ms(n)
                    finally:
                        p.send_signal(signal.SIGINT)
                        if f:
                            f.read()
                        p.wait()
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                    old = best.get((tool, hz))
                    best[(tool, hz)] = (min(old[0], t), min(old[1], cpu)) if old else (t, cpu)
    alone = best["alone"]
    print(f"{'profiler':<12} {'Hz':>5} {'work CPU ms':>11} {'vs alone':>9} {'us per sample':>14} {'its CPU ms':>11}")
    print(f"{'(none)':<12} {'':>5} {alone:>11.1f} {1.0:>9.3f} {'':>14} {'':>11}   "
          f"(alone: {min(alones):.0f} to {max(alones):.0f} ms over the rounds: a difference within that is noise)")
    for (tool, hz), (t, cpu) in sorted((k, v) for k, v in best.items() if k != "alone"):
        per = (t - alone) * 1e3 / (int(hz) * t / 1e3)
        print(f"{tool:<12} {hz:>5} {t:>11.1f} {t / alone:>9.3f} {per:>14.2f} {cpu * 1e3:>11.0f}")
    print("work CPU: the program's user + system time (the kernel charges an interrupt to the task it "
          "interrupts; the VM's other tasks are not in it); us per sample: the added CPU time over the "
          "samples of it (F x its time); its CPU: the profiler's whole run, start to written output "
          "(perf: record only)")


def timed(cmd, **kw):
    t0 = time.time()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.time() - t0


def report_time():
    wide = os.environ.get("BENCH_WIDE", "10")
    print(f"\nReport time: every CPU at 99 Hz for {wide} s (a scaled proxy of a 1-minute profile), "
          "seconds after sampling stops")
    with tempfile.TemporaryDirectory() as d:
        t0 = time.time()
        p = subprocess.run([SCRY, "profile", "-q", "-a", "-F", "99", "--duration", wide, "-o", f"{d}/w.svg",
                            "-o", f"{d}/w.folded"], capture_output=True, text=True)
        scry_after = time.time() - t0 - float(wide)
        m = re.search(r"(\d+) samples", p.stderr)
        print(f"scry profile -a (fp): {scry_after:.2f} s after {wide} s of sampling, {m[1] if m else '?'} samples, "
              "start and BPF load included")
        t0 = time.time()
        p = subprocess.run([SCRY, "profile", "-q", "-a", "-F", "99", "--call-graph", "dwarf", "--duration", wide,
                            "-o", f"{d}/w.svg", "-o", f"{d}/w.folded"], capture_output=True, text=True)
        print(f"scry profile -a --call-graph dwarf: {time.time() - t0 - float(wide):.2f} s after {wide} s "
              "(stacks unwound while sampling)")
        if subprocess.run(["which", "perf"], capture_output=True).returncode:
            return
        for mode, args in (("-g", ["-g"]), ("--call-graph dwarf", ["--call-graph", "dwarf,8192"])):
            subprocess.run(["perf", "record", "-q", "-a", "-F", "99"] + args + ["-o", f"{d}/w.data", "--", "sleep",
                           wide], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            rep = timed(["perf", "report", "-i", f"{d}/w.data", "--stdio"])
            size = os.path.getsize(f"{d}/w.data") / 1e6
            if mode == "-g":          # with dwarf perf script unwinds it all again: as long as the report
                scr = timed(["perf", "script", "-i", f"{d}/w.data"])
                print(f"perf record -a {mode}: perf report --stdio {rep:.2f} s, perf script {scr:.2f} s "
                      f"({size:.1f} MB of data)")
            else:
                print(f"perf record -a {mode}: perf report --stdio {rep:.2f} s ({size:.1f} MB of data)")


if __name__ == "__main__":
    if os.geteuid():
        sys.exit("bench/profile.py: run as root")
    if subprocess.run(["which", "perf"], capture_output=True).returncode:
        print("bench/profile.py: perf not installed (apt-get install linux-perf): its column is empty")
    completeness()
    cost()
    overhead()
    report_time()
