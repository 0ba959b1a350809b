/* json_schema.c — `scry view --json-schema DIR`: the JSON Schema (draft 2020-12) of the
 * objects `scry view --json DIR` writes (src/view/output_json.c), made from the event
 * classes of the traces under DIR.  Each value follows its declared CTF type by the rules
 * of util/json.h and output_json.c:
 *   - an integer of a type whose range fits in +-2^53 is a JSON integer within that range;
 *     a wider one (64-bit) is an integer while |v| <= 2^53 and beyond that a string holding
 *     the exact decimal value (16 digits or more);
 *   - an enum is one of its labels, or (a value no label maps) an integer as above;
 *   - a float is a number, or null when it is not finite;
 *   - strings and text arrays/sequences are strings (a fixed text array at most its length);
 *   - arrays are arrays (a fixed one of exactly its length), structs are objects with every
 *     member written (additionalProperties false), a variant is one of its options;
 *   - the members output_json.c leaves out (json_member_shown) are left out here too.
 * The top level checks the members every object has (timestamp, time, name, cpu_id,
 * context, payload) and dispatches on "name" (a balanced if/then/else over the names, see
 * dispatch()) to $defs/NAME, which checks that class's cpu_id, context and payload.  Classes of one name in several
 * traces or stream classes with different layouts: NAME's definition is their anyOf. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/json.h"
#include "view/output.h"
#include "view/reader.h"

static void value_schema(struct outbuf *ob, const struct op *ops, uint32_t i, int *fail);

static unsigned digits(uint64_t v)
{
	unsigned n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void labeled_ranges(struct outbuf *ob, const struct ctf_type *en, bool is_signed);

/* An integer of bits bits (signed or not), as json_i64/json_u64 write its values; en: an
 * enum's, whose labeled values are written as labels, not numbers. */
static void int_range_schema(struct outbuf *ob, unsigned bits, bool is_signed, const struct ctf_type *en)
{
	uint64_t hi, lo_mag;   /* largest value, magnitude of the smallest */

	if (!bits || bits > 64)
		bits = 64;
	if (is_signed) {
		lo_mag = UINT64_C(1) << (bits - 1);
		hi = lo_mag - 1;
	} else {
		lo_mag = 0;
		hi = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	}
	bool big = hi > JSON_SAFE_INT || lo_mag > JSON_SAFE_INT;
	/* minimum and maximum apply to the numbers only, pattern to the strings only */
	if (big)
		OB_LIT(ob, "{\"type\":[\"integer\",\"string\"],\"minimum\":");
	else
		OB_LIT(ob, "{\"type\":\"integer\",\"minimum\":");
	if (lo_mag) {
		ob_putc(ob, '-');
		ob_u64(ob, lo_mag < JSON_SAFE_INT ? lo_mag : JSON_SAFE_INT);
	} else {
		ob_putc(ob, '0');
	}
	OB_LIT(ob, ",\"maximum\":");
	ob_u64(ob, hi < JSON_SAFE_INT ? hi : JSON_SAFE_INT);
	if (big) {
		/* beyond 2^53 (9007199254740992, 16 digits): the exact decimal value as a string */
		OB_LIT(ob, ",\"pattern\":\"^");
		if (lo_mag > JSON_SAFE_INT)
			OB_LIT(ob, "-?");
		OB_LIT(ob, "[1-9][0-9]{15,");
		ob_u64(ob, digits(hi > lo_mag ? hi : lo_mag) - 1);
		OB_LIT(ob, "}$\"");
	}
	if (en)
		labeled_ranges(ob, en, is_signed);
	ob_putc(ob, '}');
}

/* ,"not":{"anyOf":[{"minimum":LO,"maximum":HI}...]}: the numbers an enum's entries label
 * (plan_enum_label: compared signed or not as the container is), within +-2^53 (beyond,
 * numbers are strings: a label's value there is not excluded). */
static void labeled_ranges(struct outbuf *ob, const struct ctf_type *en, bool is_signed)
{
	const int64_t safe = (int64_t)JSON_SAFE_INT;
	int n = 0;

	for (size_t e = 0; e < en->nentries; e++) {
		int64_t lo = en->entries[e].lo, hi = en->entries[e].hi;

		if (!en->entries[e].label)
			continue;
		if (!is_signed) {
			uint64_t ulo = (uint64_t)lo, uhi = (uint64_t)hi;

			if (ulo > uhi || ulo > JSON_SAFE_INT)
				continue;
			lo = (int64_t)ulo;
			hi = uhi > JSON_SAFE_INT ? safe : (int64_t)uhi;
		} else {
			if (lo > hi || lo > safe || hi < -safe)
				continue;
			lo = lo < -safe ? -safe : lo;
			hi = hi > safe ? safe : hi;
		}
		if (n++)
			OB_LIT(ob, ",{\"minimum\":");
		else
			OB_LIT(ob, ",\"not\":{\"anyOf\":[{\"minimum\":");
		ob_i64(ob, lo);
		OB_LIT(ob, ",\"maximum\":");
		ob_i64(ob, hi);
		ob_putc(ob, '}');
	}
	if (n)
		OB_LIT(ob, "]}");
}

