/* filter.h — event filter expressions (LTTng's filter language): parse, check against the
 * fields of the selected events, evaluate in user space, and lower to a flat IR that can be
 * compiled to eBPF for in-kernel evaluation.
 *
 *   lexer.c   tokens, literals (integers, strings, glob patterns)
 *   parser.c  tokens -> AST (precedence, limits), literal-only type errors, error printing
 *   check.c   references resolved against event schemas, per-event type check
 *   eval.c    AST evaluation in user space, glob matching
 *   ir.c      lowering to the IR, IR evaluation and dump
 *   container.c  $ctx.container resolved to cgroup ids at start
 *
 * Language (LTTng's, see lttng-event-rule(7) "filter expression"):
 *   payload fields by name: `ret`, `a.b`, `a->b`, `arr[3]`, `msg.user[1].data[2]`
 *   contexts: `$ctx.NAME` (pid, tid, ppid, vpid, vtid, procname, cpu_id, uid, gid, euid,
 *             prio, nice, *_ns, or any context field a recorded trace carries);
 *             `$ctx.container == "ID"|"PREFIX*"` (and `!=`) once filter_containers() made
 *             it a test of `$ctx.cgroup_id` (sessions: the cgroup tree's containers, the
 *             task's cgroup's ancestor at each one's depth, so any cgroup below counts;
 *             scry view: the exact cgroup ids the trace's env names)
 *   integers: decimal, hexadecimal (0x1f), octal (017), optional u/l suffixes; `-x` negates
 *   strings: "..." or '...'; escapes \\ \* \" \' only; an unescaped `*` anywhere makes the
 *            literal a glob pattern (`*` matches any run of bytes, `\*` a literal star)
 *   operators, by decreasing precedence:
 *     unary - + ! ~ | << >> | & | ^ | '|' | < <= > >= | == != | && | ||
 *   (bitwise operators bind tighter than comparisons, unlike C: `a & 1 == 1` is
 *   `(a & 1) == 1`).  No arithmetic.  Integers are signed 64-bit; bitwise operators work on
 *   the unsigned 64-bit representation; a shift count outside [0, 63] makes the whole
 *   expression false.  Strings compare only with == and != (against a string field, a
 *   string literal or a glob pattern).
 *   A field (or context) an event does not have, or an index past an array's end, makes the
 *   whole expression false for that event; a field no selected event has is an error.
 *
 * Limits (errors, never crashes): expression <= FILTER_MAX_TEXT bytes, string literal <=
 * FILTER_MAX_STRING bytes once unescaped, <= FILTER_MAX_NODES operators and operands,
 * nesting of parentheses and unary operators <= FILTER_MAX_DEPTH, tree height (e.g. a chain
 * of `||`) <= FILTER_MAX_HEIGHT, a reference has <= FILTER_MAX_PATH parts, <=
 * FILTER_MAX_REFS distinct references.  Every recursion is bounded by these. */
#ifndef SCRY_FILTER_H
#define SCRY_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FILTER_MAX_TEXT   4096
#define FILTER_MAX_STRING 255
#define FILTER_MAX_NODES  1024
#define FILTER_MAX_DEPTH  64
#define FILTER_MAX_HEIGHT 256
#define FILTER_MAX_PATH   8
#define FILTER_MAX_REFS   64

struct filter;

/* An error: a one-line message, and the offending bytes of the expression. */
struct filter_error {
	char msg[224];
	size_t offset;          /* byte offset in the expression text */
	size_t len;             /* bytes of the offending token (0: a position, e.g. the end) */
};

/* Parse text (a NUL-terminated expression).  NULL with err filled on a syntax error, a limit,
 * a type error between literals (`1 == "a"`), or out of memory. */
struct filter *filter_parse(const char *text, struct filter_error *err);
void filter_free(struct filter *f);
/* `$ctx.container == "ID"` / `"PREFIX*"` (and `!=`) made tests of `$ctx.cgroup_id` against
 * the cgroup ids of the matching containers' cgroup directories now: the id of the task's
 * cgroup's ancestor at the container's depth (container.c; access cg_level; the kernel
 * calls bpf_get_current_ancestor_cgroup_id()), so cgroups made later below match too.  0 (nothing to do without $ctx.container), or
 * -1 with err: no container matches, too many cgroups, $ctx.container used otherwise. */
int filter_containers(struct filter *f, struct filter_error *err);
/* The same with the cgroup ids from ids(arg, pattern bytes, len, glob, out, max): how many
 * cgroups match (more than max: too many; out holds the first max) — a recorded trace's. */
typedef size_t (*filter_container_ids_fn)(void *arg, const char *pat, size_t len, bool glob, uint64_t *out,
					  size_t max);
int filter_containers_by(struct filter *f, filter_container_ids_fn ids, void *arg, struct filter_error *err);
/* Does container id match the pattern of a `$ctx.container` comparison (glob: a star-glob)? */
bool filter_container_match(const char *pat, size_t plen, bool glob, const char *id);

