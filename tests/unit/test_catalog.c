/* test_catalog.c — the event catalog against this machine's live tracefs: tracepoint
 * fields with LTTng names, copy operations, syscall events and masks, the operations of
 * iovec/msghdr/fd_set/getdents64 captures and their decoding, built-ins, closest names,
 * contexts.  Needs root (tracefs); skipped otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "catalog/catalog.h"

static struct scry_catalog *cat;

static int setup(void **state)
{
	char err[256];

	cat = scry_catalog_open(NULL, err, sizeof(err));
	if (!cat)
		fprintf(stderr, "catalog: %s\n", err);
	return 0;
}

static int teardown(void **state)
{
	scry_catalog_close(cat);
	return 0;
}

#define NEED_CAT() do { if (!cat) skip(); } while (0)

static const struct scry_event *tp(const char *sys, const char *name)
{
	char err[256] = "";
	const struct scry_event *ev = scry_catalog_tracepoint(cat, sys, name, err, sizeof(err));

	if (!ev)
		fail_msg("%s:%s: %s", sys, name, err);
	return ev;
}

static void check_field(const struct scry_field *f, const char *name, enum scry_ftype type, unsigned size,
			bool is_signed, unsigned count)
{
	assert_string_equal(f->name, name);
	assert_int_equal(f->type, type);
	assert_int_equal(f->size, size);
	assert_int_equal(f->is_signed, is_signed);
	if (type == SCRY_F_TEXT || type == SCRY_F_ARRAY)
		assert_int_equal(f->count, count);
}

static void test_sched_switch(void **state)
{
	NEED_CAT();
	const struct scry_event *ev = tp("sched", "sched_switch");
	struct scry_tp_desc d;

	assert_string_equal(ev->name, "sched_switch");
	assert_string_equal(ev->system, "sched");
	assert_int_equal(ev->kind, SCRY_EV_TRACEPOINT);
	assert_int_equal(ev->nfields, 7);
	check_field(&ev->fields[0], "prev_comm", SCRY_F_TEXT, 1, false, 16);
	check_field(&ev->fields[1], "prev_tid", SCRY_F_INT, 4, true, 0);
	check_field(&ev->fields[2], "prev_prio", SCRY_F_INT, 4, true, 0);
	check_field(&ev->fields[3], "prev_state", SCRY_F_INT, 8, true, 0);
	check_field(&ev->fields[4], "next_comm", SCRY_F_TEXT, 1, false, 16);
	check_field(&ev->fields[5], "next_tid", SCRY_F_INT, 4, true, 0);
	check_field(&ev->fields[6], "next_prio", SCRY_F_INT, 4, true, 0);
	assert_int_equal(ev->fields[0].src, SCRY_SRC_FIXED);
	assert_int_equal(ev->fields[0].src_off, 8);
	assert_int_equal(ev->fields[5].src_off, 56);

	/* LTTng's priorities are task->prio - 100: the two prio fields are adjusted */
	assert_int_equal(ev->fields[2].adjust, -100);
	assert_int_equal(ev->fields[6].adjust, -100);
	assert_int_equal(ev->fields[1].adjust, 0);

	/* one copy of the whole contiguous record, then the two adjustments */
	assert_int_equal(scry_event_tp_ops(ev, &d), 3);
	assert_int_equal(d.nops, 3);
	assert_int_equal(d.ops[0].kind, SCRY_OP_COPY);
	assert_int_equal(d.ops[0].src_off, 8);
	assert_int_equal(d.ops[0].len, 56);
	assert_int_equal(d.ops[1].kind, SCRY_OP_ADD32);
	assert_int_equal(d.ops[1].src_off, 28);
	assert_int_equal((int16_t)d.ops[1].elem, -100);
	assert_int_equal(d.ops[2].kind, SCRY_OP_ADD32);
	assert_int_equal(d.ops[2].src_off, 60);
	/* cached: the same object again */
	assert_ptr_equal(tp("sched", "sched_switch"), ev);
	assert_int_equal(scry_catalog_tracepoint_id(cat, "sched", "sched_switch") > 0, 1);
}

static void test_data_loc_event(void **state)
{
	NEED_CAT();
	const struct scry_event *ev = tp("sched", "sched_process_exec");
	struct scry_tp_desc d;

	assert_int_equal(ev->nfields, 3);
	check_field(&ev->fields[0], "filename", SCRY_F_STRING, 1, false, 0);
	assert_int_equal(ev->fields[0].src, SCRY_SRC_LOC);
	check_field(&ev->fields[1], "tid", SCRY_F_INT, 4, true, 0);
	check_field(&ev->fields[2], "old_tid", SCRY_F_INT, 4, true, 0);
	assert_int_equal(scry_event_tp_ops(ev, &d), 2);
	assert_int_equal(d.ops[0].kind, SCRY_OP_STR_LOC);
	assert_int_equal(d.ops[0].src_off, 8);
	assert_int_equal(d.ops[0].len, SCRY_STR_MAX);
	assert_int_equal(d.ops[1].kind, SCRY_OP_COPY);
	assert_int_equal(d.ops[1].src_off, 12);
	assert_int_equal(d.ops[1].len, 8);
}

