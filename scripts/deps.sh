#!/bin/bash
# scripts/deps.sh — install the Debian packages scry needs to build, test (and, with
# --bench, benchmark), and mount tracefs.  Idempotent and quiet when nothing is missing.
#   scripts/deps.sh           build + test dependencies
#   scripts/deps.sh --bench   also the peer tracers used by bench/run.sh
set -euo pipefail

# clang-16 compiles the BPF programs (clang 14 drops the BTF type tags of kptrs); clang 14
# with its libFuzzer runtime builds the fuzzers and sanitizer builds.
PKGS=(gcc make clang clang-16 llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config
      libcmocka-dev babeltrace2 python3-bt2 python3-pytest valgrind
      libclang-rt-14-dev jq
      libyaml-dev libmicrohttpd-dev prometheus
      libprotobuf-c-dev protobuf-c-compiler libcurl4-openssl-dev
      libxml2-dev libxml2-utils lttng-tools python3-lttnganalyses)   # lttng-analyses (lttng-cputop, lttng-syscallstats: tests/e2e/test_lttng_analyses.py); scryd save/load: LTTng's session XML (libxml2), its schema (lttng-tools) and xmllint in the tests
# scry dlopens libcurl.so.4, libxml2.so.2 and libmicrohttpd.so.12 when it exports spans, saves
# or loads a session, serves metrics (src/util/lazylib.h): their runtime packages, by name
PKGS+=(libcurl4 libxml2 libmicrohttpd12)
# the span tests' OTLP decoder runs under node; npm from Debian only when there is none
# (NodeSource's nodejs carries its own npm and conflicts with Debian's)
command -v node >/dev/null 2>&1 || PKGS+=(nodejs)
command -v npm >/dev/null 2>&1 || PKGS+=(npm)
# uprobes: <sys/sdt.h> for the USDT workload, bpftrace to check probe values against,
# libc6-dbg: separate debug info found by build id (typed libc parameters)
PKGS+=(systemtap-sdt-dev bpftrace libc6-dbg)
# uprobes: elfutils' libdw for the DWARF of probed binaries
PKGS+=(libdw-dev)
# scry profile's tests: its pprof output decoded by protobuf's own Python decoder over
# profile.proto compiled by protoc (tests/e2e/test_profile.py)
PKGS+=(protobuf-compiler python3-protobuf)
# make deb / deb-test (dist/deb.mk): debhelper, dpkg-buildpackage, lintian
PKGS+=(debhelper dpkg-dev lintian)
# libscry's ABI checked against its stored baseline (abidw, abidiff: make check-abi)
PKGS+=(abigail-tools)
# scry top in a terminal: tmux (send-keys, capture-pane; tests/e2e/test_top.py)
PKGS+=(tmux)
# scry view --json-schema's schema and view --json's objects checked against it
# (Draft 2020-12; tests/e2e/test_json_schema.py)
PKGS+=(python3-jsonschema)
BENCH_PKGS=(strace linux-perf bpftrace hyperfine)

for arg in "$@"; do
	case "$arg" in
	--bench) PKGS+=("${BENCH_PKGS[@]}") ;;
	-h|--help) sed -n '2,5p' "$0"; exit 0 ;;
	*) echo "deps.sh: unknown option '$arg'" >&2; exit 2 ;;
	esac
done

missing=()
for p in "${PKGS[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[[ "$status" == ii* ]] || missing+=("$p")
done

if ((${#missing[@]})); then
	if [[ $(id -u) -ne 0 ]]; then
		echo "deps.sh: missing packages: ${missing[*]}" >&2
		echo "deps.sh: as root, run: apt-get update && apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
	echo "deps.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	log=$(mktemp)
	trap 'rm -f "$log"' EXIT
	if ! apt-get update -qq >"$log" 2>&1; then
		cat "$log" >&2
		echo "deps.sh: apt-get update failed" >&2
		exit 1
	fi
	if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
		# Retry one by one so the message names the package that failed.
		for p in "${missing[@]}"; do
			if ! apt-get install -y -qq --no-install-recommends "$p" >"$log" 2>&1; then
				tail -n 20 "$log" >&2
				echo "deps.sh: failed to install Debian package '$p'" >&2
				exit 1
			fi
		done
	fi
fi

# The OTLP receiver of the span tests (tests/node): npm packages at their locked versions.
# npm: the nodejs package's own (nodesource's bundles it), else Debian's.
if ! command -v npm >/dev/null 2>&1 && [[ $(id -u) -eq 0 ]]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null 2>&1 ||
		echo "deps.sh: npm could not be installed (the span tests will be skipped)" >&2
fi
if command -v npm >/dev/null 2>&1 &&
   [[ ! -d "$(dirname "$0")/../tests/node/node_modules/@opentelemetry/otlp-transformer" ]]; then
	(cd "$(dirname "$0")/../tests/node" && npm ci --no-audit --no-fund --loglevel=error) || {
		echo "deps.sh: npm ci in tests/node failed (the span tests will be skipped)" >&2
	}
fi

# tracefs: scry reads tracepoint formats from it.
if [[ ! -e /sys/kernel/tracing/events ]]; then
	if [[ $(id -u) -ne 0 ]]; then
		echo "deps.sh: tracefs is not mounted; as root run: mount -t tracefs nodev /sys/kernel/tracing" >&2
		exit 1
	fi
	mount -t tracefs nodev /sys/kernel/tracing || {
		echo "deps.sh: cannot mount tracefs at /sys/kernel/tracing" >&2
		exit 1
	}
fi
exit 0
