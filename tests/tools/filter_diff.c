/* filter_diff.c — differential test of the filter compiler: the same expressions evaluated
 * in the kernel (programs from src/filter/bpf_gen.c in test mode, run with
 * BPF_PROG_TEST_RUN) and in user space (filter_eval, the reference) over the same events,
 * recorded live from a real workload.  Expressions are generated at random (seeded) from
 * the events' fields and contexts, with literals taken from the values seen, so that both
 * outcomes occur.  Prints "evaluations N accepted A mismatches M" and every mismatch;
 * exits 1 on a mismatch or an error.  Needs root.
 *   filter_diff [-n EXPRS] [-s SEED] [-v] -- CMD ARGS...   */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "catalog/catalog.h"
#include "cli/launch.h"
#include "filter/bpf_gen.h"
#include "filter/filter.h"
#include "session/filters.h"
#include "session/session.h"

#define MAX_EVENTS 3000
#define CTX_MASK ((1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID) | (1ULL << SCRY_CTX_PROCNAME) | \
		  (1ULL << SCRY_CTX_CPU_ID) | (1ULL << SCRY_CTX_UID) | (1ULL << SCRY_CTX_GID) | \
		  (1ULL << SCRY_CTX_CGROUP_ID))

static const char *const event_specs[] = {
	"syscall:openat", "syscall:read", "syscall:write", "syscall:close", "syscall:newfstatat",
	"syscall:mmap", "syscall:access", "syscall:execve", "sched:sched_process_exec",
	"sched:sched_switch", "sched:sched_process_fork",
};

struct rec {
	uint8_t *b;
	size_t len;
};

static struct rec recs[MAX_EVENTS];
static size_t nrecs;
static size_t head;   /* header + contexts bytes */

static void sink(void *ctx, unsigned cpu, const uint8_t *ev, size_t size)
{
	if (nrecs >= MAX_EVENTS || size < head)
		return;
	recs[nrecs].b = malloc(size);
	if (!recs[nrecs].b)
		return;
	memcpy(recs[nrecs].b, ev, size);
	recs[nrecs++].len = size;
}

/* ---- the current event, for both evaluators ------------------------------------------- */

struct cur {
	const struct scry_event *ev;
	struct scry_fieldval vals[64];
	int64_t ctx[SCRY_CTX_NR];
	char comm[SCRY_COMM_LEN + 1];
	char strs[SCRY_MAX_ARGS][SCRY_STR_MAX + 1];   /* user strings, NUL-terminated */
	uint8_t record[8192];                          /* raw tracepoint record rebuilt */
};

static void read_ctx(struct cur *c, const uint8_t *b)
{
	size_t pos = SCRY_EVENT_HEADER_SIZE;

	memset(c->ctx, 0, sizeof(c->ctx));
	for (int k = 0; k < SCRY_CTX_NR; k++) {
		if (!(CTX_MASK & (1ULL << k)))
			continue;
		if (k == SCRY_CTX_PROCNAME) {
			memcpy(c->comm, b + pos, SCRY_COMM_LEN);
			c->comm[SCRY_COMM_LEN] = 0;
			pos += SCRY_COMM_LEN;
			continue;
		}
		if (scry_context(k)->size == 8) {   /* cgroup_id */
			memcpy(&c->ctx[k], b + pos, 8);
			pos += 8;
			continue;
		}
		int32_t v;
		memcpy(&v, b + pos, 4);
		c->ctx[k] = scry_context(k)->is_signed ? (int64_t)v : (int64_t)(uint32_t)v;
		pos += 4;
	}
}

static int get(void *arg, const struct filter_access *a, struct filter_value *out)
{
	struct cur *c = arg;

	memset(out, 0, sizeof(*out));
	if (a->is_ctx) {
		if (a->ctx_id == SCRY_CTX_PROCNAME) {
			out->s = c->comm;
			out->len = strlen(c->comm);
		} else {
			out->i = c->ctx[a->ctx_id];
		}
		return 0;
	}
	if (a->nsteps || a->top >= c->ev->nfields)
		return 1;
	const struct scry_field *f = &c->ev->fields[a->top];
	const struct scry_fieldval *v = &c->vals[a->top];
	if (f->type == SCRY_F_INT) {
		out->i = (int64_t)v->v;
	} else if (f->type == SCRY_F_STRING) {
		out->s = (const char *)v->p;
		out->len = v->len;
	} else if (f->type == SCRY_F_TEXT) {
		out->s = (const char *)v->p;
		out->len = strnlen((const char *)v->p, v->len);
	} else {
		return 1;
	}
	return 0;
}

