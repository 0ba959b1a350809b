/* test_ctf_metadata.c — the TSDL text for a hand-built event set: declarations, types,
 * contexts, structs with appended parts, env escaping, refusals, and the exclusive write
 * to disk. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "ctf_test_util.h"

#define CTX_PTP ((1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID) | (1ULL << SCRY_CTX_PROCNAME))

static void assert_has(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("metadata lacks: %s", needle);
}

static char *text_for(uint64_t mask)
{
	struct ctf_trace_info ti;
	char err[256] = "";
	char *t;

	fill_trace_info(&ti, mask);
	t = t_metadata_text(&ti, t_events, T_NEVENTS, err, sizeof(err));
	if (!t)
		fail_msg("ctf_metadata_text: %s", err);
	return t;
}

static void test_header_trace_env_clock(void **state)
{
	char *t = text_for(CTX_PTP);

	assert_true(!strncmp(t, "/* CTF 1.8 */\n", 14));
	assert_has(t, "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;");
	assert_has(t, "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;");
	assert_has(t, "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;");
	assert_has(t, "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;");
	assert_has(t, "typealias integer { size = 64; align = 8; signed = false; } := unsigned long;");
	assert_has(t, "\tuuid = \"12345678-9abc-def0-0123-456789abcdef\";\n\tbyte_order = le;");
	assert_has(t, "\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t  uuid[16];\n"
		      "\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};");
	assert_has(t, "\thostname = \"test\\\"host\\\\x\";\n");
	assert_has(t, "\tdomain = \"kernel\";\n");
	assert_has(t, "\tsysname = \"Linux\";\n");
	assert_has(t, "\tkernel_release = \"6.18.0-test\";\n");
	assert_has(t, "\tkernel_version = \"#1 SMP PREEMPT_DYNAMIC Debian 6.18\";\n");
	assert_has(t, "\ttracer_name = \"lttng-modules\";\n");
	assert_has(t, "\ttracer_major = 2;\n\ttracer_minor = 13;\n\ttracer_patchlevel = 0;\n");
	assert_has(t, "\tscry_tracer_name = \"scry\";\n");
	assert_has(t, "\tscry_tracer_major = ");
	assert_has(t, "\tscry_tracer_patchlevel = ");
	assert_has(t, "\ttrace_buffering_scheme = \"global\";\n");
	assert_has(t, "\ttrace_name = \"scry-20261122-023400\";\n");
	assert_has(t, "\ttrace_creation_datetime = \"20261122T023400+0000\";\n");
	assert_has(t, "\tname = \"monotonic\";\n\tuuid = \"aabbccdd-0102-0304-0506-0708090a0b0c\";\n");
	assert_has(t, "\tfreq = 1000000000;");
	assert_has(t, "\tprecision = 1;\n");
	assert_has(t, "\toffset_s = 1700000000;\n\toffset = 250000000;\n\tabsolute = FALSE;\n");
	assert_has(t, "\tsize = 64; align = 8; signed = false;\n\tmap = clock.monotonic.value;\n"
		      "} := uint64_clock_monotonic_t;");
	free(t);
}

static void test_stream_class(void **state)
{
	char *t = text_for(CTX_PTP);

	assert_has(t, "struct packet_context {\n"
		      "\tuint64_clock_monotonic_t timestamp_begin;\n"
		      "\tuint64_clock_monotonic_t timestamp_end;\n"
		      "\tuint64_t content_size;\n"
		      "\tuint64_t packet_size;\n"
		      "\tuint64_t packet_seq_num;\n"
		      "\tunsigned long events_discarded;\n"
		      "\tuint32_t cpu_id;\n};");
	assert_has(t, "\tuint16_t id;\n\tuint64_clock_monotonic_t timestamp;\n} align(8);");
	assert_has(t, "stream {\n\tid = 0;\n\tevent.header := struct event_header_scry;\n"
		      "\tpacket.context := struct packet_context;\n"
		      "\tevent.context := struct {\n"
		      "\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _pid;\n"
		      "\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _tid;\n"
		      "\t\tinteger { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _procname[16];\n"
		      "\t};\n};");
	free(t);
}