static void enum_schema(struct outbuf *ob, const struct op *o)
{
	const struct ctf_type *en = o->enm;
	int n = 0;

	OB_LIT(ob, "{\"anyOf\":[{\"enum\":[");
	for (size_t e = 0; e < en->nentries; e++) {
		const char *lab = en->entries[e].label;
		size_t k;

		if (!lab)
			continue;
		for (k = 0; k < e; k++)
			if (en->entries[k].label && !strcmp(en->entries[k].label, lab))
				break;
		if (k < e)
			continue;
		if (n++)
			ob_putc(ob, ',');
		json_str(ob, lab, strlen(lab));
	}
	OB_LIT(ob, "]},");
	int_range_schema(ob, o->bits, o->flags & OPF_SIGNED, en);
	OB_LIT(ob, "]}");
}

/* One member of an object: ops NULL for the context's "container" (a string, written only
 * when the trace names the event's cgroup). */
struct member {
	const char *name;
	uint32_t len;
	const struct op *ops;
	uint32_t i;
};

struct members {
	struct member *m;
	size_t n, cap;
};

static int push_member(struct members *ms, const char *name, uint32_t len, const struct op *ops, uint32_t i)
{
	if (ms->n == ms->cap) {
		size_t cap = ms->cap ? ms->cap * 2 : 16;
		struct member *m = realloc(ms->m, cap * sizeof(*m));

		if (!m)
			return -1;
		ms->m = m;
		ms->cap = cap;
	}
	ms->m[ms->n++] = (struct member){ name ? name : "", name ? len : 0, ops, i };
	return 0;
}

/* The members json_event writes of the struct at ops[i]. */
static int add_members(struct members *ms, const struct op *ops, uint32_t i)
{
	for (uint32_t j = i + 1; ops[j].kind != OP_STRUCT_END; j = ops[j].next)
		if (json_member_shown(&ops[j]) && push_member(ms, ops[j].name, ops[j].name_len, ops, j))
			return -1;
	return 0;
}

static bool same_name(const struct member *a, const struct member *b)
{
	return a->len == b->len && !memcmp(a->name, b->name, a->len);
}

static void member_schema(struct outbuf *ob, const struct member *m, int *fail)
{
	if (m->ops)
		value_schema(ob, m->ops, m->i, fail);
	else
		OB_LIT(ob, "{\"type\":\"string\"}");
}

/* An object of exactly these members.  A name written twice (two scopes of the context with
 * a member of the same name): a JSON reader keeps one of them, either of the types. */
static void object_schema(struct outbuf *ob, const struct members *ms, int *fail)
{
	int n = 0;

	OB_LIT(ob, "{\"type\":\"object\",\"properties\":{");
	for (size_t k = 0; k < ms->n; k++) {
		size_t first = 0, count = 0;

		while (!same_name(&ms->m[first], &ms->m[k]))
			first++;
		if (first < k)
			continue;
		for (size_t q = k; q < ms->n; q++)
			count += same_name(&ms->m[q], &ms->m[k]);
		if (n++)
			ob_putc(ob, ',');
		json_str(ob, ms->m[k].name, ms->m[k].len);
		ob_putc(ob, ':');
		if (count == 1) {
			member_schema(ob, &ms->m[k], fail);
			continue;
		}
		OB_LIT(ob, "{\"anyOf\":[");
		for (size_t q = k, c = 0; q < ms->n; q++) {
			if (!same_name(&ms->m[q], &ms->m[k]))
				continue;
			if (c++)
				ob_putc(ob, ',');
			member_schema(ob, &ms->m[q], fail);
		}
		OB_LIT(ob, "]}");
	}
	OB_LIT(ob, "},\"required\":[");
	n = 0;
	for (size_t k = 0; k < ms->n; k++) {
		size_t first = 0;
		bool always = false;

		while (!same_name(&ms->m[first], &ms->m[k]))
			first++;
		if (first < k)
			continue;
		for (size_t q = k; q < ms->n; q++)
			always |= same_name(&ms->m[q], &ms->m[k]) && ms->m[q].ops;
		if (!always)
			continue;
		if (n++)
			ob_putc(ob, ',');
		json_str(ob, ms->m[k].name, ms->m[k].len);
	}
	OB_LIT(ob, "],\"additionalProperties\":false}");
}

