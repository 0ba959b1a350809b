/* tsdl.h — the CTF 1.8 metadata (TSDL) model: declared types, clocks, stream and event
 * classes, as parsed from a trace's `metadata` (src/view/tsdl.c), plus the lexer
 * interface (src/view/tsdl_lex.c) and the arena allocator that owns all of it. */
#ifndef SCRY_VIEW_TSDL_H
#define SCRY_VIEW_TSDL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- arena: everything parsed from one metadata text, freed at once ---- */
struct arena_chunk;
struct arena {
	struct arena_chunk *head;
};
void *arena_alloc(struct arena *a, size_t n);      /* zeroed; NULL when out of memory */
char *arena_strndup(struct arena *a, const char *s, size_t n);
void arena_free(struct arena *a);

/* ---- types ---- */
enum ctf_byte_order { CTF_BO_NATIVE = 0, CTF_BO_LE, CTF_BO_BE };
enum ctf_encoding { CTF_ENC_NONE = 0, CTF_ENC_UTF8, CTF_ENC_ASCII };

enum ctf_tkind {
	CTF_T_INT,
	CTF_T_FLOAT,
	CTF_T_STRING,
	CTF_T_ENUM,
	CTF_T_STRUCT,
	CTF_T_VARIANT,
	CTF_T_ARRAY,    /* fixed length */
	CTF_T_SEQ,      /* length from an earlier integer field */
};

struct ctf_type;

struct ctf_field {
	const char *name;          /* as written (leading underscore kept) */
	struct ctf_type *type;
};

struct ctf_enum_entry {
	const char *label;
	int64_t lo, hi;            /* inclusive; compared signed or unsigned per container */
};

struct ctf_type {
	enum ctf_tkind kind;
	unsigned align;            /* bits */
	/* integer (and enum container, through .container) */
	unsigned size;             /* bits (integer) */
	bool is_signed;
	enum ctf_byte_order bo;
	enum ctf_encoding encoding;
	unsigned base;             /* 2, 8, 10, 16 */
	const char *map_clock;     /* "monotonic" for map = clock.monotonic.value, else NULL */
	/* floating point */
	unsigned exp_dig, mant_dig;
	/* enum */
	struct ctf_type *container;
	struct ctf_enum_entry *entries;
	size_t nentries;
	/* struct / variant */
	struct ctf_field *fields;
	size_t nfields;
	const char *tag;           /* variant tag path (NULL: untagged, resolved by the user) */
	/* array / sequence */
	struct ctf_type *elem;
	uint64_t length;           /* array */
	const char *length_ref;    /* sequence: path of the length field */
};

struct ctf_clock {
	const char *name;
	uint64_t freq;             /* Hz, default 1e9 */
	int64_t offset_s;
	uint64_t offset;           /* cycles */
	bool has_uuid;
	uint8_t uuid[16];
};

struct ctf_stream_class {
	uint64_t id;
	struct ctf_type *packet_context;
	struct ctf_type *event_header;
	struct ctf_type *event_context;
};

struct ctf_event_class {
	const char *name;
	uint64_t id;
	uint64_t stream_id;
	int64_t loglevel;          /* -1 if unset */
	struct ctf_type *context;
	struct ctf_type *fields;
};

struct ctf_metadata {
	struct arena arena;
	unsigned major, minor;
	bool has_uuid;
	uint8_t uuid[16];
	enum ctf_byte_order bo;    /* trace byte order (LE when unset) */
	struct ctf_type *packet_header;
	struct ctf_clock *clocks;
	size_t nclocks;
	struct ctf_stream_class *streams;
	size_t nstreams;
	struct ctf_event_class *events;
	size_t nevents;
	const char *env_hostname;  /* env.hostname, or NULL */
	const char *env_domain;
	struct tsdl_cgroup *cgroups;   /* env scry_cgroup_ID = "CONTAINER" (scry's): the containers */
	size_t ncgroups;               /* of the cgroup_id context's values */
};

struct tsdl_cgroup {
	uint64_t id;
	const char *container;
};

/* Parse TSDL text (not NUL-terminated: len bytes).  Returns a metadata object or NULL with
 * a reason ("line N: ...") in err.  Never reads past text + len. */
struct ctf_metadata *tsdl_parse(const char *text, size_t len, char *err, size_t errlen);
void tsdl_free(struct ctf_metadata *m);
/* Strip packetized metadata (packets with magic 0x75D11D57) into plain text.  If data is
 * already plain text, returns a copy.  malloc'd result (*outlen bytes, NUL added), or NULL
 * with a reason. */
char *tsdl_unpacketize(const uint8_t *data, size_t len, size_t *outlen, char *err, size_t errlen);

/* The container whose cgroup v2 id is id (env scry_cgroup_ID), or NULL. */
const char *tsdl_container(const struct ctf_metadata *m, uint64_t id);
const struct ctf_clock *tsdl_find_clock(const struct ctf_metadata *m, const char *name);
const struct ctf_stream_class *tsdl_find_stream(const struct ctf_metadata *m, uint64_t id);

/* ---- lexer ---- */
enum tsdl_tok {
	TK_EOF = 0,
	TK_IDENT,
	TK_INT,        /* .uval (magnitude); a leading '-' is a separate token */
	TK_STRING,     /* .sval: unescaped, arena-allocated */
	TK_PUNCT,      /* .punct: one of { } ( ) [ ] ; : = , . < > + - * and ':=' as 'A', '...' as 'E' */
	TK_ERROR,
};

struct tsdl_lexer {
	const char *p, *end;
	unsigned line;
	struct arena *arena;
	/* current token */
	enum tsdl_tok tok;
	const char *tstart;        /* identifier: not NUL-terminated, length tlen */
	size_t tlen;
	uint64_t uval;
	const char *sval;
	char punct;
	const char *errmsg;
};

void tsdl_lex_init(struct tsdl_lexer *lx, const char *text, size_t len, struct arena *a);
enum tsdl_tok tsdl_lex_next(struct tsdl_lexer *lx);

#endif
