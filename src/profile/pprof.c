/* pprof.c — the profile as pprof's profile.proto (google/pprof, vendored in proto/,
 * encoded by protobuf-c), gzipped (zlib): sample types samples/count and cpu/nanoseconds
 * (count x the period, 1e9 / frequency), or for an off-CPU profile off-cpu/nanoseconds
 * alone; a location per frame (its address and mapping) with a line naming its function
 * (and, --lines, its line number), the frames inlined there (--inline) lines of the same
 * location before it, innermost first, as pprof has them; a function per name and source
 * file (--lines: the name alone, the file its filename); a mapping per file mapped (its build id),
 * labels pid, tid and comm on each sample, the event's name as the profile's comment (read
 * back by pprof_read.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "perftools/profiles/profile.pb-c.h"
#include "profile/profile.h"
#include "util/dirh.h"

typedef Perftools__Profiles__Profile PProfile;
typedef Perftools__Profiles__ValueType PValueType;
typedef Perftools__Profiles__Sample PSample;
typedef Perftools__Profiles__Label PLabel;
typedef Perftools__Profiles__Mapping PMapping;
typedef Perftools__Profiles__Location PLocation;
typedef Perftools__Profiles__Line PLine;
typedef Perftools__Profiles__Function PFunction;

enum { X_SAMPLES, X_COUNT, X_CPU, X_NS, X_PID, X_TID, X_COMM, X_OFFCPU, X_EVENT, X_NR };
static const char *const extra[X_NR] = { "samples", "count", "cpu", "nanoseconds", "pid", "tid", "comm", "off-cpu",
					  NULL };

struct enc {
	PValueType vt[3], *vtp[2];
	PSample *samples, **samplep;
	PLabel *labels, **labelp;
	int64_t *values;
	uint64_t *locids;
	PMapping *maps, **mapp;
	PLocation *locs, **locp;
	PLine *lines, **linep;
	PFunction *funcs, **funcp;
	int64_t comment;
	uint64_t *func_of;         /* name string id -> its first function's id (0: none yet) */
	uint64_t *func_next;       /* function id -> the next one of the same name (0: none) */
	uint64_t *loc_of;          /* frame -> its location's id (0: none yet) */
	char **strs;
};

static void enc_free(struct enc *e)
{
	free(e->samples); free(e->samplep); free(e->labels); free(e->labelp); free(e->values);
	free(e->locids); free(e->maps); free(e->mapp); free(e->locs); free(e->locp); free(e->lines);
	free(e->linep); free(e->funcs); free(e->funcp); free(e->func_of); free(e->func_next); free(e->loc_of);
	free(e->strs);
}

/* string index in the proto's table: "" first, then the profile's, then the extras */
#define S(id) ((int64_t)(id) + 1)
#define X(k) ((int64_t)(p->nstrs + 1 + (k)))

/* The function of frame f: its name (--lines: the name alone) in its source file. */
static uint64_t function_of(const struct scry_prof *p, struct enc *e, const struct scry_prof_frame *f, size_t *nfunc)
{
	uint32_t name = f->func ? f->func - 1 : f->name;
	int64_t file = f->file ? S(f->file - 1) : 0;
	uint64_t id = e->func_of[name];
	PFunction *fn;

	for (; id; id = e->func_next[id])
		if (e->funcs[id - 1].filename == file)
			return id;
	fn = &e->funcs[*nfunc];
	perftools__profiles__function__init(fn);
	fn->id = *nfunc + 1;
	fn->name = fn->system_name = S(name);
	fn->filename = file;
	e->funcp[(*nfunc)++] = fn;
	e->func_next[fn->id] = e->func_of[name];
	e->func_of[name] = fn->id;
	return fn->id;
}

/* The location of the frames fr[0..n) (leaf first): the first of them and those inlined in
 * it up to their caller, one location whose lines they are; *used: how many. */
