# scry — build, test, demo and benchmarks.
#   make          build ./scry
#   make run      install missing Debian packages, build, record and show a demo trace
#   make test     install, build, run every test (unit, sanitizers, fuzz smoke, end-to-end)
#   make bench    benchmarks (not part of make test)
#   make install  scry, scryd, their man pages, bash completion and systemd unit (PREFIX, DESTDIR)

BUILD    ?= build
CC       ?= gcc
CLANG    ?= clang
# BPF programs: clang 16 (clang 14 drops the BTF type tags of kptrs)
BPF_CLANG ?= clang-16
BPFTOOL  ?= bpftool
PYTHON   ?= /usr/bin/python3
ARCH     := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

CFLAGS   ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow -Werror=implicit-function-declaration \
            -D_GNU_SOURCE -Isrc -I$(BUILD) -I$(BUILD)/otlp
LDLIBS   += -lbpf -lelf -lz -lm
# libyaml: the metrics config (src/metrics/config.c)
LDLIBS   += -lyaml
# elfutils' libdw: the DWARF of probed binaries (uprobe parameters, src/catalog/dwarf.c, dwarf_value.c)
LDLIBS   += -ldw
# protobuf-c: OTLP's messages (generated from proto/ by protoc-c), src/spans/otlp.c
LDLIBS   += -lprotobuf-c
# libcurl (spans sent over OTLP/HTTP, src/spans/exporter.c), libxml2 (scryd's save/load of
# LTTng's session XML, src/daemon/session_xml.c) and libmicrohttpd (the metrics' HTTP endpoint
# of scry serve and of daemon sessions, src/feed/http.c) are not linked: each is dlopen'ed by
# its soname (libcurl.so.4, libxml2.so.2, libmicrohttpd.so.12) when first used
# (src/util/lazylib.h), so that the ~35 libraries they pull in are not mapped at every start.
# Only their headers are needed to build.
override CFLAGS += -I/usr/include/libxml2
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -I$(BUILD) -Isrc -Wall -Wno-unused-function
# libbpf's usdt.bpf.h includes <linux/errno.h>, whose asm/ headers are multiarch
BPF_CFLAGS += -idirafter /usr/include/$(shell gcc -print-multiarch)

LIB_DIRS := src/util src/ctl src/catalog src/format src/metrics src/filter src/ctf src/relay src/kernel src/profile src/consumer src/session src/view src/trace src/spans src/feed src/daemon src/cli
LIB_SRCS := $(filter-out src/cli/main.c,$(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c)))
LIB_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
# OTLP's .proto files (vendored from opentelemetry-proto v1.3.2) and pprof's profile.proto
# (google/pprof's proto/profile.proto, b9395ee, for scry profile -o X.pb.gz), compiled by protoc-c
PROTOS   := proto/opentelemetry/proto/common/v1/common.proto proto/opentelemetry/proto/resource/v1/resource.proto \
            proto/opentelemetry/proto/trace/v1/trace.proto proto/opentelemetry/proto/collector/trace/v1/trace_service.proto \
            proto/perftools/profiles/profile.proto