static void test_renamed_events(void **state)
{
	NEED_CAT();
	const struct scry_event *ev = tp("irq", "softirq_entry");

	assert_string_equal(ev->name, "irq_softirq_entry");
	assert_string_equal(ev->tp, "softirq_entry");
	/* irq.h: u8 vec, then the same byte as enum irq_softirq_names "name" */
	assert_int_equal(ev->nfields, 2);
	check_field(&ev->fields[0], "vec", SCRY_F_INT, 1, false, 0);
	check_field(&ev->fields[1], "name", SCRY_F_INT, 1, false, 0);
	assert_int_equal(ev->fields[0].nenums, 0);
	assert_int_equal(ev->fields[1].nenums, 10);
	assert_string_equal(ev->fields[1].enums[0].name, "HI");
	assert_int_equal(ev->fields[1].enums[0].value, 0);
	assert_string_equal(ev->fields[1].enums[3].name, "NET_RX");
	assert_int_equal(ev->fields[1].enums[3].value, 3);
	assert_string_equal(ev->fields[1].enums[9].name, "RCU");
	assert_int_equal(ev->fields[1].enums[9].value, 9);
	{
		struct scry_tp_desc sd;

		assert_int_equal(scry_event_tp_ops(ev, &sd), 2);
		for (int i = 0; i < 2; i++) {
			assert_int_equal(sd.ops[i].kind, SCRY_OP_COPY);
			assert_int_equal(sd.ops[i].len, 1);
			assert_int_equal(sd.ops[i].src_off, ev->fields[0].src_off);
		}
	}
	ev = tp("sched", "sched_wakeup");
	assert_string_equal(ev->fields[1].name, "tid");
	ev = tp("irq", "irq_handler_entry");
	check_field(&ev->fields[0], "irq", SCRY_F_INT, 4, true, 0);
	check_field(&ev->fields[1], "name", SCRY_F_STRING, 1, false, 0);
	/* power.h, net.h, arch/x86/{irq_vectors,exceptions}.h (when this kernel has them) */
	static const char *const renamed[][3] = {
		{ "power", "cpu_frequency", "power_cpu_frequency" }, { "power", "cpu_idle", "power_cpu_idle" },
		{ "net", "netif_receive_skb", "net_if_receive_skb" }, { "net", "netif_rx", "net_if_rx" },
		{ "irq_vectors", "local_timer_entry", "x86_irq_vectors_local_timer_entry" },
		{ "irq_vectors", "x86_platform_ipi_exit", "x86_irq_vectors_ipi_exit" },
		{ "exceptions", "page_fault_user", "x86_exceptions_page_fault_user" },
	};
	char err[256];
	/* block.h: rwbs as RWBS_FLAG_* bits, current's tid before it (block_rq) or before comm */
	if ((ev = scry_catalog_tracepoint(cat, "block", "block_rq_issue", err, sizeof(err)))) {
		struct scry_tp_desc d;
		int rw = -1, tid = -1;

		for (unsigned i = 0; i < ev->nfields; i++) {
			if (!strcmp(ev->fields[i].name, "rwbs"))
				rw = (int)i;
			if (!strcmp(ev->fields[i].name, "tid"))
				tid = (int)i;
		}
		assert_true(rw > 0 && tid == rw - 1);
		check_field(&ev->fields[rw], "rwbs", SCRY_F_INT, 4, false, 0);
		assert_int_equal(ev->fields[rw].conv, SCRY_CONV_RWBS);
		assert_int_equal(ev->fields[tid].conv, SCRY_CONV_TID);
		assert_true(scry_event_tp_ops(ev, &d) > 0);
		bool has_rwbs = false, has_tid = false;
		for (unsigned i = 0; i < d.nops; i++) {
			has_rwbs |= d.ops[i].kind == SCRY_OP_RWBS && d.ops[i].src_off == ev->fields[rw].src_off;
			has_tid |= d.ops[i].kind == SCRY_OP_TID;
		}
		assert_true(has_rwbs && has_tid);
	}
	if ((ev = scry_catalog_tracepoint(cat, "block", "block_bio_queue", err, sizeof(err)))) {
		unsigned n = ev->nfields;

		assert_string_equal(ev->fields[n - 2].name, "tid");
		assert_string_equal(ev->fields[n - 1].name, "comm");
	}
	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++) {
		ev = scry_catalog_tracepoint(cat, renamed[i][0], renamed[i][1], err, sizeof(err));
		if (ev)
			assert_string_equal(ev->name, renamed[i][2]);
	}
}

static void test_unknown_tracepoint(void **state)
{
	NEED_CAT();
	char err[256];

	assert_null(scry_catalog_tracepoint(cat, "sched", "sched_swich", err, sizeof(err)));
	assert_non_null(strstr(err, "unknown tracepoint 'sched:sched_swich'"));
	assert_null(scry_catalog_tracepoint(cat, "..", "sched_switch", err, sizeof(err)));
	assert_null(scry_catalog_tracepoint(cat, "sched/../sched", "x", err, sizeof(err)));
	assert_int_equal(scry_catalog_tracepoint_id(cat, "sched", "nope"), -1);
}

