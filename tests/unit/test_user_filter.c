/* test_user_filter.c — the user-space side of a session's filter (src/session/user_filter.c):
 * which events go to user space and why, and the predicate on event bytes built here in
 * scry's layout (header, pid and procname contexts, payload) — sequence elements, string
 * arrays, struct members with their tails, contexts, the ring's CPU, and what makes it
 * false (past the end, a truncated payload).  Events are described by hand: no tracefs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "consumer/consumer.h"
#include "filter/filter.h"
#include "session/filters.h"
#include "session/user_filter.h"
#include "util/log.h"

#define CTX_MASK ((1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_PROCNAME))
#define INT(nm, sz, sg, a) { .name = nm, .type = SCRY_F_INT, .size = sz, .is_signed = sg, .arg = a, .length_field = -1 }

enum { EV_SENDTO, EV_OPEN, EV_POLL, EV_SENDMSG, EV_MISC, NEV };

static struct scry_field f_sendto[] = {
	INT("fd", 8, true, 0),
	INT("_addr_length", 4, false, -1),
	{ .name = "addr", .type = SCRY_F_SEQ, .size = 1, .length_field = 1, .arg = 4 },
};
static struct scry_field f_open[] = {
	INT("fd", 8, true, 0),
	{ .name = "filename", .type = SCRY_F_STRING, .arg = 1, .length_field = -1 },
};
static struct scry_field f_poll[] = {
	INT("_ufds_length", 4, false, -1),
	{ .name = "ufds", .type = SCRY_F_STRUCTSEQ, .length_field = 0, .arg = 0 },
	INT("_argv_length", 4, false, -1),
	{ .name = "argv", .type = SCRY_F_STRSEQ, .length_field = 2, .arg = 1 },
	{ .name = "comm", .type = SCRY_F_TEXT, .size = 1, .count = 16, .arg = -1, .length_field = -1 },
	{ .name = "arr", .type = SCRY_F_ARRAY, .size = 4, .is_signed = true, .count = 3, .arg = -1, .length_field = -1 },
};
static struct scry_field f_sendmsg[] = {
	INT("ret", 8, true, -1),
	INT("_msg_length", 4, false, -1),
	{ .name = "msg", .type = SCRY_F_STRUCTSEQ, .length_field = 1, .arg = 1 },
};
static struct scry_field f_misc[] = {
	INT("ret", 8, true, -1),
	INT("_dirent_length", 4, false, -1),
	{ .name = "dirent", .type = SCRY_F_STRUCTSEQ, .length_field = 1, .arg = 1 },
	INT("_uts_length", 4, false, -1),
	{ .name = "uts", .type = SCRY_F_STRUCTSEQ, .length_field = 3, .arg = 2 },
	INT("_si_length", 4, false, -1),
	{ .name = "si", .type = SCRY_F_STRUCTSEQ, .length_field = 5, .arg = 3 },
	INT("_fildes_length", 4, false, -1),
	{ .name = "fildes", .type = SCRY_F_STRUCTSEQ, .length_field = 7, .arg = 0 },
};

#define EV(nm, k, fs) { .name = nm, .kind = k, .nr = -1, .nfields = sizeof(fs) / sizeof(fs[0]), .fields = fs }
static struct scry_event events[NEV] = {
	[EV_SENDTO] = EV("syscall_entry_sendto", SCRY_EV_SYSCALL_ENTRY, f_sendto),
	[EV_OPEN] = EV("syscall_entry_open", SCRY_EV_SYSCALL_ENTRY, f_open),
	[EV_POLL] = EV("syscall_entry_poll", SCRY_EV_SYSCALL_ENTRY, f_poll),
	[EV_SENDMSG] = EV("syscall_exit_sendmsg", SCRY_EV_SYSCALL_EXIT, f_sendmsg),
	[EV_MISC] = EV("syscall_exit_misc", SCRY_EV_SYSCALL_EXIT, f_misc),
};
static const struct scry_event *const evp[NEV] = {
	&events[0], &events[1], &events[2], &events[3], &events[4],
};

static int setup(void **state)
{
	f_poll[1].sdesc = scry_struct_find("pollfd");
	f_sendmsg[2].sdesc = scry_struct_find("msghdr_data");
	f_misc[2].sdesc = scry_struct_find("dirents");
	f_misc[4].sdesc = scry_struct_find("utsname");
	f_misc[6].sdesc = scry_struct_find("sysinfo");
	f_misc[8].sdesc = scry_struct_find("int");
	return f_poll[1].sdesc && f_sendmsg[2].sdesc && f_misc[2].sdesc && f_misc[4].sdesc && f_misc[6].sdesc &&
	       f_misc[8].sdesc ? 0 : -1;
}

/* ---- event bytes ------------------------------------------------------------------------ */

