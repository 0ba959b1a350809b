/* filters.c — see filters.h: catalog events as filter schemas, accesses located for the
 * kernel (environment slot or raw record offset), each event classified (never, kernel,
 * user space), and the per-event compile/install loop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filter/bpf_gen.h"
#include "filter/filter.h"
#include "session/filters.h"
#include "kernel/probes.h"
#include "session/user_filter.h"
#include "util/log.h"

struct scry_filters {
	char *text;
	struct filter *f;                 /* the expression of every event (one text), else NULL */
	/* event rules (scry_filters_prepare_rules): each event's own expression, the OR of its
	 * rules' filters, checked against the events that share it */
	struct filter **ex;
	size_t nex;
	uint32_t *ex_of, *sub;            /* per event: its expression (or NO_EX), its index there */
	const struct scry_event *const *events;
	size_t n;
	struct filter_schema *schemas;
	uint8_t *use;                     /* enum scry_filter_use per event */
	int *front_fd;                    /* tracepoint events: their front (owned by the probes) */
	int16_t *user_ref;                /* SCRY_FILTER_USER: a reference the kernel cannot read */
	char **user_why;                  /* SCRY_FILTER_USER by install: why the kernel cannot */
	/* scry_filters_prepare_calls: the events are copies of syscall entries with "ret" last,
	 * decided at the exit (owned here) */
	bool calls;
	struct scry_event *call_events;
	const struct scry_event **call_ptrs;
	size_t ncalls;
};

#define NO_EX UINT32_MAX

/* Event i's expression and its index among the events it was checked against. */
static const struct filter *expr_of(const struct scry_filters *f, size_t i, size_t *sub)
{
	if (f->f) {
		*sub = i;
		return f->f;
	}
	*sub = f->sub[i];
	return f->ex_of[i] == NO_EX ? NULL : f->ex[f->ex_of[i]];
}

static struct filter_field *ctx_fields(void)
{
	static struct filter_field ctx[SCRY_CTX_NR];

	for (int c = 0; c < SCRY_CTX_NR; c++) {
		const struct scry_context_desc *d = scry_context(c);
		ctx[c] = (struct filter_field){
			.name = SCRY_CONTEXT_FIELD(d),
			.type = d->type == SCRY_F_TEXT ? FF_STRING : d->type == SCRY_F_SEQ ? FF_OTHER : FF_INT,
			.is_signed = d->is_signed,
		};
	}
	return ctx;
}

static const struct filter_field int_elem = { .type = FF_INT };
static const struct filter_field str_elem = { .type = FF_STRING };
static const struct filter_field other_elem = { .type = FF_OTHER };

/* One block: the fields, then the nodes and names of struct elements (user_filter.h). */
int scry_filter_schema(const struct scry_event *ev, struct filter_schema *out)
{
	size_t nodes = ev->nfields ? ev->nfields : 1, names = 0;
	struct filter_field *fs, *next;
	char *name_at;

	for (unsigned i = 0; i < ev->nfields; i++)
		if (ev->fields[i].type == SCRY_F_STRUCTSEQ && ev->fields[i].sdesc) {
			size_t nb;
			nodes += scry_user_elem_size(ev->fields[i].sdesc, &nb);
			names += nb;
		}
	if (!(fs = calloc(1, nodes * sizeof(*fs) + names)))
		return -ENOMEM;
	next = fs + (ev->nfields ? ev->nfields : 1);
	name_at = (char *)(fs + nodes);
	for (unsigned i = 0; i < ev->nfields; i++) {
		const struct scry_field *sf = &ev->fields[i];
		struct filter_field *ff = &fs[i];

		ff->name = sf->name;
		ff->user = i;
		switch (sf->type) {
		case SCRY_F_INT:
			ff->type = FF_INT;
			ff->is_signed = sf->is_signed;
			break;
		case SCRY_F_STRING:
		case SCRY_F_TEXT:
			ff->type = FF_STRING;
			break;
		case SCRY_F_ARRAY:
			ff->type = FF_ARRAY;
			ff->length = sf->count;
			ff->elem = &int_elem;
			break;
		case SCRY_F_SEQ:
			ff->type = FF_SEQUENCE;
			ff->elem = &int_elem;
			break;
		case SCRY_F_STRSEQ:
			ff->type = FF_SEQUENCE;
			ff->elem = &str_elem;
			break;
		case SCRY_F_STRUCTSEQ:
			ff->type = FF_SEQUENCE;
			ff->elem = sf->sdesc ? scry_user_elem_schema(sf->sdesc, &next, &name_at) : &other_elem;
			break;
		default:
			ff->type = FF_SEQUENCE;
			ff->elem = &other_elem;
			break;
		}
	}
	*out = (struct filter_schema){
		.event_name = ev->name, .nfields = ev->nfields, .fields = fs,
		.nctx = SCRY_CTX_NR, .ctx = ctx_fields(),
	};
	return 0;
}