static void test_listing(void **state)
{
	NEED_CAT();
	const char *const *names;
	size_t n = scry_catalog_tracepoints(cat, &names);
	bool found = false;

	assert_true(n > 100);
	for (size_t i = 0; i < n; i++) {
		assert_false(!strncmp(names[i], "syscalls:", 9));
		assert_false(!strncmp(names[i], "ftrace:", 7));
		if (i)
			assert_true(strcmp(names[i - 1], names[i]) < 0);
		if (!strcmp(names[i], "sched:sched_switch"))
			found = true;
	}
	assert_true(found);
}

static void test_every_tracepoint_builds_or_explains(void **state)
{
	NEED_CAT();
	const char *const *names;
	size_t n = scry_catalog_tracepoints(cat, &names), built = 0;

	for (size_t i = 0; i < n; i++) {
		char sys[128], err[256] = "";
		const char *colon = strchr(names[i], ':');
		const struct scry_event *ev;
		struct scry_tp_desc d;

		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - names[i]), names[i]);
		ev = scry_catalog_tracepoint(cat, sys, colon + 1, err, sizeof(err));
		if (!ev) {
			assert_true(err[0] != '\0');
			continue;
		}
		built++;
		for (unsigned j = 0; j < ev->nfields; j++)
			if (ev->fields[j].type == SCRY_F_SEQ) {
				assert_true(ev->fields[j].length_field == (int)j - 1);
				assert_int_equal(ev->fields[j - 1].src, SCRY_SRC_LEN);
			}
		int r = scry_event_tp_ops(ev, &d);
		assert_true(r == -1 || (r > 0 && r <= SCRY_MAX_TP_OPS) || (r == 0 && ev->nfields == 0));
	}
	assert_true(built > n * 9 / 10);
}

static void test_syscalls(void **state)
{
	NEED_CAT();
	const struct scry_syscall *list, *sc;
	size_t n = scry_catalog_syscalls(cat, &list);

	assert_true(n > 350);
	for (size_t i = 1; i < n; i++)
		assert_true(list[i - 1].nr < list[i].nr);
	sc = scry_catalog_syscall_by_name(cat, "openat");
	assert_non_null(sc);
	assert_int_equal(sc->nr, 257);
	assert_int_equal(scry_catalog_syscall_by_name(cat, "getppid")->nr, 110);
	assert_int_equal(scry_catalog_syscall_by_name(cat, "read")->nr, 0);
	assert_int_equal(scry_catalog_syscall_by_name(cat, "file_setattr")->nr, 469);
	assert_int_equal(scry_catalog_syscall_by_name(cat, "stat")->nr, 4);   /* alias of newstat */
	assert_null(scry_catalog_syscall_by_name(cat, "no_such_syscall"));
	assert_true(scry_catalog_syscall_args_known(cat, sc));
	assert_false(scry_catalog_syscall_args_known(cat, scry_catalog_syscall_by_name(cat, "tuxcall")));

	assert_int_equal(sc->nargs, 4);
	assert_string_equal(sc->args[1].name, "filename");
	assert_string_equal(sc->args[1].ctype, "const char *");
	assert_true(sc->args[1].is_string);
	assert_true(sc->args[1].is_pointer);
	assert_false(scry_catalog_syscall_by_name(cat, "write")->args[1].is_string);
	assert_true(scry_catalog_syscall_by_name(cat, "mount")->args[2].is_string);
	assert_false(scry_catalog_syscall_by_name(cat, "execve")->args[1].is_string);
}

