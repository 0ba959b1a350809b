/* test_ctf_babeltrace.c — a complete small trace (metadata + 3 streams: two with a few
 * hundred events of every field type and all contexts, one empty) written by the CTF
 * writer, then read by readers nobody here wrote: the babeltrace2 CLI (exit status,
 * stderr, exact event lines, discarded-event reports, --clock-gmt real time) and the
 * bt2 Python bindings (field values, clock snapshots, counts). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "ctf_test_util.h"

/* every fixed-size context (the call stacks' sequences: tests/e2e/test_callstack.py) */
#define ALL_CTX   ((1ULL << SCRY_CTX_PERF_CPU) - 1)   /* up to cgroup_id: perf counters and call stacks in e2e */
#define TS0       1000000ULL          /* first event: 1 ms after the clock's origin */
#define N_CPU0    300
#define N_CPU1    200

static char tmpdir[64], kdir[80];

static const char *const PY_CHECK =
"import sys, bt2\n"
"OFF = 1700000000 * 10**9 + 250000000\n"
"it = bt2.TraceCollectionMessageIterator(sys.argv[1])\n"
"counts, disc, per_cpu, last = {}, {}, {}, {}\n"
"for msg in it:\n"
"    if type(msg) is bt2._DiscardedEventsMessageConst:\n"
"        assert msg.count is not None, 'discarded events without a count'\n"
"        disc[msg.stream.id] = disc.get(msg.stream.id, 0) + msg.count\n"
"        continue\n"
"    if type(msg) is not bt2._EventMessageConst:\n"
"        continue\n"
"    ev = msg.event\n"
"    cpu = int(ev.packet.context_field['cpu_id'])\n"
"    i = per_cpu.get(cpu, 0)\n"
"    per_cpu[cpu] = i + 1\n"
"    ts = 1000000 + cpu * 500 + i * 1000\n"
"    assert msg.default_clock_snapshot.value == ts, (cpu, i, msg.default_clock_snapshot.value)\n"
"    assert msg.default_clock_snapshot.ns_from_origin == OFF + ts\n"
"    c = ev.common_context_field\n"
"    base = 1000 * (cpu + 1) + i\n"
"    assert int(c['pid']) == base and int(c['tid']) == base + 1, (cpu, i, c)\n"
"    assert int(c['uts_ns']) == base + 18\n"
"    assert int(c['vppid']) == base + 19 and int(c['time_ns']) == base + 34\n"
"    assert int(c['cgroup_id']) == base + 35\n"
"    assert int(c['interruptible']) == ((base + 21) & 0xff) - (256 if (base + 21) & 0x80 else 0)\n"
"    assert int(c['migratable']) == (base + 24) & 0xff\n"
"    assert str(c['hostname']) == str(c['procname'])\n"
"    assert str(c['procname']) == ('bash' if cpu == 0 else 'kworker/1:0H-evt')\n"
"    p = ev.payload_field\n"
"    k = i % 7\n"
"    counts[ev.name] = counts.get(ev.name, 0) + 1\n"
"    if k == 0:\n"
"        assert ev.name == 'syscall_entry_openat'\n"
"        assert int(p['dfd']) == -100\n"
"        assert str(p['filename']) == ('/etc/passwd' if i % 2 == 0 else '/tmp/f%d' % i)\n"
"        assert int(p['mode']) == 0o644\n"
"    elif k == 1:\n"
"        assert ev.name == 'syscall_exit_openat' and int(p['ret']) == -i\n"
"    elif k == 2:\n"
"        assert ev.name == 'sched_switch'\n"
"        assert str(p['prev_comm']) == 'bash' and str(p['next_comm']) == 'swapper/%d' % cpu\n"
"        assert int(p['prev_tid']) == i and int(p['next_prio']) == -21\n"
"    elif k == 3:\n"
"        assert ev.name == 'syscall_entry_unknown' and int(p['id']) == 999\n"
"        assert [int(x) for x in p['args']] == [0xffff000000000000 + i * 16 + a for a in range(6)]\n"
"    elif k == 4:\n"
"        assert ev.name == 'sched_process_fork'\n"
"        assert [int(x) for x in p['vtids']] == list(range(4242, 4242 + i % 4))\n"
"        assert int(p['_vtids_length']) == i % 4\n"
"        assert int(p['child_pid']) == 4242 and int(p['child_ns_inum']) == 4026531836\n"
"        assert str(p['child_comm']) == 'child'\n"
"    elif k == 5:\n"
"        assert ev.name == 'irq_test_small'\n"
"        assert int(p['irq']) == 65535 and int(p['flag']) == 255 and str(p['name']) == ''\n"
"    else:\n"
"        assert ev.name == 'scry_empty' and len(p) == 0\n"
"assert per_cpu == {0: 300, 1: 200}, per_cpu\n"
"assert counts['syscall_entry_openat'] == 43 + 29, counts\n"
"print('bt2 OK', sum(per_cpu.values()), sorted(disc.values()))\n";