/* "scry: filter: MSG\n", the expression on one line, and a caret line under the token:
 *     scry: filter: unexpected ')'
 *     ret < 0)
 *            ^                                                                         */
void filter_error_print(FILE *f, const char *text, const struct filter_error *e);

/* ---- what events look like: an abstract schema, filled by the caller ---------------- */

enum filter_ftype {
	FF_INT,         /* any integer or enumeration; compared as int64 */
	FF_STRING,      /* NUL-terminated string or text (char) array */
	FF_STRUCT,      /* members */
	FF_ARRAY,       /* fixed length `length`, elements `elem` */
	FF_SEQUENCE,    /* variable length, elements `elem` */
	FF_OTHER,       /* floating point, variant...: present, but not usable in a filter */
};

struct filter_field {
	const char *name;                  /* NULL for array elements */
	enum filter_ftype type;
	bool is_signed;                    /* FF_INT (informative: values arrive as int64) */
	uint64_t length;                   /* FF_ARRAY */
	const struct filter_field *members;/* FF_STRUCT */
	size_t nmembers;
	const struct filter_field *elem;   /* FF_ARRAY, FF_SEQUENCE */
	uintptr_t user;                    /* caller's cookie, copied to accesses */
};

/* One event: its payload fields and the contexts available with it (a context is a field
 * named as LTTng names it without the underscore: "pid", "procname", ...). */
struct filter_schema {
	const char *event_name;
	size_t nfields;
	const struct filter_field *fields;
	size_t nctx;
	const struct filter_field *ctx;
};

/* ---- references resolved for one event ---------------------------------------------- */

enum filter_step_kind { FILTER_STEP_MEMBER, FILTER_STEP_INDEX };

struct filter_step {
	uint8_t kind;                      /* enum filter_step_kind */
	uint32_t index;                    /* member index in the struct, or element index */
};

/* How to reach the value of one reference in one event: start at fields[top] (or ctx[top]
 * for a context), then follow steps.  type is the leaf type (FF_INT or FF_STRING once
 * checked). */
struct filter_access {
	uint16_t ref;                      /* reference index (filter_ref_text) */
	bool is_ctx;
	uint8_t type;                      /* enum filter_ftype of the leaf */
	bool is_signed;
	int16_t ctx_id;                    /* is_ctx: enum scry_ctx, or -1 if scry has no such id */
	uint8_t cg_level;                  /* ctx_id SCRY_CTX_CGROUP_ID: > 0, the id of the task's
					      cgroup's ancestor at this level (the cgroup2 root is
					      level 0; 0 when the cgroup is shallower) */
	uint32_t top;                      /* index in schema fields[] or ctx[] */
	uint8_t nsteps;
	struct filter_step steps[FILTER_MAX_PATH];
	uintptr_t user;                    /* the leaf field's cookie */
};

/* ---- checking ---------------------------------------------------------------------- */

/* Resolve every reference against the events (copied: events need not outlive f) and type
 * check the expression for each event.  Error (-1, err filled, caret on the reference or
 * operator) when a field/context is in none of the events, when the expression cannot be
 * well typed for any event (string compared with an integer, bitwise operator on a string,
 * a structure used as a value, `.x` on a non-structure...), or when no single event has all
 * the referenced fields.  Events where a field is missing or the types do not fit are
 * recorded as never matching (LTTng: the expression is false for them).  0 on success. */
int filter_check(struct filter *f, const struct filter_schema *events, size_t nevents,
		 struct filter_error *err);

enum filter_ev_status {
	FILTER_EV_MATCHABLE,   /* evaluate */
	FILTER_EV_MISSING,     /* a referenced field/context is absent: always false */
	FILTER_EV_MISTYPED,    /* the expression does not type check with this event's fields */
};

enum filter_ev_status filter_event_status(const struct filter *f, size_t event);
size_t filter_nrefs(const struct filter *f);
/* Canonical text of reference i: "a.b[3]", "$ctx.pid". */
const char *filter_ref_text(const struct filter *f, size_t i);
/* Access of reference ref in event (after filter_check), NULL when missing. */
const struct filter_access *filter_event_access(const struct filter *f, size_t event, size_t ref);

/* ---- evaluation in user space -------------------------------------------------------- */

struct filter_value {
	int64_t i;                         /* FF_INT */
	const char *s;                     /* FF_STRING: bytes (cut at the first NUL, if any) */
	size_t len;
};

/* Fetch the value of access a for the current event: 0, or nonzero when it is absent
 * (sequence index past the end, unreadable): the whole expression is then false. */
typedef int (*filter_get_fn)(void *arg, const struct filter_access *a, struct filter_value *out);

struct filter_values {
	size_t event;                      /* index in the events given to filter_check */
	filter_get_fn get;
	void *arg;
};

/* Does the event match?  false for events that never match (filter_event_status). */
bool filter_eval(const struct filter *f, const struct filter_values *v);

