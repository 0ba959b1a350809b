#!/bin/bash
# bench/annotate.sh — where the time of scry's syscall programs goes, per JIT instruction: runs
# `scry record ARGS` (default -a), samples the CPU of a pinned getppid loop with perf
# (cpu-clock, 20 kHz), and prints the kernel symbols' shares, then each program's
# disassembly (build/bench/jitdump + objdump) with the samples that fell on each
# instruction (a timer sample lands just after the instruction it interrupted).  Not part of
# `make bench` (a diagnosis, not a figure): docs/ENGINE.md's cost section was written with it.
#   bench/annotate.sh [ARGS...]     output in build/bench/annotate/{enter,exit}.txt
# Environment: BENCH_CPU (the last CPU), ANNOTATE_CALLS (3000000).
set -uo pipefail
cd "$(dirname "$0")/.."
[[ $(id -u) -eq 0 ]] || { echo "annotate: run as root" >&2; exit 1; }
for t in perf objdump jq bpftool; do
	command -v $t >/dev/null || { echo "annotate: $t not installed" >&2; exit 1; }
done
make -s bench-tools || exit 1
OUT=build/bench/annotate
mkdir -p "$OUT"
CPU=${BENCH_CPU:-$(( $(nproc) - 1 ))}
ARGS=("$@"); (( ${#ARGS[@]} )) || ARGS=(-a)

before=$(bpftool prog show -j | jq '[.[].id] | max // 0')
./scry record -q -o "$OUT/trace" "${ARGS[@]}" & S=$!
trap 'kill -INT $S 2>/dev/null; wait $S 2>/dev/null; rm -rf "$OUT/trace"' EXIT
for _ in $(seq 100); do
	(( $(bpftool prog show -j | jq --argjson b "$before" '[.[] | select(.id > $b and (.name | startswith("scry_sys_")))] | length') >= 2 )) && break
	sleep 0.1
done
sleep 0.5
for n in enter exit; do
	# the plain dispatcher, or one made for its mode (scry_sys_*_{all,trk}[_dflt]_btf)
	id=$(bpftool prog show -j | jq -r --argjson b "$before" '[.[] | select(.id > $b and (.name | test("^scry_sys_'$n'(_all|_trk)?(_dflt|_pt)?_btf$"))) | .id] | min // empty')
	[[ -n "$id" ]] || { echo "annotate: no scry_sys_${n}_btf loaded" >&2; exit 1; }
	addr=$(build/bench/jitdump "$id" 2>&1 > "$OUT/$n.bin") || { echo "annotate: $addr" >&2; exit 1; }
	objdump -D -b binary -mi386:x86-64 --adjust-vma=0x"$addr" "$OUT/$n.bin" > "$OUT/$n.dis"
done
perf record -q -F 20000 -C "$CPU" -o "$OUT/perf.data" -- \
	taskset -c "$CPU" build/workload/getppid_loop "${ANNOTATE_CALLS:-3000000}" >/dev/null 2>&1
perf report -i "$OUT/perf.data" --sort sym --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -20
perf script -i "$OUT/perf.data" -F ip 2>/dev/null | awk '{print $1}' | sort | uniq -c > "$OUT/ips.txt"
for n in enter exit; do
	awk 'NR == FNR {c[$2] = $1; next}
	     !/^ *[0-9a-f]+:\t/ {print; next}    # headers and labels
	     {split($1, a, ":"); k = a[1]; gsub(/ /, "", k); printf "%6s %s\n", (k in c ? c[k] : ""), $0; if (k in c) s += c[k]}
	     END {printf "samples in the program: %d\n", s}' "$OUT/ips.txt" "$OUT/$n.dis" > "$OUT/$n.txt"
	echo "scry_sys_${n}_btf: $(tail -n 1 "$OUT/$n.txt") ($OUT/$n.txt)"
done