/* The filter environment the dispatcher would have filled for this event. */
static void fill_env(struct cur *c, struct scry_filter_env *e)
{
	const struct scry_event *ev = c->ev;

	memset(e, 0, offsetof(struct scry_filter_env, seg));
	for (int k = 0; k < SCRY_CTX_NR; k++)
		e->ctx[k] = c->ctx[k];
	memcpy(e->comm, c->comm, SCRY_COMM_LEN);
	for (unsigned i = 0; i < ev->nfields; i++) {
		const struct scry_field *f = &ev->fields[i];
		const struct scry_fieldval *v = &c->vals[i];

		if ((ev->kind == SCRY_EV_SYSCALL_EXIT || ev->kind == SCRY_EV_BUILTIN) && !strcmp(f->name, "ret"))
			e->ret = (int64_t)v->v;
		if (ev->kind == SCRY_EV_BUILTIN && !strcmp(f->name, "id"))   /* the unknown syscalls */
			e->nr = (int64_t)v->v;
		if (ev->kind != SCRY_EV_SYSCALL_ENTRY || f->arg < 0 || f->arg >= SCRY_MAX_ARGS ||
		    f->aux == SCRY_AUX_COUNT)
			continue;
		if (f->type == SCRY_F_INT) {
			e->args[f->arg] = v->v;
		} else if (f->type == SCRY_F_STRING) {
			memcpy(c->strs[f->arg], v->p, v->len);
			c->strs[f->arg][v->len] = 0;
			e->args[f->arg] = (uint64_t)(uintptr_t)c->strs[f->arg];
		}
	}
	if (ev->kind == SCRY_EV_TRACEPOINT) {
		size_t end = 0;
		memset(c->record, 0, sizeof(c->record));
		for (unsigned i = 0; i < ev->nfields; i++) {
			const struct scry_field *f = &ev->fields[i];
			if (f->src == SCRY_SRC_FIXED && f->src_off + f->src_size > end)
				end = f->src_off + f->src_size;
			if ((f->src == SCRY_SRC_LOC || f->src == SCRY_SRC_REL) && f->src_off + 4u > end)
				end = f->src_off + 4u;
		}
		for (unsigned i = 0; i < ev->nfields; i++) {
			const struct scry_field *f = &ev->fields[i];
			const struct scry_fieldval *v = &c->vals[i];
			if (f->src == SCRY_SRC_FIXED && f->type == SCRY_F_INT) {
				uint64_t raw = v->v - (uint64_t)(int64_t)f->adjust;
				memcpy(c->record + f->src_off, &raw, f->src_size);
			} else if (f->src == SCRY_SRC_FIXED) {
				memcpy(c->record + f->src_off, v->p, v->len < f->src_size ? v->len : f->src_size);
			} else if ((f->src == SCRY_SRC_LOC || f->src == SCRY_SRC_REL) && f->type == SCRY_F_STRING &&
				   end + v->len + 1 < sizeof(c->record)) {
				uint32_t off = (uint32_t)(f->src == SCRY_SRC_REL ? end - (f->src_off + 4u) : end);
				uint32_t loc = ((v->len + 1) << 16) | off;
				memcpy(c->record + f->src_off, &loc, 4);
				memcpy(c->record + end, v->p, v->len);
				end += v->len + 1;
			}
		}
		e->base = (uint64_t)(uintptr_t)c->record;
	}
}

/* ---- random expressions ----------------------------------------------------------------- */

static unsigned long long rng_state;

static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return n ? (unsigned)((rng_state >> 33) % n) : 0;
}

struct pick {
	size_t rec;          /* an event to take a field and a value from */
};

