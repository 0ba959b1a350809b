/* lexer.c — filter expression tokens: identifiers, $ctx-style names, integer constants
 * (decimal, 0x hex, 0 octal, u/l suffixes ignored), string literals ("..." or '...', escapes
 * \\ \* \" \' only; an unescaped `*` makes the literal a glob pattern), and operators.
 * Everything else (floats, arithmetic, `=`) is refused with a message naming it. */
#include <stdlib.h>
#include <string.h>
#include "filter/internal.h"
#include "util/lex.h"

const char *tok_name(enum tok_kind k)
{
	switch (k) {
	case T_END: return "end of expression";
	case T_INT: return "integer";
	case T_STR: return "string";
	case T_IDENT: return "name";
	case T_GIDENT: return "$name";
	case T_LPAREN: return "'('";
	case T_RPAREN: return "')'";
	case T_LBRACK: return "'['";
	case T_RBRACK: return "']'";
	case T_DOT: return "'.'";
	case T_ARROW: return "'->'";
	case T_EQ: return "'=='";
	case T_NE: return "'!='";
	case T_LT: return "'<'";
	case T_LE: return "'<='";
	case T_GT: return "'>'";
	case T_GE: return "'>='";
	case T_LAND: return "'&&'";
	case T_LOR: return "'||'";
	case T_NOT: return "'!'";
	case T_BAND: return "'&'";
	case T_BOR: return "'|'";
	case T_BXOR: return "'^'";
	case T_BNOT: return "'~'";
	case T_SHL: return "'<<'";
	case T_SHR: return "'>>'";
	case T_PLUS: return "'+'";
	case T_MINUS: return "'-'";
	}
	return "?";
}

/* A byte for a message: 'c', or 0xNN when not printable. */
static const char *show_byte(char *buf, size_t n, unsigned char c)
{
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, n, "'%c'", c);
	else
		snprintf(buf, n, "byte 0x%02x", c);
	return buf;
}

