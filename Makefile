# scry — build, test, demo and benchmarks.
#   make          build ./scry
#   make run      install missing Debian packages, build, record and show a demo trace
#   make test     install, build, run every test (unit, sanitizers, fuzz smoke, end-to-end, the .deb)
#   make deb      build/scry_*.deb (dist/deb.mk; deb-test: installed, smoke-tested, purged)
#   make bench    benchmarks (not part of make test)
#   make install  scry, scryd, man pages, completion, systemd unit, docs, examples, libscry
#                 (dist/install.mk); make uninstall: what make install put (same DESTDIR, PREFIX)
#   make lib      libscry.so (the public C library: include/scry/scry.h, docs/LIBSCRY.md)
#   make install-lib  libscry's .so, its links, header and pkg-config file (PREFIX, LIBDIR, DESTDIR)

BUILD    ?= build
CC       ?= gcc
CLANG    ?= clang
# BPF programs: clang 16 (clang 14 drops the BTF type tags of kptrs)
BPF_CLANG ?= clang-16
BPFTOOL  ?= bpftool
LLVM_OBJCOPY ?= llvm-objcopy
PYTHON   ?= /usr/bin/python3
ARCH     := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

CFLAGS   ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow -Werror=implicit-function-declaration \
            -D_GNU_SOURCE -Isrc -Iinclude -I$(BUILD) -I$(BUILD)/otlp
# position-independent, for libscry.so as for scry (one object of each file); the calls and
# accesses inside scry as direct as in a PIE (no interposition, relaxed at link)
override CFLAGS += -fPIC -fno-semantic-interposition
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
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Isrc/bpf/vmlinux/$(ARCH) -I$(BUILD) -Isrc -Wall -Wno-unused-function
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
SKELS    := $(patsubst src/bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS)) $(BUILD)/scry_lanes.h $(BUILD)/scry_elf_sum.h \
	    $(BUILD)/scry_shell.skel.h