/* Two channels: two stream classes, each with its contexts, each with its own event ids. */
static void test_two_stream_classes(void **state)
{
	struct ctf_stream_class sc[2] = {
		{ .ctx_mask = 1ULL << SCRY_CTX_PID, .events = t_events, .nevents = 2 },
		{ .ctx_mask = 1ULL << SCRY_CTX_PRIO, .events = t_events + T_SWITCH, .nevents = 1 },
	};
	struct ctf_trace_info ti;
	char err[256] = "", *t;

	fill_trace_info(&ti, 0);
	ti.streams = sc;
	ti.nstreams = 2;
	t = ctf_metadata_text(&ti, err, sizeof(err));
	if (!t)
		fail_msg("ctf_metadata_text: %s", err);
	assert_has(t, "stream {\n\tid = 0;\n\tevent.header := struct event_header_scry;\n"
		      "\tpacket.context := struct packet_context;\n\tevent.context := struct {\n"
		      "\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _pid;\n\t};\n};");
	assert_has(t, "stream {\n\tid = 1;\n\tevent.header := struct event_header_scry;\n"
		      "\tpacket.context := struct packet_context;\n\tevent.context := struct {\n"
		      "\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _prio;\n\t};\n};");
	assert_has(t, "\tname = \"syscall_entry_openat\";\n\tid = 0;\n\tstream_id = 0;\n");
	assert_has(t, "\tname = \"syscall_exit_openat\";\n\tid = 1;\n\tstream_id = 0;\n");
	assert_has(t, "\tname = \"sched_switch\";\n\tid = 0;\n\tstream_id = 1;\n");
	/* the second stream class follows the first one's events */
	assert_true(strstr(t, "\tid = 1;\n\tevent.header") > strstr(t, "\tname = \"syscall_exit_openat\""));
	free(t);
	ti.nstreams = 0;
	assert_null(ctf_metadata_text(&ti, err, sizeof(err)));
	assert_non_null(strstr(err, "channel"));
}

static void test_context_order_and_types(void **state)
{
	/* Set in reverse-ish order: the text follows enum scry_ctx order. */
	uint64_t mask = (1ULL << SCRY_CTX_UTS_NS) | (1ULL << SCRY_CTX_UID) | (1ULL << SCRY_CTX_VTID);
	char *t = text_for(mask);
	char *vtid = strstr(t, "} _vtid;"), *uid = strstr(t, "} _uid;"), *uts = strstr(t, "} _uts_ns;");

	assert_non_null(vtid);
	assert_non_null(uid);
	assert_non_null(uts);
	assert_true(vtid < uid && uid < uts);
	assert_has(t, "integer { size = 32; align = 8; signed = 0; encoding = none; base = 10; } _uid;");
	assert_null(strstr(t, "} _pid;"));
	assert_null(strstr(t, "_procname"));
	free(t);

	t = text_for(0);
	assert_null(strstr(t, "event.context"));
	free(t);
}