static int lex_number(struct lexer *lx, struct token *tok)
{
	const char *t = lx->text;
	size_t start = lx->pos, i = start;
	uint64_t v = 0;
	int base = 10;
	bool overflow = false;

	if (t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X')) {
		base = 16;
		i += 2;
		if (scry_hexval((unsigned char)t[i]) < 0) {
			ferr_set(lx->err, start, i - start, "hexadecimal constant without digits");
			return -1;
		}
	} else if (t[i] == '0') {
		base = 8;
		i++;
	}
	for (;; i++) {
		int d = scry_hexval((unsigned char)t[i]);
		if (d < 0 || (base != 16 && d > 9))
			break;
		if (base == 8 && d > 7) {
			ferr_set(lx->err, i, 1, "invalid digit '%c' in octal constant (a leading 0 means octal)",
				 t[i]);
			return -1;
		}
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			overflow = true;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (t[i] == '.' || ((t[i] == 'e' || t[i] == 'E') && base == 10) ||
	    ((t[i] == 'p' || t[i] == 'P') && base == 16)) {
		size_t j = i + 1;
		while (scry_ident_char((unsigned char)t[j]) || t[j] == '.' ||
		       ((t[j] == '+' || t[j] == '-') && (t[j - 1] == 'e' || t[j - 1] == 'E' ||
							 t[j - 1] == 'p' || t[j - 1] == 'P')))
			j++;
		ferr_set(lx->err, start, j - start, "floating-point constants are not supported");
		return -1;
	}
	/* C integer suffixes (LTTng accepts them): at most one u and one l/ll, ignored. */
	size_t suf = i;
	int nu = 0, nl = 0;
	while (t[i] == 'u' || t[i] == 'U' || t[i] == 'l' || t[i] == 'L') {
		if (t[i] == 'u' || t[i] == 'U')
			nu++;
		else
			nl++;
		i++;
	}
	if (nu > 1 || nl > 2 || scry_ident_char((unsigned char)t[i])) {
		size_t j = i;
		while (scry_ident_char((unsigned char)t[j]))
			j++;
		ferr_set(lx->err, suf, j - suf, "invalid suffix '%.*s' on integer constant", (int)(j - suf), t + suf);
		return -1;
	}
	if (overflow) {
		ferr_set(lx->err, start, i - start, "integer constant does not fit in 64 bits");
		return -1;
	}
	tok->kind = T_INT;
	tok->u = v;
	tok->pos = (uint32_t)start;
	tok->len = (uint32_t)(i - start);
	lx->pos = i;
	return 0;
}

/* "..." or '...'.  Plain literal: the unescaped bytes.  Glob (an unescaped `*`): the pattern
 * in LTTng's star-glob syntax (`*` wildcard, `\*` and `\\` literal). */
static int lex_string(struct lexer *lx, struct token *tok)
{
	const char *t = lx->text;
	size_t start = lx->pos, i = start + 1;
	char q = t[start];
	/* decoded bytes, each with "is wildcard" */
	char dec[FILTER_MAX_STRING + 1];
	bool wild[FILTER_MAX_STRING + 1];
	size_t n = 0;
	bool glob = false;

	for (;;) {
		if (i >= lx->len) {
			ferr_set(lx->err, start, 1, "unterminated string literal");
			return -1;
		}
		char c = t[i];
		bool w = false;
		if (c == q) {
			i++;
			break;
		}
		if (c == '\\') {
			if (i + 1 >= lx->len) {
				ferr_set(lx->err, start, 1, "unterminated string literal");
				return -1;
			}
			char d = t[i + 1];
			if (d != '\\' && d != '*' && d != '"' && d != '\'') {
				char b[16];
				ferr_set(lx->err, i, 2,
					 "unsupported escape sequence (backslash then %s): only \\\\, \\*, \\\" and \\' are",
					 show_byte(b, sizeof(b), (unsigned char)d));
				return -1;
			}
			c = d;
			i += 2;
		} else {
			w = c == '*';
			i++;
		}
		if (n >= FILTER_MAX_STRING) {
			size_t j = i;
			while (j < lx->len && t[j] != q)
				j += t[j] == '\\' && j + 1 < lx->len ? 2 : 1;
			ferr_set(lx->err, start, (j < lx->len ? j + 1 : j) - start,
				 "string literal longer than %d bytes", FILTER_MAX_STRING);
			return -1;
		}
		dec[n] = c;
		wild[n] = w;
		glob |= w;
		n++;
	}
	char *s = malloc(2 * n + 1);
	if (!s) {
		ferr_set(lx->err, start, 0, "out of memory");
		return -1;
	}
	size_t k = 0;
	for (size_t j = 0; j < n; j++) {
		if (glob && !wild[j] && (dec[j] == '*' || dec[j] == '\\'))
			s[k++] = '\\';
		s[k++] = dec[j];
	}
	s[k] = 0;
	tok->kind = T_STR;
	tok->str = s;
	tok->slen = (uint32_t)k;
	tok->glob = glob;
	tok->pos = (uint32_t)start;
	tok->len = (uint32_t)(i - start);
	lx->pos = i;
	return 0;
}

int lex_next(struct lexer *lx, struct token *tok)
{
	const char *t = lx->text;
	memset(tok, 0, sizeof(*tok));
	while (lx->pos < lx->len && (t[lx->pos] == ' ' || t[lx->pos] == '\t' || t[lx->pos] == '\n' ||
				     t[lx->pos] == '\r' || t[lx->pos] == '\v' || t[lx->pos] == '\f'))
		lx->pos++;
	size_t i = lx->pos;
	tok->pos = (uint32_t)i;
	if (i >= lx->len) {
		tok->kind = T_END;
		tok->len = 0;
		return 0;
	}
	unsigned char c = (unsigned char)t[i];
	if (c >= '0' && c <= '9')
		return lex_number(lx, tok);
	if (c == '"' || c == '\'')
		return lex_string(lx, tok);
	if (scry_ident_start(c) || c == '$') {
		size_t j = i + 1;
		if (c == '$' && !scry_ident_start((unsigned char)t[j])) {
			ferr_set(lx->err, i, 1, "'$' must start a context reference such as $ctx.pid");
			return -1;
		}
		while (scry_ident_char((unsigned char)t[j]))
			j++;
		tok->kind = c == '$' ? T_GIDENT : T_IDENT;
		tok->len = (uint32_t)(j - i);
		lx->pos = j;
		return 0;
	}
	unsigned char d = i + 1 < lx->len ? (unsigned char)t[i + 1] : 0;
	enum tok_kind k;
	size_t len = 2;
	if (c == '=' && d == '=')
		k = T_EQ;
	else if (c == '!' && d == '=')
		k = T_NE;
	else if (c == '<' && d == '=')
		k = T_LE;
	else if (c == '>' && d == '=')
		k = T_GE;
	else if (c == '&' && d == '&')
		k = T_LAND;
	else if (c == '|' && d == '|')
		k = T_LOR;
	else if (c == '<' && d == '<')
		k = T_SHL;
	else if (c == '>' && d == '>')
		k = T_SHR;
	else if (c == '-' && d == '>')
		k = T_ARROW;
	else {
		len = 1;
		switch (c) {
		case '<': k = T_LT; break;
		case '>': k = T_GT; break;
		case '!': k = T_NOT; break;
		case '&': k = T_BAND; break;
		case '|': k = T_BOR; break;
		case '^': k = T_BXOR; break;
		case '~': k = T_BNOT; break;
		case '(': k = T_LPAREN; break;
		case ')': k = T_RPAREN; break;
		case '[': k = T_LBRACK; break;
		case ']': k = T_RBRACK; break;
		case '.': k = T_DOT; break;
		case '+': k = T_PLUS; break;
		case '-': k = T_MINUS; break;
		case '=':
			ferr_set(lx->err, i, 1, "'=' is not an operator (did you mean '=='?)");
			return -1;
		case '*':
		case '/':
		case '%':
			ferr_set(lx->err, i, 1, "'%c': arithmetic operators are not supported", c);
			return -1;
		default: {
			char b[16];
			ferr_set(lx->err, i, 1, "unexpected %s", show_byte(b, sizeof(b), c));
			return -1;
		}
		}
	}
	tok->kind = k;
	tok->len = (uint32_t)len;
	lx->pos = i + len;
	return 0;
}