static void test_syscall_events(void **state)
{
	NEED_CAT();
	const struct scry_syscall *sc = scry_catalog_syscall_by_name(cat, "openat");
	const struct scry_event *en = scry_catalog_syscall_entry(cat, sc), *ex;

	assert_non_null(en);
	assert_string_equal(en->name, "syscall_entry_openat");
	assert_int_equal(en->kind, SCRY_EV_SYSCALL_ENTRY);
	assert_int_equal(en->nr, 257);
	assert_int_equal(en->nfields, 4);
	check_field(&en->fields[0], "dfd", SCRY_F_INT, 8, true, 0);
	check_field(&en->fields[1], "filename", SCRY_F_STRING, 1, false, 0);
	check_field(&en->fields[2], "flags", SCRY_F_INT, 8, true, 0);
	check_field(&en->fields[3], "mode", SCRY_F_INT, 8, false, 0);
	assert_int_equal(en->nargs, 4);
	assert_int_equal(en->str_mask, 0x2);
	assert_int_equal(en->s32_mask, 0x5);   /* dfd, flags: int */
	assert_int_equal(en->u32_mask, 0x8);   /* mode: umode_t */
	ex = scry_catalog_syscall_exit(cat, sc);
	assert_string_equal(ex->name, "syscall_exit_openat");
	assert_int_equal(ex->nfields, 1);
	check_field(&ex->fields[0], "ret", SCRY_F_INT, 8, true, 0);

	/* read: unsigned int fd (u32), char *buf (pointer, hex), size_t count */
	en = scry_catalog_syscall_entry(cat, scry_catalog_syscall_by_name(cat, "read"));
	assert_int_equal(en->u32_mask, 0x1);
	assert_int_equal(en->s32_mask, 0);
	assert_int_equal(en->str_mask, 0);
	assert_int_equal(en->fields[1].base, 16);
	/* epoll_ctl: lttng-modules' epfd, op_enum, fd; its "event" (a struct lttng-modules'
	 * code decodes) is scry's capture, named "_event" (a name lttng-modules does not use) */
	en = scry_catalog_syscall_entry(cat, scry_catalog_syscall_by_name(cat, "epoll_ctl"));
	assert_int_equal(en->nfields, 5);
	assert_string_equal(en->fields[1].name, "op_enum");
	assert_string_equal(en->fields[3].name, "__event_length");
	assert_string_equal(en->fields[4].name, "_event");
	/* ... and, read on entry (iostruct), it is a sequence of one struct epoll_event */
	assert_int_equal(en->fields[4].type, SCRY_F_STRUCTSEQ);
	assert_int_equal(en->fields[4].length_field, 3);
	assert_string_equal(en->fields[4].sdesc->name, "epoll_event");
	assert_int_equal(en->fields[4].arg, 3);
	assert_int_equal(en->nops, 4);
	assert_int_equal(en->ops[3].kind, SCRY_SOP_SEQ);
	assert_int_equal(en->ops[3].elem, 12);
	assert_int_equal(en->ops[3].max, 1);
	/* newfstatat: lttng-modules' statbuf pointer on the exit, after ret, then the stat
	 * struct scry reads as _statbuf */
	ex = scry_catalog_syscall_exit(cat, scry_catalog_syscall_by_name(cat, "newfstatat"));
	assert_int_equal(ex->nfields, 4);
	check_field(&ex->fields[1], "statbuf", SCRY_F_INT, 8, false, 0);
	assert_string_equal(ex->fields[3].name, "_statbuf");
	assert_int_equal(ex->fields[3].type, SCRY_F_STRUCTSEQ);
	assert_int_equal(ex->nops, 3);
	assert_int_equal(ex->ops[0].kind, SCRY_SOP_RET);
	assert_int_equal(ex->ops[1].kind, SCRY_SOP_INT);
	assert_int_equal(ex->ops[2].flags & SCRY_SOPF_OK_ONLY, SCRY_SOPF_OK_ONLY);
	/* execve: lttng-modules' pointer `argv` (hexadecimal), then its count of strings and the
	 * strings scry reads as `_argv` (one operation writes the four fields); envp, without
	 * --capture env, is LTTng's uint64 pointer `envp` and the count alone (test_execve_env) */
	en = scry_catalog_syscall_entry(cat, scry_catalog_syscall_by_name(cat, "execve"));
	assert_int_equal(en->nfields, 7);
	assert_string_equal(en->fields[1].name, "argv");
	assert_int_equal(en->fields[1].size, 8);
	assert_int_equal(en->fields[1].base, 16);
	assert_int_equal(en->fields[1].aux, SCRY_AUX_PTR);
	assert_int_equal(en->fields[1].arg, 1);
	assert_string_equal(en->fields[2].name, "_argv_count");
	assert_int_equal(en->fields[2].size, 4);
	assert_int_equal(en->fields[2].aux, SCRY_AUX_COUNT);
	assert_int_equal(en->fields[2].arg, 1);
	assert_string_equal(en->fields[3].name, "__argv_length");
	assert_int_equal(en->fields[3].aux, SCRY_AUX_NONE);
	assert_int_equal(en->fields[4].type, SCRY_F_STRSEQ);
	assert_string_equal(en->fields[4].name, "_argv");
	assert_int_equal(en->fields[4].length_field, 3);
	assert_int_equal(en->fields[4].aux, SCRY_AUX_NONE);
	assert_string_equal(en->fields[5].name, "envp");
	assert_int_equal(en->fields[5].type, SCRY_F_INT);
	assert_int_equal(en->fields[5].size, 8);
	assert_int_equal(en->fields[5].base, 16);
	assert_false(en->fields[5].is_signed);
	assert_int_equal(en->fields[5].aux, SCRY_AUX_NONE);
	assert_int_equal(en->fields[5].arg, 2);
	assert_string_equal(en->fields[6].name, "_envp_count");
	assert_int_equal(en->fields[6].size, 4);
	assert_int_equal(en->fields[6].aux, SCRY_AUX_COUNT);
	assert_int_equal(en->fields[6].arg, 2);
	assert_int_equal(en->nops, 3);
	assert_int_equal(en->ops[1].kind, SCRY_SOP_STRV);
	assert_int_equal(en->ops[1].arg, 1);
	assert_int_equal(en->ops[1].flags, 0);
	assert_int_equal(en->ops[1].max, SCRY_STRV_MAX);
	assert_int_equal(en->ops[2].kind, SCRY_SOP_STRV);
	assert_int_equal(en->ops[2].arg, 2);
	assert_int_equal(en->ops[2].flags, SCRY_SOPF_COUNT);
	/* execveat: the same, its envp the fourth argument */
	en = scry_catalog_syscall_entry(cat, scry_catalog_syscall_by_name(cat, "execveat"));
	assert_string_equal(en->fields[6].name, "envp");
	assert_int_equal(en->fields[6].type, SCRY_F_INT);
	assert_string_equal(en->fields[7].name, "_envp_count");
	assert_int_equal(en->ops[3].flags, SCRY_SOPF_COUNT);
	/* getppid: no argument */
	en = scry_catalog_syscall_entry(cat, scry_catalog_syscall_by_name(cat, "getppid"));
	assert_int_equal(en->nfields, 0);
	assert_int_equal(en->nargs, 0);
	/* arguments unknown: six raw registers */
	en = scry_catalog_syscall_entry(cat, scry_catalog_syscall_by_name(cat, "tuxcall"));
	assert_int_equal(en->nargs, 6);
	assert_string_equal(en->fields[5].name, "arg5");
	assert_int_equal(scry_event_tp_ops(en, &(struct scry_tp_desc){ 0 }), -1);
}

