/* pprof_read.c — a saved profile read back (scry profile -i): pprof's profile.proto,
 * gzipped or not, decoded by protobuf-c into the profile's tables (profile.h), so that
 * --report and the other outputs work on it as on a profile just taken.  scry's own files
 * come back whole (event from the comment, frequency from the period, pid/tid/comm labels,
 * kernel frames by their [kernel.kallsyms] mapping); another tool's too, as far as they
 * say: a location's inline lines become frames, innermost first, as pprof shows them, each
 * named "function (file.c:LINE)" (as --lines names them) when its line has a number and its
 * function a file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "perftools/profiles/profile.pb-c.h"
#include "profile/profile.h"

#define PPROF_MAX_BYTES (1u << 30)     /* a profile larger than 1 GiB unpacked is refused */

typedef Perftools__Profiles__Profile PProfile;
typedef Perftools__Profiles__Line PLineR;

struct id_ix {                   /* a message id and its index */
	uint64_t id;
	size_t ix;
};

static int by_id(const void *a, const void *b)
{
	const struct id_ix *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The index of id in ix (n sorted entries); -1 when absent. */
static long find(const struct id_ix *ix, size_t n, uint64_t id)
{
	struct id_ix k = { .id = id }, *r = bsearch(&k, ix, n, sizeof(*ix), by_id);

	return r ? (long)r->ix : -1;
}

/* The whole file, gunzipped when it is gzip (zlib reads a plain file as it is). */
static uint8_t *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = NULL;
	int r;

	if (!gz) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno ? errno : ENOMEM));
		return NULL;
	}
	for (;;) {
		if (!buf || n == cap) {
			size_t nc = buf ? 2 * cap : cap;
			uint8_t *nb = nc <= PPROF_MAX_BYTES ? realloc(buf, nc) : NULL;

			if (!nb) {
				snprintf(err, errlen, nc > PPROF_MAX_BYTES ? "cannot read %s: larger than 1 GiB" : "out of memory", path);
				free(buf);
				gzclose(gz);
				return NULL;
			}
			buf = nb;
			cap = nc;
		}
		if ((r = gzread(gz, buf + n, (unsigned)(cap - n))) <= 0)
			break;
		n += (size_t)r;
	}
	if (r < 0) {
		int e;
		snprintf(err, errlen, "cannot read %s: %s", path, gzerror(gz, &e));
		free(buf);
		buf = NULL;
	}
	gzclose(gz);
	*len = n;
	return buf;
}

static const char *str(const PProfile *pr, int64_t i)
{
	return i >= 0 && (size_t)i < pr->n_string_table ? pr->string_table[i] : NULL;
}

