/* parser.c — filter expression -> AST, by precedence climbing over LTTng's levels
 * (lowest first): || && (== !=) (< <= > >=) | ^ & (<< >>) unary.  Recursion is bounded by
 * FILTER_MAX_DEPTH (parentheses and unary chains), the tree height by FILTER_MAX_HEIGHT, and
 * the node count by FILTER_MAX_NODES.  Also: references (deduplicated by canonical text), literal-only type
 * errors, and the error printer. */
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"
#include "filter/internal.h"

void ferr_set(struct filter_error *e, size_t off, size_t len, const char *fmt, ...)
{
	if (!e)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	for (char *c = e->msg; *c; c++)      /* one line: quoted tokens may hold control bytes */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	e->offset = off;
	e->len = len;
}

void filter_error_print(FILE *f, const char *text, const struct filter_error *e)
{
	fprintf(f, "scry: filter: %s\n", e->msg);
	if (!text)
		return;
	size_t n = strlen(text);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		fputc(c < 0x20 || c == 0x7f ? ' ' : c, f);
	}
	fputc('\n', f);
	size_t off = e->offset > n ? n : e->offset;
	for (size_t i = 0; i < off; i++)
		if (((unsigned char)text[i] & 0xC0) != 0x80)   /* one column per UTF-8 character */
			fputc(' ', f);
	fputc('^', f);
	size_t end = off + e->len > n ? n : off + e->len;
	for (size_t i = off + 1; i < end; i++)
		if (((unsigned char)text[i] & 0xC0) != 0x80)
			fputc('~', f);
	fputc('\n', f);
}

struct parser {
	struct lexer lx;
	struct token tok;
	struct filter *f;
	struct filter_error *err;
	int depth;
	uint32_t cap_nodes, cap_strs;
};

static int advance(struct parser *p)
{
	free(p->tok.str);
	p->tok.str = NULL;
	return lex_next(&p->lx, &p->tok);
}

/* The current token, quoted for a message. */
static void tok_text(const struct parser *p, char *buf, size_t n)
{
	const struct token *t = &p->tok;
	if (t->kind == T_END) {
		snprintf(buf, n, "end of expression");
		return;
	}
	int len = t->len > 40 ? 40 : (int)t->len;
	snprintf(buf, n, "'%.*s%s'", len, p->f->text + t->pos, t->len > 40 ? "..." : "");
}

static int unexpected(struct parser *p, const char *what)
{
	char b[64];
	if (p->tok.kind == T_PLUS || p->tok.kind == T_MINUS) {   /* after an operand */
		ferr_set(p->err, p->tok.pos, p->tok.len, "'%c': arithmetic operators are not supported",
			 p->tok.kind == T_PLUS ? '+' : '-');
		return -1;
	}
	tok_text(p, b, sizeof(b));
	if (p->tok.kind == T_END)
		ferr_set(p->err, p->tok.pos, 0, "unexpected end of expression%s%s", what ? ": expected " : "",
			 what ? what : "");
	else
		ferr_set(p->err, p->tok.pos, p->tok.len, "unexpected %s%s%s", b, what ? ": expected " : "",
			 what ? what : "");
	return -1;
}

static int new_node(struct parser *p, enum node_kind kind, uint32_t pos, uint32_t len)
{
	struct filter *f = p->f;
	if (f->nnodes >= FILTER_MAX_NODES) {
		ferr_set(p->err, pos, len, "expression too complex (more than %d operators and operands)",
			 FILTER_MAX_NODES);
		return -1;
	}
	if (f->nnodes == p->cap_nodes) {
		uint32_t cap = p->cap_nodes ? p->cap_nodes * 2 : 16;
		struct node *nn = realloc(f->nodes, cap * sizeof(*nn));
		if (!nn) {
			ferr_set(p->err, pos, len, "out of memory");
			return -1;
		}
		f->nodes = nn;
		p->cap_nodes = cap;
	}
	struct node *n = &f->nodes[f->nnodes];
	memset(n, 0, sizeof(*n));
	n->kind = (uint8_t)kind;
	n->pos = pos;
	n->len = len;
	n->start = pos;
	n->end = pos + len;
	n->height = 1;
	return (int)f->nnodes++;
}