/* The operations that write one op's fields (for the checks below). */
static void check_op(const struct scry_sc_op *op, unsigned kind, unsigned arg, unsigned len_src, unsigned len_arg,
		     unsigned flags, unsigned ptr_off, unsigned elem, unsigned max)
{
	assert_int_equal(op->kind, kind);
	assert_int_equal(op->arg, arg);
	assert_int_equal(op->len_src, len_src);
	assert_int_equal(op->len_arg, len_arg);
	assert_int_equal(op->flags, flags);
	assert_int_equal(op->ptr_off, ptr_off);
	assert_int_equal(op->elem, elem);
	assert_int_equal(op->max, max);
}

static const struct scry_event *sc_ev(struct scry_catalog *c, const char *name, bool entry)
{
	const struct scry_syscall *sc = scry_catalog_syscall_by_name(c, name);

	return entry ? scry_catalog_syscall_entry(c, sc) : scry_catalog_syscall_exit(c, sc);
}

/* iovec arrays, msghdr, fd sets and directory entries: without --snaplen the iovecs are
 * the bare vector; with it, each has its data, and a msghdr's address and iovecs are
 * read through its pointers (nested operations). */
static void test_io_capture_events(void **state)
{
	NEED_CAT();
	struct scry_capture_opts co = { .strsize = 32, .snaplen = 40, .max_elems = 16 };
	const struct scry_event *ev;
	struct scry_catalog *c2;
	char err[256];

	/* lttng-modules' vec pointer, then scry's capture of it as _vec */
	ev = sc_ev(cat, "writev", true);                    /* default: no snaplen */
	assert_int_equal(ev->nfields, 5);
	check_field(&ev->fields[1], "vec", SCRY_F_INT, 8, false, 16);
	assert_string_equal(ev->fields[3].sdesc->name, "iovec");
	check_op(&ev->ops[2], SCRY_SOP_SEQ, 1, SCRY_SLEN_ARG, 2, 0, 0, 16, 64);
	ev = sc_ev(cat, "sendmsg", true);
	assert_string_equal(ev->fields[3].sdesc->name, "msghdr_iov");
	check_op(&ev->ops[4], SCRY_SOP_SEQ, 1, SCRY_SLEN_FIELD64, 24, SCRY_SOPF_NESTED, 16, 16, 64);

	c2 = scry_catalog_open(NULL, err, sizeof(err));
	assert_non_null(c2);
	assert_int_equal(scry_catalog_set_capture(c2, &co), 0);
	ev = sc_ev(c2, "writev", true);
	assert_int_equal(ev->nfields, 5);
	check_field(&ev->fields[2], "__vec_length", SCRY_F_INT, 4, false, 0);
	check_field(&ev->fields[3], "_vec", SCRY_F_STRUCTSEQ, 1, false, 0);
	assert_string_equal(ev->fields[3].sdesc->name, "iovec_data");
	assert_int_equal(ev->fields[3].arg, 1);
	check_op(&ev->ops[2], SCRY_SOP_IOV, 1, SCRY_SLEN_ARG, 2, 0, 0, 40, 16);
	ev = sc_ev(c2, "readv", false);                     /* read on exit, data <= ret */
	check_field(&ev->fields[1], "vec", SCRY_F_INT, 8, false, 16);   /* lttng-modules' */
	assert_string_equal(ev->fields[3].name, "_vec");
	check_op(&ev->ops[2], SCRY_SOP_IOV, 1, SCRY_SLEN_ARG, 2, SCRY_SOPF_RETDATA, 0, 40, 16);
	assert_int_equal(sc_ev(c2, "readv", true)->nops, 0);   /* entry: fd, vec, vlen as ints */

	ev = sc_ev(c2, "sendmsg", true);                    /* fd, msg, msghdr + name + iovecs, flags */
	assert_int_equal(ev->nfields, 5);
	assert_string_equal(ev->fields[1].name, "msg");
	assert_string_equal(ev->fields[3].name, "_msg");
	assert_string_equal(ev->fields[3].sdesc->name, "msghdr_data");
	assert_int_equal(ev->nops, 6);
	check_op(&ev->ops[2], SCRY_SOP_SEQ, 1, SCRY_SLEN_CONST, 0, 0, 0, 56, 1);
	check_op(&ev->ops[3], SCRY_SOP_SEQ, 1, SCRY_SLEN_FIELD32, 8, SCRY_SOPF_NESTED, 0, 1, 128);
	check_op(&ev->ops[4], SCRY_SOP_IOV, 1, SCRY_SLEN_FIELD64, 24, SCRY_SOPF_NESTED, 16, 40, 16);
	assert_int_equal(ev->ops[5].kind, SCRY_SOP_INT);
	ev = sc_ev(c2, "recvmsg", true);                    /* in-out: on entry the struct alone */
	assert_string_equal(ev->fields[3].sdesc->name, "msghdr");
	assert_int_equal(ev->nops, 4);
	ev = sc_ev(c2, "recvmsg", false);
	assert_string_equal(ev->fields[3].sdesc->name, "msghdr_data");
	check_op(&ev->ops[2], SCRY_SOP_SEQ, 1, SCRY_SLEN_CONST, 0, SCRY_SOPF_OK_ONLY, 0, 56, 1);
	check_op(&ev->ops[4], SCRY_SOP_IOV, 1, SCRY_SLEN_FIELD64, 24, SCRY_SOPF_NESTED | SCRY_SOPF_RETDATA, 16,
		 40, 16);

	ev = sc_ev(c2, "select", true);                     /* n, 3 fd sets (longs), timeout */
	assert_int_equal(ev->nfields, 10);
	check_field(&ev->fields[2], "inp", SCRY_F_SEQ, 8, false, 0);
	assert_int_equal(ev->fields[2].base, 16);
	check_op(&ev->ops[1], SCRY_SOP_SEQ, 1, SCRY_SLEN_ARG_BITS, 0, 0, 0, 8, 64);
	check_op(&ev->ops[3], SCRY_SOP_SEQ, 3, SCRY_SLEN_ARG_BITS, 0, 0, 0, 8, 64);
	ev = sc_ev(c2, "pselect6", false);
	check_op(&ev->ops[4], SCRY_SOP_SEQ, 2, SCRY_SLEN_ARG_BITS, 0, SCRY_SOPF_OK_ONLY, 0, 8, 64);

	ev = sc_ev(c2, "getdents64", false);                /* entries on exit, up to ret bytes */
	assert_int_equal(ev->nfields, 4);
	assert_string_equal(ev->fields[1].name, "dirent");  /* lttng-modules' pointer */
	assert_string_equal(ev->fields[3].name, "_dirent");
	assert_string_equal(ev->fields[3].sdesc->name, "dirents");
	check_op(&ev->ops[2], SCRY_SOP_DIRENTS, 1, SCRY_SLEN_RET, 0, SCRY_SOPF_OK_ONLY, 0, 0, SCRY_DIRENTS_MAX);

	/* decoding a sendmsg entry payload: fd, msg, one msghdr (2-byte name, one iovec "hi"),
	 * flags */
	{
		uint8_t b[256] = { 0 };
		struct scry_fieldval v[5];
		size_t pos = 16;
		uint32_t u = 1;

		ev = sc_ev(c2, "sendmsg", true);
		memcpy(b + pos, &u, 4), pos += 4;           /* __msg_length */
		pos += 56;
		u = 2, memcpy(b + pos, &u, 4), pos += 6;    /* name */
		u = 1, memcpy(b + pos, &u, 4), pos += 4;    /* iov */
		pos += 16;
		u = 2, memcpy(b + pos, &u, 4), pos += 4;
		memcpy(b + pos, "hi", 2), pos += 2;
		b[pos] = 0x40, pos += 8;                    /* flags */
		assert_int_equal(scry_event_decode(ev, b, pos, v), (int)pos);
		assert_int_equal(v[2].v, 1);
		assert_int_equal(v[3].n, 1);
		assert_int_equal(v[3].len, 56 + 6 + 4 + 22);
		assert_int_equal(v[4].v, 0x40);
		assert_int_equal(scry_event_decode(ev, b, pos - 9, v), -1);
	}
	scry_catalog_close(c2);
}

