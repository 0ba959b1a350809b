/* flagsets.c — printing of the named flag and enum sets of sets_*.c the way strace prints
 * them: flags in table order, each match consuming its bits ("O_RDWR|O_CREAT|O_CLOEXEC"),
 * leftover bits as "|0x40000000", an entirely unknown value as "0x10 / * PROT_??? * /",
 * zero as the set's zero name ("PROT_NONE", "F_OK") or "0"; enums by name or as
 * "0x7 / * SIG_??? * /". */
#include <pthread.h>
#include <string.h>
#include "format/format.h"
#include "format/fmt_internal.h"
#include "util/hash.h"

static const struct {
	const struct fmt_set *sets;
	const size_t *len;
} groups[] = {
	{ fmt_sets_file, &fmt_sets_file_len },
	{ fmt_sets_mem, &fmt_sets_mem_len },
	{ fmt_sets_proc, &fmt_sets_proc_len },
	{ fmt_sets_net, &fmt_sets_net_len },
	{ fmt_sets_misc, &fmt_sets_misc_len },
};

/* The sets by name: an open-addressed table built once (every argument of a flags or enum
 * kind looks its set up by name; a walk over all the sets with strcmp was a sixth of
 * `scry trace`'s printing). */
#define SET_SLOTS 512
static const struct fmt_set *set_index[SET_SLOTS];
static bool set_index_full;     /* more sets than the table takes: walk the lists */
static pthread_once_t set_index_once = PTHREAD_ONCE_INIT;

static unsigned set_hash(const char *name)
{
	return scry_hash_str(name) & (SET_SLOTS - 1);
}

static void set_index_build(void)
{
	size_t n = 0;

	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		n += *groups[g].len;
	if (n > SET_SLOTS / 2) {
		set_index_full = true;
		return;
	}
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (size_t i = 0; i < *groups[g].len; i++) {
			const struct fmt_set *s = &groups[g].sets[i];
			unsigned h = set_hash(s->name);

			while (set_index[h] && strcmp(set_index[h]->name, s->name))
				h = (h + 1) & (SET_SLOTS - 1);
			if (!set_index[h])   /* the first of a name wins, as the walk had it */
				set_index[h] = s;
		}
}

const struct fmt_set *fmt_set_find(const char *name)
{
	if (!name)
		return NULL;
	pthread_once(&set_index_once, set_index_build);
	if (set_index_full) {
		for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
			for (size_t i = 0; i < *groups[g].len; i++)
				if (!strcmp(groups[g].sets[i].name, name))
					return &groups[g].sets[i];
		return NULL;
	}
	for (unsigned h = set_hash(name); set_index[h]; h = (h + 1) & (SET_SLOTS - 1))
		if (!strcmp(set_index[h]->name, name))
			return set_index[h];
	return NULL;
}

const char *fmt_xlookup(const struct fmt_xval *vals, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n; i++)
		if (vals[i].v == v)
			return vals[i].name;
	return NULL;
}

const char *fmt_xlookup_set(const char *set, uint64_t v)
{
	const struct fmt_set *s = fmt_set_find(set);

	return s ? fmt_xlookup(s->vals, s->nvals, v) : NULL;
}

static void unknown_comment(struct outbuf *ob, const char *unknown)
{
	if (unknown && *unknown) {
		OB_LIT(ob, " /* ");
		ob_puts(ob, unknown);
		OB_LIT(ob, " */");
	}
}

/* The or-ed names of vals in v; *any tells whether something was printed before (and is
 * set when this prints something).  Returns the bits no name covered. */
static uint64_t put_names(struct outbuf *ob, const struct fmt_xval *vals, size_t n, uint64_t v, bool *any)
{
	for (size_t i = 0; i < n && v; i++) {
		if (!vals[i].v || (v & vals[i].v) != vals[i].v)
			continue;
		if (*any)
			ob_putc(ob, '|');
		ob_puts(ob, vals[i].name);
		*any = true;
		v &= ~vals[i].v;
	}
	return v;
}

