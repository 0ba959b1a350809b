/* tsdl_lex.c — tokenizer for TSDL metadata text: identifiers, integer literals (decimal,
 * 0x hex, 0 octal, U/L suffixes), string literals with C escapes, punctuation, comments. */
#include <string.h>
#include "view/tsdl.h"
#include "util/lex.h"

void tsdl_lex_init(struct tsdl_lexer *lx, const char *text, size_t len, struct arena *a)
{
	memset(lx, 0, sizeof(*lx));
	lx->p = text;
	lx->end = text + len;
	lx->line = 1;
	lx->arena = a;
}

static enum tsdl_tok lex_error(struct tsdl_lexer *lx, const char *msg)
{
	lx->errmsg = msg;
	return lx->tok = TK_ERROR;
}

static void skip_space(struct tsdl_lexer *lx)
{
	const char *p = lx->p, *e = lx->end;
	for (;;) {
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v')) {
			if (*p == '\n')
				lx->line++;
			p++;
		}
		if (p + 1 < e && p[0] == '/' && p[1] == '*') {
			p += 2;
			while (p + 1 < e && !(p[0] == '*' && p[1] == '/')) {
				if (*p == '\n')
					lx->line++;
				p++;
			}
			p = p + 1 < e ? p + 2 : e;
			continue;
		}
		if (p + 1 < e && p[0] == '/' && p[1] == '/') {
			while (p < e && *p != '\n')
				p++;
			continue;
		}
		break;
	}
	lx->p = p;
}

static enum tsdl_tok lex_number(struct tsdl_lexer *lx)
{
	const char *p = lx->p, *e = lx->end;
	uint64_t v = 0;
	unsigned base = 10;
	if (p + 1 < e && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
		if (p >= e || scry_hexval(*p) < 0)
			return lex_error(lx, "bad hexadecimal literal");
	} else if (*p == '0' && p + 1 < e && p[1] >= '0' && p[1] <= '7') {
		base = 8;
		p++;
	}
	for (; p < e; p++) {
		int d = scry_hexval(*p);
		if (d < 0 || (unsigned)d >= base)
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return lex_error(lx, "integer literal too large");
		v = v * base + (uint64_t)d;
	}
	while (p < e && (*p == 'u' || *p == 'U' || *p == 'l' || *p == 'L'))
		p++;
	if (p < e && scry_ident_char(*p))
		return lex_error(lx, "bad integer literal");
	lx->p = p;
	lx->uval = v;
	return lx->tok = TK_INT;
}

static enum tsdl_tok lex_string(struct tsdl_lexer *lx)
{
	const char *p = lx->p + 1, *e = lx->end;
	size_t cap = 0;
	for (const char *q = p; q < e && *q != '"'; q++)
		cap++;
	char *out = arena_alloc(lx->arena, cap + 1);
	if (!out)
		return lex_error(lx, "out of memory");
	size_t n = 0;
	while (p < e && *p != '"') {
		char c = *p++;
		if (c == '\n')
			lx->line++;
		if (c == '\\') {
			if (p >= e)
				break;
			c = *p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'a': c = '\a'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'v': c = '\v'; break;
			case '0': c = '\0'; break;
			default: break; /* \\ \" \' and unknown: the character itself */
			}
		}
		if (n < cap)
			out[n++] = c;
	}
	if (p >= e)
		return lex_error(lx, "unterminated string literal");
	out[n] = '\0';
	lx->p = p + 1;
	lx->sval = out;
	lx->tlen = n;
	return lx->tok = TK_STRING;
}

enum tsdl_tok tsdl_lex_next(struct tsdl_lexer *lx)
{
	if (lx->tok == TK_ERROR)
		return TK_ERROR;
	skip_space(lx);
	const char *p = lx->p, *e = lx->end;
	if (p >= e)
		return lx->tok = TK_EOF;
	lx->tstart = p;
	char c = *p;
	if (scry_ident_start((unsigned char)c)) {
		while (p < e && scry_ident_char((unsigned char)*p))
			p++;
		lx->tlen = (size_t)(p - lx->tstart);
		lx->p = p;
		return lx->tok = TK_IDENT;
	}
	if (c >= '0' && c <= '9')
		return lex_number(lx);
	if (c == '"')
		return lex_string(lx);
	if (c == '\'') {
		/* character literal: 'x' -> integer */
		if (p + 2 < e && p[2] == '\'') {
			lx->uval = (unsigned char)p[1];
			lx->p = p + 3;
			return lx->tok = TK_INT;
		}
		return lex_error(lx, "bad character literal");
	}
	if (c == ':' && p + 1 < e && p[1] == '=') {
		lx->p = p + 2;
		lx->punct = 'A';
		return lx->tok = TK_PUNCT;
	}
	if (c == '.' && p + 2 < e && p[1] == '.' && p[2] == '.') {
		lx->p = p + 3;
		lx->punct = 'E';
		return lx->tok = TK_PUNCT;
	}
	if (strchr("{}()[];:=,.<>+-*", c) && c) {
		lx->p = p + 1;
		lx->punct = c;
		return lx->tok = TK_PUNCT;
	}
	return lex_error(lx, "unexpected character");
}