/* --capture env: execve's environment strings as argv's; the list's parser */
static void test_execve_env(void **state)
{
	NEED_CAT();
	struct scry_capture_opts co = { .what = SCRY_CAPTURE_ENV };
	const struct scry_event *ev;
	struct scry_catalog *c2;
	struct scry_fieldval v[7];
	uint8_t b[64] = { 0 };
	uint64_t ptr = 0x7ffd2daa1420;
	uint32_t count = 37;
	unsigned what = 99;
	char err[256];

	c2 = scry_catalog_open(NULL, err, sizeof(err));
	assert_non_null(c2);
	assert_int_equal(scry_catalog_set_capture(c2, &co), 0);
	ev = sc_ev(c2, "execve", true);
	/* lttng-modules' argv and envp pointers, each followed by its count and strings */
	assert_int_equal(ev->nfields, 9);
	check_field(&ev->fields[1], "argv", SCRY_F_INT, 8, false, 16);
	check_field(&ev->fields[4], "_argv", SCRY_F_STRSEQ, 1, false, 0);
	check_field(&ev->fields[5], "envp", SCRY_F_INT, 8, false, 16);
	assert_int_equal(ev->fields[5].aux, SCRY_AUX_PTR);
	check_field(&ev->fields[6], "_envp_count", SCRY_F_INT, 4, false, 0);
	check_field(&ev->fields[8], "_envp", SCRY_F_STRSEQ, 1, false, 0);
	check_op(&ev->ops[2], SCRY_SOP_STRV, 2, 0, 0, 0, 0, 1024, SCRY_STRV_MAX);
	scry_catalog_close(c2);

	/* the default payload: filename "x", argv (NULL: count 0, no string), envp, count */
	ev = sc_ev(cat, "execve", true);
	memcpy(b, "x", 2);
	memcpy(b + 2 + 8 + 4 + 4, &ptr, 8);
	memcpy(b + 2 + 8 + 4 + 4 + 8, &count, 4);
	assert_int_equal(scry_event_decode(ev, b, 30, v), 30);
	assert_true(v[5].v == ptr);
	assert_int_equal(v[6].v, 37);
	assert_int_equal(scry_event_decode(ev, b, 29, v), -1);

	assert_int_equal(scry_capture_opts_parse("env", &what, err, sizeof(err)), 0);
	assert_int_equal(what, SCRY_CAPTURE_ENV);
	assert_int_equal(scry_capture_opts_parse("env,env", &what, err, sizeof(err)), 0);
	assert_int_equal(what, SCRY_CAPTURE_ENV);
	assert_int_equal(scry_capture_opts_parse("envp", &what, err, sizeof(err)), -1);
	assert_string_equal(err, "invalid --capture 'envp' (expected: env, sock)");
	assert_int_equal(scry_capture_opts_parse("", &what, err, sizeof(err)), -1);
	assert_int_equal(scry_capture_opts_parse("env,", &what, err, sizeof(err)), -1);
	assert_int_equal(scry_capture_opts_parse(",env", &what, err, sizeof(err)), -1);
}

