#!/bin/bash
# scripts/check-layers.sh — layers include only downward.  The directories of src/, lowest
# first; a file may include headers of its own directory and of the directories before it,
# never of one after it.  src/scry_abi.h and the BPF side's headers (src/bpf/vmlinux/ARCH/vmlinux.h, *.skel.h)
# sit below everything.  Prints each upward include and fails if there is one.
set -uo pipefail
cd "$(dirname "$0")/.."

LAYERS=(util ctl catalog format metrics filter ctf relay kernel profile consumer session view trace spans feed daemon api cli)

declare -A rank
for i in "${!LAYERS[@]}"; do rank[${LAYERS[$i]}]=$i; done

bad=0
for dir in src/*/; do
	d=$(basename "$dir")
	[[ $d == bpf ]] && continue          # BPF programs: scry_abi.h and their own headers
	if [[ -z ${rank[$d]+x} ]]; then
		echo "check-layers: src/$d is in no layer: add it to LAYERS in $0" >&2
		bad=1
		continue
	fi
	while IFS=: read -r file line inc; do
		to=${inc%%/*}
		[[ -z ${rank[$to]+x} ]] && continue
		if ((rank[$to] > rank[$d])); then
			echo "check-layers: $file:$line: src/$d includes $inc from the higher layer src/$to" >&2
			bad=1
		fi
	done < <(grep -Hno '^#include "[a-z_]*/[^"]*"' "$dir"*.[ch] 2>/dev/null | sed 's/#include "\(.*\)"/\1/')
done
if ((bad)); then
	echo "check-layers: FAILED (order, lowest first: ${LAYERS[*]})" >&2
	exit 1
fi
echo "check-layers: ok (${LAYERS[*]})"