static int set_children(struct parser *p, int idx, int a, int b)
{
	struct node *n = &p->f->nodes[idx];
	const struct node *na = &p->f->nodes[a];
	unsigned h = na->height;
	n->a = (uint32_t)a;
	n->start = na->start < n->start ? na->start : n->start;
	n->end = na->end > n->end ? na->end : n->end;
	if (b >= 0) {
		const struct node *nb = &p->f->nodes[b];
		n->b = (uint32_t)b;
		if (nb->height > h)
			h = nb->height;
		n->start = nb->start < n->start ? nb->start : n->start;
		n->end = nb->end > n->end ? nb->end : n->end;
	}
	if (h + 1 > FILTER_MAX_HEIGHT) {
		ferr_set(p->err, n->pos, n->len, "expression too long a chain (more than %d levels of operators)",
			 FILTER_MAX_HEIGHT);
		return -1;
	}
	n->height = (uint16_t)(h + 1);
	return 0;
}

static int enter(struct parser *p)
{
	if (++p->depth > FILTER_MAX_DEPTH) {
		ferr_set(p->err, p->tok.pos, p->tok.len, "expression nested too deeply (more than %d levels)",
			 FILTER_MAX_DEPTH);
		return -1;
	}
	return 0;
}

static int parse_expr(struct parser *p);

/* name ('[' INT ']')* (('.' | '->') name ('[' INT ']')*)*   or   $ctx.NAME */
static int parse_ref(struct parser *p)
{
	struct filter *f = p->f;
	struct ref r;
	memset(&r, 0, sizeof(r));
	uint32_t start = p->tok.pos, end;
	char canon[FILTER_MAX_TEXT + 32];
	size_t cl = 0;

	if (p->tok.kind == T_GIDENT) {
		const char *g = f->text + p->tok.pos + 1;
		size_t glen = p->tok.len - 1;
		if (glen == 3 && !memcmp(g, "app", 3)) {
			ferr_set(p->err, p->tok.pos, p->tok.len,
				 "$app contexts are not supported (they exist only for user-space applications)");
			return -1;
		}
		if (!(glen == 3 && !memcmp(g, "ctx", 3))) {
			ferr_set(p->err, p->tok.pos, p->tok.len, "unknown '$%.*s': contexts are written $ctx.NAME",
				 (int)(glen > 40 ? 40 : glen), g);
			return -1;
		}
		if (advance(p))
			return -1;
		if (p->tok.kind != T_DOT)
			return unexpected(p, "'.' and a context name after $ctx");
		if (advance(p))
			return -1;
		if (p->tok.kind != T_IDENT)
			return unexpected(p, "a context name after '$ctx.'");
		r.is_ctx = true;
		r.nparts = 1;
		r.parts[0].name = strndup(f->text + p->tok.pos, p->tok.len);
		if (!r.parts[0].name)
			goto oom;
		r.ctx_id = scry_context_by_name(r.parts[0].name);
		cl = (size_t)snprintf(canon, sizeof(canon), "$ctx.%s", r.parts[0].name);
		end = p->tok.pos + p->tok.len;
		if (advance(p))
			goto fail;
		if (p->tok.kind == T_DOT || p->tok.kind == T_ARROW || p->tok.kind == T_LBRACK) {
			ferr_set(p->err, p->tok.pos, p->tok.len, "a context has no members or elements");
			goto fail;
		}
	} else {
		r.nparts = 1;
		r.parts[0].name = strndup(f->text + p->tok.pos, p->tok.len);
		if (!r.parts[0].name)
			goto oom;
		memcpy(canon, f->text + p->tok.pos, p->tok.len);
		cl = p->tok.len;
		end = p->tok.pos + p->tok.len;
		if (advance(p))
			goto fail;
		for (;;) {
			enum tok_kind k = p->tok.kind;
			if (k != T_LBRACK && k != T_DOT && k != T_ARROW)
				break;
			if (r.nparts >= FILTER_MAX_PATH) {
				ferr_set(p->err, p->tok.pos, p->tok.len, "field reference with more than %d parts",
					 FILTER_MAX_PATH);
				goto fail;
			}
			struct ref_part *part = &r.parts[r.nparts];
			if (advance(p))
				goto fail;
			if (k == T_LBRACK) {
				if (p->tok.kind != T_INT) {
					if (p->tok.kind == T_END || p->tok.kind == T_RBRACK)
						unexpected(p, "an array index");
					else
						ferr_set(p->err, p->tok.pos, p->tok.len,
							 "an array index must be an integer constant");
					goto fail;
				}
				if (p->tok.u > UINT32_MAX) {
					ferr_set(p->err, p->tok.pos, p->tok.len, "array index too large");
					goto fail;
				}
				part->is_index = true;
				part->index = (uint32_t)p->tok.u;
				r.nparts++;
				cl += (size_t)snprintf(canon + cl, sizeof(canon) - cl, "[%u]", part->index);
				if (advance(p))
					goto fail;
				if (p->tok.kind != T_RBRACK) {
					unexpected(p, "']'");
					goto fail;
				}
			} else {
				if (p->tok.kind != T_IDENT) {
					unexpected(p, "a field name");
					goto fail;
				}
				part->name = strndup(f->text + p->tok.pos, p->tok.len);
				if (!part->name)
					goto oom;
				r.nparts++;
				cl += (size_t)snprintf(canon + cl, sizeof(canon) - cl, ".%s", part->name);
			}
			end = p->tok.pos + p->tok.len;
			if (advance(p))
				goto fail;
		}
	}
	canon[cl < sizeof(canon) ? cl : sizeof(canon) - 1] = 0;
	uint32_t idx;
	for (idx = 0; idx < f->nrefs; idx++)
		if (!strcmp(f->refs[idx].text, canon))
			break;
	if (idx < f->nrefs) {
		for (uint32_t i = 0; i < r.nparts; i++)
			free(r.parts[i].name);
	} else {
		if (f->nrefs >= FILTER_MAX_REFS) {
			ferr_set(p->err, start, end - start, "more than %d distinct fields and contexts",
				 FILTER_MAX_REFS);
			goto fail;
		}
		if (!f->refs) {
			f->refs = calloc(FILTER_MAX_REFS, sizeof(*f->refs));
			if (!f->refs)
				goto oom;
		}
		r.text = strdup(canon);
		if (!r.text)
			goto oom;
		r.pos = start;
		r.len = end - start;
		f->refs[f->nrefs++] = r;
	}
	int n = new_node(p, N_REF, start, end - start);
	if (n < 0)
		return -1;
	f->nodes[n].idx = idx;
	return n;
oom:
	ferr_set(p->err, start, 0, "out of memory");
fail:
	for (uint32_t i = 0; i < FILTER_MAX_PATH; i++)
		free(r.parts[i].name);
	return -1;
}

