#!/bin/bash
# scripts/check-abi.sh — libscry's ABI (its exported functions and the types they reach
# through include/scry/scry.h) compared by abidiff (Debian's abigail-tools) with the stored
# baseline tests/abi/libscry.abi: any change fails, printed as abidiff reports it.  An
# intended addition (new functions, in a new version node of src/api/libscry.map) is
# recorded with --update; a change to what SCRY_0.1 exports never is.
#   scripts/check-abi.sh [--update] LIB.so
set -uo pipefail
cd "$(dirname "$0")/.."

update=0
[[ ${1:-} == --update ]] && { update=1; shift; }
lib=${1:?usage: check-abi.sh [--update] LIB.so}
base=tests/abi/libscry.abi
for t in abidw abidiff; do
	command -v $t >/dev/null || { echo "check-abi: $t missing (Debian's abigail-tools: scripts/deps.sh)" >&2; exit 1; }
done
cur=$(mktemp --suffix=.abi)
trap 'rm -f "$cur"' EXIT
# the same options for the baseline and the build: no paths, type ids by hash (stable)
if ! abidw --headers-dir include/scry --exported-interfaces-only --drop-private-types --no-corpus-path \
	--no-comp-dir-path --short-locs --no-elf-needed --type-id-style hash --out-file "$cur" "$lib"; then
	echo "check-abi: abidw could not read $lib" >&2
	exit 1
fi
if ((update)); then
	cp "$cur" "$base" && echo "check-abi: $base updated from $lib"
	exit
fi
[[ -f $base ]] || { echo "check-abi: no baseline $base (scripts/check-abi.sh --update $lib)" >&2; exit 1; }
report=$(abidiff --no-show-locs "$base" "$cur")
rc=$?
if ((rc)); then
	echo "$report"
	if ((rc & 8)); then
		echo "check-abi: $lib breaks the ABI of $base (an incompatible change)" >&2
	else
		echo "check-abi: $lib changes the ABI of $base (abidiff status $rc, above); only an addition" \
		     "in a new version node may be recorded: scripts/check-abi.sh --update $lib" >&2
	fi
	exit 1
fi
echo "check-abi: ok ($lib, $(grep -c '<elf-symbol ' "$base") symbols as in $base)"