void scry_filter_schema_free(struct filter_schema *s)
{
	free((void *)s->fields);
	s->fields = NULL;
}

/* syscall_entry_unknown / syscall_exit_unknown (builtins on raw_syscalls) */
static bool unknown_syscall(const struct scry_event *ev, const char *tp)
{
	return ev->kind == SCRY_EV_BUILTIN && ev->system && !strcmp(ev->system, "raw_syscalls") && !strcmp(ev->tp, tp);
}

unsigned scry_filter_env_kind(const struct scry_event *ev)
{
	return ev->kind == SCRY_EV_SYSCALL_ENTRY || unknown_syscall(ev, "sys_enter") ? SCRY_FENV_ENTER :
	       ev->kind == SCRY_EV_SYSCALL_EXIT || unknown_syscall(ev, "sys_exit") ? SCRY_FENV_EXIT :
	       ev->kind == SCRY_EV_BUILTIN ? SCRY_FENV_FORK : ev->kind == SCRY_EV_UPROBE ? SCRY_FENV_UPROBE : SCRY_FENV_TP;
}

/* How the entry writer extends argument arg (ops: the INT operation's flags; else masks). */
static uint8_t arg_ext(const struct scry_event *ev, int arg)
{
	if (ev->nops) {
		for (unsigned i = 0; i < ev->nops; i++) {
			const struct scry_sc_op *op = &ev->ops[i];
			if (op->kind == SCRY_SOP_INT && op->arg == arg)
				return op->flags & SCRY_SOPF_S32 ? FGEN_EXT_S32 : op->flags & SCRY_SOPF_U32 ? FGEN_EXT_U32 : 0;
		}
		return 0;
	}
	return ev->s32_mask & (1u << arg) ? FGEN_EXT_S32 : ev->u32_mask & (1u << arg) ? FGEN_EXT_U32 : 0;
}

static uint32_t str_max(const struct scry_event *ev, int arg)
{
	for (unsigned i = 0; i < ev->nops; i++)
		if (ev->ops[i].kind == SCRY_SOP_STR && ev->ops[i].arg == arg)
			return ev->ops[i].max;
	return SCRY_STR_MAX;
}

/* calls: ev is a call (scry_filters_prepare_calls), its last field the return value. */
static struct fgen_loc locate(const struct scry_event *ev, const struct filter_access *a, bool calls)
{
	struct fgen_loc l = { .kind = FGEN_NONE };
	const struct scry_field *sf;

