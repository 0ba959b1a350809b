"""tests/e2e/test_state_reconstruction.py — issue 14's "done when": a trace of `scry record --
CMD` and of `scry record -a`, as a user types them (the default events, the statedump among
them), analysed the way Trace Compass's kernel analyses work, gives each thread of a workload
its syscall count, CPU time, name and open files, checked against what the workload
(tests/workload/state_truth.c) reports about itself.

The analysis reads the trace with babeltrace2's Python bindings (bt2) in time order and uses
only the events' payloads, never the pid/tid/procname contexts:
- the thread on each CPU: `sched_switch`'s next_tid (KernelStateProvider's SchedSwitchHandler),
  before a CPU's first switch the one thread the statedump lists as running on it, if only one;
- thread names: `lttng_statedump_process_state`'s name, `sched_process_fork`'s child_comm,
  `sched_process_exec`'s file name, and the comm of each side of a `sched_switch` (which is how
  a rename, prctl PR_SET_NAME, shows: SchedSwitchHandler sets the exec name of prev and next);
- processes: the statedump's tid -> pid, `sched_process_fork`'s child_tid -> child_pid;
- open files per process: the statedump's file tables (`lttng_statedump_file_descriptor`, keyed
  by `file_table_address`), then open/openat (the path and flags of the entry, the fd the exit
  returns) and close (removed when it returns 0) of the thread on the CPU, and exec (drops the
  close-on-exec descriptors, as the kernel does);
- syscall counts: each `syscall_entry_*` counted for the CPU's current thread;
- CPU time: as KernelCpuUsageStateProvider, each sched_switch adds to its prev_tid the time since
  the CPU's previous switch.

This machine's kernel never runs a BPF program while its pid 1 (the sandbox's agent) or one of its
threads is current, so a switch out of one of them is never recorded: until the next switch the
analysis believes that thread still runs.  A syscall of the workload made then is attributed to
the hidden thread; the test counts those and checks that each thread's count is exact once they
are added back, and that they are few.  A hidden thread is one of pid 1's threads now (/proc), or
one the trace shows switched in but never out (pid 1's threads that ended before the analysis:
CI saw 11 calls go to one).  Which threads are hidden is known only at the trace's end, so the
analysis keeps its attributions by (thread it believed current, context tid) and settles them
then (Analysis.finish)."""
import collections
import json
import os
import signal
import subprocess

from conftest import wait_started

O_CLOEXEC = 0o2000000


def hidden_tids():
    """pid 1's threads: this machine runs no BPF program while one of them is current."""
    try:
        return {int(t) for t in os.listdir("/proc/1/task")}
    except OSError:
        return set()


