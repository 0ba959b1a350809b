/* verbs.c — the control verbs and their --help (see verbs.h). */
#include <string.h>
#include "ctl/verbs.h"

#define SESSION_OPT "  -s, --session NAME     the session (default: the current one, see set-session)\n"

const struct scry_ctl_verb scry_ctl_verbs[] = {
	{ "create",
	  "usage: scry create [NAME] [-o DIR] [--snapshot] [--clock monotonic|boot|tai]\n"
	  "                   [--metrics FILE [--listen ADDR:PORT]] [--spans FILE] [--max-pid-sets N]\n"
	  "                   [-U net://HOST[:CTRL[:DATA]] | -C tcp://HOST:PORT -D tcp://HOST:PORT]\n"
	  "                   [--live[=USEC]] [--hostname NAME] [--group GROUP]\n"
	  "Create a recording session in the daemon (scryd, started on demand) and make it the\n"
	  "current one (remembered in ~/.scryrc).  NAME defaults to auto-YYYYmmdd-HHMMSS.  The\n"
	  "session is yours: other users neither see nor touch it (root sees every one), and its\n"
	  "files are made with your rights (directories 0750, files 0640).\n"
	  "\n"
	  "  -o, --output DIR       trace directory (default ~/scry-traces/NAME-YYYYmmdd-HHMMSS);\n"
	  "                         it must not exist or be an empty directory of yours, its parent\n"
	  "                         one you may write in\n"
	  "      --group GROUP      the trace's files given GROUP (one of yours): who may read them\n"
	  "  -U, --set-url URL      stream the trace to an lttng-relayd (LTTng's network output):\n"
	  "                         net://HOST[:CTRL[:DATA]][/PATH], ports 5342 and 5343 by default; it\n"
	  "                         writes HOSTNAME/NAME-DATE/kernel (or HOSTNAME/PATH); with -o, a\n"
	  "                         local copy too (docs/RELAY.md)\n"
	  "  -C, --ctrl-url URL     -D, --data-url URL: the relay as tcp://HOST:PORT each (LTTng's -C/-D)\n"
	  "      --live[=USEC]      a live session: viewers (babeltrace2 --input-format=lttng-live\n"
	  "                         net://RELAY/host/HOSTNAME/NAME) follow it; partly filled packets\n"
	  "                         are sent and idle streams beacon every USEC (default 1000000)\n"
	  "      --hostname NAME    the host's name at the relay (default this machine's)\n"
	  "      --snapshot         a flight recorder: its channels overwrite, kept in memory (the last\n"
	  "                         sub-buffers per CPU), nothing written until `scry snapshot record`\n"
	  "      --clock CLOCK      the clock events are stamped with: monotonic (the default, LTTng's),\n"
	  "                         boot (CLOCK_BOOTTIME: counts time suspended), tai (CLOCK_TAI, where\n"
	  "                         the kernel has bpf_ktime_get_tai_ns: Linux 6.1); the trace's clock\n"
	  "                         block names it and places events in wall time (UTC)\n"
	  "      --max-pid-sets N   per-process event sets kept at most (enable-event --pid), 1 to\n"
	  "                         1024, default 64: beyond, the least recently used is evicted\n"
	  "                         (counted, said by enable-event, list and the daemon's log)\n"
	  "      --metrics FILE     also keep the metrics FILE declares in the kernel (docs/METRICS.md),\n"
	  "                         written to DIR/metrics.prom at each stop (as scry record --metrics)\n"
	  "      --listen ADDR:PORT also serve them to Prometheus at http://ADDR:PORT/metrics (as scry\n"
	  "                         serve; 503 until started; e.g. 127.0.0.1:9436)\n"
	  "      --spans FILE       also send the spans FILE declares (tracing: spans:) over OTLP while\n"
	  "                         the session runs, to where this command's OTEL_EXPORTER_OTLP_*,\n"
	  "                         OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES say (not the daemon's)\n" },
	{ "destroy",
	  "usage: scry destroy [NAME | -a]\n"
	  "Stop the session if it records (its trace complete) and forget it.\n"
	  "\n"
	  "  -a, --all              every session of yours (root: every session)\n" },
	{ "enable-channel",
	  "usage: scry enable-channel -k [--discard] [--subbuf-size S] [--num-subbuf N]\n"
	  "                           [--tracefile-size S [--tracefile-count N]] [-s NAME] CHANNEL\n"
	  "Add a channel (a stream class: files CHANNEL_<cpu>, its own per-CPU buffers, events and\n"
	  "contexts) to a session that has not started; a disabled channel is enabled again (no\n"
	  "attribute given), at once on a started session.\n"
	  "\n"
	  "  -k, --kernel           the kernel domain (the only one)\n"
	  "      --discard          when the buffer is full, new events are discarded (counted)\n"
	  "      --overwrite        when the writer falls behind, the oldest unwritten sub-buffer is\n"
	  "                         overwritten (a lost packet): the newest events kept; a snapshot\n"
	  "                         session's channels always overwrite (kept in memory)\n"
	  "      --subbuf-size S    sub-buffer size (K/M/G; rounded up to a power of two)\n"
	  "      --num-subbuf N     number of sub-buffers (rounded up to a power of two); the\n"
	  "                         per-CPU buffer is S x N (default 8M per CPU; a snapshot session\n"
	  "                         keeps N sub-buffers of S per CPU, default 4 x 1M)\n"
	  "      --tracefile-size S each CPU's stream split in files CHANNEL_<cpu>_<index> of at most\n"
	  "                         S bytes (at least a sub-buffer: a packet)\n"
	  "      --tracefile-count N  at most N such files per CPU: the oldest deleted\n"
	  "      --switch-timer US  every US microseconds (or 500ms, 1s) the partly filled packets\n"
	  "                         are written out: a low-rate stream reaches the disk (default 0:\n"
	  "                         inactive; the packets are flushed every second anyway)\n"
	  "      --read-timer US    the consumer wakes up at least this often (default 200000)\n"
	  "      --monitor-timer US buffer usage sampled this often, shown by status (default\n"
	  "                         1000000; 0: inactive)\n"
	  "      --output splice|mmap  lttng's output type (default splice), kept and saved: scry's\n"
	  "                         consumer maps its rings either way\n"
	  "      --buffers-global   the kernel domain's buffering scheme (the only one)\n"
	  "  (--blocking-timeout, --buffers-uid, --buffers-pid: user space options, refused as lttng\n"
	  "  refuses them with -k)\n"
	  SESSION_OPT },
	{ "disable-channel",
	  "usage: scry disable-channel -k [-s NAME] CHANNEL[,CHANNEL...]\n"
	  "Disable channels: their events are not recorded from now on (at once on a started\n"
	  "session); each stays in the session, its trace, `list` and `save`.  `scry enable-channel\n"
	  "-k CHANNEL` enables it again.\n"
	  "\n"
	  "  -k, --kernel           the kernel domain (the only one)\n"
	  SESSION_OPT },
	{ "enable-event",
	  "usage: scry enable-event -k [-c CHANNEL] [--syscall] [-a] [--filter EXPR] [--pid PID[,PID...]] [-s NAME]\n"
	  "                         EVENT[,EVENT...]\n"
	  "       scry enable-event -k [-c CHANNEL] [--filter EXPR] (--userspace-probe LOC | --probe SRC |\n"
	  "                         --function SRC) NAME\n"
	  "Enable events in a channel (channel0, made if missing, by default); on a started session\n"
	  "too, where they take effect at once.\n"
	  "\n"
	  "  -k, --kernel           the kernel domain (the only one)\n"
	  "  -c, --channel NAME     the channel\n"
	  "      --syscall          EVENTs are syscall names or globs (openat, 'read*')\n"
	  "      --tracepoint       EVENTs are tracepoint names or globs (sched_switch, 'sched_*';\n"
	  "                         SYSTEM:NAME also works); the default\n"
	  "  -a, --all              every syscall (with --syscall), or every tracepoint and syscall\n"
	  "      --filter EXPR      the rule's filter (LTTng's language): an event is recorded when\n"
	  "                         an enabled rule matching it accepts it (a rule without a filter\n"
	  "                         accepts every event); each EVENT with this filter is one rule\n"
	  "      --userspace-probe LOC  a probe rule NAME at elf:PATH:SYMBOL (a function's entry) or\n"
	  "                         sdt:PATH:PROVIDER:NAME (a USDT probe): what `scry record -e uprobe:`\n"
	  "                         and `-e usdt:` record; PATH is opened with your rights\n"
	  "      --probe SRC, --function SRC  a kernel probe (SYMBOL[+OFF] or 0xADDR): kprobes, where\n"
	  "                         the kernel has them (else refused, saying why)\n"
	  "      --pid PID          EVENTs (syscalls, tracepoints) for these processes only (every\n"
	  "                         thread of each; not their children): a per-process event set,\n"
	  "                         beside the channel's events for every process; at once on a\n"
	  "                         started session (create --max-pid-sets bounds how many are kept)\n"
	  SESSION_OPT },
	{ "disable-event",
	  "usage: scry disable-event -k [-c CHANNEL] [--syscall] [-a] [--pid PID[,PID...]] [-s NAME] EVENT[,EVENT...]\n"
	  "Disable enabled event rules of a channel (every rule of each EVENT, whatever its filter);\n"
	  "on a started session too, at once.\n"
	  "\n"
	  "  -k, --kernel           the kernel domain (the only one)\n"
	  "  -c, --channel NAME     the channel (default channel0)\n"
	  "      --syscall          EVENTs are syscall names or globs\n"
	  "  -a, --all              every enabled event of the channel (with --syscall: its syscalls)\n"
	  "      --pid PID          the rules of these processes' per-process event sets (as\n"
	  "                         enable-event --pid gave them); a set goes with its last rule\n"
	  SESSION_OPT },
	{ "add-context",
	  "usage: scry add-context -k [-c CHANNEL] -t TYPE [-t TYPE...] [-s NAME]\n"
	  "Add contexts to every event of a channel (every channel without -c), before start.\n"
	  "`scry list contexts` shows the types (pid, tid, vpid, ppid, procname, prio...).\n"
	  "\n"
	  "  -k, --kernel           the kernel domain (the only one)\n"
	  "  -c, --channel NAME     the channel\n"
	  "  -t, --type TYPE        a context type (repeatable)\n"
	  SESSION_OPT },
	{ "track",
	  "usage: scry track -k (--pid LIST | --vpid LIST | --uid LIST | --gid LIST | --vuid LIST |\n"
	  "                      --vgid LIST | --all --pid|--vpid|--uid|--gid|--vuid|--vgid) [-s NAME]\n"
	  "Record only these processes (and their children, for --pid).  Without a tracker a\n"
	  "session records every process.  --pid also on a started session that has a pid tracker.\n"
	  "\n"
	  "  -k, --kernel           the kernel domain (the only one)\n"
	  "      --pid LIST         process ids (comma-separated)\n"
	  "      --vpid LIST        process ids as seen in their pid namespace\n"
	  "      --uid LIST         user ids\n"
	  "      --gid LIST         group ids\n"
	  "      --vuid LIST        user ids as the process's user namespace maps them (65534: unmapped)\n"
	  "      --vgid LIST        group ids likewise\n"
	  "  -a, --all              with the trackers named without values: each includes every\n"
	  "                         process again (lttng's policy `include all`)\n"
	  SESSION_OPT },
	{ "untrack",
	  "usage: scry untrack -k (--pid LIST | --vpid LIST | --uid LIST | --gid LIST | --vuid LIST |\n"
	  "                        --vgid LIST | --all) [-s NAME]\n"
	  "Remove values from a tracker before start (its last value removed: no process is\n"
	  "recorded, lttng's \"none\"); --all with trackers named without values: each excludes\n"
	  "every process (lttng's policy `exclude all`); --all alone removes the trackers.\n"
	  "\n"
	  "  -k, --kernel           the kernel domain (the only one)\n"
	  "      --pid, --vpid, --uid, --gid, --vuid, --vgid LIST   values to remove\n"
	  "  -a, --all              every tracker (every process recorded again)\n"
	  SESSION_OPT },
	{ "start",
	  "usage: scry start [NAME]\n"
	  "Load and attach the session's events; recording begins for every event at one instant.\n"
	  "A stopped session records again into the same trace (its streams go on).\n" },
	{ "stop",
	  "usage: scry stop [NAME]\n"
	  "Stop recording: every event until this instant is in the trace, which is complete on\n"
	  "disk.  The session keeps its buffers: start records again, destroy frees them.\n" },
	{ "status",
	  "usage: scry status\n"
	  "The current session: its state, output, channels, events, contexts, trackers, counts.\n" },
	{ "snapshot",
	  "usage: scry snapshot record [-s NAME] [-n NAME] [-m MAXSIZE] [PATH|net://RELAY]\n"
	  "       scry snapshot add-output [-s NAME] [-n NAME] [-m MAXSIZE] PATH|file://PATH\n"
	  "       scry snapshot list-output [-s NAME]\n"
	  "       scry snapshot del-output [-s NAME] ID|NAME\n"
	  "Write what a started snapshot session's channels hold (their last sub-buffers per CPU and\n"
	  "the events not yet in one) as a complete trace, PATH (default: the session's snapshot\n"
	  "output)/NAME-N-YYYYmmdd-HHMMSS; tracing goes on.  Sub-buffers overwritten before are gaps\n"
	  "in packet_seq_num, as in LTTng.  A session has one snapshot output at a time (lttng's):\n"
	  "create --snapshot makes output 1 (snapshot-1) at its directory; del-output removes it,\n"
	  "add-output sets another (named -n, else snapshot-ID; -m its maximum size).  A session\n"
	  "made with --set-url, or record net://HOST[:CTRL[:DATA]][/PATH], sends the snapshot to that\n"
	  "lttng-relayd instead (LTTng's network snapshot, docs/RELAY.md).\n"
	  "\n"
	  "  -n, --name NAME        the snapshot's name (default snapshot), or the output's\n"
	  "  -m, --max-size SIZE    at most SIZE bytes in all (the newest sub-buffers of each stream);\n"
	  "                         a SIZE that cannot hold one sub-buffer per stream is refused\n"
	  SESSION_OPT },
	{ "rotate",
	  "usage: scry rotate [NAME]\n"
	  "Archive the current trace chunk of a started session: DIR/archives/<begin>-<end>-<index>/\n"
	  "kernel, a trace babeltrace2 reads alone; recording goes on in a new chunk, no event lost\n"
	  "or repeated.  A session that rotated archives its last chunk at stop.\n" },
	{ "enable-rotation",
	  "usage: scry enable-rotation [-s NAME] (--timer PERIOD | --size SIZE)\n"
	  "Rotate the session every PERIOD (30s, 500ms, 2m) or when SIZE bytes (64M) were written\n"
	  "since the last rotation.\n" },
	{ "disable-rotation",
	  "usage: scry disable-rotation [-s NAME] (--timer | --size)\n"
	  "Stop rotating the session by time or by size.\n" },
	{ "save",
	  "usage: scry save [NAME | -a] [-o PATH] [-f]\n"
	  "Save a session's configuration in LTTng's session XML (lttng load reads it; it validates\n"
	  "against lttng-tools' session.xsd).\n"
	  "\n"
	  "  -o, --output-path PATH a directory (PATH/NAME.lttng) or a file; default ~/.scry/sessions\n"
	  "  -a, --all              every session\n"
	  "  -f, --force            overwrite an existing file\n" },
	{ "load",
	  "usage: scry load [FILE | NAME [-i PATH]] [-f] [--override-name NAME] [--override-url PATH]\n"
	  "Create the sessions of an LTTng session file (every one, or NAME), as saved; started if\n"
	  "they were.  Nothing is created when an element or value is unknown or unsupported: the\n"
	  "error names it.\n"
	  "\n"
	  "  -i, --input-path PATH  a file, or a directory holding NAME.lttng (default ~/.scry/sessions)\n"
	  "  -f, --force            replace sessions of the same names\n"
	  "      --override-name N  the session's name\n"
	  "      --override-url P   its trace directory (a path or file://PATH)\n" },
	{ "set-session",
	  "usage: scry set-session NAME\n"
	  "Make NAME the current session (remembered in ~/.scryrc).\n" },
	{ "regenerate",
	  "usage: scry regenerate statedump [-s NAME]\n"
	  "Write a new statedump (lttng_statedump_start to _end: every thread, its namespaces and\n"
	  "open files, the interfaces, disks, IRQs and CPUs) in a started session's trace, in the\n"
	  "channels that record the statedump (enable-event -k 'lttng_statedump_*' before start).\n"
	  "\n"
	  SESSION_OPT },
};

const unsigned scry_ctl_nverbs = sizeof(scry_ctl_verbs) / sizeof(scry_ctl_verbs[0]);

const struct scry_ctl_verb *scry_ctl_verb(const char *name)
{
	for (unsigned i = 0; i < scry_ctl_nverbs; i++)
		if (!strcmp(scry_ctl_verbs[i].name, name))
			return &scry_ctl_verbs[i];
	return NULL;
}