	if (a->is_ctx) {
		if (a->ctx_id == SCRY_CTX_PROCNAME)
			l.kind = FGEN_COMM;
		else if (a->ctx_id >= 0 && a->ctx_id < SCRY_CTX_NR)
			l = (struct fgen_loc){ .kind = FGEN_CTX, .ctx = (uint16_t)a->ctx_id, .level = a->cg_level };
		return l;
	}
	if (a->nsteps || a->top >= ev->nfields)
		return l;
	if (calls && a->top == ev->nfields - 1) {
		l.kind = FGEN_RET;
		return l;
	}
	sf = &ev->fields[a->top];
	switch (ev->kind) {
	case SCRY_EV_SYSCALL_ENTRY:
		if (sf->arg < 0 || sf->aux == SCRY_AUX_COUNT)   /* a count is not in a register */
			break;
		if (sf->type == SCRY_F_INT)
			l = (struct fgen_loc){ .kind = FGEN_ARG, .arg = (uint8_t)sf->arg, .ext = arg_ext(ev, sf->arg) };
		else if (sf->type == SCRY_F_STRING)
			l = (struct fgen_loc){ .kind = FGEN_USTR, .arg = (uint8_t)sf->arg, .max = str_max(ev, sf->arg) };
		break;
	case SCRY_EV_SYSCALL_EXIT:
		if (sf->type == SCRY_F_INT && !strcmp(sf->name, "ret") && a->top == 0)
			l.kind = FGEN_RET;
		break;
	case SCRY_EV_BUILTIN:   /* the unknown syscalls: id and ret (args: an array) */
		if (scry_filter_env_kind(ev) <= SCRY_FENV_EXIT && sf->type == SCRY_F_INT)
			l.kind = !strcmp(sf->name, "id") ? FGEN_NR : !strcmp(sf->name, "ret") ? FGEN_RET : FGEN_NONE;
		break;
	case SCRY_EV_UPROBE:      /* registers; the stack and USDT operands: user space */
		if (sf->ureg < 0 || sf->ureg >= SCRY_UREG_NR)
			break;
		if (sf->type == SCRY_F_INT)
			l = (struct fgen_loc){ .kind = FGEN_UREG, .arg = (uint8_t)sf->ureg, .size = sf->size,
					       .shift = sf->ushift, .is_signed = sf->is_signed };
		else if (sf->type == SCRY_F_STRING)
			l = (struct fgen_loc){ .kind = FGEN_USTR, .arg = (uint8_t)sf->ureg, .max = sf->umax };
		break;
	case SCRY_EV_TRACEPOINT:
		if (sf->src == SCRY_SRC_FIXED && sf->type == SCRY_F_INT && sf->src_size == sf->size)
			l = (struct fgen_loc){ .kind = FGEN_REC_INT, .off = sf->src_off, .size = sf->size,
					       .is_signed = sf->is_signed, .adjust = sf->adjust };
		else if (sf->src == SCRY_SRC_FIXED && sf->type == SCRY_F_TEXT && sf->size == 1)
			l = (struct fgen_loc){ .kind = FGEN_REC_TEXT, .off = sf->src_off, .max = sf->count };
		else if ((sf->src == SCRY_SRC_LOC || sf->src == SCRY_SRC_REL) && sf->type == SCRY_F_STRING)
			l = (struct fgen_loc){ .kind = FGEN_REC_LOC, .off = sf->src_off, .rel = sf->src == SCRY_SRC_REL };
		break;
	default:
		break;
	}
	return l;
}

void scry_filter_locs(const struct scry_event *ev, const struct filter_ir *ir, struct fgen_loc *locs)
{
	for (uint32_t i = 0; i < ir->naccess; i++)
		locs[i] = locate(ev, &ir->access[i], false);
}

/* The error with its caret lines, as filter_error_print writes it (without "scry: "). */
static void caret_error(const char *text, const struct filter_error *fe, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {
		snprintf(err, errlen, "filter: %s", fe->msg);
		return;
	}
	filter_error_print(m, text, fe);
	fclose(m);
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = 0;
	snprintf(err, errlen, "%s", buf && !strncmp(buf, "scry: ", 6) ? buf + 6 : buf ? buf : fe->msg);
	free(buf);
}

/* The front kind (SCRY_FENV_*) that decides event i. */
static unsigned env_kind(const struct scry_filters *f, size_t i)
{
	return f->calls ? SCRY_FENV_EXIT : scry_filter_env_kind(f->events[i]);
}