static void test_builtins(void **state)
{
	NEED_CAT();
	const struct scry_event *ev = scry_catalog_builtin(cat, "sched_process_fork");

	assert_non_null(ev);
	assert_int_equal(ev->kind, SCRY_EV_BUILTIN);
	assert_int_equal(ev->nfields, 10);
	check_field(&ev->fields[0], "parent_comm", SCRY_F_TEXT, 1, false, 16);
	check_field(&ev->fields[1], "parent_tid", SCRY_F_INT, 4, true, 0);
	check_field(&ev->fields[2], "parent_pid", SCRY_F_INT, 4, true, 0);
	check_field(&ev->fields[3], "parent_ns_inum", SCRY_F_INT, 4, false, 0);
	check_field(&ev->fields[4], "child_comm", SCRY_F_TEXT, 1, false, 16);
	check_field(&ev->fields[5], "child_tid", SCRY_F_INT, 4, true, 0);
	check_field(&ev->fields[6], "_vtids_length", SCRY_F_INT, 1, false, 0);
	check_field(&ev->fields[7], "vtids", SCRY_F_SEQ, 4, true, 0);
	assert_int_equal(ev->fields[7].length_field, 6);
	check_field(&ev->fields[8], "child_pid", SCRY_F_INT, 4, true, 0);
	check_field(&ev->fields[9], "child_ns_inum", SCRY_F_INT, 4, false, 0);

	ev = scry_catalog_builtin(cat, "syscall_entry_unknown");
	assert_int_equal(ev->nfields, 2);
	check_field(&ev->fields[0], "id", SCRY_F_INT, 8, true, 0);
	check_field(&ev->fields[1], "args", SCRY_F_ARRAY, 8, false, 6);
	ev = scry_catalog_builtin(cat, "syscall_exit_unknown");
	assert_int_equal(ev->nfields, 2);
	check_field(&ev->fields[1], "ret", SCRY_F_INT, 8, true, 0);
	assert_null(scry_catalog_builtin(cat, "sched_switch"));
}