static uint64_t location_of(const struct scry_prof *p, struct enc *e, const uint32_t *fr, uint32_t n, uint32_t *used,
			    size_t *nloc, size_t *nline, size_t *nfunc)
{
	uint32_t k = 0, last;
	PLocation *l;

	while (k + 1 < n && p->frames[fr[k]].inlined)
		k++;
	*used = k + 1;
	last = fr[k];
	if (e->loc_of[last])
		return e->loc_of[last];
	l = &e->locs[*nloc];
	perftools__profiles__location__init(l);
	l->id = *nloc + 1;
	l->mapping_id = p->frames[last].mapping;
	l->address = p->frames[last].addr;
	l->n_line = k + 1;
	l->line = &e->linep[*nline];
	for (uint32_t j = 0; j <= k; j++) {
		PLine *ln = &e->lines[*nline];

		perftools__profiles__line__init(ln);
		ln->function_id = function_of(p, e, &p->frames[fr[j]], nfunc);
		ln->line = p->frames[fr[j]].line;
		e->linep[(*nline)++] = ln;
	}
	e->locp[(*nloc)++] = l;
	return e->loc_of[last] = l->id;
}

static int encode(const struct scry_prof *p, struct enc *e, PProfile *pr)
{
	size_t ns = p->nsamples, nf = p->nframes, nm = p->nmaps, nfunc = 0, nv = 0, nloc = 0, nline = 0;
	uint64_t period = p->freq ? 1000000000ULL / p->freq : 0;

	e->strs = calloc(p->nstrs + 1 + X_NR, sizeof(*e->strs));
	e->samples = calloc(ns + 1, sizeof(*e->samples));
	e->samplep = calloc(ns + 1, sizeof(*e->samplep));
	e->labels = calloc(3 * ns + 1, sizeof(*e->labels));
	e->labelp = calloc(3 * ns + 1, sizeof(*e->labelp));
	e->values = calloc(2 * ns + 1, sizeof(*e->values));
	e->locids = calloc(p->nstack + 1, sizeof(*e->locids));
	e->maps = calloc(nm + 1, sizeof(*e->maps));
	e->mapp = calloc(nm + 1, sizeof(*e->mapp));
	e->locs = calloc(nf + 1, sizeof(*e->locs));
	e->locp = calloc(nf + 1, sizeof(*e->locp));
	e->lines = calloc(p->nstack + nf + 1, sizeof(*e->lines));   /* a location's lines: frames of a stack */
	e->linep = calloc(p->nstack + nf + 1, sizeof(*e->linep));
	e->funcs = calloc(nf + 1, sizeof(*e->funcs));
	e->funcp = calloc(nf + 1, sizeof(*e->funcp));
	e->func_of = calloc(p->nstrs + 1, sizeof(*e->func_of));
	e->func_next = calloc(nf + 2, sizeof(*e->func_next));
	e->loc_of = calloc(nf + 1, sizeof(*e->loc_of));
	if (!e->strs || !e->samples || !e->samplep || !e->labels || !e->labelp || !e->values || !e->locids ||
	    !e->maps || !e->mapp || !e->locs || !e->locp || !e->lines || !e->linep || !e->funcs || !e->funcp ||
	    !e->func_of || !e->func_next || !e->loc_of)
		return -ENOMEM;
	e->strs[0] = "";
	for (size_t i = 0; i < p->nstrs; i++)
		e->strs[i + 1] = p->strs[i];
	for (size_t k = 0; k < X_NR; k++)
		e->strs[p->nstrs + 1 + k] = (char *)extra[k];
	e->strs[X(X_EVENT)] = (char *)(p->event ? p->event : "");
	e->comment = X(X_EVENT);
	pr->n_comment = 1;
	pr->comment = &e->comment;
	pr->n_string_table = p->nstrs + 1 + X_NR;
	pr->string_table = e->strs;

	for (unsigned i = 0; i < 3; i++)
		perftools__profiles__value_type__init(&e->vt[i]);
	e->vt[0].type = X(X_SAMPLES); e->vt[0].unit = X(X_COUNT);
	e->vt[1].type = X(X_CPU); e->vt[1].unit = X(X_NS);
	e->vt[2] = e->vt[1];
	e->vtp[0] = &e->vt[0];
	e->vtp[1] = &e->vt[1];
	pr->n_sample_type = 2;
	if (p->offcpu) {          /* one value: the nanoseconds blocked; nothing sampled */
		e->vt[0].type = X(X_OFFCPU); e->vt[0].unit = X(X_NS);
		e->vt[2] = e->vt[0];
		pr->n_sample_type = 1;
		period = 0;
	}
	pr->sample_type = e->vtp;
	pr->period_type = &e->vt[2];
	pr->period = (int64_t)period;
	pr->time_nanos = (int64_t)p->start_ns;
	pr->duration_nanos = (int64_t)p->duration_ns;

	for (size_t i = 0; i < nm; i++) {
		PMapping *m = &e->maps[i];
		const struct scry_prof_mapping *sm = &p->maps[i];

		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->memory_start = sm->start;
		m->memory_limit = sm->limit;
		m->file_offset = sm->pgoff;
		m->filename = S(sm->path);
		m->build_id = S(sm->build_id);
		m->has_functions = true;
		e->mapp[i] = m;
	}
	pr->n_mapping = nm;
	pr->mapping = e->mapp;

	for (size_t i = 0; i < ns; i++) {
		const struct scry_prof_sample *s = &p->samples[i];
		const uint32_t *fr = scry_prof_frames(p, s);
		PSample *ps = &e->samples[i];
		PLabel *lb = &e->labels[3 * i];

		uint32_t nl = 0, used;

		perftools__profiles__sample__init(ps);
		for (uint32_t k = 0; k < s->nframes; k += used)      /* leaf first, as pprof wants */
			e->locids[s->first + nl++] = location_of(p, e, fr + k, s->nframes - k, &used, &nloc, &nline,
								 &nfunc);
		ps->n_location_id = nl;
		ps->location_id = e->locids + s->first;
		e->values[nv] = (int64_t)(p->offcpu ? s->count * 1000 : s->count);
		e->values[nv + 1] = (int64_t)(s->count * period);
		ps->n_value = pr->n_sample_type;
		ps->value = e->values + nv;
		nv += 2;
		for (unsigned k = 0; k < 3; k++) {
			perftools__profiles__label__init(&lb[k]);
			e->labelp[3 * i + k] = &lb[k];
		}
		lb[0].key = X(X_PID); lb[0].num = s->tgid;
		lb[1].key = X(X_TID); lb[1].num = s->pid;
		lb[2].key = X(X_COMM); lb[2].str = S(s->comm);
		ps->n_label = 3;
		ps->label = e->labelp + 3 * i;
		e->samplep[i] = ps;
	}
	pr->n_sample = ns;
	pr->sample = e->samplep;
	pr->n_location = nloc;
	pr->location = e->locp;
	pr->n_function = nfunc;
	pr->function = e->funcp;
	return 0;
}