/* f's tables for events[0..n) (f->calls set, f->events not yet): 0 or -1 (out of memory). */
static int alloc_tables(struct scry_filters *f, const struct scry_event *const *events, size_t n)
{
	if (!(f->schemas = calloc(n ? n : 1, sizeof(*f->schemas))) || !(f->use = calloc(n ? n : 1, 1)) ||
	    !(f->front_fd = malloc((n ? n : 1) * sizeof(int))) ||
	    !(f->user_ref = calloc(n ? n : 1, sizeof(*f->user_ref))) ||
	    !(f->user_why = calloc(n ? n : 1, sizeof(*f->user_why))))
		return -1;
	f->events = events;
	f->n = n;
	for (size_t i = 0; i < n; i++)
		if (scry_filter_schema(events[i], &f->schemas[i]))
			return -1;
	return 0;
}

/* Each event's use (never, kernel, user space) from its expression; skip_exits: see
 * scry_filters_prepare.  Events without an expression are recorded unfiltered. */
static void classify(struct scry_filters *f, bool skip_exits)
{
	const struct scry_event *const *events = f->events;

	for (size_t i = 0; i < f->n; i++) {
		size_t sub;
		const struct filter *e = expr_of(f, i, &sub);

		/* scry trace: exits follow their entries; exit/exit_group and the process events
		 * (signals, process exit) give the exit status and the +++ lines */
		/* (probe events are filtered like entries: each stands alone) */
		if (!e || (skip_exits && events[i]->kind != SCRY_EV_UPROBE && (events[i]->kind != SCRY_EV_SYSCALL_ENTRY ||
				   !strcmp(events[i]->tp, "exit") || !strcmp(events[i]->tp, "exit_group")))) {
			f->use[i] = SCRY_FILTER_NONE;
			continue;
		}
		if (filter_event_status(e, sub) != FILTER_EV_MATCHABLE) {
			f->use[i] = SCRY_FILTER_NEVER;
			continue;
		}
		f->use[i] = SCRY_FILTER_KERNEL;
		f->user_ref[i] = -1;
		for (size_t r = 0; r < filter_nrefs(e); r++) {
			const struct filter_access *a = filter_event_access(e, sub, r);
			if (a && locate(events[i], a, f->calls).kind == FGEN_NONE) {
				f->use[i] = SCRY_FILTER_USER;
				f->user_ref[i] = (int16_t)r;
				break;
			}
		}
	}
}

/* text parsed, its $ctx.container resolved to cgroup ids (filter/container.c); NULL with fe. */
static struct filter *parse(const char *text, struct filter_error *fe)
{
	struct filter *f = filter_parse(text, fe);

	if (f && filter_containers(f, fe)) {
		filter_free(f);
		return NULL;
	}
	return f;
}

/* Prepare f (f->calls set, f->events not yet) for events[0..n). */
static struct scry_filters *prepare(struct scry_filters *f, const char *text, const struct scry_event *const *events,
				    size_t n, bool skip_exits, char *err, size_t errlen)
{
	struct filter_error fe = { 0 };

	if (!f || !(f->text = strdup(text)) || alloc_tables(f, events, n))
		goto oom;
	f->f = parse(text, &fe);
	if (!f->f || filter_check(f->f, f->schemas, n, &fe)) {
		caret_error(text, &fe, err, errlen);
		scry_filters_free(f);
		return NULL;
	}
	classify(f, skip_exits);
	return f;
oom:
	snprintf(err, errlen, "out of memory");
	scry_filters_free(f);
	return NULL;
}

/* text parsed and checked against the schemas of the events idx[0..k) of f: NULL with
 * err (what: whose filter, for the message) when it fails. */
static struct filter *check_on(struct scry_filters *f, const char *text, const size_t *idx, size_t k,
			       const char *what, char *err, size_t errlen)
{
	struct filter_schema *sch = calloc(k ? k : 1, sizeof(*sch));
	struct filter_error fe = { 0 };
	struct filter *e = NULL;

	if (!sch) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (size_t j = 0; j < k; j++)
		sch[j] = f->schemas[idx[j]];
	e = parse(text, &fe);
	if (e && filter_check(e, sch, k, &fe)) {
		filter_free(e);
		e = NULL;
	}
	if (!e) {
		caret_error(text, &fe, err, errlen);
		if (what) {
			char *m = strdup(err);

			if (m)
				snprintf(err, errlen, "%s: %s", what, m);
			free(m);
		}
	}
	free(sch);
	return e;
}