static void build_trace(void)
{
	struct ctf_trace_info ti;
	char err[256] = "", path[128];
	struct ctf_stream *s[3];

	strcpy(tmpdir, "/tmp/scry-ctf-bt2-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(kdir, sizeof(kdir), "%s/kernel", tmpdir);
	assert_int_equal(mkdir(kdir, 0755), 0);
	fill_trace_info(&ti, ALL_CTX);
	snprintf(path, sizeof(path), "%s/metadata", kdir);
	if (t_metadata_write(path, &ti, t_events, T_NEVENTS, err, sizeof(err)) != 0)
		fail_msg("metadata: %s", err);

	snprintf(path, sizeof(path), "%s/index", kdir);
	struct scry_dirh *kd = t_dirh(kdir), *id = t_dirh(path);

	assert_non_null(kd);
	assert_non_null(id);
	for (unsigned cpu = 0; cpu < 3; cpu++) {
		struct ctf_stream_opts o = {
			.kdir = kd, .idir = id, .channel = "channel0", .cpu = cpu, .uuid = t_uuid,
			.stream_id = 0, .stream_instance_id = cpu, .packet_size = 4096,
			.start_ts = TS0 - 500,
		};

		s[cpu] = ctf_stream_open(&o, err, sizeof(err));
		if (!s[cpu])
			fail_msg("stream: %s", err);
	}
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		unsigned n = cpu == 0 ? N_CPU0 : N_CPU1;

		for (unsigned i = 0; i < n; i++) {
			uint64_t ts = TS0 + cpu * 500 + i * 1000ULL;
			int32_t base = 1000 * (int32_t)(cpu + 1) + (int32_t)i;
			/* 16 bytes, no NUL: the reader must stop at the array's end */
			const char *comm = cpu == 0 ? "bash" : "kworker/1:0H-evt";
			struct ebuf e;
			char str[64];

			switch (i % 7) {
			case 0:
				eb_start(&e, T_OPENAT, ts, ALL_CTX, base, comm);
				eb_u64(&e, (uint64_t)-100);
				if (i % 2 == 0)
					eb_str(&e, "/etc/passwd");
				else {
					snprintf(str, sizeof(str), "/tmp/f%u", i);
					eb_str(&e, str);
				}
				eb_u64(&e, 0x241);
				eb_u64(&e, 0644);
				break;
			case 1:
				eb_start(&e, T_OPENAT_EXIT, ts, ALL_CTX, base, comm);
				eb_u64(&e, (uint64_t)-(int64_t)i);
				break;
			case 2:
				eb_start(&e, T_SWITCH, ts, ALL_CTX, base, comm);
				eb_text(&e, "bash", 16);
				eb_u32(&e, i);
				eb_u32(&e, 120);
				eb_u64(&e, 1);
				snprintf(str, sizeof(str), "swapper/%u", cpu);
				eb_text(&e, str, 16);
				eb_u32(&e, 0);
				eb_u32(&e, (uint32_t)-21);
				break;
			case 3:
				eb_start(&e, T_UNKNOWN, ts, ALL_CTX, base, comm);
				eb_u64(&e, 999);
				for (unsigned a = 0; a < 6; a++)
					eb_u64(&e, 0xffff000000000000ULL + i * 16 + a);
				break;
			case 4:
				eb_start(&e, T_FORK, ts, ALL_CTX, base, comm);
				eb_text(&e, "bash", 16);
				eb_u32(&e, 4000);
				eb_u32(&e, 4000);
				eb_u32(&e, 4026531836u);
				eb_text(&e, "child", 16);
				eb_u32(&e, 4242);
				eb_u8(&e, (uint8_t)(i % 4));
				for (unsigned v = 0; v < i % 4; v++)
					eb_u32(&e, 4242 + v);
				eb_u32(&e, 4242);
				eb_u32(&e, 4026531836u);
				break;
			case 5:
				eb_start(&e, T_SMALL, ts, ALL_CTX, base, comm);
				eb_u16(&e, 65535);
				eb_u8(&e, 255);
				eb_str(&e, "");
				break;
			default:
				eb_start(&e, T_EMPTY, ts, ALL_CTX, base, comm);
				break;
			}
			assert_int_equal(ctf_stream_append(s[cpu], e.b, e.n), 0);
			if (cpu == 1 && i == 50)
				ctf_stream_set_discarded(s[cpu], 5);
			if (cpu == 1 && i == 150)
				ctf_stream_set_discarded(s[cpu], 12);
		}
	}
	ctf_stream_set_discarded(s[2], 3);
	assert_true(ctf_stream_stats(s[0])->packets >= 5);
	for (unsigned cpu = 0; cpu < 3; cpu++)
		assert_int_equal(ctf_stream_close(s[cpu], TS0 + 400000, NULL), 0);
	scry_dirh_unref(kd);
	scry_dirh_unref(id);
}

