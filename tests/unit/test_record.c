/* test_record.c — the record reader (src/catalog/record.c): context offsets for a mask, the
 * header, integer contexts sign-extended as their type says, procname, records too short. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "catalog/record.h"

#define BIT(c) (1ULL << (c))

static void test_layout(void **state)
{
	struct scry_record_layout l;

	scry_record_layout_init(&l, BIT(SCRY_CTX_PID) | BIT(SCRY_CTX_TID) | BIT(SCRY_CTX_PROCNAME));
	assert_int_equal(l.ctx_off[SCRY_CTX_PID], SCRY_EVENT_HEADER_SIZE);
	assert_int_equal(l.ctx_off[SCRY_CTX_TID], SCRY_EVENT_HEADER_SIZE + 4);
	assert_int_equal(l.ctx_off[SCRY_CTX_PROCNAME], SCRY_EVENT_HEADER_SIZE + 8);
	assert_int_equal(l.ctx_off[SCRY_CTX_PPID], -1);
	assert_int_equal(l.payload_off, SCRY_EVENT_HEADER_SIZE + 8 + SCRY_COMM_LEN);

	/* enum order, whatever the order of the bits given: procname before uid */
	scry_record_layout_init(&l, BIT(SCRY_CTX_UID) | BIT(SCRY_CTX_PROCNAME) | BIT(SCRY_CTX_NICE));
	assert_int_equal(l.ctx_off[SCRY_CTX_PROCNAME], SCRY_EVENT_HEADER_SIZE);
	assert_int_equal(l.ctx_off[SCRY_CTX_UID], SCRY_EVENT_HEADER_SIZE + SCRY_COMM_LEN);
	assert_int_equal(l.ctx_off[SCRY_CTX_NICE], SCRY_EVENT_HEADER_SIZE + SCRY_COMM_LEN + 4);
	assert_int_equal(l.payload_off, SCRY_EVENT_HEADER_SIZE + SCRY_COMM_LEN + 8);

	scry_record_layout_init(&l, 0);
	assert_int_equal(l.payload_off, SCRY_EVENT_HEADER_SIZE);
}

static void test_read(void **state)
{
	struct scry_record_layout l;
	struct scry_record r;
	uint8_t b[64] = { 0 };
	uint16_t id = 513;
	uint64_t ts = 0x0123456789abcdefULL;
	int32_t pid = 4242, nice = -5;
	uint32_t uid = 0xfffffffeu;
	int64_t v;
	size_t len;

	scry_record_layout_init(&l, BIT(SCRY_CTX_PID) | BIT(SCRY_CTX_PROCNAME) | BIT(SCRY_CTX_UID) |
				    BIT(SCRY_CTX_NICE));
	memcpy(b, &id, 2);
	memcpy(b + 2, &ts, 8);
	memcpy(b + l.ctx_off[SCRY_CTX_PID], &pid, 4);
	memcpy(b + l.ctx_off[SCRY_CTX_PROCNAME], "sh", 2);
	memcpy(b + l.ctx_off[SCRY_CTX_UID], &uid, 4);
	memcpy(b + l.ctx_off[SCRY_CTX_NICE], &nice, 4);
	memcpy(b + l.payload_off, "\x07\x00", 2);

	assert_int_equal(scry_record_read(&l, b, l.payload_off + 2, &r), 0);
	assert_int_equal(r.id, 513);
	assert_true(r.ts == ts);
	assert_ptr_equal(r.payload, b + l.payload_off);
	assert_int_equal(r.payload_size, 2);
	assert_true(scry_record_ctx(&l, &r, SCRY_CTX_PID, &v));
	assert_int_equal(v, 4242);
	assert_true(scry_record_ctx(&l, &r, SCRY_CTX_NICE, &v));
	assert_int_equal(v, -5);                     /* signed */
	assert_true(scry_record_ctx(&l, &r, SCRY_CTX_UID, &v));
	assert_true(v == 0xfffffffeLL);              /* unsigned: not sign-extended */
	assert_false(scry_record_ctx(&l, &r, SCRY_CTX_TID, &v));       /* not recorded */
	assert_false(scry_record_ctx(&l, &r, SCRY_CTX_PROCNAME, &v));  /* not an integer */
	assert_false(scry_record_ctx(&l, &r, -1, &v));
	assert_false(scry_record_ctx(&l, &r, SCRY_CTX_NR, &v));
	assert_string_equal(scry_record_procname(&l, &r, &len), "sh");
	assert_int_equal(len, 2);

	/* a header without all its contexts */
	assert_int_equal(scry_record_read(&l, b, l.payload_off - 1, &r), -1);
	assert_int_equal(scry_record_read(&l, b, l.payload_off, &r), 0);
	assert_int_equal(r.payload_size, 0);

	scry_record_layout_init(&l, BIT(SCRY_CTX_PID));
	assert_int_equal(scry_record_read(&l, b, l.payload_off, &r), 0);
	assert_null(scry_record_procname(&l, &r, &len));
}