#define RULE_BIT(m, r) ((m)[(r) >> 6] & (1ULL << ((r) & 63)))

struct scry_filters *scry_filters_prepare_rules(const struct scry_filter_rule *rules, size_t nrules,
						const uint64_t *unfiltered, const struct scry_event *const *events,
						size_t n, bool skip_exits, char *err, size_t errlen)
{
	struct scry_filters *f = calloc(1, sizeof(*f));
	struct filter **alone = calloc(nrules ? nrules : 1, sizeof(*alone));
	size_t *idx = calloc(n ? n : 1, sizeof(*idx)), *pos = calloc(n ? n : 1, sizeof(*pos));
	char **text = calloc(n ? n : 1, sizeof(*text));
	int ret = -1;

	if (!f || !alone || !idx || !pos || !text || !(f->text = strdup("")) || alloc_tables(f, events, n) ||
	    !(f->ex = calloc(n ? n : 1, sizeof(*f->ex))) || !(f->ex_of = malloc((n ? n : 1) * sizeof(uint32_t))) ||
	    !(f->sub = calloc(n ? n : 1, sizeof(uint32_t))))
		goto oom;
	/* each rule alone against the events it matches: its errors are its own, and the
	 * events it can never accept are known */
	for (size_t r = 0; r < nrules; r++) {
		size_t k = 0;
		char what[96];

		for (size_t i = 0; i < n; i++)
			if (RULE_BIT(rules[r].events, i))
				pos[i] = k, idx[k++] = i;
		if (!k)
			continue;
		snprintf(what, sizeof(what), "filter of rule %s", rules[r].name ? rules[r].name : "?");
		if (!(alone[r] = check_on(f, rules[r].text, idx, k, what, err, errlen))) {
			struct filter_error fe = { 0 };
			struct filter *syntax = parse(rules[r].text, &fe);

			if (!syntax)
				goto fail;
			/* well formed, but true for none of its events (a field they lack, a
			 * type they do not have): as lttng, accepted, and it never records */
			filter_free(syntax);
			err[0] = 0;
			continue;
		}
		for (size_t i = 0; i < n; i++)
			if (RULE_BIT(rules[r].events, i) && filter_event_status(alone[r], pos[i]) == FILTER_EV_MATCHABLE) {
				char *t = text[i];
				size_t len = (t ? strlen(t) : 0) + strlen(rules[r].text) + 8;
				char *nt = malloc(len);

				if (!nt)
					goto oom;
				if (t)
					snprintf(nt, len, "%s || (%s)", t, rules[r].text);
				else
					snprintf(nt, len, "(%s)", rules[r].text);
				free(t);
				text[i] = nt;
			}
	}
	/* each event's expression: the OR of its rules that can accept it, one per distinct
	 * text, checked against the events sharing it; an unfiltered rule: none at all */
	for (size_t i = 0; i < n; i++) {
		f->ex_of[i] = NO_EX;
		if (unfiltered && RULE_BIT(unfiltered, i)) {
			free(text[i]);
			text[i] = NULL;
		}
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		struct filter *e;

		if (f->ex_of[i] != NO_EX || !text[i])
			continue;
		for (size_t j = i; j < n; j++)
			if (f->ex_of[j] == NO_EX && text[j] && !strcmp(text[j], text[i]))
				idx[k++] = j;
		if (!(e = check_on(f, text[i], idx, k, "event rules' filters", err, errlen)))
			goto fail;
		for (size_t j = 0; j < k; j++) {
			f->ex_of[idx[j]] = (uint32_t)f->nex;
			f->sub[idx[j]] = (uint32_t)j;
		}
		f->ex[f->nex++] = e;
	}
	classify(f, skip_exits);
	/* filtered rules only, none of which can accept the event: never recorded */
	for (size_t i = 0; i < n; i++) {
		bool filtered = false;

		for (size_t r = 0; r < nrules && !filtered; r++)
			filtered = RULE_BIT(rules[r].events, i);
		if (filtered && !text[i] && !(unfiltered && RULE_BIT(unfiltered, i)))
			f->use[i] = SCRY_FILTER_NEVER;
	}
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
fail:
out:
	for (size_t r = 0; alone && r < nrules; r++)
		filter_free(alone[r]);
	for (size_t i = 0; text && i < n; i++)
		free(text[i]);
	free(alone);
	free(text);
	free(idx);
	free(pos);
	if (ret) {
		scry_filters_free(f);
		return NULL;
	}
	return f;
}