void fmt_flags_vals(struct outbuf *ob, const struct fmt_xval *vals, size_t n, uint64_t v, const char *unknown)
{
	bool any = false;
	const char *zero;

	if (!v) {
		zero = fmt_xlookup(vals, n, 0);
		ob_puts(ob, zero ? zero : "0");
		return;
	}
	v = put_names(ob, vals, n, v, &any);
	if (!v)
		return;
	if (any) {
		ob_putc(ob, '|');
		fmt_hex(ob, v);
	} else {
		fmt_hex(ob, v);
		unknown_comment(ob, unknown);
	}
}

static const char *const futex_cmds[] = {
	"FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_FD", "FUTEX_REQUEUE", "FUTEX_CMP_REQUEUE",
	"FUTEX_WAKE_OP", "FUTEX_LOCK_PI", "FUTEX_UNLOCK_PI", "FUTEX_TRYLOCK_PI",
	"FUTEX_WAIT_BITSET", "FUTEX_WAKE_BITSET", "FUTEX_WAIT_REQUEUE_PI",
	"FUTEX_CMP_REQUEUE_PI", "FUTEX_LOCK_PI2",
};

static void put_futex(struct outbuf *ob, uint64_t v, const char *unknown)
{
	uint64_t cmd = v & ~(uint64_t)(128 | 256);

	if (cmd >= sizeof(futex_cmds) / sizeof(futex_cmds[0])) {
		fmt_hex(ob, v);
		unknown_comment(ob, unknown);
		return;
	}
	ob_puts(ob, futex_cmds[cmd]);
	if (v & 128) {
		if (cmd == 2)
			OB_LIT(ob, "|FUTEX_PRIVATE_FLAG");
		else
			OB_LIT(ob, "_PRIVATE");
	}
	if (v & 256)
		OB_LIT(ob, "|FUTEX_CLOCK_REALTIME");
}

/* An unknown ioctl request decoded as strace does: _IOC(_IOC_READ, 0x54, 0x1, 0x4). */
static void put_ioc(struct outbuf *ob, uint64_t v)
{
	static const char *const dirs[] = { "_IOC_NONE", "_IOC_WRITE", "_IOC_READ", "_IOC_READ|_IOC_WRITE" };

	OB_LIT(ob, "_IOC(");
	ob_puts(ob, dirs[(v >> 30) & 3]);
	OB_LIT(ob, ", ");
	fmt_hex(ob, (v >> 8) & 0xff);
	OB_LIT(ob, ", ");
	fmt_hex(ob, v & 0xff);
	OB_LIT(ob, ", ");
	fmt_hex(ob, (v >> 16) & 0x3fff);
	ob_putc(ob, ')');
}

static void put_enum(struct outbuf *ob, const struct fmt_set *s, uint64_t v)
{
	const char *name;

	if (s->special == SP_FUTEX) {
		put_futex(ob, v, s->unknown);
		return;
	}
	if ((name = fmt_xlookup(s->vals, s->nvals, v))) {
		ob_puts(ob, name);
		return;
	}
	if (s->special == SP_IOCTL) {
		put_ioc(ob, v);
		return;
	}
	if (!s->unknown) {
		ob_u64(ob, v);
		return;
	}
	fmt_hex(ob, v);
	unknown_comment(ob, s->unknown);
}

int fmt_xlat_style;