struct buf {
	uint8_t b[2048];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->b));
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void u8(struct buf *b, uint8_t v) { put(b, &v, 1); }
static void u16(struct buf *b, uint16_t v) { put(b, &v, 2); }
static void u32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void u64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void str(struct buf *b, const char *s) { put(b, s, strlen(s) + 1); }

static void head(struct buf *b, uint16_t id, int32_t pid, const char *comm)
{
	char c[SCRY_COMM_LEN] = { 0 };

	b->n = 0;
	u16(b, id);
	u64(b, 123456789);
	u32(b, (uint32_t)pid);
	memcpy(c, comm, strnlen(comm, sizeof(c)));
	put(b, c, sizeof(c));
}

/* sendto(fd, ..., addr = bytes[0..n)) */
static void sendto_ev(struct buf *b, int64_t fd, const uint8_t *addr, uint32_t n)
{
	head(b, EV_SENDTO, 77, "netports");
	u64(b, (uint64_t)fd);
	u32(b, n);
	put(b, addr, n);
}

/* poll: ufds {-5, POLLIN, 0}, {3, POLLOUT, 0}; argv {"/bin/true", "second"}; comm
 * "hello"; arr {1, -2, -7} */
static void poll_ev(struct buf *b)
{
	head(b, EV_POLL, 78, "poller");
	u32(b, 2);
	u32(b, (uint32_t)-5), u16(b, 1), u16(b, 0);
	u32(b, 3), u16(b, 4), u16(b, 0);
	u32(b, 2);
	str(b, "/bin/true");
	str(b, "second");
	char comm[16] = "hello";
	put(b, comm, sizeof(comm));
	u32(b, 1), u32(b, (uint32_t)-2), u32(b, (uint32_t)-7);
}

/* sendmsg exit: ret 8; one msghdr (msg_namelen 16, msg_iovlen 2), its 16-byte address
 * (AF_INET, port 0x1f90, 127.0.0.1) and two iovecs with data "alpha" and "bcd" */
static void sendmsg_ev(struct buf *b)
{
	static const uint8_t sin[16] = { 2, 0, 0x1f, 0x90, 127, 0, 0, 1 };

	head(b, EV_SENDMSG, 79, "sender");
	u64(b, 8);
	u32(b, 1);
	u64(b, 0x1000), u32(b, 16), u32(b, 0), u64(b, 0x2000), u64(b, 2), u64(b, 0), u64(b, 0), u32(b, 0), u32(b, 0);
	u32(b, 16);
	put(b, sin, sizeof(sin));
	u32(b, 2);
	u64(b, 0x3000), u64(b, 5), u32(b, 5), put(b, "alpha", 5);
	u64(b, 0x4000), u64(b, 3), u32(b, 3), put(b, "bcd", 3);
}

/* misc exit: dirents {nentries 7, "a.txt" (type 8), "beta" (type 4)}; utsname "Linux";
 * sysinfo loads {0, 0, 9}, procs 123; fildes {-9} */