PB_SRCS  := $(patsubst proto/%.proto,$(BUILD)/otlp/%.pb-c.c,$(PROTOS))
PB_HDRS  := $(PB_SRCS:.c=.h)
PB_OBJS  := $(PB_SRCS:.c=.o)
BPF_SRCS := $(wildcard src/bpf/*.bpf.c)
SKELS    := $(patsubst src/bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
UNIT_SRCS:= $(wildcard tests/unit/test_*.c)
UNIT_BINS:= $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
WORKLOADS:= $(patsubst tests/workload/%.c,$(BUILD)/workload/%,$(wildcard tests/workload/*.c))
FUZZ_SRCS:= $(wildcard tests/fuzz/fuzz_*.c)
TOOLS    := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(wildcard tests/tools/*.c))

PREFIX  ?= /usr/local

.PHONY: install all scryd deps run test unit e2e sanitize fuzz valgrind bench clean gen-syscalls gen-lttng-syscalls check-gen check-layers
.DEFAULT_GOAL := all
.SECONDARY:

all: scry scryd $(WORKLOADS) $(TOOLS) $(BUILD)/workload/uprobed-O0 $(BUILD)/workload/uprobed.stripped \
     $(BUILD)/workload/hotspots-nofp

scry: $(BUILD)/scry
	@ln -sf $(BUILD)/scry scry

# scryd, the session daemon: scry itself, run under that name (main.c looks at argv[0])
scryd: $(BUILD)/scry
	@ln -sf scry $(BUILD)/scryd
	@ln -sf $(BUILD)/scryd scryd

# dist/: the man pages, the bash completion (scry and scryd) and scryd's systemd unit
install: $(BUILD)/scry
	install -D -m 755 $(BUILD)/scry $(DESTDIR)$(PREFIX)/bin/scry
	ln -sf scry $(DESTDIR)$(PREFIX)/bin/scryd
	install -D -m 644 dist/scry.1 $(DESTDIR)$(PREFIX)/share/man/man1/scry.1
	install -D -m 644 dist/scryd.8 $(DESTDIR)$(PREFIX)/share/man/man8/scryd.8
	install -D -m 644 dist/scry.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/scry
	ln -sf scry $(DESTDIR)$(PREFIX)/share/bash-completion/completions/scryd
	mkdir -p $(DESTDIR)$(PREFIX)/lib/systemd/system
	sed 's|/usr/local/bin/|$(PREFIX)/bin/|' dist/scry-sessiond.service > $(DESTDIR)$(PREFIX)/lib/systemd/system/scry-sessiond.service

$(BUILD)/vmlinux.h:
	@mkdir -p $(BUILD)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/%.bpf.o: src/bpf/%.bpf.c $(BUILD)/vmlinux.h $(wildcard src/bpf/*.h src/bpf/lib/*.h) src/scry_abi.h
	@mkdir -p $(@D)
	$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(BUILD)/otlp/%.pb-c.c $(BUILD)/otlp/%.pb-c.h: proto/%.proto
	@mkdir -p $(BUILD)/otlp
	protoc-c --c_out=$(BUILD)/otlp -Iproto $<

$(BUILD)/otlp/%.pb-c.o: $(BUILD)/otlp/%.pb-c.c $(PB_HDRS)
	$(CC) -O2 -g -I$(BUILD)/otlp -c $< -o $@

$(BUILD)/obj/%.o: src/%.c | $(SKELS) $(PB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libscry.a: $(LIB_OBJS) $(PB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/scry: $(BUILD)/obj/cli/main.o $(BUILD)/libscry.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libscry.a $(wildcard tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $(filter %.c %.a,$^) $(LDFLAGS) $(LDLIBS) -lcmocka

# Test tools (root, used by the end-to-end tests): linked with the library.
$(BUILD)/tools/%: tests/tools/%.c $(BUILD)/libscry.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/workload/%: tests/workload/%.c
	@mkdir -p $(@D)
	$(CC) -O1 -g -Wall -D_GNU_SOURCE -pthread -o $@ $<

# The call stack tests' workload at -O0: every function keeps its frame (the kernel walks
# user stacks by frame pointers; an optimised leaf without one hides its caller).
$(BUILD)/workload/nested_calls: tests/workload/nested_calls.c
	@mkdir -p $(@D)
	$(CC) -O0 -g -fno-omit-frame-pointer -Wall -D_GNU_SOURCE -o $@ $<

# scry profile's workload at -O2, with frame pointers in every function, leaves too (the kernel
# walks user stacks by them; gcc leaves a leaf without its frame otherwise, hiding its caller)
# and without (hotspots-nofp: the leaf's caller is lost to a frame-pointer walk).
$(BUILD)/workload/hotspots: tests/workload/hotspots.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -D_GNU_SOURCE -pthread -o $@ $<

$(BUILD)/workload/hotspots-nofp: tests/workload/hotspots.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -fomit-frame-pointer -Wall -D_GNU_SOURCE -pthread -o $@ $<

# The uprobe tests' workload also at -O0, and stripped (no symbols, no DWARF).
$(BUILD)/workload/uprobed-O0: tests/workload/uprobed.c
	@mkdir -p $(@D)
	$(CC) -O0 -g -Wall -D_GNU_SOURCE -pthread -o $@ $<

$(BUILD)/workload/uprobed.stripped: $(BUILD)/workload/uprobed
	strip -o $@ $<

-include $(LIB_OBJS:.o=.d) $(BUILD)/obj/cli/main.d

deps:
	@scripts/deps.sh

run: deps all
	@scripts/demo.sh

unit: $(UNIT_BINS)
	@scripts/run-unit.sh $(UNIT_BINS)

e2e: all
	$(PYTHON) -m pytest -q --durations=25 tests/e2e

# Userspace under ASan/UBSan: unit tests rebuilt in their own tree.
sanitize:
	$(MAKE) BUILD=build-asan CC=clang CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" unit

valgrind: $(UNIT_BINS)
	@scripts/run-unit.sh --valgrind $(UNIT_BINS)

fuzz:
	@scripts/fuzz.sh $(FUZZ_SRCS)

check-layers:
	@scripts/check-layers.sh

test: deps
	$(MAKE) check-layers
	$(MAKE) all unit
	$(MAKE) sanitize
	$(MAKE) valgrind
	$(MAKE) fuzz
	$(MAKE) e2e

bench: deps all
	@bench/run.sh
	@bench/progcost.sh
	@bench/trace.sh
	@bench/stall.sh
	@bench/startup.sh
	@bench/metrics.sh
	@bench/uprobes.sh
	@bench/statedump.sh
	@bench/daemon.sh
	@bench/pid_sets.py
	@bench/rules.py
	@$(PYTHON) bench/profile.py

gen-syscalls:
	$(PYTHON) scripts/gen_syscalls.py > src/catalog/syscall_table.c

gen-lttng-syscalls:
	$(PYTHON) scripts/gen_lttng_syscalls.py > src/catalog/lttng_syscalls.c

check-gen:
	$(PYTHON) scripts/gen_syscalls.py | diff -u src/catalog/syscall_table.c - && echo "syscall table: up to date"

clean:
	rm -rf build build-asan scry scryd

# Benchmark programs (floor BPF program, workloads): bench/bench.mk
-include bench/bench.mk