static int parse_primary(struct parser *p)
{
	struct filter *f = p->f;
	struct token *t = &p->tok;
	int n;
	switch (t->kind) {
	case T_INT:
		n = new_node(p, N_INT, t->pos, t->len);
		if (n < 0)
			return -1;
		f->nodes[n].ival = (int64_t)t->u;
		if (advance(p))
			return -1;
		return n;
	case T_STR: {
		n = new_node(p, N_STR, t->pos, t->len);
		if (n < 0)
			return -1;
		if (f->nstrs == p->cap_strs) {
			uint32_t cap = p->cap_strs ? p->cap_strs * 2 : 4;
			struct fstr *ns = realloc(f->strs, cap * sizeof(*ns));
			if (!ns) {
				ferr_set(p->err, t->pos, t->len, "out of memory");
				return -1;
			}
			f->strs = ns;
			p->cap_strs = cap;
		}
		f->strs[f->nstrs] = (struct fstr){ t->str, t->slen, t->glob };
		t->str = NULL;
		f->nodes[n].idx = f->nstrs++;
		if (advance(p))
			return -1;
		return n;
	}
	case T_IDENT:
	case T_GIDENT:
		return parse_ref(p);
	case T_LPAREN: {
		uint32_t open = t->pos;
		if (enter(p) || advance(p))
			return -1;
		n = parse_expr(p);
		if (n < 0)
			return -1;
		if (t->kind != T_RPAREN) {
			char b[64];
			tok_text(p, b, sizeof(b));
			if (t->kind == T_PLUS || t->kind == T_MINUS)
				return unexpected(p, NULL);
			if (t->kind == T_END)
				ferr_set(p->err, open, 1, "missing ')' for this '('");
			else
				ferr_set(p->err, t->pos, t->len, "unexpected %s: expected ')' (for the '(' at offset %u)",
					 b, open);
			return -1;
		}
		/* the parentheses belong to the subexpression's extent */
		f->nodes[n].start = open < f->nodes[n].start ? open : f->nodes[n].start;
		f->nodes[n].end = t->pos + 1 > f->nodes[n].end ? t->pos + 1 : f->nodes[n].end;
		p->depth--;
		if (advance(p))
			return -1;
		return n;
	}
	default:
		return unexpected(p, "a field, a context, a constant or '('");
	}
}