static void misc_ev(struct buf *b)
{
	uint8_t uts[390] = { 0 }, si[112] = { 0 };
	uint64_t nine = 9;
	uint16_t procs = 123;

	head(b, EV_MISC, 80, "lister");
	u64(b, 0);
	u32(b, 1);
	u32(b, 7);
	u32(b, 2);
	u64(b, 1), u64(b, 10), u16(b, 25), u8(b, 8), str(b, "a.txt");
	u64(b, 2), u64(b, 20), u16(b, 24), u8(b, 4), str(b, "beta");
	u32(b, 1);
	memcpy(uts, "Linux", 5);
	memcpy(uts + 65, "host", 4);
	put(b, uts, sizeof(uts));
	u32(b, 1);
	memcpy(si + 24, &nine, 8);
	memcpy(si + 80, &procs, 2);
	put(b, si, sizeof(si));
	u32(b, 1);
	u32(b, (uint32_t)-9);
}

/* ---- helpers ------------------------------------------------------------------------------ */

static struct scry_filters *prep(const char *expr)
{
	char err[512];
	struct scry_filters *f = scry_filters_prepare(expr, evp, NEV, false, err, sizeof(err));

	if (!f)
		fail_msg("%s: %s", expr, err);
	return f;
}

/* The predicate's answer for expr on the event bytes b (ring CPU cpu). */
static bool match_cpu(const char *expr, const struct buf *b, size_t size, unsigned cpu)
{
	struct scry_filters *f = prep(expr);
	struct scry_user_filter *u = NULL;
	char err[512] = "";
	uint16_t id;
	bool r;

	assert_int_equal(scry_user_filter_new(&u, f, evp, NEV, CTX_MASK, err, sizeof(err)), 0);
	assert_non_null(u);
	memcpy(&id, b->b, 2);
	/* the predicate is asked only about the ids in the bitmap */
	assert_true(scry_user_filter_ids(u)[id >> 6] >> (id & 63) & 1);
	r = scry_user_filter_match(u, cpu, b->b, size);
	scry_user_filter_free(u);
	scry_filters_free(f);
	return r;
}

static bool match(const char *expr, const struct buf *b)
{
	return match_cpu(expr, b, b->n, 0);
}

/* ---- classification -------------------------------------------------------------------------- */

static void test_classify(void **state)
{
	struct scry_filters *f = prep("fd == 3 && addr[3] == 0x90");
	struct scry_user_filter *u = NULL;
	char err[256];

	assert_int_equal(scry_filters_use(f, EV_SENDTO), SCRY_FILTER_USER);
	assert_string_equal(filter_ref_text(scry_filters_expr(f, EV_SENDTO, &(size_t){ 0 }), (size_t)scry_filters_user_ref(f, EV_SENDTO)), "addr[3]");
	assert_int_equal(scry_filters_use(f, EV_OPEN), SCRY_FILTER_NEVER);    /* no addr */
	assert_int_equal(scry_filters_user_ref(f, EV_OPEN), -1);
	assert_int_equal(scry_user_filter_new(&u, f, evp, NEV, CTX_MASK, err, sizeof(err)), 0);
	assert_non_null(u);
	assert_int_equal(scry_user_filter_ids(u)[0], 1ULL << EV_SENDTO);
	scry_user_filter_free(u);
	scry_filters_free(f);

	/* the kernel reads fd in both: no user-space filter at all */
	f = prep("fd == 3");
	assert_int_equal(scry_filters_use(f, EV_SENDTO), SCRY_FILTER_KERNEL);
	assert_int_equal(scry_filters_use(f, EV_OPEN), SCRY_FILTER_KERNEL);
	assert_int_equal(scry_filters_use(f, EV_POLL), SCRY_FILTER_NEVER);
	assert_int_equal(scry_filters_user_ref(f, EV_SENDTO), -1);
	u = (struct scry_user_filter *)1;
	assert_int_equal(scry_user_filter_new(&u, f, evp, NEV, CTX_MASK, err, sizeof(err)), 0);
	assert_null(u);
	scry_filters_free(f);

	/* a context with a field the kernel cannot read: the whole event in user space */
	f = prep("$ctx.uid == 0 && addr[0] == 2");
	assert_int_equal(scry_filters_use(f, EV_SENDTO), SCRY_FILTER_USER);
	scry_filters_free(f);
	f = prep("$ctx.uid == 0 && fd == 1");
	assert_int_equal(scry_filters_use(f, EV_SENDTO), SCRY_FILTER_KERNEL);
	scry_filters_free(f);
}

