/* filter_test_util.h — what the filter tests share: an expression rendered back as a tree,
 * key/value sets standing for an event's fields, the checker's schemas, parse-and-check,
 * evaluation by the AST and the IR at once, and error-case tables.  Include after
 * <cmocka.h>. */
#ifndef SCRY_FILTER_TEST_UTIL_H
#define SCRY_FILTER_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "filter/internal.h"

/* ---- helpers ---- */

/* Fully parenthesized rendering of the AST. */
static inline void render(const struct filter *f, uint32_t ni, char *buf, size_t n, size_t *l)
{
	const struct node *nd = &f->nodes[ni];
#define PUT(...) (*l += (size_t)snprintf(buf + *l, *l < n ? n - *l : 0, __VA_ARGS__))
	switch (nd->kind) {
	case N_INT:
		PUT("%lld", (long long)nd->ival);
		break;
	case N_STR:
		PUT("\"%s\"%s", f->strs[nd->idx].s, f->strs[nd->idx].glob ? "g" : "");
		break;
	case N_REF:
		PUT("%s", f->refs[nd->idx].text);
		break;
	case N_UNARY:
		PUT("(%.*s ", (int)nd->len, f->text + nd->pos);
		render(f, nd->a, buf, n, l);
		PUT(")");
		break;
	default:
		PUT("(");
		render(f, nd->a, buf, n, l);
		PUT(" %.*s ", (int)nd->len, f->text + nd->pos);
		render(f, nd->b, buf, n, l);
		PUT(")");
	}
#undef PUT
}

static inline void assert_tree(const char *text, const char *want)
{
	struct filter_error e;
	struct filter *f = filter_parse(text, &e);
	if (!f)
		fail_msg("parse '%s': %s at %zu", text, e.msg, e.offset);
	char buf[1024];
	size_t l = 0;
	render(f, f->root, buf, sizeof(buf), &l);
	if (strcmp(buf, want))
		fail_msg("'%s' parsed as %s, want %s", text, buf, want);
	filter_free(f);
}

/* Values for evaluation: by reference text. */
struct kv {
	const char *ref;
	bool is_str;
	int64_t i;
	const char *s;
	bool absent;
};

struct valset {
	const struct filter *f;
	const struct kv *kv;
	size_t n;
};

static inline int kv_get(void *arg, const struct filter_access *a, struct filter_value *out)
{
	struct valset *vs = arg;
	const char *name = filter_ref_text(vs->f, a->ref);
	for (size_t i = 0; i < vs->n; i++) {
		if (strcmp(vs->kv[i].ref, name))
			continue;
		if (vs->kv[i].absent)
			return -1;
		if (vs->kv[i].is_str) {
			out->s = vs->kv[i].s;
			out->len = strlen(vs->kv[i].s);
		} else {
			out->i = vs->kv[i].i;
		}
		return 0;
	}
	return -1;
}

/* ---- schemas used by the checker tests ---- */

static const struct filter_field ctx_std[] = {
	{ .name = "pid", .type = FF_INT, .is_signed = true },
	{ .name = "tid", .type = FF_INT, .is_signed = true },
	{ .name = "procname", .type = FF_STRING },
};

static const struct filter_field f_exit_read[] = {
	{ .name = "ret", .type = FF_INT, .is_signed = true },
};

static const struct filter_field f_openat[] = {
	{ .name = "dfd", .type = FF_INT, .is_signed = true },
	{ .name = "filename", .type = FF_STRING },
	{ .name = "flags", .type = FF_INT },
	{ .name = "mode", .type = FF_INT },
};