static int parse_unary(struct parser *p)
{
	enum tok_kind k = p->tok.kind;
	if (k != T_MINUS && k != T_PLUS && k != T_NOT && k != T_BNOT)
		return parse_primary(p);
	uint32_t pos = p->tok.pos, len = p->tok.len;
	if (enter(p) || advance(p))
		return -1;
	int a = parse_unary(p);
	if (a < 0)
		return -1;
	p->depth--;
	int n = new_node(p, N_UNARY, pos, len);
	if (n < 0)
		return -1;
	p->f->nodes[n].op = (uint8_t)k;
	if (set_children(p, n, a, -1))
		return -1;
	return n;
}

/* Binary levels, lowest precedence first. */
#define NLEVELS 8
static bool at_level(int lvl, enum tok_kind k)
{
	switch (lvl) {
	case 0: return k == T_LOR;
	case 1: return k == T_LAND;
	case 2: return k == T_EQ || k == T_NE;
	case 3: return k == T_LT || k == T_LE || k == T_GT || k == T_GE;
	case 4: return k == T_BOR;
	case 5: return k == T_BXOR;
	case 6: return k == T_BAND;
	case 7: return k == T_SHL || k == T_SHR;
	}
	return false;
}

static int parse_level(struct parser *p, int lvl)
{
	if (lvl == NLEVELS)
		return parse_unary(p);
	int left = parse_level(p, lvl + 1);
	if (left < 0)
		return -1;
	while (at_level(lvl, p->tok.kind)) {
		enum tok_kind k = p->tok.kind;
		uint32_t pos = p->tok.pos, len = p->tok.len;
		if (advance(p))
			return -1;
		int right = parse_level(p, lvl + 1);
		if (right < 0)
			return -1;
		int n = new_node(p, lvl <= 1 ? N_LOGICAL : N_BINARY, pos, len);
		if (n < 0)
			return -1;
		p->f->nodes[n].op = (uint8_t)k;
		if (set_children(p, n, left, right))
			return -1;
		left = n;
	}
	return left;
}

static int parse_expr(struct parser *p)
{
	return parse_level(p, 0);
}

void filter_free(struct filter *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nstrs; i++)
		free(f->strs[i].s);
	free(f->strs);
	for (uint32_t i = 0; i < f->nrefs; i++) {
		free(f->refs[i].text);
		for (uint32_t j = 0; j < f->refs[i].nparts; j++)
			free(f->refs[i].parts[j].name);
	}
	free(f->refs);
	free(f->nodes);
	free(f->ev_status);
	free(f->access);
	free(f->access_ok);
	free(f->text);
	free(f);
}

struct filter *filter_parse(const char *text, struct filter_error *err)
{
	struct filter_error dummy;
	if (!err)
		err = &dummy;
	memset(err, 0, sizeof(*err));
	if (!text) {
		ferr_set(err, 0, 0, "no filter expression");
		return NULL;
	}
	size_t len = strlen(text);
	if (len > FILTER_MAX_TEXT) {
		ferr_set(err, FILTER_MAX_TEXT, len - FILTER_MAX_TEXT, "expression longer than %d bytes",
			 FILTER_MAX_TEXT);
		return NULL;
	}
	struct filter *f = calloc(1, sizeof(*f));
	if (!f || !(f->text = strdup(text))) {
		free(f);
		ferr_set(err, 0, 0, "out of memory");
		return NULL;
	}
	f->text_len = len;
	struct parser p = { .lx = { f->text, len, 0, err }, .f = f, .err = err };
	if (advance(&p))
		goto fail;
	if (p.tok.kind == T_END) {
		ferr_set(err, p.tok.pos, 0, "empty filter expression");
		goto fail;
	}
	int root = parse_expr(&p);
	if (root < 0)
		goto fail;
	if (p.tok.kind != T_END) {
		unexpected(&p, NULL);
		goto fail;
	}
	f->root = (uint32_t)root;
	/* Type errors between literals (and string/integer misuse of any operand) do not
	 * depend on the events: refuse them now. */
	enum vtype unknown[FILTER_MAX_REFS];
	for (uint32_t i = 0; i < FILTER_MAX_REFS; i++)
		unknown[i] = V_UNKNOWN;
	if (filter_typecheck(f, unknown, NULL, err))
		goto fail;
	return f;
fail:
	free(p.tok.str);
	filter_free(f);
	return NULL;
}
