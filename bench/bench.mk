# bench/bench.mk — build rules for the benchmark helpers (included by the Makefile):
#   build/bench/floor   empty BPF programs on syscall entry/exit (the cost floor)
#   build/bench/timeit  times a command from the inside of a tracer
#   build/bench/jitdump a BPF program's JIT image, for objdump (bench/annotate.sh)
#   build/bench/proginfo the instructions verified for each program a process holds
BENCH_OUT := $(BUILD)/bench

$(BENCH_OUT)/floor.bpf.o: bench/floor.bpf.c $(VMLINUX_H)
	@mkdir -p $(@D)
	$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BENCH_OUT)/floor.skel.h: $(BENCH_OUT)/floor.bpf.o
	$(BPFTOOL) gen skeleton $< name floor_bpf > $@.tmp && mv $@.tmp $@

$(BENCH_OUT)/floor: bench/floor.c $(BENCH_OUT)/floor.skel.h
	$(CC) -O2 -g -Wall -I$(BENCH_OUT) -o $@ $< -lbpf -lelf -lz

$(BENCH_OUT)/jitdump: bench/jitdump.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -o $@ $< -lbpf

$(BENCH_OUT)/proginfo: bench/proginfo.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -o $@ $< -lbpf

$(BENCH_OUT)/timeit: bench/timeit.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -D_GNU_SOURCE -o $@ $<

.PHONY: bench-tools
bench-tools: $(BENCH_OUT)/floor $(BENCH_OUT)/timeit $(BENCH_OUT)/jitdump $(BENCH_OUT)/proginfo $(WORKLOADS)