static void value_schema(struct outbuf *ob, const struct op *ops, uint32_t i, int *fail)
{
	const struct op *o = &ops[i];

	ob_reserve(ob);
	switch (o->kind) {
	case OP_INT:
		if ((o->flags & OPF_ENUM) && o->enm && o->enm->nentries)
			enum_schema(ob, o);
		else
			int_range_schema(ob, o->bits, o->flags & OPF_SIGNED, NULL);
		return;
	case OP_FLOAT:
		OB_LIT(ob, "{\"type\":[\"number\",\"null\"]}");
		return;
	case OP_STRING:
		OB_LIT(ob, "{\"type\":\"string\"}");
		return;
	case OP_TEXT:
		/* a fixed text array: up to its NUL, at most len characters (one per byte or fewer) */
		OB_LIT(ob, "{\"type\":\"string\"");
		if (o->len_reg < 0) {
			OB_LIT(ob, ",\"maxLength\":");
			ob_u64(ob, o->len);
		}
		ob_putc(ob, '}');
		return;
	case OP_STRUCT: {
		struct members ms = { 0 };

		if (add_members(&ms, ops, i))
			*fail = 1;
		object_schema(ob, &ms, fail);
		free(ms.m);
		return;
	}
	case OP_ARRAY:
		OB_LIT(ob, "{\"type\":\"array\",\"items\":");
		value_schema(ob, ops, i + 1, fail);
		if (o->len_reg < 0) {
			OB_LIT(ob, ",\"minItems\":");
			ob_u64(ob, o->len);
			OB_LIT(ob, ",\"maxItems\":");
			ob_u64(ob, o->len);
		}
		ob_putc(ob, '}');
		return;
	case OP_VARIANT:
		/* the chosen option's value, without the tag */
		if (o->nopts == 1) {
			value_schema(ob, ops, o->opts[0], fail);
			return;
		}
		OB_LIT(ob, "{\"anyOf\":[");
		for (uint32_t k = 0; k < o->nopts; k++) {
			if (k)
				ob_putc(ob, ',');
			value_schema(ob, ops, o->opts[k], fail);
		}
		OB_LIT(ob, "]}");
		return;
	default:
		OB_LIT(ob, "{}");
		return;
	}
}

/* The stream's cpu_id (the packet context's cpu_id; null when there is none or it is -1). */
static void cpu_schema(struct outbuf *ob, const struct plan *pctx)
{
	for (uint32_t j = 0; j < pctx->n; j++) {
		const struct op *o = &pctx->ops[j];

		if (o->kind != OP_INT || o->role != ROLE_CPU_ID)
			continue;
		if (!(o->flags & OPF_SIGNED) && o->bits && o->bits < 64) {
			OB_LIT(ob, "{\"type\":\"integer\",\"minimum\":0,\"maximum\":");
			ob_u64(ob, (UINT64_C(1) << o->bits) - 1);
			ob_putc(ob, '}');
		} else {
			OB_LIT(ob, "{\"type\":[\"integer\",\"null\"]}");
		}
		return;
	}
	OB_LIT(ob, "{\"type\":\"null\"}");
}

/* Whether json_event may add "container" to this stream class's contexts
 * (view_event_container: a cgroup_id stream event context and cgroups named in the env). */
static bool has_container(const struct view_trace *t, const struct plan *ectx)
{
	if (!t->m->ncgroups || !ectx->n || ectx->ops[0].kind != OP_STRUCT)
		return false;
	for (uint32_t j = 1; ectx->ops[j].kind != OP_STRUCT_END; j = ectx->ops[j].next) {
		const struct op *o = &ectx->ops[j];

		if (o->kind == OP_INT && o->name && o->name_len == 9 && !memcmp(o->name, "cgroup_id", 9))
			return true;
	}
	return false;
}

static void class_schema(struct outbuf *ob, const struct view_trace *t, const struct view_sclass *vs,
			 const struct view_event_class *ev, int *fail)
{
	struct members ctx = { 0 }, pay = { 0 };

	if ((vs->ectx.n && add_members(&ctx, vs->ectx.ops, 0)) ||
	    (has_container(t, &vs->ectx) && push_member(&ctx, "container", 9, NULL, 0)) ||
	    (ev->ctx.n && add_members(&ctx, ev->ctx.ops, 0)) || (ev->fields.n && add_members(&pay, ev->fields.ops, 0)))
		*fail = 1;
	OB_LIT(ob, "{\"type\":\"object\",\"properties\":{\"name\":{\"const\":");
	json_str(ob, ev->name, ev->name_len);
	OB_LIT(ob, "},\"cpu_id\":");
	cpu_schema(ob, &vs->pctx);
	OB_LIT(ob, ",\"context\":");
	object_schema(ob, &ctx, fail);
	OB_LIT(ob, ",\"payload\":");
	object_schema(ob, &pay, fail);
	OB_LIT(ob, "}}");
	free(ctx.m);
	free(pay.m);
}

