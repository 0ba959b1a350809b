/* bench/floor.c — loads bench/floor.bpf.c's empty syscall programs, prints "ready" once they
 * are attached, and keeps them attached until SIGINT/SIGTERM.  `floor --tp` uses the
 * raw_syscalls tracepoints instead of tp_btf; `floor --clock` makes them read the clock;
 * `--kstack` / `--ustack` (with --clock or not) a kernel / user call stack as scry does;
 * `--task` the current task's tid through bpf_get_current_task_btf(). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

int main(int argc, char **argv)
{
	int tp = 0, clock = 0, stack = 0, task = 0;
	for (int i = 1; i < argc; i++) {
		tp |= !strcmp(argv[i], "--tp");
		clock |= !strcmp(argv[i], "--clock");
		task |= !strcmp(argv[i], "--task");
		stack = !strcmp(argv[i], "--kstack") ? 1 : !strcmp(argv[i], "--ustack") ? 2 : stack;
	}
	struct floor_bpf *skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: open failed\n");
		return 1;
	}
	skel->rodata->read_clock = clock;
	skel->rodata->read_task = task;
	skel->rodata->read_stack = stack;
	bpf_program__set_autoload(tp ? skel->progs.floor_enter_btf : skel->progs.floor_enter_tp, false);
	bpf_program__set_autoload(tp ? skel->progs.floor_exit_btf : skel->progs.floor_exit_tp, false);
	if (floor_bpf__load(skel) || floor_bpf__attach(skel)) {
		fprintf(stderr, "floor: load/attach failed\n");
		floor_bpf__destroy(skel);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		pause();
	floor_bpf__destroy(skel);
	return 0;
}