/* pr into p.  0, or -EINVAL / -ENOMEM with a reason in err. */
static int convert(const PProfile *pr, struct scry_prof *p, const char *path, char *err, size_t errlen)
{
	struct id_ix *mix = calloc(pr->n_mapping + 1, sizeof(*mix)), *lix = calloc(pr->n_location + 1, sizeof(*lix));
	struct id_ix *fix = calloc(pr->n_function + 1, sizeof(*fix));
	uint32_t *maps = calloc(pr->n_mapping + 1, sizeof(*maps)), *fr = NULL;
	size_t vcount = 0, nfr = 0;
	int ret = -ENOMEM;

	if (!mix || !lix || !fix || !maps)
		goto out;
	for (size_t i = 0; i < pr->n_sample_type; i++) {       /* the value that counts samples */
		const char *t = str(pr, pr->sample_type[i]->type), *u = str(pr, pr->sample_type[i]->unit);

		if (t && u && !strcmp(t, "samples") && !strcmp(u, "count")) {
			vcount = i;
			break;
		}
		if (t && u && !strcmp(t, "off-cpu") && !strcmp(u, "nanoseconds")) {   /* scry's --off-cpu */
			vcount = i;
			p->offcpu = true;
			break;
		}
	}
	if (pr->n_comment && str(pr, pr->comment[0]) && *str(pr, pr->comment[0])) {
		uint32_t ev = scry_prof_str(p, str(pr, pr->comment[0]));

		if (ev == UINT32_MAX)
			goto out;
		p->event = scry_prof_s(p, ev);
	}
	p->freq = pr->period > 0 ? (unsigned)((1000000000LL + pr->period / 2) / pr->period) : 0;
	p->start_ns = (uint64_t)pr->time_nanos;
	p->duration_ns = (uint64_t)pr->duration_nanos;
	for (size_t i = 0; i < pr->n_mapping; i++) {
		const Perftools__Profiles__Mapping *m = pr->mapping[i];
		struct scry_prof_mapping sm = { .start = m->memory_start, .limit = m->memory_limit, .pgoff = m->file_offset };
		const char *file = str(pr, m->filename), *bid = str(pr, m->build_id);

		sm.path = scry_prof_str(p, file ? file : "[unknown]");
		sm.build_id = scry_prof_str(p, bid ? bid : "");
		if (sm.path == UINT32_MAX || sm.build_id == UINT32_MAX || (maps[i] = scry_prof_mapping(p, &sm)) == UINT32_MAX)
			goto out;
		mix[i] = (struct id_ix){ .id = m->id, .ix = i };
	}
	for (size_t i = 0; i < pr->n_location; i++)
		lix[i] = (struct id_ix){ .id = pr->location[i]->id, .ix = i };
	for (size_t i = 0; i < pr->n_function; i++)
		fix[i] = (struct id_ix){ .id = pr->function[i]->id, .ix = i };
	qsort(mix, pr->n_mapping, sizeof(*mix), by_id);
	qsort(lix, pr->n_location, sizeof(*lix), by_id);
	qsort(fix, pr->n_function, sizeof(*fix), by_id);

	for (size_t i = 0; i < pr->n_sample; i++) {
		const Perftools__Profiles__Sample *s = pr->sample[i];
		uint32_t pid = 0, tid = 0, n = 0;
		const char *comm = "";

		if (vcount >= s->n_value || s->value[vcount] <= 0)
			continue;
		for (size_t k = 0; k < s->n_label; k++) {
			const char *key = str(pr, s->label[k]->key);

			if (!key)
				continue;
			if (!strcmp(key, "pid"))
				pid = (uint32_t)s->label[k]->num;
			else if (!strcmp(key, "tid"))
				tid = (uint32_t)s->label[k]->num;
			else if (!strcmp(key, "comm") && str(pr, s->label[k]->str))
				comm = str(pr, s->label[k]->str);
		}
		for (size_t k = 0; k < s->n_location_id; k++) {
			long li = find(lix, pr->n_location, s->location_id[k]), mi;
			const Perftools__Profiles__Location *l;

			if (li < 0) {
				snprintf(err, errlen, "%s: sample %zu names location %llu, which is not in the file", path, i,
					 (unsigned long long)s->location_id[k]);
				ret = -EINVAL;
				goto out;
			}
			l = pr->location[li];
			mi = l->mapping_id ? find(mix, pr->n_mapping, l->mapping_id) : -1;
			for (size_t j = 0; j < (l->n_line ? l->n_line : 1); j++) {
				long fi = l->n_line ? find(fix, pr->n_function, l->line[j]->function_id) : -1;
				const char *name = fi >= 0 ? str(pr, pr->function[fi]->name) : NULL;
				const char *mpath = mi >= 0 ? str(pr, pr->mapping[mi]->filename) : NULL;
				struct scry_prof_frame f = {
					.mapping = mi >= 0 ? maps[mi] + 1 : 0, .addr = l->address,
					.kernel = mpath ? !strcmp(mpath, "[kernel.kallsyms]") : l->address >= 0xffff800000000000ULL,
				};
				uint32_t *nf;

				const PLineR *ln = l->n_line ? l->line[j] : NULL;
				const char *file = fi >= 0 ? str(pr, pr->function[fi]->filename) : NULL;

				name = name && *name ? name : "[unknown]";
				f.inlined = j + 1 < l->n_line;
				if (ln && ln->line > 0 && ln->line <= UINT32_MAX && file && *file) {
					const char *b = strrchr(file, '/');
					char label[512];
					uint32_t fn = scry_prof_str(p, name), fl = scry_prof_str(p, file);

					if (fn == UINT32_MAX || fl == UINT32_MAX)
						goto out;
					snprintf(label, sizeof(label), "%s (%s:%lld)", name, b ? b + 1 : file, (long long)ln->line);
					f.func = fn + 1;
					f.file = fl + 1;
					f.line = (uint32_t)ln->line;
					f.name = scry_prof_str(p, label);
				} else {
					f.name = scry_prof_str(p, name);
				}
				if (n == nfr) {
					nfr = nfr ? 2 * nfr : 64;
					if (!(nf = realloc(fr, nfr * sizeof(*fr))))
						goto out;
					fr = nf;
				}
				if (f.name == UINT32_MAX || (fr[n++] = scry_prof_frame(p, &f)) == UINT32_MAX)
					goto out;
			}
		}
		if (scry_prof_add(p, tid ? tid : pid, pid, comm, p->offcpu ? (uint64_t)s->value[vcount] / 1000 : (uint64_t)s->value[vcount], fr, n))
			goto out;
	}
	ret = 0;
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(mix);
	free(lix);
	free(fix);
	free(maps);
	free(fr);
	return ret;
}

int scry_prof_read_pprof(struct scry_prof *p, const char *path, char *err, size_t errlen)
{
	size_t len = 0;
	uint8_t *buf = slurp(path, &len, err, errlen);
	PProfile *pr;
	int ret;

	if (!buf)
		return -EIO;
	pr = perftools__profiles__profile__unpack(NULL, len, buf);
	free(buf);
	if (!pr) {
		snprintf(err, errlen, "%s: not a pprof profile (profile.proto, gzipped or not)", path);
		return -EINVAL;
	}
	ret = convert(pr, p, path, err, errlen);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	return ret;
}
