#!/bin/bash
# bench/containers.sh (run by `make bench`) — issue 27's containers: what the cgroup_id
# context and a $ctx.container filter cost the traced program per call, measured inside it
# (getppid_loop times its own loop), as ns per call under `scry record -e syscall:getppid`
# with -c pid,tid,procname (the base), + cgroup_id (one bpf_get_current_cgroup_id() per
# event, 8 bytes more), and the base with --filter '$ctx.container == "ID"' on a container
# cgroup made for the run, the program inside it (the filter: one helper call and a
# compare per event); rounds interleaved, medians.  Lost events shown (a figure with losses
# is not the cost of the whole work).  Environment: BENCH_CTR_ROUNDS (5), BENCH_CTR_CALLS (200000).
set -uo pipefail
cd "$(dirname "$0")/.."

SCRY=./scry
ROUNDS=${BENCH_CTR_ROUNDS:-5}
N=${BENCH_CTR_CALLS:-200000}
WORK=$(mktemp -d)
CG2=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)
[[ -n $CG2 ]] || { echo "bench (containers): no cgroup v2 mount"; exit 0; }
CID=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
CG="$CG2/scrybench-$$.slice/docker-$CID.scope"
mkdir -p "$CG"
trap 'rm -rf "$WORK"; rmdir "$CG" "${CG%/*}" 2>/dev/null' EXIT
median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }

declare -A T L
run() {   # run NAME SCRY-RECORD-OPTIONS... : one recorded run of getppid_loop in the container cgroup
	local name=$1; shift
	rm -rf "$WORK/t"
	"$SCRY" record -e syscall:getppid "$@" -o "$WORK/t" -- sh -c 'echo $$ > "$0/cgroup.procs"; exec "$1" "$2"' \
		"$CG" build/workload/getppid_loop "$N" > "$WORK/out" 2> "$WORK/err" ||
		{ echo "bench: $name failed: $(tail -n 2 "$WORK/err")" >&2; return 1; }
	T[$name]+=" $(sed -n 's/.*"ns_per_call":\([0-9.]*\).*/\1/p' "$WORK/out")"
	local l
	l=$(grep -o '[0-9]* events lost\|[0-9]* discarded' "$WORK/err" | awk '{s += $1} END {print s + 0}')
	L[$name]=$(( ${L[$name]:-0} + l ))
}

for r in $(seq "$ROUNDS"); do
	run base -c pid,tid,procname
	run cgid -c pid,tid,procname,cgroup_id
	run filt -c pid,tid,procname --filter "\$ctx.container == \"${CID:0:12}*\""
done

row() {   # row LABEL WITH WITHOUT
	local a b
	a=$(printf '%s\n' ${T[$2]} | median); b=$(printf '%s\n' ${T[$3]} | median)
	printf '%-44s %10.1f %10.1f %10.1f %8s\n' "$1" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN{print a-b}')" \
		"$(( ${L[$2]:-0} + ${L[$3]:-0} ))"
}
echo "bench (containers): ns per getppid call inside the program, median of $ROUNDS rounds of $N calls"
printf '%-44s %10s %10s %10s %8s\n' "option (scry record)" "with" "without" "cost" "lost"
row "-c ...,cgroup_id, per event pair" cgid base
row "--filter '\$ctx.container == ID*', per pair" filt base