static const struct filter_field int_elem = { .type = FF_INT, .is_signed = true };
static const struct filter_field inner_m[] = { { .name = "x", .type = FF_INT } };
static const struct filter_field s_members[] = {
	{ .name = "a", .type = FF_INT },
	{ .name = "b", .type = FF_STRING },
	{ .name = "inner", .type = FF_STRUCT, .members = inner_m, .nmembers = 1 },
};
static const struct filter_field v_member[] = { { .name = "v", .type = FF_INT } };
static const struct filter_field sarr_elem = { .type = FF_STRUCT, .members = v_member, .nmembers = 1 };
static const struct filter_field f_complex[] = {
	{ .name = "s", .type = FF_STRUCT, .members = s_members, .nmembers = 3 },
	{ .name = "arr", .type = FF_ARRAY, .length = 4, .elem = &int_elem },
	{ .name = "sarr", .type = FF_ARRAY, .length = 2, .elem = &sarr_elem },
	{ .name = "seq", .type = FF_SEQUENCE, .elem = &int_elem },
	{ .name = "f", .type = FF_OTHER },
	{ .name = "ptr", .type = FF_INT },                      /* a pointer, its capture beside */
	{ .name = "_ptr", .type = FF_SEQUENCE, .elem = &int_elem },
};
static const struct filter_field f_name_str[] = { { .name = "name", .type = FF_STRING } };
static const struct filter_field f_name_int[] = { { .name = "name", .type = FF_INT } };

static const struct filter_schema events[] = {
	{ "syscall_exit_read", 1, f_exit_read, 3, ctx_std },
	{ "syscall_entry_openat", 4, f_openat, 2, ctx_std },   /* no procname context */
	{ "complex", 7, f_complex, 0, NULL },
	{ "named_str", 1, f_name_str, 0, NULL },
	{ "named_int", 1, f_name_int, 0, NULL },
};
#define NEVENTS (sizeof(events) / sizeof(events[0]))

/* Parse + check; returns f or NULL with e. */
static inline struct filter *parse_check(const char *text, struct filter_error *e)
{
	struct filter *f = filter_parse(text, e);
	if (!f)
		return NULL;
	if (filter_check(f, events, NEVENTS, e)) {
		filter_free(f);
		return NULL;
	}
	return f;
}

/* Evaluate a checked filter for event ev both ways (AST and IR); they must agree. */
static inline bool eval_both(struct filter *f, size_t ev, const struct kv *kv, size_t n)
{
	struct valset vs = { f, kv, n };
	struct filter_values v = { ev, kv_get, &vs };
	bool a = filter_eval(f, &v);
	struct filter_ir ir;
	struct filter_error e;
	if (filter_lower(f, &events[ev], &ir, &e))
		fail_msg("lower '%s': %s", f->text, e.msg);
	bool b = filter_ir_eval(&ir, &v);
	if (a != b) {
		filter_ir_dump(stderr, &ir);
		fail_msg("'%s': AST says %d, IR says %d", f->text, a, b);
	}
	filter_ir_free(&ir);
	return a;
}

/* A filter without references: evaluate, both ways. */
static inline bool const_eval(const char *text)
{
	struct filter_error e;
	struct filter *f = filter_parse(text, &e);
	if (!f)
		fail_msg("parse '%s': %s at %zu", text, e.msg, e.offset);
	struct filter_values v = { 0, kv_get, NULL };
	bool a = filter_eval(f, &v);
	struct filter_schema none = { "none", 0, NULL, 0, NULL };
	struct filter_ir ir;
	if (filter_lower(f, &none, &ir, &e))
		fail_msg("lower '%s': %s", text, e.msg);
	bool b = filter_ir_eval(&ir, &v);
	if (a != b)
		fail_msg("'%s': AST says %d, IR says %d", text, a, b);
	filter_ir_free(&ir);
	filter_free(f);
	return a;
}

struct err_case {
	const char *text;
	size_t off, len;
	const char *msg;       /* substring of the message */
};

static inline void check_errors(const struct err_case *c, size_t n, bool check)
{
	for (size_t i = 0; i < n; i++) {
		struct filter_error e;
		memset(&e, 0x5a, sizeof(e));
		struct filter *f = check ? parse_check(c[i].text, &e) : filter_parse(c[i].text, &e);
		if (f)
			fail_msg("'%s': accepted, expected error '%s'", c[i].text, c[i].msg);
		if (e.offset != c[i].off || e.len != c[i].len || !strstr(e.msg, c[i].msg))
			fail_msg("'%s': got \"%s\" at %zu+%zu, want \"%s\" at %zu+%zu", c[i].text, e.msg, e.offset,
				 e.len, c[i].msg, c[i].off, c[i].len);
		assert_null(strchr(e.msg, '\n'));
	}
}


#endif
