/* test_tsdl.c — TSDL parser, packetized metadata, plan compilation and bit-level decoding
 * (scry metadata, an LTTng kernel metadata excerpt with compact/large event headers,
 * timestamp wrap rule, variants, enums, malformed inputs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "view/plan.h"
#include "view/tsdl.h"
#include "view_gen.h"
#include "view_lttng_meta.h"

static struct ctf_metadata *parse_str(const char *s, char *err, size_t errlen)
{
	return tsdl_parse(s, strlen(s), err, errlen);
}

static const struct ctf_field *field(const struct ctf_type *t, const char *name)
{
	for (size_t i = 0; i < t->nfields; i++)
		if (!strcmp(t->fields[i].name, name))
			return &t->fields[i];
	return NULL;
}

static void test_scry_metadata(void **state)
{
	(void)state;
	char err[256] = "";
	struct ctf_metadata *m = parse_str(gen_metadata, err, sizeof(err));
	assert_non_null(m);
	assert_int_equal(m->major, 1);
	assert_int_equal(m->minor, 8);
	assert_true(m->has_uuid);
	assert_memory_equal(m->uuid, gen_uuid, 16);
	assert_int_equal(m->bo, CTF_BO_LE);
	assert_int_equal(m->nclocks, 1);
	assert_string_equal(m->clocks[0].name, "monotonic");
	assert_int_equal(m->clocks[0].freq, 1000000000);
	assert_int_equal(m->clocks[0].offset_s, GEN_OFFSET_S);
	assert_int_equal(m->clocks[0].offset, GEN_OFFSET_NS);
	assert_int_equal(m->nstreams, 1);
	assert_int_equal(m->nevents, 4);
	assert_string_equal(m->events[0].name, "syscall_entry_openat");
	assert_string_equal(m->events[3].name, "my_seq");
	assert_int_equal(m->events[3].id, 3);
	/* packet header */
	const struct ctf_type *ph = m->packet_header;
	assert_int_equal(ph->kind, CTF_T_STRUCT);
	assert_int_equal(ph->nfields, 4);
	assert_int_equal(field(ph, "uuid")->type->kind, CTF_T_ARRAY);
	assert_int_equal(field(ph, "uuid")->type->length, 16);
	/* multi-word alias */
	const struct ctf_type *pc = m->streams[0].packet_context;
	const struct ctf_type *ed = field(pc, "events_discarded")->type;
	assert_int_equal(ed->kind, CTF_T_INT);
	assert_int_equal(ed->size, 64);
	assert_string_equal(field(pc, "timestamp_begin")->type->map_clock, "monotonic");
	/* text array, string, sequence, enum */
	const struct ctf_type *ec = m->streams[0].event_context;
	assert_int_equal(field(ec, "_procname")->type->kind, CTF_T_ARRAY);
	assert_int_equal(field(ec, "_procname")->type->elem->encoding, CTF_ENC_UTF8);
	const struct ctf_type *seq = m->events[3].fields;
	assert_int_equal(field(seq, "vals")->type->kind, CTF_T_SEQ);
	assert_string_equal(field(seq, "vals")->type->length_ref, "_vals_length");
	const struct ctf_type *en = field(seq, "state")->type;
	assert_int_equal(en->kind, CTF_T_ENUM);
	assert_int_equal(en->nentries, 3);
	assert_string_equal(en->entries[1].label, "SLEEPING");
	assert_int_equal(en->entries[1].lo, 1);
	assert_int_equal(en->entries[1].hi, 2);
	assert_string_equal(en->entries[2].label, "DEAD");
	assert_int_equal(field(seq, "ptr")->type->base, 16);
	assert_int_equal(field(m->events[0].fields, "mode")->type->base, 8);
	tsdl_free(m);
}