struct scry_filters *scry_filters_prepare(const char *text, const struct scry_event *const *events, size_t n,
					  bool skip_exits, char *err, size_t errlen)
{
	return prepare(calloc(1, sizeof(struct scry_filters)), text, events, n, skip_exits, err, errlen);
}

struct scry_filters *scry_filters_prepare_calls(const char *text, const struct scry_event *const *entries, size_t n,
						char *err, size_t errlen)
{
	struct scry_filters *f = calloc(1, sizeof(*f));

	if (!f || !(f->call_events = calloc(n ? n : 1, sizeof(*f->call_events))) ||
	    !(f->call_ptrs = calloc(n ? n : 1, sizeof(*f->call_ptrs))))
		goto oom;
	f->calls = true;
	for (size_t i = 0; i < n; i++) {
		struct scry_event *ev = &f->call_events[i];
		struct scry_field *fs = calloc(entries[i]->nfields + 1, sizeof(*fs));

		if (!fs)
			goto oom;
		*ev = *entries[i];
		memcpy(fs, entries[i]->fields, entries[i]->nfields * sizeof(*fs));
		fs[ev->nfields++] = (struct scry_field){ .name = "ret", .type = SCRY_F_INT, .size = 8, .is_signed = true,
							 .base = 10, .length_field = -1, .arg = -1, .ureg = -1 };
		ev->fields = fs;
		f->call_ptrs[i] = ev;
		f->ncalls++;
	}
	f = prepare(f, text, f->call_ptrs, n, false, err, errlen);
	for (size_t i = 0; f && i < n; i++) {
		int r = scry_filters_user_ref(f, i);

		if (r >= 0) {   /* no user space to decide it: the kernel must */
			snprintf(err, errlen, "filter: `%s` of %s cannot be read in the kernel, and metrics are decided "
				 "there only", filter_ref_text(f->f, (size_t)r), entries[i]->tp);
			scry_filters_free(f);
			return NULL;
		}
	}
	return f;
oom:
	snprintf(err, errlen, "out of memory");
	scry_filters_free(f);
	return NULL;
}

int scry_filters_front_fd(const struct scry_filters *f, size_t id)
{
	return id < f->n && f->use[id] == SCRY_FILTER_KERNEL ? f->front_fd[id] : -1;
}

enum scry_filter_use scry_filters_use(const struct scry_filters *f, size_t id)
{
	return id < f->n ? f->use[id] : SCRY_FILTER_NONE;
}

/* Lower the filter for event i and say where the kernel finds its values. */
static int lower_event(struct scry_filters *f, size_t i, struct filter_ir *ir, struct fgen_loc **locs,
		       char *err, size_t errlen)
{
	const struct scry_event *ev = f->events[i];
	struct filter_error fe = { 0 };
	size_t sub;
	const struct filter *e = expr_of(f, i, &sub);

	if (filter_lower(e, &f->schemas[i], ir, &fe)) {
		snprintf(err, errlen, "filter: %s (event %s)", fe.msg, ev->name);
		return -E2BIG;
	}
	*locs = calloc(ir->naccess ? ir->naccess : 1, sizeof(**locs));
	if (!*locs) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t a = 0; a < ir->naccess; a++)
		(*locs)[a] = locate(ev, &ir->access[a], f->calls);
	for (uint32_t a = 0; a < ir->naccess; a++) {
		if ((*locs)[a].kind == FGEN_NONE) {   /* such events are SCRY_FILTER_USER (prepare) */
			snprintf(err, errlen, "filter: `%s` of %s cannot be read by the kernel filter "
				 "(a bug in scry: please report the expression)",
				 filter_ref_text(e, ir->access[a].ref), ev->name);
			return -ENOTSUP;
		}
	}
	return 0;
}