static void test_events(void **state)
{
	char *t = text_for(CTX_PTP);

	assert_has(t, "event {\n\tname = \"syscall_entry_openat\";\n\tid = 0;\n\tstream_id = 0;\n"
		      "\tfields := struct {\n"
		      "\t\tinteger { size = 64; align = 8; signed = 1; encoding = none; base = 10; } _dfd;\n"
		      "\t\tstring _filename;\n"
		      "\t\tinteger { size = 64; align = 8; signed = 1; encoding = none; base = 10; } _flags;\n"
		      "\t\tinteger { size = 64; align = 8; signed = 0; encoding = none; base = 10; } _mode;\n"
		      "\t};\n};");
	assert_has(t, "\tname = \"syscall_exit_openat\";\n\tid = 1;\n");
	assert_has(t, "\tname = \"sched_switch\";\n\tid = 2;\n");
	assert_has(t, "\t\tinteger { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _prev_comm[16];\n"
		      "\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _prev_tid;\n");
	assert_has(t, "\tname = \"syscall_entry_unknown\";\n\tid = 3;\n");
	assert_has(t, "\t\tinteger { size = 64; align = 8; signed = 0; encoding = none; base = 16; } _args[6];\n");
	assert_has(t, "\tname = \"sched_process_fork\";\n\tid = 4;\n");
	assert_has(t, "\t\tinteger { size = 8; align = 8; signed = 0; encoding = none; base = 10; } __vtids_length;\n"
		      "\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _vtids[ __vtids_length ];\n");
	assert_has(t, "\t\tinteger { size = 16; align = 8; signed = 0; encoding = none; base = 10; } _irq;\n"
		      "\t\tinteger { size = 8; align = 8; signed = 0; encoding = none; base = 10; } _flag;\n"
		      "\t\tstring _name;\n");
	assert_has(t, "\tname = \"scry_empty\";\n\tid = 6;\n\tstream_id = 0;\n\tfields := struct {\n\t};\n};");
	free(t);
}

/* Structs with tails (structs.h): their appended parts as length + sequence, or string,
 * inside the element, nested for a msghdr's iovecs. */
static void test_struct_tails(void **state)
{
	struct scry_field f[] = { U32("_msg_length"), U32("msg"), U32("_dirent_length"), U32("dirent") };
	struct scry_event ev = { (char *)"syscall_exit_x", (char *)"syscalls", (char *)"x",
				 SCRY_EV_SYSCALL_EXIT, -1, 4, f, 0, 0, 0, 0 };
	const struct scry_event *evs[1] = { &ev };
	struct ctf_trace_info ti;
	char err[256] = "", *t;

	f[1].type = f[3].type = SCRY_F_STRUCTSEQ;
	f[1].length_field = 0;
	f[3].length_field = 2;
	f[1].sdesc = scry_struct_find("msghdr_data");
	f[3].sdesc = scry_struct_find("dirents");
	fill_trace_info(&ti, 0);
	t = t_metadata_text(&ti, evs, 1, err, sizeof(err));
	if (!t)
		fail_msg("ctf_metadata_text: %s", err);
#define I(bits, s, base) "integer { size = " #bits "; align = 8; signed = " #s "; encoding = none; base = " #base "; }"
	assert_has(t, "\t\t" I(32, 0, 10) " __msg_length;\n"
		      "\t\tstruct { " I(64, 0, 16) " _msg_name; " I(32, 1, 10) " _msg_namelen; "
		      I(32, 0, 16) " ___pad0; " I(64, 0, 16) " _msg_iov; " I(64, 0, 10) " _msg_iovlen; "
		      I(64, 0, 16) " _msg_control; " I(64, 0, 10) " _msg_controllen; "
		      I(32, 0, 16) " _msg_flags; " I(32, 0, 16) " ___pad1; "
		      I(32, 0, 10) " __name_length; " I(8, 0, 16) " _name[ __name_length ]; "
		      I(32, 0, 10) " __iov_length; struct { " I(64, 0, 16) " _iov_base; "
		      I(64, 0, 10) " _iov_len; " I(32, 0, 10) " __data_length; "
		      I(8, 0, 16) " _data[ __data_length ]; } _iov[ __iov_length ]; } _msg[ __msg_length ];\n");
	assert_has(t, "\t\tstruct { " I(32, 0, 10) " _nentries; " I(32, 0, 10) " __entries_length; "
		      "struct { " I(64, 0, 10) " _d_ino; " I(64, 1, 10) " _d_off; " I(16, 0, 10) " _d_reclen; "
		      I(8, 0, 10) " _d_type; string _d_name; } _entries[ __entries_length ]; } "
		      "_dirent[ __dirent_length ];\n");
#undef I
	free(t);
}