static void test_lttng_metadata(void **state)
{
	(void)state;
	char err[256] = "";
	struct ctf_metadata *m = parse_str(lttng_kernel_metadata, err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	assert_int_equal(m->nstreams, 2);
	assert_int_equal(m->nevents, 3);
	assert_string_equal(m->env_hostname, "box");
	assert_int_equal(m->clocks[0].offset, 1710000000123456789ULL);
	const struct ctf_type *eh = m->streams[0].event_header;
	assert_int_equal(eh->align, 8);
	const struct ctf_type *id = field(eh, "id")->type;
	assert_int_equal(id->kind, CTF_T_ENUM);
	assert_int_equal(id->container->size, 5);
	assert_int_equal(id->container->align, 1);
	assert_int_equal(id->entries[0].hi, 30);
	const struct ctf_type *v = field(eh, "v")->type;
	assert_int_equal(v->kind, CTF_T_VARIANT);
	assert_string_equal(v->tag, "id");
	assert_int_equal(v->nfields, 2);
	assert_int_equal(v->fields[0].type->fields[0].type->size, 27);
	assert_string_equal(v->fields[0].type->fields[0].type->map_clock, "monotonic");
	assert_int_equal(m->events[1].loglevel, 13);
	const struct ctf_type *prev_state = field(m->events[0].fields, "_prev_state")->type;
	assert_int_equal(prev_state->kind, CTF_T_ENUM);
	assert_int_equal(prev_state->nentries, 14);
	assert_int_equal(prev_state->container->size, 64);
	assert_true(prev_state->container->is_signed);
	const struct ctf_type *fl = field(m->events[1].fields, "_load")->type;
	assert_int_equal(fl->kind, CTF_T_FLOAT);
	assert_int_equal(fl->size, 64);
	tsdl_free(m);
}

struct compiled {
	struct ctf_metadata *m;
	struct plan ph, pc, eh, ec;
	struct plan ctx[4], fields[4];
	struct plan_ctx c;
	char err[256];
};

static void compile_stream(struct compiled *k, size_t si)
{
	memset(&k->c, 0, sizeof(k->c));
	k->c.arena = &k->m->arena;
	k->c.trace_bo = k->m->bo;
	k->c.err = k->err;
	k->c.errlen = sizeof(k->err);
	const struct ctf_stream_class *sc = &k->m->streams[si];
	assert_int_equal(plan_compile(&k->c, k->m->packet_header, SCOPE_PACKET_HEADER, &k->ph), 0);
	k->c.scopes[k->c.nscopes++] = &k->ph;
	assert_int_equal(plan_compile(&k->c, sc->packet_context, SCOPE_PACKET_CONTEXT, &k->pc), 0);
	k->c.scopes[k->c.nscopes++] = &k->pc;
	assert_int_equal(plan_compile(&k->c, sc->event_header, SCOPE_EVENT_HEADER, &k->eh), 0);
	k->c.scopes[k->c.nscopes++] = &k->eh;
	assert_int_equal(plan_compile(&k->c, sc->event_context, SCOPE_OTHER, &k->ec), 0);
	k->c.scopes[k->c.nscopes++] = &k->ec;
	for (size_t e = 0; e < k->m->nevents && e < 4; e++) {
		if (k->m->events[e].stream_id != sc->id)
			continue;
		if (plan_compile(&k->c, k->m->events[e].fields, SCOPE_OTHER, &k->fields[e]))
			fail_msg("%s", k->err);
	}
}

static void compiled_free(struct compiled *k)
{
	plan_free(&k->ph);
	plan_free(&k->pc);
	plan_free(&k->eh);
	plan_free(&k->ec);
	for (int i = 0; i < 4; i++) {
		plan_free(&k->ctx[i]);
		plan_free(&k->fields[i]);
	}
	tsdl_free(k->m);
}

/* LTTng compact header: 5-bit id + 27-bit timestamp, the wrap rule, extended header. */
static void test_compact_header_decode(void **state)
{
	(void)state;
	struct compiled k = { 0 };
	k.m = parse_str(lttng_kernel_metadata, k.err, sizeof(k.err));
	assert_non_null(k.m);
	compile_stream(&k, 0);
	uint8_t buf[64];
	size_t n = 0;
	uint32_t w = 1u | (0x7FFFFF0u << 5);        /* id 1, ts low 0x7FFFFF0 */
	memcpy(buf + n, &w, 4);
	n += 4;
	w = 0u | (0x10u << 5);                       /* id 0, ts low 0x10: wraps */
	memcpy(buf + n, &w, 4);
	n += 4;
	buf[n++] = 31;                               /* extended */
	uint32_t xid = 2;
	memcpy(buf + n, &xid, 4);
	n += 4;
	uint64_t xts = 0x300000000ULL;
	memcpy(buf + n, &xts, 8);
	n += 8;
	struct dec_state st;
	memset(&st, 0, sizeof(st));
	st.clock = 0x200000000ULL + 0x7000000ULL;
	struct cursor cur = { buf, 0, n * 8 };
	char err[256];
	assert_int_equal(plan_exec(&k.eh, &cur, &st, NULL, err, sizeof(err)), 0);
	assert_int_equal(st.role[ROLE_EVENT_ID], 1);
	assert_int_equal(st.clock, 0x200000000ULL + 0x7FFFFF0ULL);
	assert_int_equal(cur.pos, 32);
	assert_int_equal(plan_exec(&k.eh, &cur, &st, NULL, err, sizeof(err)), 0);
	assert_int_equal(st.role[ROLE_EVENT_ID], 0);
	assert_int_equal(st.clock, 0x200000000ULL + 0x8000000ULL + 0x10);
	assert_int_equal(plan_exec(&k.eh, &cur, &st, NULL, err, sizeof(err)), 0);
	assert_int_equal(st.role[ROLE_EVENT_ID], 2);
	assert_int_equal(st.clock, 0x300000000ULL);
	assert_int_equal(cur.pos, n * 8);
	/* truncated: error, no read past the limit */
	cur.pos = 0;
	cur.limit = 20;
	assert_int_equal(plan_exec(&k.eh, &cur, &st, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "past the packet"));
	compiled_free(&k);
}

/* sched_process_fork payload: text array, sequence with a length field, hex, string, float */
static void test_payload_decode(void **state)
{
	(void)state;
	struct compiled k = { 0 };
	k.m = parse_str(lttng_kernel_metadata, k.err, sizeof(k.err));
	assert_non_null(k.m);
	compile_stream(&k, 0);
	uint8_t buf[128] = { 0 };
	size_t n = 0;
	memcpy(buf, "bash", 4);
	n = 16;
	int32_t tid = 77;
	memcpy(buf + n, &tid, 4);
	n += 4;
	buf[n++] = 2;
	int32_t vt[2] = { 5, -6 };
	memcpy(buf + n, vt, 8);
	n += 8;
	uint64_t inum = 0xF0000001ULL;
	memcpy(buf + n, &inum, 8);
	n += 8;
	memcpy(buf + n, "/bin/x", 7);
	n += 7;
	double d = 1.5;
	memcpy(buf + n, &d, 8);
	n += 8;
	struct dec_state st;
	memset(&st, 0, sizeof(st));
	struct vbuf vb = { 0 };
	struct cursor cur = { buf, 0, n * 8 };
	char err[256];
	assert_int_equal(plan_exec(&k.fields[1], &cur, &st, &vb, err, sizeof(err)), 0);
	assert_int_equal(cur.pos, n * 8);
	/* values: text, tid, len, array(2), 5, -6, inum, string, float */
	assert_int_equal(vb.n, 9);
	assert_int_equal(vb.v[0].u, 16);
	assert_memory_equal(vb.v[0].p, "bash", 5);
	assert_int_equal(vb.v[1].u, 77);
	assert_int_equal(vb.v[2].u, 2);
	assert_int_equal(vb.v[3].u, 2);
	assert_int_equal((int64_t)vb.v[4].u, 5);
	assert_int_equal((int64_t)vb.v[5].u, -6);
	assert_int_equal(vb.v[6].u, 0xF0000001ULL);
	assert_int_equal(vb.v[7].u, 6);
	assert_memory_equal(vb.v[7].p, "/bin/x", 6);
	double got;
	memcpy(&got, &vb.v[8].u, 8);
	assert_true(got == 1.5);
	/* display names: one leading underscore stripped */
	assert_string_equal(k.fields[1].ops[3].name, "_vtids_length");
	assert_string_equal(k.fields[1].ops[4].name, "vtids");
	/* missing string terminator inside the limit → error */
	vb.n = 0;
	cur.pos = 0;
	cur.limit = (n - 10) * 8;
	assert_int_equal(plan_exec(&k.fields[1], &cur, &st, &vb, err, sizeof(err)), -1);
	free(vb.v);
	compiled_free(&k);
}

static void test_big_endian_bits(void **state)
{
	(void)state;
	const char *md = "typealias integer { size = 4; align = 1; signed = true; byte_order = be; } := s4;\n"
			 "typealias integer { size = 12; align = 1; signed = false; byte_order = be; base = x; } := u12;\n"
			 "trace { major = 1; minor = 8; byte_order = be; };\n"
			 "event { name = \"e\"; fields := struct { s4 a; u12 b; integer { size = 16; } c; }; };\n";
	char err[256];
	struct ctf_metadata *m = parse_str(md, err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	struct plan p;
	struct plan_ctx c = { .arena = &m->arena, .trace_bo = m->bo, .err = err, .errlen = sizeof(err) };
	assert_int_equal(plan_compile(&c, m->events[0].fields, SCOPE_OTHER, &p), 0);
	uint8_t buf[4] = { 0xE1, 0x23, 0x12, 0x34 };  /* a = 0xE = -2, b = 0x123, c = 0x1234 (BE) */
	struct dec_state st = { 0 };
	struct vbuf vb = { 0 };
	struct cursor cur = { buf, 0, 32 };
	assert_int_equal(plan_exec(&p, &cur, &st, &vb, err, sizeof(err)), 0);
	assert_int_equal((int64_t)vb.v[0].u, -2);
	assert_int_equal(vb.v[1].u, 0x123);
	assert_int_equal(vb.v[2].u, 0x1234);
	free(vb.v);
	plan_free(&p);
	tsdl_free(m);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* metadata in packets (LTTng's on-disk form), both byte orders */
static void test_packetized(void **state)
{
	(void)state;
	for (int be = 0; be < 2; be++) {
		size_t tl = strlen(lttng_kernel_metadata), half = tl / 2;
		uint8_t *buf = calloc(1, tl + 4 * 64);
		size_t off = 0;
		for (int part = 0; part < 2; part++) {
			size_t body = part ? tl - half : half;
			uint8_t *h = buf + off;
			uint32_t content = (uint32_t)(37 + body) * 8, packet = content + 8 * 11; /* 11 bytes padding */
			uint32_t vals[4] = { 0x75D11D57u, 0, content, packet };
			size_t at[4] = { 0, 20, 24, 28 };
			for (int i = 0; i < 4; i++) {
				if (be)
					put_be32(h + at[i], vals[i]);
				else
					memcpy(h + at[i], &vals[i], 4);
			}
			h[35] = 1;
			h[36] = 8;
			memcpy(h + 37, lttng_kernel_metadata + (part ? half : 0), body);
			off += packet / 8;
		}
		size_t outlen;
		char err[256];
		char *text = tsdl_unpacketize(buf, off, &outlen, err, sizeof(err));
		assert_non_null(text);
		assert_int_equal(outlen, tl);
		assert_memory_equal(text, lttng_kernel_metadata, tl);
		free(text);
		/* truncated packet → error */
		assert_null(tsdl_unpacketize(buf, off - 5, &outlen, err, sizeof(err)));
		free(buf);
	}
	/* plain text passes through */
	size_t outlen;
	char err[64];
	char *t = tsdl_unpacketize((const uint8_t *)"abc", 3, &outlen, err, sizeof(err));
	assert_string_equal(t, "abc");
	free(t);
}

static void test_malformed(void **state)
{
	(void)state;
	static const char *bad[] = {
		"trace { major = 1; ",
		"typealias integer { size = 0; } := x;",
		"typealias integer { size = 65; } := x;",
		"typealias integer { size = 8; align = 3; } := x;",
		"event { name = \"x\"; fields := struct { nosuchtype a; }; };",
		"event { fields := struct { }; };",
		"trace { uuid = \"not-a-uuid\"; };",
		"struct { integer { size = 8; } a[; };",
		"\"unterminated",
		"enum e : integer { size = 8; } { A = , };",
		"clock { name = c; freq = 0; };",
		"trace { major = 2; minor = 0; };",
		"stream { id = 0; }; stream { id = 0; };",
		"typealias floating_point { exp_dig = 3; mant_dig = 3; } := f;",
		"@",
		"typealias integer { size = 8; } := uint8_t; event { name = e; fields := struct { uint8_t a[0x; }; };",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[256] = "";
		struct ctf_metadata *m = parse_str(bad[i], err, sizeof(err));
		if (m)
			fail_msg("accepted: %s", bad[i]);
		assert_true(err[0] != '\0');
	}
	/* every prefix of the real metadata: no crash (success or error) */
	size_t tl = strlen(lttng_kernel_metadata);
	for (size_t l = 0; l <= tl; l += 7) {
		char err[256];
		char *copy = malloc(l ? l : 1);
		memcpy(copy, lttng_kernel_metadata, l);
		struct ctf_metadata *m = tsdl_parse(copy, l, err, sizeof(err));
		tsdl_free(m);
		free(copy);
	}
	/* unresolvable sequence length / untagged variant are compile errors */
	static const char *badplan[] = {
		"event { name = e; fields := struct { integer { size = 8; } a[nolen]; }; };",
		"event { name = e; fields := struct { variant { integer { size = 8; } x; } v; }; };",
		"event { name = e; fields := struct { integer { size = 8; } t; variant <t> { integer { size = 8; } x; } v; }; };",
	};
	for (size_t i = 0; i < sizeof(badplan) / sizeof(badplan[0]); i++) {
		char err[256] = "";
		struct ctf_metadata *m = parse_str(badplan[i], err, sizeof(err));
		if (!m)
			fail_msg("%s: %s", badplan[i], err);
		struct plan p;
		struct plan_ctx c = { .arena = &m->arena, .err = err, .errlen = sizeof(err) };
		assert_int_equal(plan_compile(&c, m->events[0].fields, SCOPE_OTHER, &p), -1);
		assert_true(err[0] != '\0');
		tsdl_free(m);
	}
}

static void test_misc_syntax(void **state)
{
	(void)state;
	const char *md = "// line comment\n"
			 "typedef integer { size = 32; align = 32; signed = true; } int;\n"
			 "enum colors { RED, GREEN = 5, BLUE, \"with space\" = -3 ... -1 };\n"
			 "struct pt { int x, y; } align(64);\n"
			 "variant choice { int a; string b; };\n"
			 "event { name = e; id = 7; fields := struct {\n"
			 "  enum colors c; struct pt p; int m[2][3];\n"
			 "  variant choice <c> v;\n"
			 "  string { encoding = ASCII; } s;\n"
			 "}; };\n";
	char err[256];
	struct ctf_metadata *m = parse_str(md, err, sizeof(err));
	if (!m)
		fail_msg("%s", err);
	const struct ctf_type *f = m->events[0].fields;
	const struct ctf_type *c = field(f, "c")->type;
	assert_int_equal(c->nentries, 4);
	assert_int_equal(c->entries[2].lo, 6);
	assert_int_equal(c->entries[3].lo, -3);
	assert_int_equal(c->entries[3].hi, -1);
	assert_int_equal(field(f, "p")->type->align, 64);
	assert_int_equal(field(f, "p")->type->nfields, 2);
	const struct ctf_type *mm = field(f, "m")->type;
	assert_int_equal(mm->length, 2);
	assert_int_equal(mm->elem->length, 3);
	assert_string_equal(field(f, "v")->type->tag, "c");
	assert_int_equal(m->events[0].id, 7);
	tsdl_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scry_metadata),
		cmocka_unit_test(test_lttng_metadata),
		cmocka_unit_test(test_compact_header_decode),
		cmocka_unit_test(test_payload_decode),
		cmocka_unit_test(test_big_endian_bits),
		cmocka_unit_test(test_packetized),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_misc_syntax),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