/* Compile and load one front of kind from cases; on failure name the front (a tracepoint's
 * event, or the syscall entries or exits). */
static int load_front(struct scry_filters *f, struct scry_probes *p, unsigned kind, const struct fgen_case *cases,
		      size_t n, const size_t *event_of, char *log, size_t log_size, bool verbose, char *err, size_t errlen)
{
	struct fgen_target t;
	struct fgen_prog prog = { 0 };
	char why[160];
	const char *what = kind >= SCRY_FENV_TP ? f->events[event_of[0]]->name :
			   kind == SCRY_FENV_ENTER ? "syscall entries" : f->calls ? "the metrics" : "syscall exits";
	int ret = scry_probes_filter_target(p, kind, &t);

	if (ret) {
		snprintf(err, errlen, "filter: this kernel's BTF lacks the syscall registers a filter reads");
		return ret;
	}
	if (fgen_compile(cases, n, &t, &prog, why, sizeof(why))) {
		/* each event's filter compiled alone (kernel_can): only their sum can fail */
		snprintf(err, errlen, "filter: cannot compile the filter for %s: %s", what, why);
		return -ENOTSUP;
	}
	if (log)
		log[0] = 0;
	ret = scry_probes_load_front(p, kind, prog.insns, prog.n, log, log_size);
	if (ret < 0) {
		if (log && log[0])
			scry_log(SCRY_LOG_VERBOSE, "%s", log);
		snprintf(err, errlen, "filter: the kernel refused the filter program of %s: %s%s "
			 "(a bug in scry: please report the expression)",
			 what, strerror(-ret), verbose ? "" : "; --verbose shows the verifier log");
	}
	fgen_prog_free(&prog);
	return ret;
}

const struct filter *scry_filters_expr(const struct scry_filters *f, size_t id, size_t *sub)
{
	return expr_of(f, id, sub);
}

int scry_filters_user_ref(const struct scry_filters *f, size_t id)
{
	return id < f->n && f->use[id] == SCRY_FILTER_USER ? f->user_ref[id] : -1;
}

const char *scry_filters_user_why(const struct scry_filters *f, size_t id)
{
	return id < f->n && f->use[id] == SCRY_FILTER_USER ? f->user_why[id] : NULL;
}

/* Can this kernel run the filter of event i alone (case c)?  If not, the event is decided
 * in user space from now on, with the compiler's reason.  -ENOMEM, else 0. */
static int kernel_can(struct scry_filters *f, struct scry_probes *p, size_t i, const struct fgen_case *c)
{
	struct fgen_target t;
	struct fgen_prog prog = { 0 };
	char why[160];

	if (scry_probes_filter_target(p, env_kind(f, i), &t))
		snprintf(why, sizeof(why), "this kernel's BTF lacks the syscall registers");
	else if (!fgen_compile(c, 1, &t, &prog, why, sizeof(why))) {
		fgen_prog_free(&prog);
		return 0;
	}
	if (!(f->user_why[i] = strdup(why)))
		return -ENOMEM;
	f->use[i] = SCRY_FILTER_USER;
	f->user_ref[i] = -1;
	return 0;
}