int scry_prof_write_pprof(const struct scry_prof *p, const char *path, char *err, size_t errlen)
{
	PProfile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	struct enc e = { 0 };
	uint8_t *buf = NULL;
	size_t len;
	gzFile gz = NULL;
	int fd;
	int ret;

	if ((ret = encode(p, &e, &pr))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	len = perftools__profiles__profile__get_packed_size(&pr);
	if (!(buf = malloc(len ? len : 1))) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	perftools__profiles__profile__pack(&pr, buf);
	/* no symlink or file of another user written (util/dirh.h) */
	if ((fd = scry_open_output(AT_FDCWD, path, NULL, false, err, errlen)) < 0) {
		ret = fd;
		goto out;
	}
	if (!(gz = gzdopen(fd, "wb9"))) {
		close(fd);
		ret = -ENOMEM;
		snprintf(err, errlen, "cannot write %s: out of memory", path);
		goto out;
	}
	if (len && gzwrite(gz, buf, (unsigned)len) != (int)len) {
		ret = -EIO;
		snprintf(err, errlen, "cannot write %s: write error", path);
	}
	if (gzclose(gz) != Z_OK && !ret) {
		ret = -EIO;
		snprintf(err, errlen, "cannot write %s: write error", path);
	}
out:
	free(buf);
	enc_free(&e);
	return ret;
}