/* Records with call stacks: every slot as the programs write them; the CTF form keeps each
 * stack's length entries and the payload right after. */
static void test_callstacks(void **state)
{
	(void)state;
	uint64_t mask = (1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_CALLSTACK_KERNEL) | (1ULL << SCRY_CTX_CALLSTACK_USER);
	struct scry_record_layout l;
	static uint8_t rec[SCRY_EVENT_HEADER_SIZE + 4 + 2 * (4 + 8 * SCRY_CALLSTACK_SLOTS) + 8], out[sizeof(rec)];
	struct scry_record r;
	uint32_t n, two = 2, zero = 0;
	uint64_t a[2] = { 0xffffffff81000130ull, 0xffffffff8225a85full }, payload = 0x1122334455667788ull, v;
	const uint64_t *st;
	size_t sz;
	int32_t pid = 42;

	scry_record_layout_init(&l, mask);
	assert_int_equal(l.payload_off, sizeof(rec) - 8);
	memset(rec, 0xee, sizeof(rec));     /* unused slots: garbage that must not survive */
	memcpy(rec + SCRY_EVENT_HEADER_SIZE, &pid, 4);
	memcpy(rec + l.ctx_off[SCRY_CTX_CALLSTACK_KERNEL], &two, 4);
	memcpy(rec + l.ctx_off[SCRY_CTX_CALLSTACK_KERNEL] + 4, a, 16);
	memcpy(rec + l.ctx_off[SCRY_CTX_CALLSTACK_USER], &zero, 4);
	memcpy(rec + l.payload_off, &payload, 8);
	assert_int_equal(scry_record_read(&l, rec, sizeof(rec), &r), 0);
	assert_non_null(st = scry_record_callstack(&l, &r, SCRY_CTX_CALLSTACK_KERNEL, &n));
	assert_int_equal(n, 2);
	memcpy(&v, st + 1, 8);
	assert_true(v == a[1]);
	assert_non_null(scry_record_callstack(&l, &r, SCRY_CTX_CALLSTACK_USER, &n));
	assert_int_equal(n, 0);
	assert_null(scry_record_callstack(&l, &r, SCRY_CTX_PID, &n));
	sz = scry_record_compact(&l, rec, sizeof(rec), out);
	assert_int_equal(sz, SCRY_EVENT_HEADER_SIZE + 4 + (4 + 16) + 4 + 8);
	assert_memory_equal(out, rec, SCRY_EVENT_HEADER_SIZE + 4 + 4 + 16);
	assert_memory_equal(out + SCRY_EVENT_HEADER_SIZE + 4 + 20, &zero, 4);
	assert_memory_equal(out + sz - 8, &payload, 8);
	assert_int_equal(scry_record_compact(&l, rec, 20, out), 0);   /* too short */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_callstacks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