/* "#/$defs/NAME": NAME as a JSON pointer token (~ as ~0, / as ~1) in a URI fragment
 * (bytes other than letters, digits and _-.: percent-encoded), so pure ASCII. */
static void def_ref(struct outbuf *ob, const char *name, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";

	OB_LIT(ob, "\"#/$defs/");
	for (size_t k = 0; k < len; k++) {
		unsigned char c = (unsigned char)name[k];

		ob_reserve(ob);
		if (c == '~') {
			OB_LIT(ob, "~0");
		} else if (c == '/') {
			OB_LIT(ob, "~1");
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
			   c == '-' || c == '.' || c == ':') {
			ob_putc(ob, (char)c);
		} else {
			ob_putc(ob, '%');
			ob_putc(ob, hex[c >> 4]);
			ob_putc(ob, hex[c & 15]);
		}
	}
	ob_putc(ob, '"');
}

/* One event class's schema, kept in the memory stream at off. */
struct cls {
	const char *name;
	size_t len;
	size_t off, n;
	size_t order;
};

/* By name, then layout (equal schemas next to each other), then order met. */
static int cls_cmp(const void *a, const void *b, void *mem)
{
	const struct cls *x = a, *y = b;
	size_t m = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, m);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	if ((c = memcmp((const char *)mem + x->off, (const char *)mem + y->off, x->n)))
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

static bool same_cls_name(const struct cls *a, const struct cls *b)
{
	return a->len == b->len && !memcmp(a->name, b->name, a->len);
}

