/* lex.h — the character classes every hand-written lexer and name check in scry shares
 * (the filter language, TSDL metadata, tracefs format files, CTF identifiers): C
 * identifiers in the "C" locale and hexadecimal digits. */
#ifndef SCRY_LEX_H
#define SCRY_LEX_H

#include <stdbool.h>

static inline bool scry_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool scry_ident_char(int c)
{
	return scry_ident_start(c) || (c >= '0' && c <= '9');
}

/* A whole string is a C identifier. */
static inline bool scry_is_ident(const char *s)
{
	if (!s || !scry_ident_start((unsigned char)*s))
		return false;
	while (*++s)
		if (!scry_ident_char((unsigned char)*s))
			return false;
	return true;
}

/* 0..15, or -1 for a character that is not a hexadecimal digit. */
static inline int scry_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