/* LTTng star-glob: pattern bytes where `*` matches any run of bytes and `\` makes the next
 * byte literal (`\*`, `\\`); the whole subject must match.  Iterative, O(plen * slen). */
bool filter_glob_match(const char *pat, size_t plen, const char *s, size_t slen);

/* ---- lowering to the IR (for the kernel) ---------------------------------------------
 *
 * A stack machine over int64 slots, straight-line code with forward jumps only.  The stack
 * depth before each instruction is static (insn.sp), at most FILTER_IR_MAX_STACK; a program
 * has at most FILTER_IR_MAX_INSNS instructions, FILTER_MAX_REFS accesses and
 * FILTER_MAX_NODES strings.  "Abort" means: stop, the expression is false.
 *
 *   FIR_CONST      push imm
 *   FIR_LOAD_FIELD push the int64 value of payload access a         (abort if absent)
 *   FIR_LOAD_CTX   push the int64 value of context access a (imm = ctx_id) (abort if absent)
 *   FIR_STR_EQ     push (string of access a == strings[b]) ? 1 : 0     (exact bytes)
 *   FIR_STR_GLOB   push (string of access a matches glob strings[b])   (filter_glob_match)
 *   FIR_STR_EQ_FIELD push (string of access a == string of access b)
 *                  (string ops abort if a string is absent; a string value ends at its
 *                   first NUL)
 *   FIR_NEG FIR_BNOT FIR_LNOT FIR_BOOL   top = -top, ~top, !top, top != 0
 *   FIR_AND FIR_OR FIR_XOR FIR_SHL FIR_SHR   pop b, pop a, push a OP b (uint64 arithmetic;
 *                  shifts abort unless 0 <= b <= 63; >> is logical)
 *   FIR_EQ FIR_NE FIR_LT FIR_LE FIR_GT FIR_GE  pop b, pop a, push (a OP b) signed, 0/1
 *   FIR_AND_THEN   if top == 0: jump off instructions forward (keeping the 0); else pop
 *   FIR_OR_ELSE    if top != 0: top = 1, jump off forward; else pop
 *   FIR_RET        result = top != 0 (the last instruction, sp == 1)
 */

#define FILTER_IR_MAX_STACK 16
#define FILTER_IR_MAX_INSNS (2 * FILTER_MAX_NODES + 1)

enum filter_ir_op {
	FIR_CONST,
	FIR_LOAD_FIELD,
	FIR_LOAD_CTX,
	FIR_STR_EQ,
	FIR_STR_GLOB,
	FIR_STR_EQ_FIELD,
	FIR_NEG,
	FIR_BNOT,
	FIR_LNOT,
	FIR_BOOL,
	FIR_AND,
	FIR_OR,
	FIR_XOR,
	FIR_SHL,
	FIR_SHR,
	FIR_EQ,
	FIR_NE,
	FIR_LT,
	FIR_LE,
	FIR_GT,
	FIR_GE,
	FIR_AND_THEN,
	FIR_OR_ELSE,
	FIR_RET,
	FIR_NOPS,
};

struct filter_ir_insn {
	uint8_t op;                        /* enum filter_ir_op */
	uint8_t sp;                        /* stack depth before this instruction */
	uint16_t a;                        /* access index */
	uint16_t b;                        /* string index, or second access index */
	uint32_t off;                      /* FIR_AND_THEN/FIR_OR_ELSE: target = this + 1 + off */
	int64_t imm;                       /* FIR_CONST value; FIR_LOAD_CTX: ctx_id */
};

struct filter_ir_str {
	char *s;                           /* bytes (not NUL-terminated for the machine, but
					      a NUL follows for convenience) */
	uint32_t len;
	bool glob;                         /* a star-glob pattern (escapes kept) */
};

struct filter_ir {
	enum filter_ev_status status;      /* not MATCHABLE: the program is "CONST 0; RET" */
	struct filter_ir_insn *insns;
	uint32_t ninsns;
	struct filter_access *access;
	uint32_t naccess;
	struct filter_ir_str *strs;
	uint32_t nstrs;
	uint32_t max_stack;
};

/* Lower f for one event schema (independently of filter_check; literal type errors were
 * already refused by filter_parse).  0 with out filled (out->status says whether the event
 * can match at all), or -1 with err when the program exceeds a bound above (the caller may
 * evaluate in user space instead) or memory runs out. */
int filter_lower(const struct filter *f, const struct filter_schema *ev, struct filter_ir *out,
		 struct filter_error *err);
void filter_ir_free(struct filter_ir *ir);
/* Evaluate the program (v->event is not used). */
bool filter_ir_eval(const struct filter_ir *ir, const struct filter_values *v);
/* One line per instruction, for debugging and tests. */
void filter_ir_dump(FILE *f, const struct filter_ir *ir);
const char *filter_ir_op_name(enum filter_ir_op op);

#endif