/* The event classes' schemas, one after the other in *mem (sorted by name in *out). */
static int collect(const struct view *v, char **mem, size_t *memlen, struct cls **out, size_t *nout, char *err,
		   size_t errlen)
{
	struct cls *cl = NULL;
	size_t ncl = 0, cap = 0;
	struct outbuf ob;
	int fail = 0;
	FILE *mf = open_memstream(mem, memlen);

	if (!mf || ob_init(&ob, mf)) {
		if (mf)
			fclose(mf);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t ti = 0; ti < v->ntraces && !fail; ti++) {
		const struct view_trace *t = &v->traces[ti];

		for (size_t si = 0; si < t->nsclasses && !fail; si++) {
			const struct view_sclass *vs = &t->sclasses[si];

			for (uint64_t id = 0; id < vs->nids && !fail; id++) {
				const struct view_event_class *ev = vs->by_id[id];

				if (!ev)
					continue;
				if (ncl == cap) {
					size_t ncap = cap ? cap * 2 : 256;
					struct cls *c = realloc(cl, ncap * sizeof(*c));

					if (!c) {
						fail = 1;
						break;
					}
					cl = c;
					cap = ncap;
				}
				ob_flush(&ob);
				fflush(mf);
				size_t off = *memlen;
				class_schema(&ob, t, vs, ev, &fail);
				ob_flush(&ob);
				if (fflush(mf))
					fail = 1;
				cl[ncl] = (struct cls){ ev->name, ev->name_len, off, *memlen - off, ncl };
				ncl++;
			}
		}
	}
	ob_free(&ob);
	if (fclose(mf) || ob.error)
		fail = 1;
	if (fail) {
		free(cl);
		free(*mem);
		*mem = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (ncl)
		qsort_r(cl, ncl, sizeof(*cl), cls_cmp, *mem);
	*out = cl;
	*nout = ncl;
	return 0;
}

/* Whether cl[q]'s schema differs from those of cl[k..q-1] (of its name, sorted by layout). */
static bool first_layout(const char *mem, const struct cls *cl, size_t k, size_t q)
{
	return q == k || cl[q - 1].n != cl[q].n || memcmp(mem + cl[q - 1].off, mem + cl[q].off, cl[q].n);
}

/* {"enum":[the names names[lo..hi-1]]} */
static void name_enum(struct outbuf *ob, const struct cls *cl, const size_t *names, size_t lo, size_t hi)
{
	OB_LIT(ob, "{\"enum\":[");
	for (size_t u = lo; u < hi; u++) {
		if (u > lo)
			ob_putc(ob, ',');
		json_str(ob, cl[names[u]].name, cl[names[u]].len);
	}
	OB_LIT(ob, "]}");
}

/* The schema that sends an event named one of names[lo..hi-1] to its $defs/NAME: a balanced
 * tree of if/then/else on halves of the names, so that a validator tests log2(classes)
 * conditions per object (one if/then per name would test every class: ~50 ms an object
 * for Python's jsonschema over the ~800 classes of a kernel trace). */
static void dispatch(struct outbuf *ob, const struct cls *cl, const size_t *names, size_t lo, size_t hi)
{
	if (hi - lo == 1) {
		OB_LIT(ob, "{\"$ref\":");
		def_ref(ob, cl[names[lo]].name, cl[names[lo]].len);
		ob_putc(ob, '}');
		return;
	}
	size_t mid = lo + (hi - lo) / 2;
	OB_LIT(ob, "{\"if\":{\"properties\":{\"name\":");
	name_enum(ob, cl, names, lo, mid);
	OB_LIT(ob, "}},\"then\":");
	dispatch(ob, cl, names, lo, mid);
	OB_LIT(ob, ",\"else\":");
	dispatch(ob, cl, names, mid, hi);
	ob_putc(ob, '}');
}

int json_schema_write(const struct view *v, FILE *f, char *err, size_t errlen)
{
	char *mem = NULL;
	size_t memlen = 0, ncl = 0;
	struct cls *cl = NULL;
	struct outbuf ob;

	if (collect(v, &mem, &memlen, &cl, &ncl, err, errlen))
		return -1;
	size_t *names = malloc((ncl ? ncl : 1) * sizeof(*names)), nu = 0;   /* first class of each name */
	for (size_t k = 0; names && k < ncl; k++)
		if (!k || !same_cls_name(&cl[k - 1], &cl[k]))
			names[nu++] = k;
	if (!names || ob_init(&ob, f)) {
		free(names);
		free(cl);
		free(mem);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	OB_LIT(&ob, "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"title\":\"scry view --json\","
		    "\"description\":\"One object per line of scry view --json, by event class: $defs/NAME checks "
		    "the cpu_id, context and payload of the events named NAME.\",\"type\":\"object\",\"properties\":{"
		    "\"timestamp\":");
	int_range_schema(&ob, 64, true, NULL);
	OB_LIT(&ob, ",\"time\":{\"type\":\"string\",\"pattern\":"
		    "\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\\\.[0-9]{9}Z$\"},\"name\":");
	if (nu) {
		name_enum(&ob, cl, names, 0, nu);
	} else {
		OB_LIT(&ob, "{\"type\":\"string\",\"not\":{}}");   /* no event class: no event */
	}
	OB_LIT(&ob, ",\"cpu_id\":{\"type\":[\"integer\",\"null\"]},\"context\":{\"type\":\"object\"},"
		    "\"payload\":{\"type\":\"object\"}},"
		    "\"required\":[\"timestamp\",\"time\",\"name\",\"cpu_id\",\"context\",\"payload\"],"
		    "\"additionalProperties\":false");
	if (nu) {
		OB_LIT(&ob, ",\"$comment\":\"the event's class chosen by its name: if/then/else over halves of "
			    "the names down to $defs/NAME\",\"allOf\":[");
		dispatch(&ob, cl, names, 0, nu);
		ob_putc(&ob, ']');
	}
	OB_LIT(&ob, ",\"$defs\":{");
	for (size_t k = 0; k < ncl;) {
		size_t end = k + 1, nuniq = 0;

		while (end < ncl && same_cls_name(&cl[k], &cl[end]))
			end++;
		if (k)
			ob_putc(&ob, ',');
		json_str(&ob, cl[k].name, cl[k].len);
		ob_putc(&ob, ':');
		/* the distinct layouts of the classes of this name: one, or their anyOf */
		for (size_t q = k; q < end; q++)
			nuniq += first_layout(mem, cl, k, q);
		if (nuniq > 1)
			OB_LIT(&ob, "{\"anyOf\":[");
		for (size_t q = k, c = 0; q < end; q++) {
			if (!first_layout(mem, cl, k, q))
				continue;
			if (c++)
				ob_putc(&ob, ',');
			ob_write(&ob, mem + cl[q].off, cl[q].n);
		}
		if (nuniq > 1)
			OB_LIT(&ob, "]}");
		k = end;
	}
	OB_LIT(&ob, "}}\n");
	ob_free(&ob);
	free(names);
	free(cl);
	free(mem);
	if (ob.error) {
		snprintf(err, errlen, "write error: %s", strerror(errno));
		return -1;
	}
	return 0;
}
