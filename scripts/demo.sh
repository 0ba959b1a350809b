#!/bin/bash
# scripts/demo.sh (`make run`) — record a short trace of a real command into a new directory
# under build/, show the command's first events with `scry view` (the statedump that opens the
# trace after them), and say how to open it elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $(id -u) -ne 0 ]]; then
	echo "demo.sh: scry record loads BPF programs: run as root (sudo make run)" >&2
	exit 1
fi
[[ -x ./scry ]] || { echo "demo.sh: ./scry missing: run make" >&2; exit 1; }

dir=build/demo-$(date +%Y%m%d-%H%M%S)-$$
echo "\$ ./scry record -o $dir -- sh -c 'ls / >/dev/null; cat /etc/hostname'"
./scry record -q -o "$dir" -- sh -c 'ls / >/dev/null; cat /etc/hostname' 2> "$dir.log" || {
	cat "$dir.log" >&2
	echo "demo.sh: scry record failed" >&2
	exit 1
}
summary=$(grep -E '^scry: [0-9]+ events recorded' "$dir.log" || true)
rm -f "$dir.log"

# The trace opens with the statedump (lttng_statedump_*: the machine's threads, files, memory
# maps... at start, written from scry's own process): the command's events are shown first
echo
echo "\$ ./scry view -n 40 --filter '\$ctx.procname != \"scry\"' $dir     # the command's events"
./scry view -n 40 --filter '$ctx.procname != "scry"' "$dir" || true
nsd=$(./scry view --filter '$ctx.procname == "scry"' "$dir" | grep -c ' lttng_statedump_' || true)
echo
echo "${summary:-scry: (no summary line printed)}"
echo "(of which $nsd lttng_statedump_* events: the state of the machine at start, as LTTng records it;"
echo " ./scry view $dir | head shows them)"
echo
echo "Trace written to $dir (CTF 1.8, LTTng kernel layout). Open it with:"
echo "  ./scry view $dir              # one line per event   (--json for JSON lines)"
echo "  babeltrace2 $dir              # babeltrace2's text output"
echo "  Trace Compass: File > Open Trace... > $dir/kernel/metadata"