class Analysis:
    """A Trace Compass-like kernel state system, fed event by event."""

    def __init__(self, hidden):
        self.hidden = set(hidden)                  # settled by finish()
        self.cur = {}                              # cpu -> tid (from sched_switch, statedump)
        self.name, self.pid = {}, {}               # tid -> name, tid -> pid
        self.fd_tables = collections.defaultdict(dict)   # table key -> {fd: (path, flags)}
        self.table_of = {}                         # pid -> table key
        self.sd_running = collections.defaultdict(set)   # cpu -> running tids in the statedump
        self.pending = {}                          # tid -> (syscall, entry payload)
        self.calls = collections.Counter()         # (tid believed current, context tid, name)
        self.runs = collections.defaultdict(set)   # (tid believed, context tid) -> (cpu, switch ts)
        self.shared_ns = collections.Counter()     # (tid believed current, prev_tid) -> ns
        self.switched_out = set()                  # prev_tids of the recorded switches
        self.cpu_ns = collections.Counter()        # tid -> ns
        self.last_switch = {}                      # cpu -> ts of its last sched_switch
        self.on_cpus = collections.defaultdict(set)  # tid -> CPUs it was switched in on
        self.switch_ins = collections.Counter()    # tid -> times switched in
        self.call_cpus = collections.defaultdict(set)  # (tid, syscall) -> CPUs it was made on
        # settled by finish()
        self.syscalls = collections.Counter()      # (tid, syscall name) -> count
        self.hidden_calls = collections.Counter()  # (context tid, name): attributed to a hidden one
        self.hidden_runs = collections.defaultdict(set)  # context tid -> (cpu, switch ts) of those
        self.ambiguous_ns = collections.Counter()  # tid -> ns of it shared with a hidden thread
        self.unknown_cpu = 0                       # syscalls on a CPU with no known thread

    def table(self, pid):
        return self.fd_tables[self.table_of.setdefault(pid, ("pid", pid))]

    def event(self, name, f, cpu, ts, ctx_tid):
        if name == "lttng_statedump_process_state":
            tid = int(f["tid"])
            self.name[tid], self.pid[tid] = str(f["name"]), int(f["pid"])
            if tid == int(f["pid"]):
                self.table_of[tid] = ("files", int(f["file_table_address"]))
            if int(f["status"]) == 2:              # LTTNG_WAIT_CPU: running or runnable
                self.sd_running[int(f["cpu"])].add(tid)
        elif name == "lttng_statedump_file_descriptor":
            self.fd_tables[("files", int(f["file_table_address"]))][int(f["fd"])] = (str(f["filename"]),
                                                                                    int(f["flags"]))
        elif name == "lttng_statedump_end":
            for c, tids in self.sd_running.items():
                if c not in self.cur and len(tids) == 1:
                    self.cur[c] = next(iter(tids))
        elif name == "sched_process_fork":
            child, cpid, ppid = int(f["child_tid"]), int(f["child_pid"]), int(f["parent_pid"])
            self.name[child], self.pid[child] = str(f["child_comm"]), cpid
            if cpid != ppid and child == cpid:     # a new process: a copy of its parent's table
                self.table_of[cpid] = ("pid", cpid)
                self.fd_tables[("pid", cpid)] = dict(self.table(ppid))
        elif name == "sched_process_exec":
            tid = self.cur.get(cpu)
            if tid is not None:
                self.name[tid] = os.path.basename(str(f["filename"]))[:15]
                t = self.table(self.pid.get(tid, tid))
                for fd in [fd for fd, (_, fl) in t.items() if fl & O_CLOEXEC]:
                    del t[fd]
        elif name == "sched_switch":
            prev, nxt = int(f["prev_tid"]), int(f["next_tid"])
            self.name[prev], self.name[nxt] = str(f["prev_comm"]), str(f["next_comm"])
            self.switched_out.add(prev)
            if cpu in self.last_switch:
                self.cpu_ns[prev] += ts - self.last_switch[cpu]
                # if the thread believed current was hidden, prev was switched in after it by a
                # switch never recorded: when, within the interval, is unknown (finish())
                if self.cur.get(cpu) is not None and self.cur[cpu] != prev:
                    self.shared_ns[(self.cur[cpu], prev)] += ts - self.last_switch[cpu]
            self.last_switch[cpu] = ts
            self.cur[cpu] = nxt
            self.on_cpus[nxt].add(cpu)
            self.switch_ins[nxt] += 1
        elif name.startswith("syscall_entry_"):
            tid = self.cur.get(cpu)
            if tid is None:
                self.unknown_cpu += 1
                return
            sc = name[len("syscall_entry_"):]
            self.calls[(tid, ctx_tid, sc)] += 1
            self.runs[(tid, ctx_tid)].add((cpu, self.last_switch.get(cpu)))
            self.call_cpus[(tid, sc)].add(cpu)
            if sc in ("open", "openat", "close"):
                self.pending[tid] = (sc, f)
        elif name.startswith("syscall_exit_"):
            tid = self.cur.get(cpu)
            sc = name[len("syscall_exit_"):]
            if tid is None or self.pending.get(tid, (None,))[0] != sc:
                return
            _, entry = self.pending.pop(tid)
            ret, t = int(f["ret"]), self.table(self.pid.get(tid, tid))
            if sc == "close" and ret == 0:
                t.pop(int(entry["fd"]), None)
            elif sc != "close" and ret >= 0:
                t[ret] = (str(entry["filename"]), int(entry["flags"]))


    def finish(self):
        """Settle what depended on which threads are hidden: pid 1's, and those switched in
        but never out."""
        self.hidden |= set(self.switch_ins) - self.switched_out
        for (tid, ctx_tid, sc), n in self.calls.items():
            if tid in self.hidden:
                self.hidden_calls[(ctx_tid, sc)] += n
                self.hidden_runs[ctx_tid] |= self.runs[(tid, ctx_tid)]
            else:
                self.syscalls[(tid, sc)] += n
        for (believed, prev), ns in self.shared_ns.items():
            if believed in self.hidden and prev not in self.hidden:
                self.ambiguous_ns[prev] += ns

    def went_to(self, ctx_tid, sc):
        """Where the analysis put the calls the context says ctx_tid made (for a failure)."""
        return {tid: n for (tid, c, s), n in self.calls.items() if c == ctx_tid and s == sc}


def analyse(path):
    import bt2
    a = Analysis(hidden_tids())
    discarded = 0
    for m in bt2.TraceCollectionMessageIterator(str(path)):
        if type(m) is bt2._DiscardedEventsMessageConst:
            discarded += m.count
        if type(m) is not bt2._EventMessageConst:
            continue
        ev = m.event
        ctx = ev.common_context_field
        a.event(ev.name, ev.payload_field, int(ev.packet.context_field["cpu_id"]), m.default_clock_snapshot.value,
                int(ctx["tid"]) if ctx is not None and "tid" in ctx else None)
    a.finish()
    return a, discarded