/* LTTng's event rules: each rule's filter on the events it matches, OR'ed per event, an
 * unfiltered rule short-circuiting, a rule that can never accept an event left out of it. */
static void test_rules(void **state)
{
	uint64_t both = (1ULL << EV_SENDTO) | (1ULL << EV_OPEN), sendto = 1ULL << EV_SENDTO, open_ = 1ULL << EV_OPEN;
	uint64_t poll = 1ULL << EV_POLL, unf = 1ULL << EV_POLL;
	struct scry_filter_rule rules[] = {
		{ .name = "a", .text = "fd == 3", .events = &both },
		{ .name = "b", .text = "addr[0] == 2", .events = &both },     /* open has no addr */
		{ .name = "c", .text = "filename == \"/x\"", .events = &open_ },
		{ .name = "d", .text = "fd == 9", .events = &poll },          /* poll has no fd */
		{ .name = "e", .text = "argv[0] == \"ls\"", .events = &poll },
	};
	struct scry_user_filter *u = NULL;
	struct scry_filters *f;
	struct buf b;
	size_t sub;
	char err[512];

	f = scry_filters_prepare_rules(rules, 3, NULL, evp, NEV, false, err, sizeof(err));
	if (!f)
		fail_msg("%s", err);
	assert_int_equal(scry_filters_use(f, EV_SENDTO), SCRY_FILTER_USER);   /* fd == 3 || addr[0] == 2 */
	assert_int_equal(scry_filters_use(f, EV_OPEN), SCRY_FILTER_KERNEL);   /* fd == 3 || filename == "/x" */
	assert_int_equal(scry_filters_use(f, EV_POLL), SCRY_FILTER_NONE);     /* no rule matches it */
	assert_non_null(scry_filters_expr(f, EV_OPEN, &sub));
	assert_null(scry_filters_expr(f, EV_POLL, &sub));
	assert_int_equal(scry_user_filter_new(&u, f, evp, NEV, CTX_MASK, err, sizeof(err)), 0);
	sendto_ev(&b, 3, (const uint8_t[]){ 7 }, 1);
	assert_true(scry_user_filter_match(u, 0, b.b, b.n));           /* the first rule */
	sendto_ev(&b, 4, (const uint8_t[]){ 2 }, 1);
	assert_true(scry_user_filter_match(u, 0, b.b, b.n));           /* the second */
	sendto_ev(&b, 4, (const uint8_t[]){ 7 }, 1);
	assert_false(scry_user_filter_match(u, 0, b.b, b.n));          /* neither */
	scry_user_filter_free(u);
	scry_filters_free(f);

	/* poll: a filtered rule and an unfiltered one: recorded as is */
	f = scry_filters_prepare_rules(rules + 4, 1, &unf, evp, NEV, false, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(scry_filters_use(f, EV_POLL), SCRY_FILTER_NONE);
	scry_filters_free(f);
	f = scry_filters_prepare_rules(rules + 4, 1, NULL, evp, NEV, false, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(scry_filters_use(f, EV_POLL), SCRY_FILTER_USER);
	scry_filters_free(f);
	/* fd is in none of its events: as lttng, the rule never records them */
	f = scry_filters_prepare_rules(rules + 3, 1, NULL, evp, NEV, false, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(scry_filters_use(f, EV_POLL), SCRY_FILTER_NEVER);
	scry_filters_free(f);
	/* a syntax error: the rule's, named */
	rules[3].text = "fd ==";
	f = scry_filters_prepare_rules(rules + 3, 1, NULL, evp, NEV, false, err, sizeof(err));
	assert_null(f);
	assert_string_equal(strstr(err, "filter of rule d: ") == err ? "ok" : err, "ok");
	f = scry_filters_prepare_rules(rules + 2, 1, NULL, evp, NEV, false, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(scry_filters_use(f, EV_OPEN), SCRY_FILTER_KERNEL);
	assert_int_equal(scry_filters_use(f, EV_SENDTO), SCRY_FILTER_NONE);
	scry_filters_free(f);
	/* both rules on open, one of which cannot accept it: the other decides; none: never */
	rules[1].events = &sendto;
	f = scry_filters_prepare_rules(rules, 2, NULL, evp, NEV, false, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(scry_filters_use(f, EV_OPEN), SCRY_FILTER_KERNEL);   /* fd == 3 alone */
	assert_int_equal(scry_filters_use(f, EV_SENDTO), SCRY_FILTER_USER);
	scry_filters_free(f);
}

/* The log callback: the lines said, each ended by a newline. */
static void capture(void *ctx, enum scry_log_level level, const char *text)
{
	FILE *m = ctx;

	assert_int_equal(level, SCRY_LOG_VERBOSE);
	fprintf(m, "%s\n", text);
}

static void explain_has(const char *expr, const char *line)
{
	struct scry_filters *f = prep(expr);
	struct scry_user_filter *u = NULL;
	char err[256], *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	assert_non_null(m);
	assert_int_equal(scry_user_filter_new(&u, f, evp, NEV, CTX_MASK, err, sizeof(err)), 0);
	assert_non_null(u);
	scry_log_set(capture, m, false);
	scry_user_filter_explain(u);          /* not verbose: nothing */
	fflush(m);
	assert_int_equal(len, 0);
	scry_log_set(capture, m, true);
	scry_user_filter_explain(u);
	scry_log_set(NULL, NULL, false);
	fclose(m);
	assert_string_equal(out, line);
	free(out);
	scry_user_filter_free(u);
	scry_filters_free(f);
}

static void test_explain(void **state)
{
	explain_has("addr[3] == 0x90 && fd == 5", "scry: filter: syscall_entry_sendto: `addr[3]` is evaluated in "
		    "user space (the kernel filter cannot read captured data)\n");
	explain_has("ufds[0].fd == 3", "scry: filter: syscall_entry_poll: `ufds[0].fd` is evaluated in user space "
		    "(the kernel filter cannot read struct members)\n");
	explain_has("argv[0] == \"ls\"", "scry: filter: syscall_entry_poll: `argv[0]` is evaluated in user space "
		    "(the kernel filter cannot read string arrays)\n");
	explain_has("arr[1] < 0", "scry: filter: syscall_entry_poll: `arr[1]` is evaluated in user space "
		    "(the kernel filter cannot read array elements)\n");
	explain_has("fildes[0] == 3", "scry: filter: syscall_exit_misc: `fildes[0]` is evaluated in user space "
		    "(the kernel filter cannot read array elements)\n");
	explain_has("_addr_length == 16", "scry: filter: syscall_entry_sendto: `_addr_length` is evaluated in "
		    "user space (the kernel filter cannot read this field)\n");
	/* one line per event */
	explain_has("_msg_length == 1 || ret == 3", "scry: filter: syscall_exit_sendmsg: `_msg_length` is evaluated "
		    "in user space (the kernel filter cannot read this field)\n");
}

/* ---- values ------------------------------------------------------------------------------- */

static void test_sequence_elements(void **state)
{
	static const uint8_t sin[4] = { 2, 0, 0x1f, 0x90 };
	struct buf b;

	sendto_ev(&b, 5, sin, 4);
	assert_true(match("addr[2] == 0x1f && addr[3] == 0x90", &b));
	assert_true(match("fd == 5 && addr[0] == 2 && _addr_length == 4", &b));
	assert_false(match("addr[3] == 0x91", &b));
	assert_false(match("fd == 6 && addr[3] == 0x90", &b));
	assert_true(match("addr[2] << 8 | addr[3] == 8080", &b));
	/* past the end of the sequence: the whole expression is false, negated or not */
	assert_false(match("addr[4] == 0", &b));
	assert_false(match("!(addr[4] == 1)", &b));
	sendto_ev(&b, -1, sin, 2);
	assert_false(match("addr[3] == 0x90", &b));
	assert_true(match("addr[1] == 0 && fd == -1", &b));
	/* a payload cut short cannot be decoded: false */
	sendto_ev(&b, 5, sin, 4);
	assert_true(match_cpu("addr[1] == 0", &b, b.n, 0));
	assert_false(match_cpu("addr[1] == 0", &b, b.n - 1, 0));
	assert_false(match_cpu("addr[1] == 0", &b, 20, 0));
}

static void test_contexts(void **state)
{
	static const uint8_t sin[4] = { 2, 0, 0x1f, 0x90 };
	struct scry_filters *f;
	struct scry_user_filter *u = NULL;
	char err[512] = "";
	struct buf b;

	sendto_ev(&b, 5, sin, 4);
	assert_true(match("$ctx.procname == \"net*\" && $ctx.pid == 77 && addr[0] == 2", &b));
	assert_false(match("$ctx.procname == \"netport\" && addr[0] == 2", &b));
	assert_false(match("$ctx.pid != 77 && addr[0] == 2", &b));
	/* cpu_id is not recorded here: the ring's CPU */
	assert_true(match_cpu("$ctx.cpu_id == 1 && addr[0] == 2", &b, b.n, 1));
	assert_false(match_cpu("$ctx.cpu_id == 1 && addr[0] == 2", &b, b.n, 0));
	/* a context neither recorded nor known otherwise: refused */
	f = prep("$ctx.uid == 0 && addr[0] == 2");
	assert_int_equal(scry_user_filter_new(&u, f, evp, NEV, CTX_MASK, err, sizeof(err)), -EINVAL);
	assert_null(u);
	assert_non_null(strstr(err, "`$ctx.uid` is not recorded"));
	assert_non_null(strstr(err, "syscall_entry_sendto"));
	scry_filters_free(f);
}

static void test_struct_members(void **state)
{
	struct buf b;

	poll_ev(&b);
	assert_true(match("ufds[0].fd == -5 && ufds[0].events == 1", &b));
	assert_true(match("ufds[1].fd == 3 && ufds[1].events == 4 && ufds[1].revents == 0", &b));
	assert_false(match("ufds[1].events == 1", &b));
	assert_false(match("ufds[2].fd == 0", &b));
	assert_true(match("argv[0] == \"/bin/true\" && argv[1] == \"sec*\"", &b));
	assert_false(match("argv[1] == \"first\"", &b));
	assert_false(match("argv[2] == \"\" || argv[2] != \"\"", &b));
	assert_true(match("comm == \"hello\" && arr[0] == 1 && arr[1] == -2 && arr[2] == -7", &b));
	assert_false(match("comm == \"hell\"", &b));
}

static void test_struct_tails(void **state)
{
	struct buf b;

	sendmsg_ev(&b);
	assert_true(match("ret == 8 && msg[0].msg_namelen == 16 && msg[0].msg_iovlen == 2", &b));
	assert_true(match("msg[0]._name_length == 16 && msg[0].name[2] == 0x1f && msg[0].name[3] == 0x90", &b));
	assert_true(match("msg[0]._iov_length == 2 && msg[0].iov[0].iov_len == 5 && msg[0].iov[1].iov_base == 0x4000", &b));
	assert_true(match("msg[0].iov[1]._data_length == 3 && msg[0].iov[1].data[0] == 0x62 && "
			  "msg[0].iov[0].data[4] == 0x61", &b));
	assert_false(match("msg[0].iov[1].data[3] == 0 || msg[0].iov[1].data[3] != 0", &b));
	assert_false(match("msg[0].iov[2].iov_len == 0 || msg[0].iov[2].iov_len != 0", &b));
	assert_false(match("msg[1].msg_namelen == 16", &b));

	misc_ev(&b);
	assert_true(match("dirent[0].nentries == 7 && dirent[0]._entries_length == 2", &b));
	assert_true(match("dirent[0].entries[1].d_name == \"b*\" && dirent[0].entries[1].d_type == 4 && "
			  "dirent[0].entries[0].d_off == 10 && dirent[0].entries[0].d_name == \"a.txt\"", &b));
	assert_false(match("dirent[0].entries[2].d_type == 0 || dirent[0].entries[2].d_type != 0", &b));
	assert_true(match("uts[0].sysname == \"Linux\" && uts[0].nodename == \"host\"", &b));
	assert_true(match("si[0].loads[2] == 9 && si[0].loads[0] == 0 && si[0].procs == 123", &b));
	assert_true(match("fildes[0] == -9", &b));
	assert_false(match("fildes[0] == 9", &b));
}

/* The schema of captured struct elements, as the CTF metadata names them. */
static void test_schema(void **state)
{
	struct filter_schema s;
	const struct filter_field *msg, *iov;

	assert_int_equal(scry_filter_schema(&events[EV_SENDMSG], &s), 0);
	assert_int_equal(s.nfields, 3);
	msg = &s.fields[2];
	assert_int_equal(msg->type, FF_SEQUENCE);
	assert_int_equal(msg->elem->type, FF_STRUCT);
	assert_int_equal(msg->elem->nmembers, 9 + 2 + 2);
	assert_string_equal(msg->elem->members[1].name, "msg_namelen");
	assert_string_equal(msg->elem->members[9].name, "_name_length");
	assert_string_equal(msg->elem->members[10].name, "name");
	assert_int_equal(msg->elem->members[10].type, FF_SEQUENCE);
	assert_string_equal(msg->elem->members[11].name, "_iov_length");
	iov = &msg->elem->members[12];
	assert_string_equal(iov->name, "iov");
	assert_int_equal(iov->elem->nmembers, 4);
	assert_string_equal(iov->elem->members[2].name, "_data_length");
	assert_string_equal(iov->elem->members[3].name, "data");
	assert_int_equal(iov->elem->members[3].elem->type, FF_INT);
	scry_filter_schema_free(&s);

	assert_int_equal(scry_filter_schema(&events[EV_MISC], &s), 0);
	assert_int_equal(s.fields[8].elem->type, FF_INT);              /* "int": a scalar element */
	assert_true(s.fields[8].elem->is_signed);
	assert_int_equal(s.fields[4].elem->members[0].type, FF_STRING);  /* utsname text */
	assert_int_equal(s.fields[6].elem->members[1].type, FF_ARRAY);   /* sysinfo loads[3] */
	assert_int_equal(s.fields[6].elem->members[1].length, 3);
	assert_string_equal(s.fields[2].elem->members[2].elem->members[4].name, "d_name");
	scry_filter_schema_free(&s);

	assert_int_equal(scry_filter_schema(&events[EV_POLL], &s), 0);
	assert_int_equal(s.fields[3].elem->type, FF_STRING);             /* argv */
	scry_filter_schema_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_sequence_elements),
		cmocka_unit_test(test_contexts),
		cmocka_unit_test(test_struct_members),
		cmocka_unit_test(test_struct_tails),
		cmocka_unit_test(test_schema),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
