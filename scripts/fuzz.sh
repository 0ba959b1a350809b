#!/bin/bash
# scripts/fuzz.sh — build the library once for libFuzzer (build-fuzz/), then for each
# tests/fuzz/fuzz_NAME.c: link it, replay its seed corpus tests/fuzz/corpus/NAME/ (regression),
# and fuzz for FUZZ_SECONDS (default 30) on a scratch copy of the corpus.  Any crash, leak,
# sanitizer report or timeout fails.  Closes with "fuzz: N passed, M failed".
#   scripts/fuzz.sh tests/fuzz/fuzz_NAME.c...
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-30}
OUT=build-fuzz
SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
# The include/define flags are repeated here because a CFLAGS given on make's command line
# replaces the Makefile's own `CFLAGS +=` additions.
LIB_CFLAGS="-O1 -g $SAN -fno-omit-frame-pointer -std=gnu11 -D_GNU_SOURCE -Isrc -I$OUT"

if (($# == 0)); then
	echo "fuzz.sh: no fuzz target given (tests/fuzz/fuzz_*.c missing?)" >&2
	echo "fuzz: 0 passed, 1 failed"
	exit 1
fi

echo "== building $OUT/libscry.a for fuzzing"
scripts/seed-bpf.sh build $OUT
if ! make -s -j2 BUILD=$OUT CC=clang CFLAGS="$LIB_CFLAGS" $OUT/libscry.a; then
	echo "fuzz.sh: building $OUT/libscry.a failed" >&2
	echo "fuzz: 0 passed, $# failed"
	exit 1
fi

passed=0
failed=0
failing=()
for src in "$@"; do
	base=$(basename "$src" .c)          # fuzz_NAME
	name=${base#fuzz_}                  # NAME
	bin=$OUT/fuzz/$base
	seeds=tests/fuzz/corpus/$name
	scratch=$OUT/fuzz/corpus/$name
	artifacts=$OUT/fuzz/artifacts/$name/
	mkdir -p "$OUT/fuzz" "$artifacts"
	echo "== $base"
	if ! clang -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-fno-omit-frame-pointer -std=gnu11 -D_GNU_SOURCE -Isrc -I$OUT -Itests/fuzz \
		-o "$bin" "$src" $OUT/libscry.a -lbpf -lelf -lz -lm -ldw -lyaml -lprotobuf-c; then
		echo "fuzz.sh: $base: link failed" >&2
		failed=$((failed + 1)); failing+=("$base"); continue
	fi
	opts=(-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts" -print_final_stats=0)
	ok=1
	if [[ -d "$seeds" ]] && [[ -n "$(ls -A "$seeds")" ]]; then
		echo "-- $base: replaying $(ls -A "$seeds" | wc -l) seed(s) from $seeds"
		if ! "$bin" "${opts[@]}" -runs=0 "$seeds" > "$OUT/fuzz/$base.replay.log" 2>&1; then
			tail -n 40 "$OUT/fuzz/$base.replay.log"
			echo "fuzz.sh: $base: a seed in $seeds fails (log: $OUT/fuzz/$base.replay.log)" >&2
			ok=0
		fi
	else
		echo "fuzz.sh: $base: no seed corpus in $seeds (fuzzing from scratch)" >&2
	fi
	if ((ok)); then
		rm -rf "$scratch"; mkdir -p "$scratch"
		[[ -d "$seeds" ]] && cp -r "$seeds"/. "$scratch"/
		echo "-- $base: fuzzing for ${FUZZ_SECONDS}s"
		if ! "$bin" "${opts[@]}" -max_total_time="$FUZZ_SECONDS" "$scratch" > "$OUT/fuzz/$base.log" 2>&1; then
			tail -n 60 "$OUT/fuzz/$base.log"
			echo "fuzz.sh: $base: crash found; reproducer in $artifacts (log: $OUT/fuzz/$base.log)" >&2
			ok=0
		else
			grep -E '^(Done [0-9]+ runs|#[0-9]+ *DONE)' "$OUT/fuzz/$base.log" | tail -n 1
		fi
	fi
	if ((ok)); then
		passed=$((passed + 1))
	else
		failed=$((failed + 1)); failing+=("$base")
	fi
done

((${#failing[@]})) && echo "fuzz.sh: failing: ${failing[*]}" >&2
echo "fuzz: $passed passed, $failed failed"
((failed == 0))