def check(a, truth):
    pid = truth["pid"]
    tids = {t["tid"] for t in truth["threads"]}
    hidden_runs = sum(len(a.hidden_runs[t]) for t in tids)
    for t in truth["threads"]:
        tid = t["tid"]
        # names exact: the statedump, forks, exec and switches say the last one
        assert a.name.get(tid) == t["name"], (tid, a.name.get(tid), t["name"])
        assert a.pid.get(tid) == pid, (tid, a.pid.get(tid))
        # syscall counts exact (those made while a hidden thread seemed current added back)
        got = a.syscalls[(tid, "getpgrp")]
        assert got + a.hidden_calls[(tid, "getpgrp")] == t["getpgrp"], (t["name"], got, t["getpgrp"],
                                                                      a.hidden_calls[(tid, "getpgrp")],
                                                                      a.went_to(tid, "getpgrp"))
        if t["cpu"] < 0:
            continue
        # a pinned thread makes its calls on its CPU (it pins itself once started: it may
        # have been switched in elsewhere before)
        assert a.call_cpus[(tid, "getpgrp")] == {t["cpu"]}, (t["name"], a.call_cpus[(tid, "getpgrp")], t["cpu"])
        assert t["cpu"] in a.on_cpus[tid]
        # CPU time: the scheduler's account (sum_exec_runtime, CLOCK_THREAD_CPUTIME_ID) against
        # the sum of the intervals between sched_switches.  They differ by (1) the work before
        # the thread's first clock read and after its last (its wake-up from the barrier, its
        # exit: tens of microseconds); (2) per switch, the path between the scheduler's
        # accounting (update_curr) and the tracepoint, and a timer tick's or interrupt's time
        # that the kernel may account elsewhere (IRQ time accounting): a few microseconds per
        # switch and per tick (250-1000 Hz) — 2% covers it at 1000 Hz with 20 us a tick;
        # (3) a hidden (pid 1) thread that ran inside one of the intervals — its switches are
        # never recorded —, bounded by the few such preemptions: 2 ms each at most (the agent
        # only wakes briefly).  Hence 3 ms + 50 us a switch + 2%, plus 2 ms for each run of
        # the thread found behind a hidden thread (its syscalls attributed to that thread).
        # (4) the intervals that began with a switch into a hidden thread and ended with a
        # switch out of this one: the switch between them is not recorded, the split unknown
        # (credited whole here; bounded by their length, large when pid 1 is busy).
        tol = 3e6 + 50e3 * a.switch_ins[tid] + 0.02 * t["cpu_ns"] + 2e6 * len(a.hidden_runs[tid]) + \
            a.ambiguous_ns[tid]
        assert abs(a.cpu_ns[tid] - t["cpu_ns"]) <= tol, (t["name"], a.cpu_ns[tid], t["cpu_ns"], tol)
    # open files exact: the process's table at the end
    got = {fd: p for fd, (p, _) in a.table(pid).items()}
    assert got == {int(fd): p for fd, p in truth["fds"].items()}, (got, truth["fds"])
    # runs of the workload behind a hidden thread: a few at most
    assert hidden_runs <= 10, a.hidden_calls


def test_record_command(scry, workload, tmp_path):
    # exact counts need a trace without loss; on a busy machine an event whose program was
    # preempted by another's on its CPU is dropped (counted, reported: babeltrace2's discarded
    # events): one more run then, never more
    for attempt in range(2):
        out, rep = tmp_path / f"t{attempt}", tmp_path / f"report{attempt}"
        p = subprocess.run([scry, "record", "-q", "-o", str(out), "--", workload("state_truth"), "cmd", str(rep)],
                           capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, p.stderr
        truth = json.loads(rep.read_text())
        a, discarded = analyse(out)
        if discarded == 0:
            break
    assert discarded == 0, f"events were lost in both runs ({discarded}): the counts cannot be exact"
    check(a, truth)


def test_record_all(scry, workload, tmp_path):
    out, rep = tmp_path / "t", tmp_path / "report"
    wl = subprocess.Popen([workload("state_truth"), "wait", str(rep)], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
    rec = None
    try:
        pid = json.loads(wl.stdout.readline())["pid"]
        rec = subprocess.Popen([scry, "record", "-a", "-o", str(out)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        wait_started(rec)
        wl.stdin.write("go\n")
        wl.stdin.flush()
        assert wl.stdout.readline() == "done\n"
        rec.send_signal(signal.SIGINT)
        err = rec.communicate(timeout=300)[1]
        assert rec.returncode == 0, err
    finally:
        if rec and rec.poll() is None:
            rec.kill()
            rec.wait()
        wl.stdin.close()
        wl.wait(timeout=10)
    truth = json.loads(rep.read_text())
    assert truth["pid"] == pid
    a, discarded = analyse(out)
    assert discarded == 0, f"{discarded} events were lost: the counts cannot be exact"
    check(a, truth)
    # the threads existed before recording: their names, pinned CPUs and files came from the
    # statedump (checked above); the statedump itself left scry out
    assert rec.pid not in a.pid.values()
