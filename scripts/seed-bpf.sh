#!/bin/sh
# scripts/seed-bpf.sh FROM TO — copy FROM's BPF objects and skeletons (build/*.bpf.o,
# *.skel.h) into the build tree TO, their times kept, so that a second tree built with other
# C flags (ASan/UBSan, libFuzzer) does not compile the BPF programs again: clang's BPF target
# takes no C flag of theirs, and make rebuilds a copy whose sources are newer.  Nothing to
# copy (FROM not built) is no error: TO then builds its own.
set -eu
from=$1 to=$2
mkdir -p "$to"
for f in "$from"/*.bpf.o "$from"/*.skel.h; do
	[ -e "$f" ] && cp -p "$f" "$to"/
done
exit 0