UNIT_SRCS:= $(wildcard tests/unit/test_*.c)
UNIT_BINS:= $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
WORKLOADS:= $(patsubst tests/workload/%.c,$(BUILD)/workload/%,$(wildcard tests/workload/*.c))
FUZZ_SRCS:= $(wildcard tests/fuzz/fuzz_*.c)
TOOLS    := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(wildcard tests/tools/*.c))

PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
VERSION := 0.1.0

# libscry (src/api over the engine): the API's objects, and the engine's (every layer below
# the daemon) linked into one object whose names the API takes are renamed (src/api/engine.h)
API_SRCS := $(wildcard src/api/*.c)
API_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(API_SRCS))
ENGINE_OBJS := $(filter-out $(BUILD)/obj/cli/% $(BUILD)/obj/daemon/%,$(LIB_OBJS))
LIBSCRY  := $(BUILD)/libscry.so.$(VERSION)

.PHONY: install install-lib uninstall-lib lib examples check-abi all scryd deps run test unit e2e sanitize fuzz valgrind bench clean gen-syscalls gen-lttng-syscalls gen-vmlinux check-gen check-layers
.DEFAULT_GOAL := all
.SECONDARY:

all: scry scryd lib examples $(WORKLOADS) $(TOOLS) $(BUILD)/workload/uprobed-O0 $(BUILD)/workload/uprobed.stripped \
     $(BUILD)/workload/hotspots-nofp

scry: $(BUILD)/scry
	@ln -sf $(BUILD)/scry scry

# scryd, the session daemon: scry itself, run under that name (main.c looks at argv[0])
scryd: $(BUILD)/scry
	@ln -sf scry $(BUILD)/scryd
	@ln -sf $(BUILD)/scryd scryd

# The kernel's types for the BPF programs: a vmlinux.h kept in the tree per architecture (as
# libbpf-tools keeps one), dumped once from a kernel's BTF; CO-RE relocates the programs to
# the running kernel's layout at load time, so the build needs no BTF of its own kernel
# (a package builds in a chroot, on any kernel).  `make gen-vmlinux` dumps it again from this
# machine's kernel (src/bpf/vmlinux/README.md).
VMLINUX_H := src/bpf/vmlinux/$(ARCH)/vmlinux.h

$(VMLINUX_H):
	@echo "$@ missing: no vmlinux.h for $(ARCH) in the tree; on a $(ARCH) machine with BTF run make gen-vmlinux" >&2; exit 1

gen-vmlinux:
	@mkdir -p src/bpf/vmlinux/$(ARCH)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $(VMLINUX_H).tmp && mv $(VMLINUX_H).tmp $(VMLINUX_H)

# Compiled, then stripped of what libbpf never reads: the DWARF (-g), the relocations of
# .BTF.ext (the line and CO-RE records' offsets are read as they are) and, with them, the
# ~17,000 local branch labels (LBB*) they named.  libbpf's open walks the symbol table once per
# section and variable: 11 ms of CPU for the whole object, 6.4 ms for the stripped one, for
# every scry start, cold or warm.  .BTF and .BTF.ext (line info, CO-RE) and the functions'
# symbols (libbpf's subprograms) stay.
$(BUILD)/%.bpf.o: src/bpf/%.bpf.c $(VMLINUX_H) $(wildcard src/bpf/*.h src/bpf/lib/*.h) src/scry_abi.h
	@mkdir -p $(@D)
	$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@.full
	$(LLVM_OBJCOPY) -g -R .rel.BTF.ext --wildcard --strip-symbol='LBB*' $@.full $@.tmp && rm -f $@.full && mv $@.tmp $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

# The shell of scry.bpf.o for the warm path (src/kernel/warm_shell.c): its maps, programs,
# BTF and data sections as they are, without .BTF.ext and the relocations, which only a load
# reads.  A warm start opens it to prepare and fingerprint its settings and never loads it:
# libbpf's open of it takes ~1.6 ms against ~5 for the whole object.
$(BUILD)/scry_shell.bpf.o: $(BUILD)/scry.bpf.o
	$(LLVM_OBJCOPY) --wildcard -R '.rel*' -R .BTF.ext $< $@.tmp && mv $@.tmp $@

# the lanes' split of scry.bpf.c's programs (src/kernel/lanes.c), from their SCRY_LANE marks;
# fails when a program has none
SCRY_BPF_SRCS := src/bpf/scry.bpf.c $(wildcard src/bpf/*.bpf.h)
$(BUILD)/scry_lanes.h: $(BUILD)/scry.skel.h scripts/gen-lanes.sh $(SCRY_BPF_SRCS)
	sh scripts/gen-lanes.sh $< $(SCRY_BPF_SRCS) > $@.tmp && mv $@.tmp $@

# the embedded object's identity for the warm fingerprint (src/kernel/fingerprint.c): its
# SHA-256, made here once rather than hashed by every run
$(BUILD)/scry_elf_sum.h: $(BUILD)/scry.bpf.o
	printf '#define SCRY_ELF_SUM "%s"\n' "$$(sha256sum < $< | cut -c1-64)" > $@.tmp && mv $@.tmp $@

$(BUILD)/otlp/%.pb-c.c $(BUILD)/otlp/%.pb-c.h: proto/%.proto
	@mkdir -p $(BUILD)/otlp
	protoc-c --c_out=$(BUILD)/otlp -Iproto $<

$(BUILD)/otlp/%.pb-c.o: $(BUILD)/otlp/%.pb-c.c $(PB_HDRS)
	$(CC) -O2 -g -fPIC -I$(BUILD)/otlp -c $< -o $@

$(BUILD)/obj/%.o: src/%.c | $(SKELS) $(PB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libscry.a: $(LIB_OBJS) $(PB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/scry: $(BUILD)/obj/cli/main.o $(BUILD)/libscry.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(BUILD)/api/renames: src/api/engine.h
	@mkdir -p $(@D)
	sed -n 's/^#define \(scry_[a-z_]*\) \(scry_engine_[a-z_]*\)$$/\1 \2/p' $< > $@

$(BUILD)/api/engine.o: $(ENGINE_OBJS) $(PB_OBJS) $(BUILD)/api/renames
	$(LD) -r -o $@.tmp $(ENGINE_OBJS) $(PB_OBJS)
	objcopy --redefine-syms=$(BUILD)/api/renames $@.tmp $@ && rm -f $@.tmp

lib: $(LIBSCRY)

# examples/c: libscry's programs, built as a user builds them (only include/ and the .so;
# examples/c/Makefile builds them with pkg-config against an installed libscry)
EXAMPLES := $(patsubst examples/c/%.c,$(BUILD)/examples/%,$(wildcard examples/c/*.c))
# tests/api: programs of the end-to-end tests built the same way
API_TESTS := $(patsubst tests/api/%.c,$(BUILD)/examples/%,$(wildcard tests/api/*.c))
examples: $(EXAMPLES) $(API_TESTS)

$(BUILD)/examples/%: examples/c/%.c include/scry/scry.h $(LIBSCRY)
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -Wno-unused-parameter -Werror -Iinclude -o $@ $< -L$(BUILD) -lscry \
		-Wl,-rpath,$(abspath $(BUILD))

$(BUILD)/examples/%: tests/api/%.c include/scry/scry.h $(LIBSCRY)
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -Wno-unused-parameter -Werror -Iinclude -o $@ $< -L$(BUILD) -lscry \
		-Wl,-rpath,$(abspath $(BUILD))

$(LIBSCRY): $(API_OBJS) $(BUILD)/api/engine.o src/api/libscry.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,libscry.so.0 -Wl,--version-script=src/api/libscry.map -Wl,--no-undefined \
		-o $@ $(API_OBJS) $(BUILD)/api/engine.o $(LDFLAGS) $(LDLIBS)
	ln -sf libscry.so.$(VERSION) $(BUILD)/libscry.so.0
	ln -sf libscry.so.0 $(BUILD)/libscry.so

# libscry for C programs: the .so and its links, the header, its man page, scry.pc
install-lib: $(LIBSCRY)
	install -D -m 644 $(LIBSCRY) $(DESTDIR)$(LIBDIR)/libscry.so.$(VERSION)
	ln -sf libscry.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libscry.so.0
	ln -sf libscry.so.0 $(DESTDIR)$(LIBDIR)/libscry.so
	install -D -m 644 include/scry/scry.h $(DESTDIR)$(PREFIX)/include/scry/scry.h
	install -D -m 644 dist/libscry.3 $(DESTDIR)$(PREFIX)/share/man/man3/libscry.3
	mkdir -p $(DESTDIR)$(LIBDIR)/pkgconfig
	sed 's|@PREFIX@|$(PREFIX)|g;s|@LIBDIR@|$(LIBDIR)|g;s|@VERSION@|$(VERSION)|g' scry.pc.in \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/scry.pc

uninstall-lib:
	rm -f $(DESTDIR)$(LIBDIR)/libscry.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libscry.so.0 $(DESTDIR)$(LIBDIR)/libscry.so
	rm -f $(DESTDIR)$(PREFIX)/include/scry/scry.h $(DESTDIR)$(LIBDIR)/pkgconfig/scry.pc
	rm -f $(DESTDIR)$(PREFIX)/share/man/man3/libscry.3
	-rmdir $(DESTDIR)$(PREFIX)/include/scry 2>/dev/null

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libscry.a $(wildcard tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $(filter %.c %.a,$^) $(LDFLAGS) $(LDLIBS) -lcmocka

# libscry's unit test: the library's objects, as the .so is made of them
$(BUILD)/tests/test_api: tests/unit/test_api.c $(API_OBJS) $(BUILD)/api/engine.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(API_OBJS) $(BUILD)/api/engine.o $(LDFLAGS) $(LDLIBS) -lcmocka

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

-include $(LIB_OBJS:.o=.d) $(API_OBJS:.o=.d) $(BUILD)/obj/cli/main.d

deps:
	@scripts/deps.sh

run: deps all
	@scripts/demo.sh

unit: $(UNIT_BINS)
	@scripts/run-unit.sh $(UNIT_BINS)

e2e: all
	$(PYTHON) -m pytest -q --durations=25 tests/e2e

# Userspace under ASan/UBSan: unit tests rebuilt in their own tree (the BPF objects, which no
# C flag changes, taken from $(BUILD) when it has them: scripts/seed-bpf.sh).  make fuzz links
# its targets against the same tree's libscry.a, so the library is compiled once for both: with
# libFuzzer's coverage hooks too (fuzzer-no-link: counters and compare hooks that the ASan
# runtime leaves inert in a unit test and libFuzzer's runtime reads in a fuzzer).
SAN_BUILD  := build-asan
SAN_CFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
sanitize:
	@scripts/seed-bpf.sh $(BUILD) $(SAN_BUILD)
	$(MAKE) -j2 BUILD=$(SAN_BUILD) CC=clang CFLAGS="$(SAN_CFLAGS)" unit

valgrind: $(UNIT_BINS)
	@scripts/run-unit.sh --valgrind $(UNIT_BINS)

fuzz:
	@FUZZ_BUILD=$(SAN_BUILD) FUZZ_CFLAGS="$(SAN_CFLAGS)" scripts/fuzz.sh $(FUZZ_SRCS)

check-layers:
	@scripts/check-layers.sh

# libscry's ABI against its stored baseline (tests/abi/libscry.abi; abigail-tools' abidiff)
check-abi: $(LIBSCRY)
	@scripts/check-abi.sh $(LIBSCRY)

test: deps
	$(MAKE) check-layers
	$(MAKE) -j2 all
	$(MAKE) unit
	$(MAKE) check-abi
	$(MAKE) sanitize
	$(MAKE) valgrind
	$(MAKE) fuzz
	$(MAKE) e2e
	$(MAKE) deb-test

bench: deps all
	@bench/run.sh
	@bench/progcost.sh
	@bench/trace.sh
	@bench/trace_costs.sh
	@bench/containers.sh
	@bench/stall.sh
	@bench/startup.sh
	@bench/metrics.sh
	@bench/uprobes.sh
	@bench/statedump.sh
	@bench/daemon.sh
	@bench/pid_sets.py
	@bench/rules.py
	@bench/sched_everyone.py
	@$(PYTHON) bench/profile.py
	@$(PYTHON) bench/relay.py
	@$(PYTHON) bench/live_view.py

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
# make install, make uninstall: dist/install.mk
include dist/install.mk
# make deb, make deb-test: dist/deb.mk
include dist/deb.mk
