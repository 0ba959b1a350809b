/* profile.h — a CPU profile in user space: samples (a thread, its command name, a count and
 * a stack of frames), frames (a function name, kernel or user, its mapping and address) and
 * mappings (a file, its build id, where it was mapped), with every string interned once.
 * Built from what the kernel counted (collect.c) or read from a saved pprof file
 * (pprof_read.c), written as folded stacks (folded.c), an SVG flame graph (flamegraph.c),
 * pprof's profile.proto (pprof.c) or perf report's text (report.c). */
#ifndef SCRY_PROFILE_PROFILE_H
#define SCRY_PROFILE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct scry_prof_frame {
	uint32_t name;          /* string id: the function, "[libc.so.6]" (no symbol), "[unknown]";
	                         *   with --lines "func (file.c:12)" (the folded stacks' label) */
	uint32_t mapping;       /* mapping index + 1, 0: none (kernel, unknown) */
	uint64_t addr;          /* the address sampled (the call's for a return address) */
	bool kernel;
	bool inlined;           /* inlined at addr into the next frame of the stack (its caller):
	                         *   pprof's lines of one location */
	uint32_t func;          /* --lines: string id + 1 of the function's name alone (0: name) */
	uint32_t file;          /* --lines: string id + 1 of its source file's path (0: none) */
	uint32_t line;          /* --lines: its line (0: none) */
};

struct scry_prof_mapping {
	uint32_t path, build_id;   /* string ids (build id "" when none) */
	uint64_t start, limit, pgoff;
};

struct scry_prof_sample {
	uint32_t pid, tgid;
	uint32_t comm;          /* string id */
	uint64_t count;
	uint32_t first;         /* its frames: stack[first .. first + nframes), leaf first */
	uint32_t nframes;
};

struct scry_prof_table {        /* interning: open addressing over indexes + 1 */
	uint32_t *slots;
	size_t cap;
};

struct scry_prof {
	char **strs;
	size_t nstrs, capstrs;
	struct scry_prof_table str_ix;
	struct scry_prof_frame *frames;
	size_t nframes, capframes;
	struct scry_prof_table frame_ix;
	struct scry_prof_mapping *maps;
	size_t nmaps, capmaps;
	struct scry_prof_table map_ix;
	uint32_t *stack;
	size_t nstack, capstack;
	struct scry_prof_sample *samples;
	size_t nsamples, capsamples;
	uint64_t total;         /* sum of the samples' counts */
	/* how it was taken */
	const char *event;      /* "cpu-clock", "off-cpu" */
	bool offcpu;            /* the counts are microseconds blocked, not samples */
	unsigned freq;          /* Hz per CPU */
	uint64_t start_ns;      /* CLOCK_REALTIME at start */
	uint64_t duration_ns;
};

void scry_prof_init(struct scry_prof *p);
void scry_prof_free(struct scry_prof *p);
/* Interned: the id of string s (added when new); UINT32_MAX when out of memory. */
uint32_t scry_prof_str(struct scry_prof *p, const char *s);
static inline const char *scry_prof_s(const struct scry_prof *p, uint32_t id) { return p->strs[id]; }
uint32_t scry_prof_frame(struct scry_prof *p, const struct scry_prof_frame *f);
uint32_t scry_prof_mapping(struct scry_prof *p, const struct scry_prof_mapping *m);
/* A sample of frames (ids, leaf first).  0 or -ENOMEM. */
int scry_prof_add(struct scry_prof *p, uint32_t pid, uint32_t tgid, const char *comm, uint64_t count,
		  const uint32_t *frames, uint32_t nframes);
static inline const uint32_t *scry_prof_frames(const struct scry_prof *p, const struct scry_prof_sample *s)
{
	return p->stack + s->first;
}

/* The outputs.  0, or -errno with a one-line reason in err. */
int scry_prof_write_folded(const struct scry_prof *p, FILE *f);
int scry_prof_write_svg(const struct scry_prof *p, FILE *f, const char *title);
int scry_prof_write_pprof(const struct scry_prof *p, const char *path, char *err, size_t errlen);
/* A profile saved as pprof (gzipped or not: scry's -o X.pb.gz, or another tool's) read into
 * p (initialized, empty).  0, or -errno with a one-line reason in err. */
int scry_prof_read_pprof(struct scry_prof *p, const char *path, char *err, size_t errlen);
/* perf report's table: functions by self (and total) share, the top n (0: all). */
int scry_prof_write_report(const struct scry_prof *p, FILE *f, unsigned n);

/* A folded line's frame name: kernel frames end in "_[k]" (FlameGraph's convention). */
void scry_prof_frame_label(const struct scry_prof *p, uint32_t frame, char *buf, size_t len);

#endif
