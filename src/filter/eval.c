/* eval.c — user-space evaluation of a checked filter over one event's values (fetched through
 * the caller's callback), with LTTng's semantics: int64 values, bitwise operators on the
 * uint64 representation, a shift count outside [0, 63] or an absent value makes the whole
 * expression false, && and || short-circuit.  Also the star-glob matcher. */
#include <string.h>
#include "filter/internal.h"

bool filter_glob_match(const char *pat, size_t plen, const char *s, size_t slen)
{
	size_t p = 0, i = 0;
	size_t star_p = SIZE_MAX, star_i = 0;
	while (i < slen) {
		if (p < plen && pat[p] == '*') {
			star_p = ++p;
			star_i = i;
			continue;
		}
		if (p < plen) {
			char c = pat[p];
			size_t adv = 1;
			if (c == '\\' && p + 1 < plen) {
				c = pat[p + 1];
				adv = 2;
			}
			if (c == s[i]) {
				p += adv;
				i++;
				continue;
			}
		}
		if (star_p == SIZE_MAX)
			return false;
		/* let the last star swallow one more byte */
		p = star_p;
		i = ++star_i;
	}
	while (p < plen && pat[p] == '*')
		p++;
	return p == plen;
}

bool str_equal(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && (alen == 0 || !memcmp(a, b, alen));
}

size_t str_cut(const char *s, size_t len)
{
	const char *z = s ? memchr(s, 0, len) : NULL;
	return z ? (size_t)(z - s) : (s ? len : 0);
}

struct ev {
	const struct filter *f;
	const struct filter_access *acc;     /* nrefs accesses of this event */
	const struct filter_values *v;
	bool abort;
};

static bool is_cmp(uint8_t op)
{
	return op == T_EQ || op == T_NE || op == T_LT || op == T_LE || op == T_GT || op == T_GE;
}

/* A string operand: a literal, or a string reference. */
static bool get_str(struct ev *c, const struct node *n, const char **s, size_t *len, bool *glob)
{
	if (n->kind == N_STR) {
		const struct fstr *fs = &c->f->strs[n->idx];
		*s = fs->s;
		*len = fs->len;
		*glob = fs->glob;
		return true;
	}
	struct filter_value val = { 0 };
	if (c->v->get(c->v->arg, &c->acc[n->idx], &val)) {
		c->abort = true;
		return false;
	}
	*s = val.s;
	*len = str_cut(val.s, val.len);
	*glob = false;
	return true;
}

static bool is_str_operand(const struct ev *c, const struct node *n)
{
	return n->kind == N_STR || (n->kind == N_REF && c->acc[n->idx].type == FF_STRING);
}

static int64_t eval_node(struct ev *c, uint32_t ni)
{
	const struct node *n = &c->f->nodes[ni];
	switch (n->kind) {
	case N_INT:
		return n->ival;
	case N_REF: {
		struct filter_value val = { 0 };
		if (c->v->get(c->v->arg, &c->acc[n->idx], &val)) {
			c->abort = true;
			return 0;
		}
		return val.i;
	}
	case N_UNARY: {
		int64_t x = eval_node(c, n->a);
		if (c->abort)
			return 0;
		switch (n->op) {
		case T_MINUS: return (int64_t)(0 - (uint64_t)x);
		case T_NOT: return !x;
		case T_BNOT: return (int64_t)~(uint64_t)x;
		default: return x;
		}
	}
	case N_LOGICAL: {
		int64_t l = eval_node(c, n->a);
		if (c->abort)
			return 0;
		if (n->op == T_LAND ? !l : !!l)
			return n->op == T_LOR;
		int64_t r = eval_node(c, n->b);
		return c->abort ? 0 : r != 0;
	}
	case N_BINARY: {
		const struct node *na = &c->f->nodes[n->a], *nb = &c->f->nodes[n->b];
		if (is_cmp(n->op) && (is_str_operand(c, na) || is_str_operand(c, nb))) {
			const char *s1, *s2;
			size_t l1, l2;
			bool g1, g2, m;
			if (!get_str(c, na, &s1, &l1, &g1) || !get_str(c, nb, &s2, &l2, &g2))
				return 0;
			if (g1)
				m = filter_glob_match(s1, l1, s2, l2);
			else if (g2)
				m = filter_glob_match(s2, l2, s1, l1);
			else
				m = str_equal(s1, l1, s2, l2);
			return n->op == T_EQ ? m : n->op == T_NE ? !m : 0;
		}
		int64_t l = eval_node(c, n->a);
		if (c->abort)
			return 0;
		int64_t r = eval_node(c, n->b);
		if (c->abort)
			return 0;
		uint64_t ul = (uint64_t)l, ur = (uint64_t)r;
		switch (n->op) {
		case T_EQ: return l == r;
		case T_NE: return l != r;
		case T_LT: return l < r;
		case T_LE: return l <= r;
		case T_GT: return l > r;
		case T_GE: return l >= r;
		case T_BAND: return (int64_t)(ul & ur);
		case T_BOR: return (int64_t)(ul | ur);
		case T_BXOR: return (int64_t)(ul ^ ur);
		case T_SHL:
		case T_SHR:
			if (r < 0 || r > 63) {
				c->abort = true;
				return 0;
			}
			return (int64_t)(n->op == T_SHL ? ul << r : ul >> r);
		}
		return 0;
	}
	}
	return 0;
}

bool filter_eval(const struct filter *f, const struct filter_values *v)
{
	struct ev c = { f, NULL, v, false };
	if (f->checked) {
		if (v->event >= f->nevents || f->ev_status[v->event] != FILTER_EV_MATCHABLE)
			return false;
		c.acc = &f->access[v->event * f->nrefs];
	} else if (f->nrefs) {
		return false;
	}
	int64_t r = eval_node(&c, f->root);
	return !c.abort && r != 0;
}
