#!/bin/bash
# scripts/fuzz.sh — build the library for libFuzzer (in FUZZ_BUILD, default build-asan/: the
# tree make sanitize builds with the same flags, so after it nothing is compiled again), then
# for each tests/fuzz/fuzz_NAME.c: link it, replay its seed corpus tests/fuzz/corpus/NAME/
# (regression), and fuzz for FUZZ_SECONDS (default 30) on a scratch copy of the corpus,
# FUZZ_JOBS targets at once (default: 2, or 1 on one CPU).  Any crash, leak, sanitizer report
# or timeout fails.  Closes with "fuzz: N passed, M failed".
#   scripts/fuzz.sh tests/fuzz/fuzz_NAME.c...
# FUZZ_CFLAGS: the library's C flags (the Makefile passes its SAN_CFLAGS); they must hold
# -fsanitize=fuzzer-no-link,address,undefined.
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-30}
OUT=${FUZZ_BUILD:-build-asan}
LIB_CFLAGS=${FUZZ_CFLAGS:--O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all}

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

# One target: link, replay, fuzz; its output to $OUT/fuzz/fuzz_NAME.out, its verdict (ok or
# failed) to $OUT/fuzz/fuzz_NAME.verdict.  FUZZ_JOBS (the CPUs, at most 2 by default) run at once.
fuzz_one() {
	local src=$1 base name bin seeds scratch artifacts ok=1
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
		return 1
	fi
	local opts=(-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts" -print_final_stats=0)
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
	((ok))
}

JOBS=${FUZZ_JOBS:-$(n=$(nproc); echo $((n < 2 ? n : 2)))}
mkdir -p "$OUT/fuzz"
running=0
for src in "$@"; do
	base=$(basename "$src" .c)
	rm -f "$OUT/fuzz/$base.verdict"
	( if fuzz_one "$src" > "$OUT/fuzz/$base.out" 2>&1; then echo ok; else echo failed; fi > "$OUT/fuzz/$base.verdict" ) &
	running=$((running + 1))
	if ((running >= JOBS)); then
		wait -n
		running=$((running - 1))
	fi
done
wait
passed=0
failed=0
failing=()
for src in "$@"; do            # in the order given, each target's output whole
	base=$(basename "$src" .c)
	cat "$OUT/fuzz/$base.out" 2>/dev/null
	if [[ $(cat "$OUT/fuzz/$base.verdict" 2>/dev/null) == ok ]]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1)); failing+=("$base")
	fi
done

((${#failing[@]})) && echo "fuzz.sh: failing: ${failing[*]}" >&2
echo "fuzz: $passed passed, $failed failed"
((failed == 0))