static void test_closest(void **state)
{
	static const char *const cands[] = { "sched:sched_switch", "sched:sched_wakeup", "irq:softirq_entry",
					     "sched:sched_waking" };
	const char *out[3];

	assert_int_equal(scry_closest("sched_swich", cands, 4, out, 3), 1);
	assert_string_equal(out[0], "sched:sched_switch");
	assert_int_equal(scry_closest("sched:sched_wakng", cands, 4, out, 3), 2);
	assert_string_equal(out[0], "sched:sched_waking");
	assert_string_equal(out[1], "sched:sched_wakeup");
	assert_int_equal(scry_closest("zzzzzzzzzzzz", cands, 4, out, 3), 0);
	assert_int_equal(scry_closest("sched_swich", cands, 4, out, 0), 0);

	NEED_CAT();
	const char *const *names;
	size_t n = scry_catalog_tracepoints(cat, &names);
	assert_true(scry_closest("sched_swich", names, n, out, 3) >= 1);
	assert_string_equal(out[0], "sched:sched_switch");
}

static void test_contexts(void **state)
{
	assert_string_equal(scry_context(SCRY_CTX_PID)->name, "pid");
	assert_string_equal(scry_context(SCRY_CTX_PROCNAME)->name, "procname");
	assert_int_equal(scry_context(SCRY_CTX_PROCNAME)->type, SCRY_F_TEXT);
	assert_int_equal(scry_context(SCRY_CTX_PROCNAME)->count, 16);
	assert_false(scry_context(SCRY_CTX_UID)->is_signed);
	assert_true(scry_context(SCRY_CTX_PRIO)->is_signed);
	assert_string_equal(scry_context(SCRY_CTX_UTS_NS)->name, "uts_ns");
	assert_null(scry_context(SCRY_CTX_NR));
	assert_int_equal(scry_context_by_name("tid"), SCRY_CTX_TID);
	assert_int_equal(scry_context_by_name("_vtid"), SCRY_CTX_VTID);
	assert_int_equal(scry_context_by_name("cpu_id"), SCRY_CTX_CPU_ID);
	assert_int_equal(scry_context_by_name("nope"), -1);
	assert_int_equal(scry_context_by_name("container"), SCRY_CTX_CGROUP_ID);
	/* default pid, tid, procname: 4 + 4 + 16 */
	assert_int_equal(scry_context_size((1u << SCRY_CTX_PID) | (1u << SCRY_CTX_TID) | (1u << SCRY_CTX_PROCNAME)), 24);
	assert_int_equal(scry_context_size(0), 0);
	/* + vppid, hostname[65], the four 1-byte flags, egid..vsgid, time_ns and cgroup_id, the
	 * perf counters and the call stacks' words (their frames past the payload) */
	assert_int_equal(scry_context_size(~0ull >> (64 - SCRY_CTX_NR)),
			 18 * 4 + 16 + 4 + 65 + 4 + 10 * 4 + 8 + 2 * SCRY_PERF_NR * 8 + 2 * 4);
	assert_int_equal(scry_context_by_name("perf:thread:cs"), SCRY_CTX_PERF_THREAD + 9);
	assert_string_equal(scry_context(SCRY_CTX_PERF_THREAD + 9)->name, "perf:thread:context-switches");
	assert_int_equal(scry_context_by_name("perf:cpu:faults"), SCRY_CTX_PERF_CPU + 8);
	assert_int_equal(scry_context_by_name("perf_cpu_page_fault"), SCRY_CTX_PERF_CPU + 8);
	assert_string_equal(SCRY_CONTEXT_FIELD(scry_context(SCRY_CTX_PERF_CPU)), "perf_cpu_cpu_cycles");
	assert_int_equal(scry_context_by_name("callstack-user"), SCRY_CTX_CALLSTACK_USER);
	assert_int_equal(scry_context_by_name("callstack_kernel"), SCRY_CTX_CALLSTACK_KERNEL);
	assert_int_equal(scry_context(SCRY_CTX_HOSTNAME)->count, 65);
	assert_int_equal(scry_context(SCRY_CTX_INTERRUPTIBLE)->size, 1);
	assert_true(scry_context(SCRY_CTX_INTERRUPTIBLE)->is_signed);
	assert_false(scry_context(SCRY_CTX_MIGRATABLE)->is_signed);
	assert_int_equal(scry_context_by_name("need_reschedule"), SCRY_CTX_NEED_RESCHEDULE);
	assert_int_equal(scry_context_by_name("vsgid"), SCRY_CTX_VSGID);
	{
		char e[256];
		scry_context_unknown("hostnme", e, sizeof(e));
		assert_string_equal(e, "unknown context 'hostnme' (did you mean 'hostname'? `scry list contexts` shows them)");
	}
}

static void test_bad_tracefs(void **state)
{
	char err[256];

	assert_null(scry_catalog_open("/nonexistent", err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_switch),
		cmocka_unit_test(test_data_loc_event),
		cmocka_unit_test(test_renamed_events),
		cmocka_unit_test(test_unknown_tracepoint),
		cmocka_unit_test(test_listing),
		cmocka_unit_test(test_every_tracepoint_builds_or_explains),
		cmocka_unit_test(test_syscalls),
		cmocka_unit_test(test_syscall_events),
		cmocka_unit_test(test_io_capture_events),
		cmocka_unit_test(test_execve_env),
		cmocka_unit_test(test_builtins),
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_contexts),
		cmocka_unit_test(test_bad_tracefs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