static void put_str_lit(char *out, size_t n, const char *s, size_t len, int mode)
{
	char buf[160];
	size_t o = 0;

	if (len > 40)
		len = 40;
	buf[o++] = '"';
	if (mode == 1 || mode == 3)
		buf[o++] = '*';
	size_t from = mode >= 1 && len > 2 ? rnd((unsigned)len / 2 + 1) : 0;
	size_t to = mode >= 1 && len > 2 ? len - rnd((unsigned)(len - from) / 2 + 1) : len;
	for (size_t i = from; i < to && o < sizeof(buf) - 8; i++) {
		char ch = s[i];
		if (mode == 4 && i == from + (to - from) / 2) {
			buf[o++] = '*';
			continue;
		}
		if (ch == '"' || ch == '\\' || ch == '*' || ch == '\'')
			buf[o++] = '\\';
		if ((unsigned char)ch < 32 || (unsigned char)ch > 126)
			ch = '?';
		buf[o++] = ch;
	}
	if (mode == 2 || mode == 3)
		buf[o++] = '*';
	buf[o++] = '"';
	buf[o] = 0;
	snprintf(out, n, "%s", buf);
}

/* A comparison over one field or context of event r. */
static void atom(char *out, size_t n, struct cur *c, size_t r)
{
	const struct scry_event *ev = c->ev;
	static const char *const cmp[] = { "==", "!=", "<", "<=", ">", ">=" };
	char lit[200];
	int k = rnd(3);

	if (k == 0 || !ev->nfields) {   /* a context */
		int ctxs[] = { SCRY_CTX_PID, SCRY_CTX_TID, SCRY_CTX_PROCNAME, SCRY_CTX_CPU_ID, SCRY_CTX_UID, SCRY_CTX_GID,
			       SCRY_CTX_CGROUP_ID };
		int cx = ctxs[rnd(7)];
		if (cx == SCRY_CTX_PROCNAME) {
			put_str_lit(lit, sizeof(lit), c->comm, strlen(c->comm), rnd(5));
			snprintf(out, n, "$ctx.procname %s %s", rnd(2) ? "==" : "!=", lit);
		} else {
			snprintf(out, n, "$ctx.%s %s %lld", scry_context(cx)->name, cmp[rnd(6)],
				 (long long)(c->ctx[cx] + (int)rnd(3) - 1));
		}
		return;
	}
	unsigned fi = rnd(ev->nfields);
	const struct scry_field *f = &ev->fields[fi];
	const struct scry_fieldval *v = &c->vals[fi];
	if (f->type == SCRY_F_INT) {
		long long val = (long long)v->v;
		switch (rnd(5)) {
		case 0:
			snprintf(out, n, "%s & 0x%llx == 0x%llx", f->name, (unsigned long long)(1ULL << rnd(20)),
				 (unsigned long long)(val & (1LL << rnd(20))));
			break;
		case 1:
			snprintf(out, n, "(%s >> %u) %s %lld", f->name, rnd(70), cmp[rnd(6)], val >> rnd(8));
			break;
		case 2:
			snprintf(out, n, "~%s != %lld", f->name, ~val);
			break;
		default:
			snprintf(out, n, "%s %s %lld", f->name, cmp[rnd(6)], val + (int)rnd(3) - 1);
		}
	} else if (f->type == SCRY_F_STRING || f->type == SCRY_F_TEXT) {
		size_t len = f->type == SCRY_F_TEXT ? strnlen((const char *)v->p, v->len) : v->len;
		put_str_lit(lit, sizeof(lit), (const char *)v->p, len, rnd(5));
		snprintf(out, n, "%s %s %s", f->name, rnd(2) ? "==" : "!=", lit);
	} else {
		snprintf(out, n, "$ctx.pid >= 0");
	}
	(void)r;
}

static int decode(struct cur *c, const struct scry_event *const *events, size_t nev, size_t r)
{
	uint16_t id;

	memcpy(&id, recs[r].b, 2);
	if (id >= nev)
		return -1;
	c->ev = events[id];
	read_ctx(c, recs[r].b);
	return scry_event_decode(c->ev, recs[r].b + head, recs[r].len - head, c->vals) < 0 ? -1 : 0;
}

/* ---- main --------------------------------------------------------------------------------- */

