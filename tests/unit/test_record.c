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

/* Records with call stacks as the programs write them: each stack's word (count | offset
 * << 16) among the contexts, the frames past the payload (a reservation's unused room
 * after them); the CTF form puts each stack's count and frames in its place, the payload
 * right after. */
static void test_callstacks(void **state)
{
	(void)state;
	uint64_t mask = (1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_CALLSTACK_KERNEL) | (1ULL << SCRY_CTX_CALLSTACK_USER);
	struct scry_record_layout l;
	uint8_t rec[SCRY_EVENT_HEADER_SIZE + 4 + 2 * 4 + 8 + 3 * 8 + 40], out[sizeof(rec)];
	struct scry_record r;
	uint32_t n, w, two = 2, one = 1;
	uint64_t a[3] = { 0xffffffff81000130ull, 0xffffffff8225a85full, 0x401126 },
		 payload = 0x1122334455667788ull, v;
	const uint64_t *st;
	size_t sz, fr;
	int32_t pid = 42;

	scry_record_layout_init(&l, mask);
	assert_int_equal(l.payload_off, SCRY_EVENT_HEADER_SIZE + 4 + 2 * 4);
	fr = l.payload_off + 8;                 /* the frames: after the 8-byte payload */
	memset(rec, 0xee, sizeof(rec));     /* the unused room: garbage that must not survive */
	memcpy(rec + SCRY_EVENT_HEADER_SIZE, &pid, 4);
	w = 2 | (uint32_t)fr << 16;
	memcpy(rec + l.ctx_off[SCRY_CTX_CALLSTACK_KERNEL], &w, 4);
	w = 1 | (uint32_t)(fr + 16) << 16;
	memcpy(rec + l.ctx_off[SCRY_CTX_CALLSTACK_USER], &w, 4);
	memcpy(rec + l.payload_off, &payload, 8);
	memcpy(rec + fr, a, 24);
	assert_int_equal(scry_record_read(&l, rec, sizeof(rec), &r), 0);
	assert_int_equal(r.payload_size, 8);
	assert_non_null(st = scry_record_callstack(&l, &r, SCRY_CTX_CALLSTACK_KERNEL, &n));
	assert_int_equal(n, 2);
	memcpy(&v, st + 1, 8);
	assert_true(v == a[1]);
	assert_non_null(st = scry_record_callstack(&l, &r, SCRY_CTX_CALLSTACK_USER, &n));
	assert_int_equal(n, 1);
	memcpy(&v, st, 8);
	assert_true(v == a[2]);
	assert_null(scry_record_callstack(&l, &r, SCRY_CTX_PID, &n));
	sz = scry_record_compact(&l, rec, sizeof(rec), out);
	assert_int_equal(sz, SCRY_EVENT_HEADER_SIZE + 4 + (4 + 16) + (4 + 8) + 8);
	assert_memory_equal(out, rec, SCRY_EVENT_HEADER_SIZE + 4);
	assert_memory_equal(out + SCRY_EVENT_HEADER_SIZE + 4, &two, 4);
	assert_memory_equal(out + SCRY_EVENT_HEADER_SIZE + 8, a, 16);
	assert_memory_equal(out + SCRY_EVENT_HEADER_SIZE + 24, &one, 4);
	assert_memory_equal(out + SCRY_EVENT_HEADER_SIZE + 28, a + 2, 8);
	assert_memory_equal(out + sz - 8, &payload, 8);
	assert_int_equal(scry_record_compact(&l, rec, 20, out), 0);   /* too short */
	/* the user word pointing into the kernel stack's frames: dropped, out within size */
	w = 1 | (uint32_t)(fr + 8) << 16;
	memcpy(rec + l.ctx_off[SCRY_CTX_CALLSTACK_USER], &w, 4);
	sz = scry_record_compact(&l, rec, sizeof(rec), out);
	assert_int_equal(sz, SCRY_EVENT_HEADER_SIZE + 4 + (4 + 16) + 4 + 8);
	assert_memory_equal(out + SCRY_EVENT_HEADER_SIZE + 24, "\0\0\0\0", 4);

	/* a word placing frames past the record's end (or none written): no frames, and the
	 * payload up to the record's end */
	w = 100 | (uint32_t)fr << 16;
	memcpy(rec + l.ctx_off[SCRY_CTX_CALLSTACK_USER], &w, 4);
	w = 0;
	memcpy(rec + l.ctx_off[SCRY_CTX_CALLSTACK_KERNEL], &w, 4);
	assert_int_equal(scry_record_read(&l, rec, l.payload_off + 8, &r), 0);
	assert_int_equal(r.payload_size, 8);
	assert_non_null(scry_record_callstack(&l, &r, SCRY_CTX_CALLSTACK_USER, &n));
	assert_int_equal(n, 0);
	sz = scry_record_compact(&l, rec, l.payload_off + 8, out);
	assert_int_equal(sz, SCRY_EVENT_HEADER_SIZE + 4 + 4 + 4 + 8);
	assert_memory_equal(out + sz - 8, &payload, 8);
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