int scry_filters_install(struct scry_filters *f, struct scry_probes *p, bool verbose, size_t *moved,
			 char *err, size_t errlen)
{
	size_t log_size = verbose ? 1 << 20 : 0;
	char *log = verbose ? malloc(log_size) : NULL;
	struct filter_ir *irs = calloc(f->n ? f->n : 1, sizeof(*irs));
	struct fgen_loc **locs = calloc(f->n ? f->n : 1, sizeof(*locs));
	struct fgen_case *cases[2] = { calloc(f->n + 1, sizeof(struct fgen_case)),
				       calloc(f->n + 1, sizeof(struct fgen_case)) };   /* + calls' default */
	size_t *event_of[2] = { calloc(f->n ? f->n : 1, sizeof(size_t)), calloc(f->n ? f->n : 1, sizeof(size_t)) };
	size_t ncases[2] = { 0, 0 };
	int ret = 0;

	*moved = 0;
	if (!irs || !locs || !cases[0] || !cases[1] || !event_of[0] || !event_of[1]) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < f->n && !ret; i++) {
		const struct scry_event *ev = f->events[i];
		unsigned kind = env_kind(f, i);

		f->front_fd[i] = -1;
		if (f->use[i] != SCRY_FILTER_KERNEL)
			continue;
		if ((ret = lower_event(f, i, &irs[i], &locs[i], err, errlen)))
			break;
		struct fgen_case c = { .key = ev->nr >= 0 ? (uint32_t)ev->nr : 0, .dflt = ev->nr < 0,
				       .action = FGEN_FILTER, .ir = &irs[i], .locs = locs[i] };
		if ((ret = kernel_can(f, p, i, &c))) {
			snprintf(err, errlen, "out of memory");
			break;
		}
		if (f->use[i] != SCRY_FILTER_KERNEL) {
			if (f->calls) {   /* no user space to decide it */
				snprintf(err, errlen, "filter: this kernel cannot run the filter of %s: %s", ev->tp,
					 f->user_why[i]);
				ret = -ENOTSUP;
				break;
			}
			++*moved;
			continue;
		}
		if (kind >= SCRY_FENV_TP) {
			ret = load_front(f, p, kind, &c, 1, &i, log, log_size, verbose, err, errlen);
			if (ret >= 0) {
				f->front_fd[i] = ret;
				ret = 0;
			}
			continue;
		}
		event_of[kind][ncases[kind]] = i;
		cases[kind][ncases[kind]++] = c;
	}
	/* a syscall front decides for every call: the unfiltered ones pass, the never
	 * matching ones are dropped at once */
	for (size_t i = 0; i < f->n && !ret; i++) {
		const struct scry_event *ev = f->events[i];
		unsigned kind = env_kind(f, i);

		if (kind >= SCRY_FENV_TP || f->use[i] == SCRY_FILTER_KERNEL || !ncases[kind])
			continue;
		event_of[kind][ncases[kind]] = i;
		cases[kind][ncases[kind]++] = (struct fgen_case){
			.key = ev->nr >= 0 ? (uint32_t)ev->nr : 0, .dflt = ev->nr < 0,
			.action = f->use[i] == SCRY_FILTER_NEVER ? FGEN_DROP : FGEN_PASS };
	}
	/* calls: numbers the catalog does not know have no fields to test: not counted */
	if (f->calls && !ret)
		cases[1][ncases[1]++] = (struct fgen_case){ .dflt = true, .action = FGEN_DROP };
	for (unsigned kind = 0; kind < 2 && !ret; kind++)
		if (ncases[kind] && (ret = load_front(f, p, kind, cases[kind], ncases[kind], event_of[kind], log,
						      log_size, verbose, err, errlen)) > 0)
			ret = 0;
out:
	for (size_t i = 0; irs && locs && i < f->n; i++) {
		filter_ir_free(&irs[i]);
		free(locs[i]);
	}
	free(irs);
	free(locs);
	free(cases[0]);
	free(cases[1]);
	free(event_of[0]);
	free(event_of[1]);
	free(log);
	return ret;
}

void scry_filters_free(struct scry_filters *f)
{
	if (!f)
		return;
	if (f->schemas)
		for (size_t i = 0; i < f->n; i++)
			scry_filter_schema_free(&f->schemas[i]);
	free(f->schemas);
	filter_free(f->f);
	for (size_t i = 0; i < f->nex; i++)
		filter_free(f->ex[i]);
	free(f->ex);
	free(f->ex_of);
	free(f->sub);
	free(f->use);
	free(f->front_fd);
	free(f->user_ref);
	for (size_t i = 0; f->user_why && i < f->n; i++)
		free(f->user_why[i]);
	free(f->user_why);
	for (size_t i = 0; i < f->ncalls; i++)
		free(f->call_events[i].fields);
	free(f->call_events);
	free(f->call_ptrs);
	free(f->text);
	free(f);
}