static void test_refusals(void **state)
{
	struct ctf_trace_info ti;
	char err[256] = "";
	struct scry_field bad_seq[] = { I32("n"), SEQ32("v", 0) };      /* signed length */
	struct scry_field fwd_seq[] = { SEQ32("v", 1), U32("n") };      /* length after */
	struct scry_field bad_name[] = { I32("a-b") };
	struct scry_field bad_size[] = { { (char *)"x", SCRY_F_INT, 3, false, 10, 0, -1, SCRY_SRC_NONE, 0, 0 } };
	struct scry_event ev = { (char *)"bad", (char *)"s", (char *)"bad", SCRY_EV_TRACEPOINT, -1,
				 2, bad_seq, 0, 0, 0, 0 };
	const struct scry_event *evs[1] = { &ev };

	fill_trace_info(&ti, CTX_PTP);
	assert_null(t_metadata_text(&ti, evs, 1, err, sizeof(err)));
	assert_non_null(strstr(err, "length field"));
	ev.fields = fwd_seq;
	assert_null(t_metadata_text(&ti, evs, 1, err, sizeof(err)));
	ev.fields = bad_name;
	ev.nfields = 1;
	assert_null(t_metadata_text(&ti, evs, 1, err, sizeof(err)));
	assert_non_null(strstr(err, "a-b"));
	ev.fields = bad_size;
	assert_null(t_metadata_text(&ti, evs, 1, err, sizeof(err)));
	assert_non_null(strstr(err, "size"));
	/* (unknown context bits: none left, the 64 bits of ctx_mask are all contexts) */
}

static void test_control_chars_escaped(void **state)
{
	struct ctf_trace_info ti;
	char err[256] = "";
	char *t;

	fill_trace_info(&ti, 0);
	ti.kernel_version = "a\nb\tc\x01";
	t = t_metadata_text(&ti, t_events, T_NEVENTS, err, sizeof(err));
	assert_non_null(t);
	assert_has(t, "\tkernel_version = \"a\\nb\\tc \";\n");
	free(t);
}

static void test_write_whole(void **state)
{
	char dir[] = "/tmp/scry-ctf-md-XXXXXX", path[64], tmp[80];
	struct ctf_trace_info ti;
	char err[256] = "";
	char *t, *disk;
	size_t len = 0;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/metadata", dir);
	snprintf(tmp, sizeof(tmp), "%s/.metadata.tmp", dir);
	fill_trace_info(&ti, CTX_PTP);
	/* first with one event, then again with all of them (an event enabled after start) */
	assert_int_equal(t_metadata_write(path, &ti, t_events, 1, err, sizeof(err)), 0);
	t = t_metadata_text(&ti, t_events, 1, err, sizeof(err));
	disk = (char *)slurp(path, &len);
	assert_non_null(t);
	assert_non_null(disk);
	assert_string_equal(disk, t);
	free(t);
	free(disk);
	assert_int_equal(t_metadata_write(path, &ti, t_events, T_NEVENTS, err, sizeof(err)), 0);
	t = t_metadata_text(&ti, t_events, T_NEVENTS, err, sizeof(err));
	disk = (char *)slurp(path, &len);
	assert_non_null(t);
	assert_non_null(disk);
	assert_int_equal(len, strlen(t));
	assert_string_equal(disk, t);
	assert_int_equal(access(tmp, F_OK), -1);      /* no hidden file left behind */
	/* a directory that cannot take it: an error naming the hidden file, the old one kept */
	snprintf(path, sizeof(path), "%s/none/metadata", dir);
	assert_true(t_metadata_write(path, &ti, t_events, T_NEVENTS, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "/none"));
	free(t);
	free(disk);
	rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_trace_env_clock),
		cmocka_unit_test(test_stream_class),
		cmocka_unit_test(test_two_stream_classes),
		cmocka_unit_test(test_context_order_and_types),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_struct_tails),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_control_chars_escaped),
		cmocka_unit_test(test_write_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