static int run_workload(struct scry_session *s, char **cmd, char *err, size_t errlen)
{
	struct scry_child child = { .pid = -1, .status_fd = -1 };
	int status;

	if (cli_launch(s, NULL, 0, cmd, &child, NULL, NULL, NULL, err, errlen))
		return -1;
	for (;;) {
		scry_session_poll(s);
		if (waitpid(child.pid, &status, WNOHANG) == child.pid)
			break;
		usleep(2000);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct scry_channel_opts chan = {
		.events = event_specs, .nevents = sizeof(event_specs) / sizeof(event_specs[0]),
		.ctx_mask = CTX_MASK, .sink = sink,
	};
	struct scry_session_opts so = { .channels = &chan, .nchannels = 1 };
	struct scry_session *s = NULL;
	struct scry_session_summary sum;
	const struct scry_event *const *events;
	struct cur *c = calloc(1, sizeof(*c));
	char err[1024] = "";
	unsigned nexpr = 200, verbose = 0;
	const char *fixed = NULL;   /* -x EXPR: this expression (on events where it checks) */
	unsigned long long evals = 0, accepted = 0, mismatches = 0, skipped = 0;
	int opt, env_fd = -1, ncpus = libbpf_num_possible_cpus(), strnstr = 0;
	struct scry_filter_env *envs = NULL;

	rng_state = 42;
	while ((opt = getopt(argc, argv, "+n:s:vx:")) != -1) {
		if (opt == 'x')
			fixed = optarg;
		else if (opt == 'n')
			nexpr = (unsigned)atoi(optarg);
		else if (opt == 's')
			rng_state = strtoull(optarg, NULL, 10);
		else if (opt == 'v')
			verbose = 1;
		else
			return 2;
	}
	if (optind >= argc || !c) {
		fprintf(stderr, "usage: filter_diff [-n EXPRS] [-s SEED] [-v] -- CMD ARGS...\n");
		return 2;
	}
	head = SCRY_EVENT_HEADER_SIZE + scry_context_size(CTX_MASK);
	if (scry_session_create(&s, &so, err, sizeof(err)) || scry_session_load(s, err, sizeof(err)) ||
	    run_workload(s, &argv[optind], err, sizeof(err)) || scry_session_stop(s, &sum, err, sizeof(err))) {
		fprintf(stderr, "filter_diff: %s\n", err);
		return 1;
	}
	size_t nev = scry_session_events(s, 0, &events);
	fprintf(stderr, "filter_diff: %zu events recorded\n", nrecs);

	struct btf *vml = btf__load_vmlinux_btf();
	strnstr = vml ? btf__find_by_name_kind(vml, "bpf_strnstr", BTF_KIND_FUNC) : 0;
	btf__free(vml);
	env_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "fdiff_env", 4, sizeof(struct scry_filter_env), SCRY_FENV_NR, NULL);
	envs = calloc((size_t)ncpus, sizeof(*envs));
	if (env_fd < 0 || !envs || ncpus <= 0) {
		fprintf(stderr, "filter_diff: cannot create the environment map: %s\n", strerror(errno));
		return 1;
	}
	struct fgen_target t = { .env_fd = env_fd, .back_fd = -1, .test = true, .strnstr_btf_id = strnstr > 0 ? strnstr : 0 };

	for (unsigned x = 0; x < nexpr && nrecs; x++) {
		/* an expression built on one event, evaluated over every event of its kind */
		size_t r0 = rnd((unsigned)nrecs);
		char a1[256], a2[256], text[700];
		if (decode(c, events, nev, r0))
			continue;
		const struct scry_event *ev0 = c->ev;
		atom(a1, sizeof(a1), c, r0);
		atom(a2, sizeof(a2), c, r0);
		switch (rnd(4)) {
		case 0: snprintf(text, sizeof(text), "%s", a1); break;
		case 1: snprintf(text, sizeof(text), "%s && %s", a1, a2); break;
		case 2: snprintf(text, sizeof(text), "%s || !(%s)", a1, a2); break;
		default: snprintf(text, sizeof(text), "!(%s) || %s", a1, a2); break;
		}
		if (fixed)
			snprintf(text, sizeof(text), "%s", fixed);
		struct filter_error fe;
		struct filter_schema sch;
		struct filter *f = filter_parse(text, &fe);
		if (!f || scry_filter_schema(ev0, &sch)) {
			fprintf(stderr, "filter_diff: generated expression refused: %s: %s\n", text, f ? "" : fe.msg);
			return 1;
		}
		if (filter_check(f, &sch, 1, &fe)) {
			skipped++;   /* e.g. a string compared with <: not a valid expression */
			filter_free(f);
			scry_filter_schema_free(&sch);
			continue;
		}
		struct filter_ir ir = { 0 };
		struct fgen_prog prog = { 0 };
		struct fgen_loc locs[FILTER_MAX_REFS];
		char why[200], log[4096];
		int pfd = -1;
		if (filter_lower(f, &sch, &ir, &fe)) {
			fprintf(stderr, "filter_diff: cannot lower %s: %s\n", text, fe.msg);
			return 1;
		}
		scry_filter_locs(ev0, &ir, locs);
		t.env_kind = scry_filter_env_kind(ev0);
		bool expressible = true;
		for (uint32_t a = 0; a < ir.naccess; a++)
			expressible &= locs[a].kind != FGEN_NONE;
		if (!expressible) {   /* refused by scry record with a clear error: not compared */
			skipped++;
			filter_ir_free(&ir);
			filter_free(f);
			scry_filter_schema_free(&sch);
			continue;
		}
		if (ir.status == FILTER_EV_MATCHABLE) {
			struct fgen_case one = { .ir = &ir, .locs = locs };
			if (fgen_compile(&one, 1, &t, &prog, why, sizeof(why))) {
				fprintf(stderr, "filter_diff: cannot compile %s for %s: %s\n", text, ev0->name, why);
				return 1;
			}
			pfd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "fdiff", "GPL", prog.insns, prog.n, NULL);
			if (pfd < 0) {
				LIBBPF_OPTS(bpf_prog_load_opts, lo, .log_buf = log, .log_size = sizeof(log), .log_level = 1);
				log[0] = 0;
				int e = errno;
				pfd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "fdiff", "GPL", prog.insns, prog.n, &lo);
				fprintf(stderr, "filter_diff: the verifier refused %s for %s: %s\n%s\n", text, ev0->name,
					strerror(e), log);
				return 1;
			}
		}
		for (size_t r = 0; r < nrecs; r++) {
			if (decode(c, events, nev, r) || c->ev != ev0)
				continue;
			struct filter_values fv = { .event = 0, .get = get, .arg = c };
			bool want = filter_eval(f, &fv), got = false;
			if (pfd >= 0) {
				__u32 key = t.env_kind;
				__u64 ctx_args[1] = { 0 };
				for (int k = 0; k < ncpus; k++)
					fill_env(c, &envs[k]);
				/* run here, in this process's context (user strings are read from this
				 * process), on whatever CPU: every CPU's environment holds the event */
				LIBBPF_OPTS(bpf_test_run_opts, to, .ctx_in = ctx_args, .ctx_size_in = sizeof(ctx_args));
				if (bpf_map_update_elem(env_fd, &key, envs, BPF_ANY) || bpf_prog_test_run_opts(pfd, &to)) {
					fprintf(stderr, "filter_diff: test run failed: %s\n", strerror(errno));
					return 1;
				}
				got = to.retval == 1;
			}
			evals++;
			accepted += want;
			if (want != got) {
				mismatches++;
				if (mismatches <= 20) {
					printf("MISMATCH %s: %s: user space %d, kernel %d:", ev0->name, text, want, got);
					for (unsigned i = 0; i < c->ev->nfields && i < 8; i++) {
						const struct scry_fieldval *v = &c->vals[i];
						if (c->ev->fields[i].type == SCRY_F_INT)
							printf(" %s=%lld", c->ev->fields[i].name, (long long)v->v);
						else
							printf(" %s=\"%.*s\"", c->ev->fields[i].name, (int)v->len, (const char *)v->p);
					}
					printf("\n");
				}
			}
		}
		if (verbose)
			fprintf(stderr, "%s [%s]\n", text, ev0->name);
		if (pfd >= 0)
			close(pfd);
		fgen_prog_free(&prog);
		filter_ir_free(&ir);
		filter_free(f);
		scry_filter_schema_free(&sch);
	}
	printf("evaluations %llu accepted %llu mismatches %llu skipped %llu\n", evals, accepted, mismatches, skipped);
	scry_session_destroy(s);
	return mismatches ? 1 : 0;
}