static void set_print_abbrev(struct outbuf *ob, const struct fmt_set *s, uint64_t v)
{
	unsigned width = s->width ? s->width : 32;
	uint64_t sig = 0, huge = 0, perm = 0, fv;
	bool any = false, trailer = false;
	const char *name;

	if (width < 64)
		v &= (1ULL << width) - 1;
	if (s->is_enum) {
		put_enum(ob, s, v);
		return;
	}
	switch (s->special) {
	case SP_PERSONALITY:
		if (v == 0xffffffff) {
			fmt_hex(ob, v);
			return;
		}
		break;
	case SP_CLONE:
		sig = v & 0xff;
		v &= ~(uint64_t)0xff;
		trailer = sig != 0;
		break;
	case SP_HUGE_SHIFT:
		huge = (v >> 26) & 0x3f;
		v &= ~(0x3fULL << 26);
		trailer = huge != 0;
		break;
	case SP_IPC_MODE:
		perm = v & 0777;
		v &= ~(uint64_t)0777;
		trailer = true;
		break;
	default:
		break;
	}
	switch (s->field) {
	case FLD_ENUM:
		fv = v & s->field_mask;
		if ((name = fmt_xlookup(s->fvals, s->nfvals, fv))) {
			ob_puts(ob, name);
			any = true;
			v &= ~s->field_mask;
		}
		break;
	case FLD_ENUM_FRESH:
		fv = v & s->field_mask;
		v &= ~s->field_mask;
		if (!fv)
			break;
		if ((name = fmt_xlookup(s->fvals, s->nfvals, fv))) {
			ob_puts(ob, name);
		} else {
			fmt_hex(ob, fv);
			unknown_comment(ob, s->unknown);
		}
		if (v) {
			ob_putc(ob, '|');
			fmt_flags_vals(ob, s->vals, s->nvals, v, s->unknown);
		}
		return;
	case FLD_FLAGS:
		fmt_flags_vals(ob, s->fvals, s->nfvals, v & s->field_mask, s->unknown);
		any = true;
		v &= ~s->field_mask;
		break;
	default:
		break;
	}
	if (!any && !v && !trailer) {
		name = fmt_xlookup(s->vals, s->nvals, 0);
		ob_puts(ob, name ? name : "0");
		return;
	}
	v = put_names(ob, s->vals, s->nvals, v, &any);
	if (v) {
		if (any) {
			ob_putc(ob, '|');
			fmt_hex(ob, v);
		} else {
			fmt_hex(ob, v);
			unknown_comment(ob, s->unknown);
		}
		any = true;
	}
	if (huge) {
		if (any)
			ob_putc(ob, '|');
		ob_u64(ob, huge);
		OB_LIT(ob, "<<");
		ob_puts(ob, s->shift_name);
	}
	if (sig) {
		if (any)
			ob_putc(ob, '|');
		fmt_signame(ob, (int64_t)sig);
	}
	if (s->special == SP_IPC_MODE) {
		if (any)
			ob_putc(ob, '|');
		fmt_oct(ob, perm);
	}
}

void scry_fmt_style(unsigned xflag, int xlat)
{
	fmt_xflag = xflag;
	fmt_xlat_style = xlat;
}

/* -X verbose: after the number written from h on, its names in a comment (names prints
 * them); names that begin with the number itself (no name: "0", "0x10 / * PROT_??? * /")
 * replace it instead.  The buffer must not be flushed meanwhile (ob_reserve first). */
static void verbose_names(struct outbuf *ob, size_t h, const struct fmt_set *s, int part, uint64_t v)
{
	size_t at = ob->n, hl = at - h;

	OB_LIT(ob, " /* ");
	if (part == 0)
		set_print_abbrev(ob, s, v);
	else if (part == 1 && s->field == FLD_FLAGS)
		fmt_flags_vals(ob, s->fvals, s->nfvals, v, s->unknown);
	else if (part == 1) {
		const char *name = fmt_xlookup(s->fvals, s->nfvals, v);

		if (name)
			ob_puts(ob, name);
		else
			fmt_hex(ob, v);
	} else
		fmt_flags_vals(ob, s->vals, s->nvals, v, s->unknown);
	if (ob->n < at)         /* flushed meanwhile: leave it so */
		return;
	if (ob->n - at - 4 >= hl && !memcmp(ob->buf + at + 4, ob->buf + h, hl)) {
		memmove(ob->buf + h, ob->buf + at + 4, ob->n - at - 4);
		ob->n -= at + 4 - h;
		return;
	}
	OB_LIT(ob, " */");
}