/* Run cmd with stdout and stderr into files; returns the exit status (-1 if abnormal). */
static int run(const char *cmd, const char *out, const char *errf)
{
	char full[1024];
	int st;

	snprintf(full, sizeof(full), "%s >'%s' 2>'%s'", cmd, out, errf);
	st = system(full);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

static size_t count_lines(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void dump_on_fail(const char *label, const char *text)
{
	fprintf(stderr, "---- %s ----\n%.4000s\n", label, text ? text : "(none)");
}

static void test_babeltrace2_cli(void **state)
{
	char cmd[512], out[128], errf[128];
	char *o, *e;
	size_t len;
	int rc;

	if (!have("babeltrace2"))
		skip();
	build_trace();
	snprintf(out, sizeof(out), "%s/bt.out", tmpdir);
	snprintf(errf, sizeof(errf), "%s/bt.err", tmpdir);

	snprintf(cmd, sizeof(cmd), "babeltrace2 --clock-gmt --clock-date '%s'", kdir);
	rc = run(cmd, out, errf);
	o = (char *)slurp(out, &len);
	e = (char *)slurp(errf, &len);
	assert_non_null(o);
	assert_non_null(e);
	/* stderr holds exactly the three discarded-events reports, with exact counts:
	 * cpu 2 (empty stream) 3, cpu 1 5 then 7 (cumulative 12). */
	if (rc != 0 || count_lines(e, "\n") != 3 ||
	    count_lines(e, "WARNING: Tracer discarded ") != 3 ||
	    !strstr(e, "discarded 3 events between [2023-11-14 22:13:20.250999500] and "
		       "[2023-11-14 22:13:20.251400000]") ||
	    !strstr(e, "discarded 5 events") || !strstr(e, "discarded 7 events") ||
	    !strstr(e, "channel0_2\" (stream class ID: 0, stream ID: 2)") ||
	    count_lines(e, "channel0_1\" (stream class ID: 0, stream ID: 1)") != 2) {
		dump_on_fail("stderr", e);
		fail_msg("babeltrace2 exit %d / unexpected stderr", rc);
	}
	/* The whole first event line: real time (clock offset 1700000000.25 s + 1 ms) in GMT,
	 * hostname, name, packet context cpu_id, all contexts, payload. */
	{
		const char *first =
			"[2023-11-14 22:13:20.251000000] (+\?.\?\?\?\?\?\?\?\?\?) test\"host\\x syscall_entry_openat: "
			"{ cpu_id = 0 }, { pid = 1000, tid = 1001, ppid = 1002, vpid = 1003, vtid = 1004, "
			"procname = \"bash\", cpu_id = 1006, uid = 1007, gid = 1008, euid = 1009, "
			"prio = 1010, nice = 1011, cgroup_ns = 1012, ipc_ns = 1013, mnt_ns = 1014, "
			"net_ns = 1015, pid_ns = 1016, user_ns = 1017, uts_ns = 1018, vppid = 1019, "
			"hostname = \"bash\", interruptible = -3, preemptible = 254, need_reschedule = 255, "
			"migratable = 0, egid = 1025, sgid = 1026, suid = 1027, vuid = 1028, veuid = 1029, "
			"vsuid = 1030, vgid = 1031, vegid = 1032, vsgid = 1033, time_ns = 1034, cgroup_id = 1035 }, "
			"{ dfd = -100, filename = \"/etc/passwd\", flags = 577, mode = 420 }\n";

		if (strncmp(o, first, strlen(first)) != 0) {
			dump_on_fail("stdout", o);
			fail_msg("first line differs; expected:\n%s", first);
		}
	}
	assert_non_null(strstr(o, "syscall_exit_openat: { cpu_id = 1 }"));
	assert_non_null(strstr(o, "procname = \"kworker/1:0H-evt\""));
	assert_non_null(strstr(o, "filename = \"/tmp/f7\""));
	assert_non_null(strstr(o, "{ ret = -8 }"));
	assert_non_null(strstr(o, "{ prev_comm = \"bash\", prev_tid = 2, prev_prio = 120, "
				  "prev_state = 1, next_comm = \"swapper/0\", next_tid = 0, next_prio = -21 }"));
	assert_non_null(strstr(o, "{ id = 999, args = [ [0] = 0xFFFF000000000030, "
				  "[1] = 0xFFFF000000000031, [2] = 0xFFFF000000000032, "
				  "[3] = 0xFFFF000000000033, [4] = 0xFFFF000000000034, "
				  "[5] = 0xFFFF000000000035 ] }"));
	assert_non_null(strstr(o, "child_comm = \"child\", child_tid = 4242, _vtids_length = 3, "
				  "vtids = [ [0] = 4242, [1] = 4243, [2] = 4244 ], child_pid = 4242, "
				  "child_ns_inum = 4026531836 }"));
	assert_non_null(strstr(o, "_vtids_length = 0, vtids = [ ], child_pid"));
	assert_non_null(strstr(o, "{ irq = 65535, flag = 255, name = \"\" }"));
	assert_non_null(strstr(o, "scry_empty: { cpu_id = 0 }"));
	assert_int_equal(count_lines(o, "] (+"), N_CPU0 + N_CPU1);
	assert_int_equal(count_lines(o, "filename = \"/etc/passwd\""), 22 + 15);
	free(o);
	free(e);

	/* Without --clock-gmt/--clock-date the time is local; raw cycles with --clock-cycles. */
	snprintf(cmd, sizeof(cmd), "babeltrace2 --clock-cycles '%s'", kdir);
	assert_int_equal(run(cmd, out, errf), 0);
	o = (char *)slurp(out, &len);
	assert_non_null(o);
	assert_true(!strncmp(o, "[00000000000001000000] ", 23));
	free(o);
}

static void test_bt2_python(void **state)
{
	char py[128], cmd[512], out[128], errf[128];
	char *o, *e;
	size_t len;
	FILE *f;
	int rc;

	if (access("/usr/bin/python3", X_OK) != 0 ||
	    system("/usr/bin/python3 -c 'import bt2' >/dev/null 2>&1") != 0)
		skip();
	build_trace();
	snprintf(py, sizeof(py), "%s/check.py", tmpdir);
	f = fopen(py, "w");
	assert_non_null(f);
	fputs(PY_CHECK, f);
	fclose(f);
	snprintf(out, sizeof(out), "%s/py.out", tmpdir);
	snprintf(errf, sizeof(errf), "%s/py.err", tmpdir);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' '%s'", py, kdir);
	rc = run(cmd, out, errf);
	o = (char *)slurp(out, &len);
	e = (char *)slurp(errf, &len);
	assert_non_null(o);
	assert_non_null(e);
	if (rc != 0) {
		dump_on_fail("python stdout", o);
		dump_on_fail("python stderr", e);
		fail_msg("bt2 check failed (exit %d)", rc);
	}
	assert_non_null(strstr(o, "bt2 OK 500 [3, 12]"));
	free(o);
	free(e);
}

static int teardown(void **state)
{
	if (tmpdir[0])
		rm_rf(tmpdir);
	tmpdir[0] = 0;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_babeltrace2_cli, teardown),
		cmocka_unit_test_teardown(test_bt2_python, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