/* One number of a set in -X's style; part: 0 the whole set, 1 its field, 2 its flags. */
static void styled(struct outbuf *ob, const struct fmt_set *s, int part, uint64_t v)
{
	size_t h;

	ob_reserve(ob);
	h = ob->n;
	fmt_hex(ob, v);
	if (fmt_xlat_style == SCRY_XLAT_VERBOSE)
		verbose_names(ob, h, s, part, v);
}

/* -X raw: the number in hex; -X verbose: and its names in a comment (strace's xlat
 * styles); abbrev: the names.  A set with a field of its own (socket's type, statx's sync
 * type) in two parts, as strace prints them: 0x1|0x80800, raw statx's "|0x900". */
static void set_print(struct outbuf *ob, const struct fmt_set *s, uint64_t v)
{
	unsigned width = s->width ? s->width : 32;
	uint64_t fv, rest;

	if (fmt_xlat_style == SCRY_XLAT_ABBREV) {
		set_print_abbrev(ob, s, v);
		return;
	}
	if (width < 64)
		v &= (1ULL << width) - 1;
	if (s->field != FLD_FLAGS && s->field != FLD_ENUM_FRESH) {
		styled(ob, s, 0, v);
		return;
	}
	fv = v & s->field_mask;
	rest = v & ~s->field_mask;
	if (fv || (s->field == FLD_FLAGS && (fmt_xlat_style == SCRY_XLAT_VERBOSE || !rest)))
		styled(ob, s, 1, fv);
	if (rest) {
		ob_putc(ob, '|');
		styled(ob, s, 2, rest);
	}
}

/* The text of the last values printed, per thread, by (set, value, style): a traced
 * program passes the same flags again and again (find: O_RDONLY|O_NOCTTY|O_NONBLOCK|...
 * at every directory), and the walk over a set's names was ~300 instructions a value. */
#define SET_MEMO_SLOTS 64
#define SET_MEMO_TEXT 96
struct set_memo {
	const struct fmt_set *s;
	uint64_t v;
	int style;
	uint8_t len;
	char text[SET_MEMO_TEXT];
};
static _Thread_local struct set_memo set_memo[SET_MEMO_SLOTS];

void fmt_set_print(struct outbuf *ob, const struct fmt_set *s, uint64_t v)
{
	uintptr_t k = (uintptr_t)s ^ (v * 0x9e3779b97f4a7c15ULL);
	struct set_memo *m = &set_memo[(k ^ (k >> 29)) & (SET_MEMO_SLOTS - 1)];
	size_t at = ob->n;
	unsigned long flushes = ob->flushes;

	if (m->s == s && m->v == v && m->style == fmt_xlat_style) {
		ob_write(ob, m->text, m->len);
		return;
	}
	set_print(ob, s, v);
	if (ob->flushes == flushes && ob->n - at <= SET_MEMO_TEXT) {   /* the text whole, still here */
		m->s = s;
		m->v = v;
		m->style = fmt_xlat_style;
		m->len = (uint8_t)(ob->n - at);
		memcpy(m->text, ob->buf + at, m->len);
	}
}

void fmt_named(struct outbuf *ob, const char *set, uint64_t v)
{
	const struct fmt_set *s = fmt_set_find(set);

	if (s)
		fmt_set_print(ob, s, v);
	else
		fmt_hex(ob, v);
}

bool scry_fmt_flags(struct outbuf *ob, const char *set, uint64_t v)
{
	const struct fmt_set *s = fmt_set_find(set);

	if (!s)
		return false;
	fmt_set_print(ob, s, v);
	return true;
}

bool scry_fmt_enum(struct outbuf *ob, const char *set, uint64_t v)
{
	return scry_fmt_flags(ob, set, v);
}

bool scry_fmt_set_exists(const char *set, bool is_enum)
{
	const struct fmt_set *s = fmt_set_find(set);

	return s && s->is_enum == is_enum;
}
